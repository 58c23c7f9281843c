"""The nodes inside one compiled step: its PPA conditions and the attempts around its leaf.

::

    PPA · pick(red_cube)                     Selector(memory)
    ├─ Done? holding(red_cube)               EffectsHold: skip the step if its effect already holds
    └─ Do · pick(red_cube)                   Sequence(memory)
       ├─ Pre? gripper_empty, ...            PreconditionsHold: else precondition_failed
       └─ Attempts · pick(red_cube)          StepAttempts: the leaf, retried / recovered per failure kind
          ├─ pick(red_cube)                  the skill leaf
          └─ Recover · home_then_retry       Sequence of recovery leaves, then the leaf once more

Conditions read the latest world state from the task's source, and stay
RUNNING (up to a second) while it is older than the last skill result.
Without a source (or before the first state arrives) preconditions pass and
effects do not hold: the step runs and the skill itself reports what is wrong.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from typing import cast

import py_trees
from py_trees.common import Status

from bt_executive.skills.call import SkillResult
from bt_executive.skills.conditions import (
    bind_held,
    bound_to_call,
    first_unmet,
    goal_predicates,
    holds,
)
from bt_executive.skills.failures import FailureKind
from bt_executive.skills.leaf import SkillLeaf
from bt_executive.skills.strategy import StrategyKind
from bt_executive.skills.world_state import WorldState
from bt_executive.trees.task_context import StepState, TaskContext


class _StepCondition(py_trees.behaviour.Behaviour):
    """A step's check on the latest world state: RUNNING while it predates the last skill result.

    Subclasses ``decide`` on a fresh world state; without one (no source, or
    none has arrived) the answer is ``without_world``.
    """

    without_world = Status.FAILURE

    def __init__(self, name: str, context: TaskContext, step: StepState) -> None:
        super().__init__(name)
        self.context = context
        self.step = step

    def update(self) -> Status:
        """Wait for a world state newer than the last result, then decide on it."""
        if self.context.world_is_stale():
            return Status.RUNNING
        world = self.context.current_world()
        return self.without_world if world is None else self.decide(world)

    def decide(self, world: WorldState) -> Status:
        """The answer on ``world``."""
        raise NotImplementedError


class EffectsHold(_StepCondition):
    """SUCCESS when the step's goal effects already hold (the step is skipped), else FAILURE."""

    def __init__(self, context: TaskContext, step: StepState) -> None:
        self.effects = goal_predicates(step.manifest, step.call.args)
        shown = ", ".join(str(e) for e in self.effects) or "(no goal effects)"
        super().__init__(f"Done? {shown}", context, step)

    def decide(self, world: WorldState) -> Status:
        """Skip the step when every goal effect holds (``held`` bound to what the task holds or last held)."""
        held = world.gripper.holding or self.context.last_held
        bound = [bind_held(e, held) for e in self.effects]
        if bound and all(e is not None and holds(e, world) for e in bound):
            self.feedback_message = "already holds: step skipped"
            self.context.emit("step_skipped", plan=self.step.plan_index, step=self.step.number)
            return Status.SUCCESS
        return Status.FAILURE


class PreconditionsHold(_StepCondition):
    """SUCCESS when every precondition holds; else FAILURE recorded as ``precondition_failed``."""

    without_world = Status.SUCCESS

    def __init__(self, context: TaskContext, step: StepState) -> None:
        self.preconditions = bound_to_call(step.manifest.preconditions, step.manifest, step.call.args)
        super().__init__(f"Pre? {', '.join(map(str, self.preconditions)) or '(none)'}", context, step)

    def decide(self, world: WorldState) -> Status:
        """The first unmet precondition becomes the attempt's reason."""
        unmet = first_unmet(self.preconditions, world)
        if unmet is None:
            return Status.SUCCESS
        result = SkillResult.failed(
            FailureKind.PRECONDITION_FAILED,
            f"precondition {unmet} does not hold",
            evidence={"predicate": str(unmet)},
        )
        self.feedback_message = result.reason
        self.context.record(self.step, self.step.call, result, moved=False)
        return Status.FAILURE


class StepAttempts(py_trees.composites.Composite):
    """Runs the step's leaf, then retries or recovers it as the policy says for each failure kind.

    ``retry(n[, backoff])``: run the leaf again, at most ``n`` times per step
    for that kind, after ``backoff`` seconds (RUNNING meanwhile, the leaf not
    ticked). ``recover(name)``: run the named recovery subtree once, then the
    leaf again. Anything else, or a spent retry or recovery, ends FAILURE and
    the step's fallback (the replan node) takes over.
    """

    def __init__(
        self,
        context: TaskContext,
        step: StepState,
        leaf: py_trees.behaviour.Behaviour,
        recoveries: Mapping[str, py_trees.behaviour.Behaviour],
    ) -> None:
        # What isinstance(leaf, SkillLeaf) checks, without a runtime Protocol check (~20 us per step).
        if not (hasattr(leaf, "call") and hasattr(leaf, "result")):
            raise TypeError(f"{type(leaf).__name__} is not a skill leaf (needs call and result)")
        super().__init__(f"Attempts · {step.call.label()}", children=[leaf, *recoveries.values()])
        self.context = context
        self.step = step
        self.leaf = leaf
        self.skill_leaf = cast(SkillLeaf, leaf)  # checked above
        self.recoveries = dict(recoveries)
        self._retries_by_kind: dict[FailureKind, int] = {}
        self._resume_at = 0.0

    def tick(self) -> Iterator[py_trees.behaviour.Behaviour]:
        """Tick the current child (the leaf or a recovery); between attempts, wait out the backoff."""
        if self.status != Status.RUNNING:
            for stale in self.children:
                if stale.status != Status.INVALID:
                    stale.stop(Status.INVALID)
            self.current_child = self.leaf
            self._retries_by_kind = {}
            self._resume_at = 0.0
            self._started(self.leaf)
        if time.monotonic() < self._resume_at:
            self.status = Status.RUNNING
            yield self
            return
        child = self.current_child
        if child is None:  # not reachable: always the leaf or a recovery
            self.stop(Status.FAILURE)
            yield self
            return
        yield from child.tick()
        status = self._next(child)
        if status != Status.RUNNING:
            self.stop(status)
        self.status = status
        yield self

    def _started(self, leaf: py_trees.behaviour.Behaviour) -> None:
        self.context.emit(
            "step_start", plan=self.step.plan_index, step=self.step.number, skill=self.step.call.skill, label=leaf.name
        )

    def _next(self, child: py_trees.behaviour.Behaviour) -> Status:
        if child.status == Status.RUNNING:
            return Status.RUNNING
        if child is not self.leaf:
            return self._after_recovery(child)
        result = self.skill_leaf.result or SkillResult.failed(FailureKind.UNKNOWN, "leaf_ended_without_result")
        self.context.record(self.step, self.skill_leaf.call, result)
        if result.success:
            return Status.SUCCESS
        kind = result.failure_kind or FailureKind.UNKNOWN
        strategy = self.context.policy.strategy_for(kind, self.step.manifest)
        if strategy.kind is StrategyKind.RETRY:
            used = self._retries_by_kind.get(kind, 0)
            if used < strategy.attempts:
                self._retries_by_kind[kind] = used + 1
                self.step.retries += 1
                self._resume_at = time.monotonic() + strategy.backoff_s
                self.context.emit(
                    "retry",
                    plan=self.step.plan_index,
                    step=self.step.number,
                    failure_kind=kind.value,
                    attempt=used + 1,
                    of=strategy.attempts,
                    backoff_s=strategy.backoff_s,
                )
                self._started(self.leaf)
                return Status.RUNNING
            self.step.escalated = True
        elif strategy.kind is StrategyKind.RECOVER and strategy.subtree is not None:
            if strategy.subtree not in self.step.recoveries and strategy.subtree in self.recoveries:
                self.step.recoveries.append(strategy.subtree)
                self.current_child = self.recoveries[strategy.subtree]
                self.context.emit(
                    "recovery",
                    plan=self.step.plan_index,
                    step=self.step.number,
                    failure_kind=kind.value,
                    recovery=strategy.subtree,
                )
                return Status.RUNNING
            self.step.escalated = True
        return Status.FAILURE

    def _after_recovery(self, recovery: py_trees.behaviour.Behaviour) -> Status:
        ok = recovery.status == Status.SUCCESS
        self.context.emit(
            "recovery_end", plan=self.step.plan_index, step=self.step.number, recovery=recovery.name, success=ok
        )
        if not ok:
            self.step.escalated = True
            return Status.FAILURE
        self.current_child = self.leaf
        self._started(self.leaf)
        return Status.RUNNING
