"""A call that chooses hardware the robot lacks is refused by the plan check, before anything moves.

A skill that needs *a* camera is kept for any robot with one; which camera a call asks for (``camera: wrist``)
is checked per call against the robot the registry was chosen for, whichever planner made the plan.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bt_executive.llm.plan import Plan, PlannerRefused, RefusalKind
from bt_executive.skills.call import SkillCall
from bt_executive.skills.capabilities import RobotCapabilities
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import ObjectState, WorldState
from bt_executive.trees.plan_check import require_runnable

CATALOG = Path(__file__).resolve().parents[2] / "config" / "catalog"
WORLD = WorldState(objects=(ObjectState(id="v12", category="valve", colour="red", position=(1.0, 0.0, 0.5)),))


def _photo(camera: str) -> Plan:
    return Plan(steps=(SkillCall(skill="inspect/take_photo", args={"target": "v12", "camera": camera}),))


@pytest.fixture(scope="module")
def front_only() -> SkillRegistry:
    robot = RobotCapabilities(name="rover", mobile_base=True, cameras=("front",))
    registry, _ = SkillRegistry.discover([CATALOG / "inspect"], use_entry_points=False).available_for(robot)
    return registry


def test_a_camera_the_robot_lacks_is_refused_as_a_missing_skill(front_only: SkillRegistry) -> None:
    with pytest.raises(PlannerRefused) as refused:
        require_runnable(_photo("wrist"), front_only, WORLD)
    assert refused.value.kind is RefusalKind.MISSING_SKILL
    assert "no wrist camera (its cameras: front)" in refused.value.reason


def test_a_camera_the_robot_has_passes(front_only: SkillRegistry) -> None:
    plan = _photo("front")
    assert require_runnable(plan, front_only, WORLD) is plan


def test_a_registry_chosen_for_no_robot_checks_no_camera() -> None:
    registry = SkillRegistry.discover([CATALOG / "inspect"], use_entry_points=False)
    plan = _photo("wrist")
    assert (registry.robot, require_runnable(plan, registry, WORLD)) == (None, plan)
