"""The compiler: a Plan becomes a py_trees subtree in the shape DESIGN.md draws.

::

    Plan #0                                      Sequence(memory)
    ├─ Step 1 · pick(red_cube)                   Selector(memory): the recovery fallback
    │  ├─ PPA · pick(red_cube)                   Selector(memory)
    │  │  ├─ Done? holding(red_cube)             effects already hold -> skip
    │  │  └─ Do · pick(red_cube)                 Sequence(memory)
    │  │     ├─ Pre? gripper_empty, ...          preconditions
    │  │     └─ Attempts · pick(red_cube)        retry / recover per failure kind
    │  │        ├─ pick(red_cube)                the skill leaf
    │  │        └─ Recover · home_then_retry     (only if a strategy of this step names it)
    │  └─ Replan after step 1                    replan, or end the task (abort / budget)
    ├─ Step 2 · place_on(plate) ...
    └─ Goal · on(red_cube, plate)                the plan's goal in the world, else replan (goal_check)

Compiling the same plan twice gives the same structure and the same names;
leaves write their blackboard entries under ``plan<k>_step<n>``.
"""

from __future__ import annotations

from concurrent.futures import Executor

import py_trees

from bt_executive.llm.plan import Plan
from bt_executive.skills.call import SkillCall
from bt_executive.skills.failures import FailureKind
from bt_executive.skills.strategy import StrategyKind
from bt_executive.trees.goal_check import GoalHolds, goal_label
from bt_executive.trees.replan import GraftRequest, PlanningNode
from bt_executive.trees.step_nodes import EffectsHold, PreconditionsHold, StepAttempts
from bt_executive.trees.task_context import StepState, TaskContext


class PlanCompiler:
    """Compiles plans for one task; every node it makes shares the task's context."""

    def __init__(self, context: TaskContext, executor: Executor, graft: GraftRequest) -> None:
        self.context = context
        self.executor = executor
        self.graft = graft
        self._recovery_names_by_skill: dict[str, list[str]] = {}

    def compile_plan(self, plan: Plan, plan_index: int) -> py_trees.composites.Sequence:
        """``Plan #k``: a memory Sequence of its steps (empty when the planner says the task is done)."""
        suffix = " (already done)" if plan.is_done else ""
        root = py_trees.composites.Sequence(f"Plan #{plan_index}{suffix}", memory=True)
        for number, call in enumerate(plan.steps, start=1):
            root.add_child(self.compile_step(call, plan_index, number))
        if plan.goal:
            root.add_child(self.compile_goal(plan, plan_index))
        return root

    def compile_goal(self, plan: Plan, plan_index: int) -> py_trees.composites.Selector:
        """``Goal · on(red_cube, plate)``: the goal checked in the world, with a replan when it is not met."""
        check = GoalHolds(self.context, plan, plan_index)
        replan = PlanningNode(self.context, self.executor, self.graft, goal_not_met=True)
        return py_trees.composites.Selector(f"Goal · {goal_label(plan.goal)}", memory=True, children=[check, replan])

    def compile_step(self, call: SkillCall, plan_index: int, number: int) -> py_trees.composites.Selector:
        """One step: its PPA node, with the replan node as the fallback."""
        step = StepState(
            plan_index=plan_index, number=number, call=call, manifest=self.context.registry.get(call.skill)
        )
        key = f"plan{plan_index}_step{number}"
        label = call.label()
        leaf = self.context.leaf_factory(call, name=label, key=key)
        recoveries = {name: self._recovery(name, key) for name in self._recovery_names(step)}
        attempts = StepAttempts(self.context, step, leaf, recoveries)
        do = py_trees.composites.Sequence(
            f"Do · {label}", memory=True, children=[PreconditionsHold(self.context, step), attempts]
        )
        ppa = py_trees.composites.Selector(
            f"PPA · {label}", memory=True, children=[EffectsHold(self.context, step), do]
        )
        replan = PlanningNode(self.context, self.executor, self.graft, after=step)
        return py_trees.composites.Selector(step.label, memory=True, children=[ppa, replan])

    def _recovery_names(self, step: StepState) -> list[str]:
        """The recovery subtrees any failure kind of this step may ask for, in a stable order (once per skill)."""
        known = self._recovery_names_by_skill.get(step.manifest.id)
        if known is not None:
            return known
        names: list[str] = []
        for kind in FailureKind:
            strategy = self.context.policy.strategy_for(kind, step.manifest)
            name = strategy.subtree or ""
            if strategy.kind is StrategyKind.RECOVER and name in self.context.policy.recoveries and name not in names:
                names.append(name)
        self._recovery_names_by_skill[step.manifest.id] = names
        return names

    def _recovery(self, name: str, key: str) -> py_trees.composites.Sequence:
        spec = self.context.policy.recoveries[name]
        leaves = [
            self.context.leaf_factory(call, name=call.label(), key=f"{key}_{name}_{index}")
            for index, call in enumerate(spec.steps)
        ]
        return py_trees.composites.Sequence(f"Recover · {name}", memory=True, children=leaves)
