"""The state one task's tree shares: its planner, attempts, plan history, replan budget and ending.

Compiled nodes of one task (steps, attempts, replan nodes) read and write
this object on the tick thread only; the planner worker gets copies. It is
also where the task's events come from (step start/end, retries, recoveries,
plans, the final reason) for the event log and the viewer.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from bt_executive.llm.plan import Plan, Planner, PlannerRefused
from bt_executive.skills.call import AttemptRecord, SkillCall, SkillResult
from bt_executive.skills.leaf import WorldStateSource
from bt_executive.skills.manifest import SkillManifest
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import WorldState
from bt_executive.trees.recovery import RecoveryPolicy

if TYPE_CHECKING:
    from bt_executive.trees.leaf_factory import LeafFactory


WORLD_FRESHNESS_WAIT_S = 1.0
"""How long conditions wait for a world state newer than the last skill result before using the old one."""


class FinalReason(StrEnum):
    """How a task ended (``aborted`` is written ``aborted:<kind>``)."""

    DONE = "done"
    REPLAN_EXHAUSTED = "replan_exhausted"
    ABORTED = "aborted"
    PREEMPTED = "preempted"
    PLANNER_ERROR = "planner_error"
    PLANNER_REFUSED = "planner_refused"
    LOST = "lost"
    """The executive died mid-task; written into its run directory by the next executive on the same runs root."""


class TaskEvent(BaseModel):
    """One thing that happened in a task, for the event log and the viewer's timeline."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: str
    t: float = Field(description="seconds since the task started")
    plan: int | None = None
    step: int | None = None
    data: dict[str, JsonValue] = Field(default_factory=dict)


@dataclass
class StepState:
    """What one compiled step knows about its own run: its call, manifest and how it has failed so far."""

    plan_index: int
    number: int
    call: SkillCall
    manifest: SkillManifest
    retries: int = 0
    recoveries: list[str] = field(default_factory=list)
    last_failure: SkillResult | None = None
    escalated: bool = False

    @property
    def label(self) -> str:
        """``Step 2 · place_on(plate)``."""
        return f"Step {self.number} · {self.call.label()}"


@dataclass
class TaskContext:
    """Everything the nodes of one task share."""

    task: str
    planner: Planner
    registry: SkillRegistry
    leaf_factory: LeafFactory
    policy: RecoveryPolicy
    world: WorldStateSource | None = None
    max_replans: int | None = None
    planner_timeout_s: float | None = None
    """A planner call that gives no plan in this long ends the task ``planner_error`` (None: no bound)."""
    attempts: list[AttemptRecord] = field(default_factory=list)
    plans: list[Plan] = field(default_factory=list)
    planner_calls: int = 0
    replans: int = 0
    final_reason: str | None = None
    final_detail: str = ""
    refusal_kind: str | None = None
    """The refusal's kind when the task ended ``planner_refused`` (a client's error code tells kinds apart)."""
    events: list[TaskEvent] = field(default_factory=list)
    listeners: list[Callable[[TaskEvent], None]] = field(default_factory=list)
    started_at: float = field(default_factory=time.monotonic)
    world_arrival: Callable[[], float] | None = None
    """When the newest world state arrived (monotonic); lets conditions wait for one newer than a result."""
    last_result_at: float = float("-inf")
    wake: Callable[[], None] | None = None
    """Called (from another thread) when the planner answers: the owner can tick at once."""
    last_held: str | None = None
    """The object a world state last showed in the gripper: what ``held`` in ``place_on``'s effect names."""
    goal_held: bool | None = None
    """Whether the latest plan's goal held when last checked (None: not checked yet, or no goal)."""
    goal_unmet: str = ""
    """Why the goal last failed its check ("on(red_cube, plate) does not hold"), for the final detail."""
    unafforded_plans: list[tuple[SkillCall, ...]] = field(default_factory=list)
    """Plans refused for asking an object what it does not afford; the same plan again is a refusal."""
    last_refusal: PlannerRefused | None = None
    """The refusal the latest checked plan amounts to (not_afforded), if any; the budget spent on it refuses."""

    def world_is_stale(self) -> bool:
        """Whether the world state predates the last skill result (and we have not waited too long for a newer one).

        A skill's result can overtake the world state that shows its effect (they
        travel on different topics); a condition checked on the older state would
        see the world as it was before the skill ran.
        """
        if self.world_arrival is None:
            return False
        waited = time.monotonic() - self.last_result_at
        return self.world_arrival() < self.last_result_at and waited < WORLD_FRESHNESS_WAIT_S

    def current_world(self) -> WorldState | None:
        """The latest world state (None without a source or before the first one); notes what it shows held."""
        world = self.world() if self.world is not None else None
        if world is not None and world.gripper.holding is not None:
            self.last_held = world.gripper.holding
        return world

    @property
    def replan_budget(self) -> int:
        """Replans this task may make: the explicit limit, else the policy's."""
        return self.policy.limits.max_replans if self.max_replans is None else self.max_replans

    def emit(self, kind: str, *, plan: int | None = None, step: int | None = None, **data: JsonValue) -> None:
        """Record an event and hand it to every listener (event log, viewer)."""
        event = TaskEvent(kind=kind, t=round(time.monotonic() - self.started_at, 4), plan=plan, step=step, data=data)
        self.events.append(event)
        for listener in self.listeners:
            listener(event)

    def record(self, step: StepState, call: SkillCall, result: SkillResult, *, moved: bool = True) -> None:
        """Keep one attempt (for replans) and emit its step_end event; ``moved``: a skill ran (the world may differ)."""
        if moved:
            self.last_result_at = time.monotonic()
        self.attempts.append(AttemptRecord(plan_index=step.plan_index, step=step.number, call=call, result=result))
        self.emit(
            "step_end",
            plan=step.plan_index,
            step=step.number,
            skill=call.skill,
            label=call.label(),
            result=result.model_dump(mode="json"),
        )
        if not result.success:
            step.last_failure = result

    def refuse(self, refusal: PlannerRefused) -> None:
        """End the task ``planner_refused`` with the refusal's kind and reason (once, as ``finish``)."""
        if self.final_reason is None:
            self.refusal_kind = refusal.kind.value
        self.finish(FinalReason.PLANNER_REFUSED.value, f"{refusal.kind.value}: {refusal.reason}")

    def running_call(self) -> SkillCall | None:
        """The call of the step that runs now (its latest start with no end after it), or None."""
        for event in reversed(self.events):
            if event.kind == "step_end":
                return None
            if event.kind == "step_start" and event.plan is not None and event.step is not None:
                plan = self.plans[event.plan] if event.plan < len(self.plans) else None
                if plan is not None and 0 < event.step <= len(plan.steps):
                    return plan.steps[event.step - 1]
                return None
        return None

    def finish(self, reason: str, detail: str = "") -> None:
        """Set the task's final reason once; later calls keep the first."""
        if self.final_reason is None:
            self.final_reason = reason
            self.final_detail = detail
            self.emit("final", final_reason=reason, detail=detail)
