"""The planning node: asks the planner off the tick thread and grafts the plan it gets.

``Plan task`` (the first node of every task without a given plan) and
``Replan after step N`` (the last fallback of every step) are the same node.
It returns RUNNING while a worker thread runs ``planner.plan(task, world,
attempts)``; the plan is checked (``plan_check``) before it is accepted, a
refused plan goes back to the planner with the problems as attempts, and an
accepted one is compiled and grafted by the task tree between ticks (this
node then succeeds and the old plan's remaining steps are gone). Every path
ends: planner exceptions -> ``planner_error``; a planner's refusal
(``PlannerRefused``) -> ``planner_refused`` with its reason; the replan budget
spent -> ``replan_exhausted``; a kind whose strategy is ``abort`` ->
``aborted:<kind>``. A plan that asks an object for what it does not afford
(``pick(table)``) goes back to the planner once as repair text; the same plan
again, or the budget spent on such plans, is a refusal (``planner_refused``).
The same node, as ``Replan: goal not met``, follows a plan whose goal did not
hold after its last step (``goal_check``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Executor, Future

import py_trees
from py_trees.common import Status

from bt_executive.llm.plan import Plan, PlannerError, PlannerRefused
from bt_executive.skills.call import AttemptRecord, SkillCall, SkillResult
from bt_executive.skills.conditions import first_unmet, goal_predicates, holds
from bt_executive.skills.failures import FailureKind
from bt_executive.skills.predicates import parse_predicate
from bt_executive.skills.strategy import StrategyKind
from bt_executive.skills.world_state import WorldState
from bt_executive.trees.goal_check import GOAL_CALL
from bt_executive.trees.plan_check import check_plan, refusal_for
from bt_executive.trees.task_context import FinalReason, StepState, TaskContext

GraftRequest = Callable[["PlanningNode", Plan], None]
"""Called with the node and the accepted plan; the task tree grafts it between ticks."""


class PlanningNode(py_trees.behaviour.Behaviour):
    """Plans (or replans after a failed step) without blocking a tick, then hands the plan to be grafted."""

    def __init__(
        self,
        context: TaskContext,
        executor: Executor,
        graft: GraftRequest,
        after: StepState | None = None,
        *,
        goal_not_met: bool = False,
    ) -> None:
        name = "Plan task" if after is None else f"Replan after step {after.number}"
        super().__init__("Replan: goal not met" if goal_not_met else name)
        self.context = context
        self.after = after
        self.goal_not_met = goal_not_met
        self._executor = executor
        self._graft = graft
        self._future: Future[Plan] | None = None
        self._grafted = False
        self._failed = False
        self._asked = False
        self._asked_at = 0.0

    # py_trees lifecycle ---------------------------------------------------------------------------

    def initialise(self) -> None:
        """Decide whether to plan at all (abort kinds); the planner starts on the first update with a fresh world."""
        self._future = None
        self._grafted = False
        self._failed = False
        self._asked = False
        if self.after is not None and not self._may_replan(self.after):
            self._failed = True

    def update(self) -> Status:
        """RUNNING while the planner thinks or the graft is pending; then SUCCESS, or FAILURE with a reason."""
        if self._failed:
            return Status.FAILURE
        if self._grafted:
            return Status.SUCCESS
        if not self._asked:
            if self.context.world_is_stale():  # plan on the world as the last skill left it
                return Status.RUNNING
            self._ask()
            return Status.FAILURE if self._failed else Status.RUNNING
        future = self._future
        bound = self.context.planner_timeout_s
        if future is not None and not future.done() and bound is not None and time.monotonic() - self._asked_at > bound:
            future.cancel()  # a worker thread cannot be stopped; its late answer goes nowhere
            self._future = None
            name = type(self.context.planner).__name__
            return self._fail(
                FinalReason.PLANNER_ERROR.value, f"timeout: the planner ({name}) gave no plan in {bound:g} s"
            )
        if future is None or not future.done():
            return Status.RUNNING
        self._future = None
        try:
            plan = future.result()
        except PlannerRefused as err:
            self.context.emit(
                "planner_refused", refusal=err.kind.value, reason=err.reason, candidates=list(err.candidates)
            )
            return self._refuse(err)
        except PlannerError as err:
            return self._fail(FinalReason.PLANNER_ERROR.value, str(err))
        except Exception as err:  # a planner bug must end the task, not the executive
            return self._fail(FinalReason.PLANNER_ERROR.value, f"{type(err).__name__}: {err}")
        return self._consider(plan)

    def terminate(self, new_status: Status) -> None:
        """Halted while the planner runs: its answer will be ignored."""
        if new_status == Status.INVALID and self._future is not None:
            self._future.cancel()
            self._future = None

    def shutdown(self) -> None:
        """The task ended (its tree is released): drop the planner's future, answered or not."""
        if self._future is not None:
            self._future.cancel()
            self._future = None

    def grafted(self) -> None:
        """The task tree grafted the plan: succeed on the next tick."""
        self._grafted = True

    # decisions ------------------------------------------------------------------------------------

    def _may_replan(self, step: StepState) -> bool:
        failure = step.last_failure
        kind = failure.failure_kind if failure is not None else None
        kind = kind or FailureKind.UNKNOWN
        strategy = self.context.policy.strategy_for(kind, step.manifest)
        if step.escalated:
            strategy = self.context.policy.escalation_for(kind)
        if strategy.kind is StrategyKind.ABORT:
            reason = failure.reason if failure is not None else ""
            self.context.finish(f"{FinalReason.ABORTED.value}:{kind.value}", f"step {step.number}: {reason}")
            self.feedback_message = f"abort on {kind.value}"
            return False
        return True

    def _ask(self) -> None:
        """Start the planner on the worker, or end the task if the replan budget is spent."""
        self._asked = True
        is_replan = self.context.planner_calls > 0
        if is_replan and self.context.replans >= self.context.replan_budget:
            refusal = self.context.last_refusal
            if refusal is not None:  # the budget went on plans that ask objects for what they do not afford
                self.context.refuse(refusal)
                self.feedback_message = "refused: not afforded"
                self._failed = True
                return
            detail = f"{self.context.replans} replan(s) used; the task is not done"
            if self.goal_not_met and self.context.goal_unmet:
                detail += f": goal not met ({self.context.goal_unmet})"
            self.context.finish(FinalReason.REPLAN_EXHAUSTED.value, detail)
            self.feedback_message = "replan budget spent"
            self._failed = True
            return
        if is_replan:
            self.context.replans += 1
        self.context.planner_calls += 1
        world = self.context.current_world()
        attempts = tuple(self.context.attempts)
        self.context.emit("planning", replan=is_replan, attempts=len(attempts), goal_not_met=self.goal_not_met)
        self.feedback_message = "planner thinking"
        task, planner = self.context.task, self.context.planner
        self._asked_at = time.monotonic()
        self._future = self._executor.submit(planner.plan, task, world or WorldState(), attempts)
        wake = self.context.wake
        if wake is not None:
            self._future.add_done_callback(lambda _done: wake())

    def _consider(self, plan: Plan) -> Status:
        """Accept a checked plan (graft it) or ask again with what was wrong with it."""
        world = self.context.current_world()
        registry = self.context.registry
        problems = check_plan(plan, registry, world, last_held=self.context.last_held) if world is not None else []
        if not problems and plan.is_done and self.after is not None and world is not None:
            bound = goal_predicates(self.after.manifest, self.after.call.args)
            unmet = [p for p in bound if not holds(p, world)]
            if unmet:
                self._reject(plan, [f"an empty plan, but {unmet[0]} does not hold"], self.after.call)
                return self._retry_or_end()
        if not problems and plan.is_done and plan.goal and world is not None:
            unmet_goal = first_unmet([parse_predicate(g) for g in plan.goal], world)
            if unmet_goal is not None:
                self._reject(plan, [f"an empty plan, but its goal {unmet_goal} does not hold"], GOAL_CALL)
                return self._retry_or_end()
        if problems:
            index = len(self.context.plans)
            self.context.emit("plan_refused", plan=index, problems=[str(p) for p in problems], steps=plan.steps_json())
            for problem in problems:
                call = plan.steps[problem.step - 1]
                self._reject(plan, [str(problem)], call, step=problem.step)
            refusal = refusal_for(problems)
            if refusal is not None and plan.steps in self.context.unafforded_plans:
                self.context.emit("planner_refused", refusal=refusal.kind.value, reason=refusal.reason, candidates=[])
                return self._refuse(refusal)
            if refusal is not None:
                self.context.unafforded_plans.append(plan.steps)
            self.context.last_refusal = refusal
            return self._retry_or_end()
        self.context.last_refusal = None
        self._graft(self, plan)
        self.feedback_message = f"plan with {len(plan.steps)} step(s)"
        return Status.RUNNING

    def _reject(self, plan: Plan, problems: list[str], call: SkillCall, step: int = 0) -> None:
        """Show the planner why its plan was refused, as an attempt that failed before it moved."""
        result = SkillResult.failed(
            FailureKind.PRECONDITION_FAILED,
            "plan_refused",
            detail="; ".join(problems),
            evidence={"planner": plan.planner},
        )
        self.context.attempts.append(
            AttemptRecord(plan_index=len(self.context.plans), step=step, call=call, result=result)
        )

    def _retry_or_end(self) -> Status:
        self._ask()
        return Status.FAILURE if self._failed else Status.RUNNING

    def _refuse(self, refusal: PlannerRefused) -> Status:
        self.context.refuse(refusal)
        self.feedback_message = (self.context.final_detail or refusal.reason)[:200]
        self._failed = True
        return Status.FAILURE

    def _fail(self, reason: str, detail: str) -> Status:
        self.context.finish(reason, detail)
        self.feedback_message = detail[:200]
        self._failed = True
        return Status.FAILURE
