"""Fixtures for the viewer tests: a task run through a real TaskTree and recorded into a run directory."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bt_executive.executive.run_dir import RunWriter, run_listener
from bt_executive.executive.run_recorder import RunRecorder
from bt_executive.llm.plan import Plan
from bt_executive.skills.call import SkillCall
from bt_executive.skills.failures import FailureKind
from bt_executive.skills.registry import SkillRegistry
from bt_executive.testing.scripted_planner import ScriptedPlanner
from bt_executive.trees.task_tree import TaskTree
from tests.trees.scripted_leaves import ScriptedLeafFactory

TASK = "put the red cube on the plate"
PICK = SkillCall(skill="tabletop/pick", args={"object": "red_cube"})
PICK_GREEN = SkillCall(skill="tabletop/pick", args={"object": "green_cube"})
PLACE = SkillCall(skill="tabletop/place_on", args={"target": "plate"})


def retry_then_replan_tree(registry: SkillRegistry, listeners: list[object] | None = None) -> TaskTree:
    """pick(red_cube) misses once (retry), then is not found (replan to the green cube), then all succeeds."""
    leaves = ScriptedLeafFactory()
    leaves.script("tabletop/pick", FailureKind.MISSED_GRASP, FailureKind.NOT_FOUND)
    planner = ScriptedPlanner(
        [
            Plan(steps=(PICK, PLACE), planner="scripted"),
            Plan(steps=(PICK_GREEN, PLACE), planner="scripted", notes="red cube gone"),
        ]
    )
    return TaskTree(TASK, planner=planner, registry=registry, leaf_factory=leaves, listeners=listeners or [])  # type: ignore[arg-type]


def run_to_end(tree: TaskTree, recorder: RunRecorder | None = None, max_ticks: int = 500) -> None:
    """Tick until the task ends, recording a snapshot after every tick that changed the tree."""
    for _ in range(max_ticks):
        tree.tick_once()
        if recorder is not None:
            recorder.after_tick()
        if tree.final_reason is not None:
            return
        time.sleep(0.001)
    raise AssertionError(f"task still running after {max_ticks} ticks")


@pytest.fixture
def recorded_run(tmp_path: Path, skill_registry: SkillRegistry, clean_blackboard: None) -> Path:
    """A finished run directory: one retry, one replan, done."""
    writer = RunWriter.create(tmp_path / "runs", TASK, planner="scripted")
    tree = retry_then_replan_tree(skill_registry, [run_listener(writer)])
    recorder = RunRecorder(writer, tree)
    run_to_end(tree, recorder)
    recorder.finish()
    return writer.path
