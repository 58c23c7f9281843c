"""Plan and the Planner protocol: the contract between planners and the tree compiler.

A plan is an ordered list of skill calls, the task's **goal** (ground
predicates that must hold in the world when the task is done, such as
``on(red_cube, plate)``) and the planner's notes. An empty plan means
"already done": its goal already holds. A planner is anything with
``plan(task, world_state, prior_attempts) -> Plan``; replans pass every
``AttemptRecord`` so far so the planner can see what already failed.

A planner may also **refuse** (``PlannerRefused``): the task is out of scope,
impossible here (no such object, no such skill) or unsafe. That is an
answer, not a failure: the task ends ``planner_refused`` with the reason,
and nothing moves.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from enum import StrEnum
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from bt_executive.skills.call import AttemptRecord, SkillCall
from bt_executive.skills.predicates import PredicateText
from bt_executive.skills.world_state import WorldState


class Plan(BaseModel):
    """Ordered skill calls for one task (or for the remaining work after a replan)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    steps: tuple[SkillCall, ...] = ()
    goal: tuple[PredicateText, ...] = Field(
        default=(), description="ground predicates that hold in the world when the task is done"
    )
    notes: str = Field(default="", max_length=4000)
    planner: str = Field(default="", description="which planner/profile produced it")

    def steps_json(self) -> list[JsonValue]:
        """The steps as JSON data (no empty prompts or rationales), for events and logs."""
        return [s.model_dump(mode="json", exclude_none=True) for s in self.steps]

    @property
    def is_done(self) -> bool:
        """An empty plan: the planner judged the task already achieved."""
        return not self.steps


class PlannerError(RuntimeError):
    """The planner could not produce a valid plan; the task ends with ``planner_error``."""


class RefusalKind(StrEnum):
    """Why a planner refused: the request is not for this robot, cannot be done here, or must not be."""

    OUT_OF_SCOPE = "out_of_scope"  # not a task for the robot (delete skills, run a shell, ...)
    NO_SUCH_OBJECT = "no_such_object"  # names an object the world state does not have
    AMBIGUOUS = "ambiguous"  # names several objects equally well
    NOT_AFFORDED = "not_afforded"  # the object does not allow it (pick up the table)
    MISSING_SKILL = "missing_skill"  # this robot has no skill for it
    UNSAFE = "unsafe"
    UNFAITHFUL = "unfaithful"  # a model's plan that does not do what the task says (llm/model/faithfulness.py)


MAX_TASK_CHARS = 2000
"""The longest task any planner reads; the executive's intake holds goals to the same bound."""


class PlannerRefused(PlannerError):
    """A planner's considered answer that it will not plan this task; the task ends ``planner_refused``.

    A subclass of ``PlannerError`` so that everything that stops on a planner
    error also stops on a refusal; the task tree tells them apart.
    """

    def __init__(self, reason: str, kind: RefusalKind = RefusalKind.OUT_OF_SCOPE, candidates: Sequence[str] = ()):
        self.reason = reason
        self.kind = kind
        self.candidates = tuple(candidates)
        listed = f" (candidates: {', '.join(self.candidates)})" if self.candidates else ""
        super().__init__(f"refused ({kind.value}): {reason}{listed}")


def refuse_unreadable(task: str) -> None:
    """Refuse a blank or oversized task at once, before any grammar or model spends time on it."""
    if not task.strip():
        raise PlannerRefused("the task is blank: say what the robot should do", RefusalKind.OUT_OF_SCOPE)
    if len(task) > MAX_TASK_CHARS:
        raise PlannerRefused(
            f"the task is {len(task)} characters; a task is at most {MAX_TASK_CHARS}", RefusalKind.OUT_OF_SCOPE
        )


@runtime_checkable
class Planner(Protocol):
    """Anything that turns a task into a plan."""

    def plan(self, task: str, world_state: WorldState, prior_attempts: Sequence[AttemptRecord] = ()) -> Plan:
        """Return a plan for ``task`` given the world and what was already tried."""
        ...


# Optional abilities a planner may have, each named so callers test for it with isinstance, not by probing.


@runtime_checkable
class ContextPlanner(Protocol):
    """A planner that takes hints with the task: what the grammar read of it, the ids it names."""

    def plan_with_context(
        self, task: str, world_state: WorldState, prior_attempts: Sequence[AttemptRecord], context: Sequence[str]
    ) -> Plan:
        """``plan`` with ``context`` lines for the model (never instructions; the task stays data)."""
        ...


class KeywordContextPlanner(ABC):
    """A base for planners whose ``plan`` takes the context as a keyword: ``plan_with_context`` passes it on."""

    @abstractmethod
    def plan(
        self,
        task: str,
        world_state: WorldState,
        prior_attempts: Sequence[AttemptRecord] = (),
        *,
        context: Sequence[str] = (),
    ) -> Plan:
        """A checked plan for ``task``, or PlannerError."""

    def plan_with_context(
        self, task: str, world_state: WorldState, prior_attempts: Sequence[AttemptRecord], context: Sequence[str]
    ) -> Plan:
        """``plan`` with the caller's context (``ContextPlanner``)."""
        return self.plan(task, world_state, prior_attempts, context=context)


@runtime_checkable
class WarmablePlanner(Protocol):
    """A planner with something slow to start (a local model, its prompt cache) that can start before a task."""

    def warm(self, world_state: WorldState) -> None:
        """Start what the first plan would wait for."""
        ...


@runtime_checkable
class ClosablePlanner(Protocol):
    """A planner that holds something to release (a model server it started)."""

    def close(self) -> None:
        """Release it; the planner may be asked to plan again afterwards and restart it."""
        ...
