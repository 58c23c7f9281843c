"""TaskTree: one task's behaviour tree, from the first plan to its final reason.

::

    Task "put the red cube on the plate"         Sequence(memory)
    ├─ Plan task                                 (when no plan was given) asks the planner
    ├─ Plan #0                                   grafted when the plan arrives
    │  ├─ Step 1 · pick(red_cube)
    │  └─ Step 2 · place_on(plate)               failed -> Replan after step 2
    └─ Plan #1                                   the remaining work, grafted after the replan
       └─ Goal · on(red_cube, plate)             done only if the goal holds in the world

The owner ticks it (``tick_once``) at its rate; grafts happen between ticks.
``cancel()`` halts it: running leaves cancel their goals and the task ends
``preempted``. ``outcome()`` summarises it: final reason, attempts, plans,
retries, replans. ``release()``, once the owner has recorded the ending, lets
go of everything the task made (leaves' goals, blackboard clients and keys,
the planner worker), so an executive that runs for days does not grow.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

import py_trees
from py_trees.common import Status
from pydantic import BaseModel, ConfigDict, Field

from bt_executive.llm.plan import Plan, Planner
from bt_executive.skills.call import AttemptRecord
from bt_executive.skills.leaf import WorldStateSource
from bt_executive.skills.registry import SkillRegistry
from bt_executive.trees.compiler import PlanCompiler
from bt_executive.trees.leaf_factory import LeafFactory
from bt_executive.trees.plan_check import require_runnable
from bt_executive.trees.recovery import RecoveryPolicy, load_recovery_policy
from bt_executive.trees.replan import PlanningNode
from bt_executive.trees.task_context import FinalReason, TaskContext, TaskEvent
from bt_executive.trees.tree_release import release_subtree

_log = logging.getLogger(__name__)


class TaskOutcome(BaseModel):
    """How a task ended, for the executive's action result, the demo summary and the run directory."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str
    success: bool
    final_reason: str
    detail: str = ""
    refusal_kind: str | None = Field(default=None, description="the refusal's kind when planner_refused")
    plans: tuple[Plan, ...] = ()
    attempts: tuple[AttemptRecord, ...] = ()
    retries: int = Field(default=0, ge=0)
    replans: int = Field(default=0, ge=0)
    duration_s: float = Field(default=0.0, ge=0.0)
    goal: tuple[str, ...] = Field(default=(), description="the last plan's goal predicates")
    goal_held: bool | None = Field(
        default=None, description="whether that goal held in the world when checked (None: not checked)"
    )


class TaskTree:
    """Owns one task's tree and context: tick it, cancel it, read its outcome."""

    def __init__(
        self,
        task: str,
        *,
        planner: Planner,
        registry: SkillRegistry,
        leaf_factory: LeafFactory,
        policy: RecoveryPolicy | None = None,
        world: WorldStateSource | None = None,
        world_arrival: Callable[[], float] | None = None,
        max_replans: int | None = None,
        plan: Plan | None = None,
        listeners: Iterable[Callable[[TaskEvent], None]] = (),
        wake: Callable[[], None] | None = None,
        planner_timeout_s: float | None = None,
        task_timeout_s: float | None = None,
    ) -> None:
        """``wake`` is called from the planner's worker when a plan is ready (the owner ticks at once).

        ``planner_timeout_s``: a planner call with no plan by then ends the task ``planner_error``;
        ``task_timeout_s``: a task still running by then ends ``aborted:timeout``, its goals cancelled
        (None: no bound). Either names what it waited for in the task's detail.
        """
        self.context = TaskContext(
            task=task,
            planner=planner,
            registry=registry,
            leaf_factory=leaf_factory,
            policy=policy or load_recovery_policy(),
            world=world,
            max_replans=max_replans,
            listeners=list(listeners),
            world_arrival=world_arrival,
            wake=wake,
            planner_timeout_s=planner_timeout_s,
        )
        self._task_timeout_s = task_timeout_s
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="planner")
        self._pending: list[tuple[PlanningNode, Plan]] = []
        self.compiler = PlanCompiler(self.context, self._executor, self._request_graft)
        self.root = py_trees.composites.Sequence(f'Task "{task}"', memory=True)
        self._ended_at: float | None = None
        self.last_visited: list[py_trees.behaviour.Behaviour] = []
        """The nodes the last tick visited (what a live snapshot re-reads), children before parents."""
        self.structure_version = 0
        """Grows with every graft, cut or rename, so a live snapshot rebuilds node facts only then."""
        self.context.emit("task", task=task)
        if plan is None:
            self.root.add_child(PlanningNode(self.context, self._executor, self._request_graft))
        else:
            current = world() if world is not None else None
            if current is not None:
                require_runnable(plan, registry, current)
            self._add_plan(plan)

    # running ----------------------------------------------------------------------------------------

    @property
    def status(self) -> Status:
        """The root's status: RUNNING until the task ends."""
        return self.root.status

    @property
    def final_reason(self) -> str | None:
        """``done``, ``replan_exhausted``, ``aborted:<kind>``, ``preempted``, ``planner_error``, ``planner_refused``."""
        return self.context.final_reason

    def tick_once(self) -> None:
        """One tick of the tree, then any grafts the tick asked for, then the ending if it ended."""
        if self.context.final_reason == FinalReason.PREEMPTED.value:
            self.last_visited = []
            return
        if self._task_timeout_s is not None and time.monotonic() - self.context.started_at > self._task_timeout_s:
            call = self.context.running_call()
            doing = f" (running {call.skill}({', '.join(f'{k}={v}' for k, v in call.args.items())}))" if call else ""
            self.fail(f"timeout: the task ran past its bound of {self._task_timeout_s:g} s{doing}", kind="timeout")
            return
        self.last_visited = list(self.root.tick())
        self._apply_grafts()
        if self.root.status == Status.SUCCESS:
            self.context.finish(FinalReason.DONE.value)
        elif self.root.status == Status.FAILURE:
            self.context.finish(f"{FinalReason.ABORTED.value}:unknown", "the tree failed without a reason")
        if self.root.status in (Status.SUCCESS, Status.FAILURE) and self._ended_at is None:
            self._ended_at = time.monotonic()
            self._executor.shutdown(wait=False, cancel_futures=True)

    def cancel(self, detail: str = "cancelled") -> None:
        """Halt the tree: running leaves cancel their goals; the task ends ``preempted``."""
        if self.context.final_reason is not None:
            return
        self.context.finish(FinalReason.PREEMPTED.value, detail)
        self.root.stop(Status.INVALID)
        self._pending.clear()
        self._ended_at = time.monotonic()
        self._executor.shutdown(wait=False, cancel_futures=True)

    def fail(self, detail: str, kind: str = "unknown") -> None:
        """End the task ``aborted:<kind>`` at once (a tick raised, it ran too long): halt it, cancelling its goals."""
        if self.context.final_reason is not None:
            return
        self.context.finish(f"{FinalReason.ABORTED.value}:{kind}", detail)
        self._pending.clear()
        self._ended_at = time.monotonic()
        self._executor.shutdown(wait=False, cancel_futures=True)
        try:
            self.root.stop(Status.INVALID)
        except Exception:  # the tree that raised may raise again while halting: release() still frees it
            _log.exception("task %r: halting the tree after a failed tick", self.context.task)

    def shutdown(self) -> None:
        """Cancel if still running, and let go of the planner worker."""
        self.cancel("shutdown")
        self._executor.shutdown(wait=False, cancel_futures=True)

    def release(self) -> None:
        """After the ending is recorded: cancel if still running, then release every node, goal and key.

        Safe to call more than once. The outcome, plans, attempts and events stay readable; the
        tree's behaviours no longer hold blackboard clients or goals in the node's action clients.
        """
        self.shutdown()
        self._pending.clear()
        release_subtree(self.root)
        self.last_visited = []

    def outcome(self) -> TaskOutcome:
        """The task's summary so far (final once ``final_reason`` is set)."""
        ctx = self.context
        end = self._ended_at or time.monotonic()
        reason = ctx.final_reason or "running"
        return TaskOutcome(
            task=ctx.task,
            success=reason == FinalReason.DONE.value,
            final_reason=reason,
            detail=ctx.final_detail,
            refusal_kind=ctx.refusal_kind if reason == FinalReason.PLANNER_REFUSED.value else None,
            plans=tuple(ctx.plans),
            attempts=tuple(ctx.attempts),
            retries=sum(1 for e in ctx.events if e.kind == "retry"),
            replans=ctx.replans,
            duration_s=round(end - ctx.started_at, 4),
            goal=ctx.plans[-1].goal if ctx.plans else (),
            goal_held=ctx.goal_held if ctx.plans and ctx.plans[-1].goal else None,
        )

    # grafting ---------------------------------------------------------------------------------------

    def _request_graft(self, node: PlanningNode, plan: Plan) -> None:
        self._pending.append((node, plan))

    def _apply_grafts(self) -> None:
        """Between ticks: cut the old plan after the failed step and append the new plan."""
        pending, self._pending = self._pending, []
        for node, plan in pending:
            if node.after is not None:
                self._cut_after(node)
                self.structure_version += 1
            self._add_plan(plan)
            node.grafted()

    def _add_plan(self, plan: Plan) -> None:
        index = len(self.context.plans)
        self.context.plans.append(plan)
        self.context.emit(
            "plan",
            plan=index,
            planner=plan.planner,
            notes=plan.notes,
            steps=plan.steps_json(),
        )
        self.root.add_child(self.compiler.compile_plan(plan, index))
        self.structure_version += 1

    @staticmethod
    def _cut_after(node: PlanningNode) -> None:
        """Remove the not-yet-run steps after the one whose replan node this is."""
        step_node = node.parent
        plan_node = step_node.parent if step_node is not None else None
        if step_node is None or not isinstance(plan_node, py_trees.composites.Composite):
            return
        position = plan_node.children.index(step_node)
        for later in list(plan_node.children[position + 1 :]):
            plan_node.remove_child(later)
            release_subtree(later)  # never ran: only its blackboard clients to give back
        plan_node.name = f"{plan_node.name} (replaced after step {position + 1})"
