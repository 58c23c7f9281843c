"""Eval robots: one robot of the planner eval, with its skills, its frozen world and its task splits.

The planner eval scores plans per robot, because a plan is only right for a
robot's skills and world. Each robot is a folder:

    tests/golden/robots/<name>/
    ├── robot.yaml     name, skill dirs (from the repo root), world file (from here)
    ├── world.yaml     the WorldState every task starts from (changed by its scenario)
    ├── tasks.yaml     the tuned tiers: the planner may be tuned until they pass
    ├── blind.yaml     written blind (optional): sentences by people who read only the manifests and the
    │                  world, scored before any tuning on them (the figure is in the file), then tuned on;
    │                  gated on wrong plans only, so a new batch can land before the planner reads all of it
    └── heldout.yaml   the held-out split (optional): never tuned on, it says how the tuning generalises

Loading checks the files against each other, so that a typo fails at load
with the file and field, not as a silently failed task: every scenario's ids
are objects of the world, every expected step a skill of the robot with
arguments its schema accepts.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bt_executive.llm.eval.planner_eval import EvalFile, EvalFileError, TaskScore, execute, load_eval, run_eval
from bt_executive.llm.plan import Plan, Planner
from bt_executive.runtime.paths import config_dir
from bt_executive.skills.call import SkillCall
from bt_executive.skills.capabilities import RobotCapabilities
from bt_executive.skills.loader import load_model
from bt_executive.skills.predicates import parse_predicate
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import WorldState

Split = Literal["tuned", "blind", "heldout"]
SPLITS: tuple[Split, ...] = ("tuned", "blind", "heldout")

ROBOT_FILE = "robot.yaml"
TUNED_FILE = "tasks.yaml"
HELDOUT_FILE = "heldout.yaml"
BLIND_FILE = "blind.yaml"


class RobotFile(BaseModel):
    """``robot.yaml``: which skills and which world make this robot."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")
    skills: tuple[str, ...] = Field(min_length=1, description="skill dirs, relative to the repo root")
    world: str = Field(min_length=1, description="world-state file, relative to the robot's folder")
    capabilities: RobotCapabilities | None = Field(
        default=None, description="the robot's hardware: skills it cannot run are left out, as serve leaves them out"
    )


@dataclass(frozen=True)
class EvalRobot:
    """One robot of the eval, loaded and cross-checked."""

    name: str
    registry: SkillRegistry
    world: WorldState
    tuned: EvalFile
    heldout: EvalFile | None
    directory: Path
    blind: EvalFile | None = None

    def splits(self) -> Iterator[tuple[Split, EvalFile]]:
        """The splits present, tuned first."""
        yield "tuned", self.tuned
        for name in ("blind", "heldout"):
            data = self.split(name)
            if data is not None:
                yield name, data

    def split(self, split: Split) -> EvalFile | None:
        """One split's file, None when it is absent."""
        return {"tuned": self.tuned, "blind": self.blind, "heldout": self.heldout}[split]


def repo_root() -> Path:
    """The folder robot.yaml's skill dirs are relative to: the one holding ``config/``."""
    return config_dir().parent


def load_robot(directory: Path, *, tuned: Path | None = None, root: Path | None = None) -> EvalRobot:
    """Load a robot folder; ``tuned`` replaces its tasks.yaml (the tabletop's lives in tests/golden)."""
    robot_path = directory / ROBOT_FILE
    spec = load_model(robot_path, RobotFile)
    base = root if root is not None else repo_root()
    dirs = []
    for number, name in enumerate(spec.skills):
        path = base / name
        if not path.is_dir():
            raise EvalFileError(f"{robot_path}: skills[{number}] {name!r} is not a folder under {base}")
        dirs.append(path)
    registry = SkillRegistry.discover(dirs, use_entry_points=False)
    if spec.capabilities is not None:
        registry, _left_out = registry.available_for(spec.capabilities)
    world_path = directory / spec.world
    if not world_path.is_file():
        raise EvalFileError(f"{robot_path}: world {spec.world!r} is not a file in {directory}")
    world = load_model(world_path, WorldState)
    tuned_path = tuned if tuned is not None else directory / TUNED_FILE
    tuned_file = _load_split(tuned_path, registry, world)
    heldout_path = directory / HELDOUT_FILE
    heldout_file = _load_split(heldout_path, registry, world) if heldout_path.is_file() else None
    blind_path = directory / BLIND_FILE
    blind_file = _load_split(blind_path, registry, world) if blind_path.is_file() else None
    return EvalRobot(spec.name, registry, world, tuned_file, heldout_file, directory, blind_file)


def _load_split(path: Path, registry: SkillRegistry, world: WorldState) -> EvalFile:
    """An eval file checked against the robot: its steps against the skills, its scenarios against the world."""
    data = load_eval(path, registry)
    ids = set(world.ids()) | set(world.drawers)
    for name, scenario in data.scenarios.items():
        for field, named in scenario.object_ids().items():
            unknown = sorted(set(named) - ids)
            if unknown:
                raise EvalFileError(f"{path}: scenarios.{name}.{field}: {unknown} not objects of the world")
    return data


def evaluate(planner: Planner, robot: EvalRobot, split: Split = "tuned") -> list[TaskScore]:
    """Score every task of one split of a robot (none when the split is absent)."""
    data = robot.split(split)
    if data is None:
        return []
    return run_eval(planner, data.tasks, data.scenarios, robot.world, robot.registry)


def expected_plan_problems(robot: EvalRobot) -> list[str]:
    """Expected plans that cannot run symbolically from their scenario, or miss their goal: golden-file bugs."""
    problems = []
    for split, data in robot.splits():
        for task in data.tasks:
            if task.steps is None:
                continue
            plan = Plan(steps=tuple(SkillCall(skill=s.skill, args=s.args) for s in task.steps))
            state, why = execute(plan, robot.registry, data.scenarios[task.scenario].apply(robot.world))
            unmet = [g for g in task.goal if not state.holds(parse_predicate(g))]
            if why or unmet:
                problems.append(f"{robot.name}/{split} {task.task!r}: {why or f'goal not met: {unmet}'}")
    return problems
