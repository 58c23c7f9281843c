"""Plan and the Planner protocol: the contract between planners and the tree compiler.

A plan is an ordered list of skill calls plus the planner's notes. An empty
plan means "already done". A planner is anything with
``plan(task, world_state, prior_attempts) -> Plan``; replans pass every
``AttemptRecord`` so far so the planner can see what already failed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from bt_executive.skills.call import AttemptRecord, SkillCall
from bt_executive.skills.world_state import WorldState


class Plan(BaseModel):
    """Ordered skill calls for one task (or for the remaining work after a replan)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    steps: tuple[SkillCall, ...] = ()
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


@runtime_checkable
class Planner(Protocol):
    """Anything that turns a task into a plan."""

    def plan(self, task: str, world_state: WorldState, prior_attempts: Sequence[AttemptRecord] = ()) -> Plan:
        """Return a plan for ``task`` given the world and what was already tried."""
        ...
