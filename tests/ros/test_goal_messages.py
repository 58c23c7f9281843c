"""Goal messages built from skill calls, and action results mapped onto SkillResults (no server needed)."""

from __future__ import annotations

import importlib
import json
from typing import Any

import pytest
from action_msgs.msg import GoalStatus
from std_msgs.msg import String

from bt_executive.skills import FailureKind, RosBinding, SkillManifest, SkillResult
from bt_executive.skills.action_skill import skill_result_from_action
from bt_executive.skills.parameters import goal_arguments
from bt_executive.skills.ros_goal import GoalBuildError, build_goal, goal_values, import_action_type
from bt_executive_interfaces.action import RunSkill
from tests.ros.conftest import pick, pick_manifest

pytestmark = pytest.mark.ros

PoseStamped: Any = importlib.import_module("geometry_msgs.msg").PoseStamped  # a nested message, as a goal type


def binding_of(manifest: SkillManifest) -> RosBinding:
    """The manifest's ros block (every manifest here has one)."""
    if manifest.ros is None:
        raise ValueError(f"{manifest.id} has no ros block")
    return manifest.ros


def test_the_field_mapping_fills_skill_id_args_json_and_prompt() -> None:
    manifest = pick_manifest()
    call = pick("red_cube").model_copy(update={"prompt": "gently"})
    goal = build_goal(RunSkill.Goal, goal_values(binding_of(manifest), call, goal_arguments(manifest, call.args)))
    assert (goal.skill_id, json.loads(goal.args_json), goal.prompt) == (
        "test/pick",
        {"object": "red_cube", "grasp": {"approach_height": 0.12, "lift_height": 0.15}},
        "gently",
    )


def test_an_argument_path_fills_a_nested_goal_field_by_dotted_path() -> None:
    goal = build_goal(PoseStamped, {"header.frame_id": "table", "pose.position.x": 1})
    assert (goal.header.frame_id, goal.pose.position.x) == ("table", 1.0)


def test_a_mapping_fills_a_nested_message_field() -> None:
    goal = build_goal(PoseStamped, {"pose": {"position": {"x": 0.5, "z": 2}}})
    assert (goal.pose.position.x, goal.pose.position.z) == (0.5, 2.0)


def test_a_value_that_does_not_fit_its_field_names_the_field() -> None:
    with pytest.raises(GoalBuildError, match=r"pose\.position\.x"):
        build_goal(PoseStamped, {"pose.position.x": "far"})


def test_a_goal_field_the_message_lacks_is_refused() -> None:
    with pytest.raises(GoalBuildError, match="no field 'colour'"):
        build_goal(RunSkill.Goal, {"colour": "red"})


def test_an_empty_field_mapping_fills_goal_fields_named_like_the_arguments() -> None:
    manifest = pick_manifest(ros={"action_type": "bt_executive_interfaces/action/RunSkill", "action_name": "p"})
    assert goal_values(binding_of(manifest), pick("red_cube"), {"skill_id": "x", "prompt": "y"}) == {
        "skill_id": "x",
        "prompt": "y",
    }


def test_an_action_type_is_imported_by_its_interface_name() -> None:
    assert import_action_type("bt_executive_interfaces/action/RunSkill") is RunSkill


def test_an_action_type_from_a_missing_package_is_an_import_error() -> None:
    with pytest.raises(ImportError, match="no_such_pkg"):
        import_action_type("no_such_pkg/action/Pick")


def test_a_canceled_goal_without_a_payload_maps_to_preempted() -> None:
    result = skill_result_from_action(GoalStatus.STATUS_CANCELED, RunSkill.Result(), 0.5)
    assert result.failure_kind is FailureKind.PREEMPTED


def test_an_aborted_goal_without_a_payload_maps_to_aborted() -> None:
    result = skill_result_from_action(GoalStatus.STATUS_ABORTED, RunSkill.Result(), 0.5)
    assert result.failure_kind is FailureKind.ABORTED


def test_a_successful_result_keeps_reason_detail_and_evidence() -> None:
    message = RunSkill.Result(success=True, reason="held", detail="lifted 0.15 m", evidence_json='{"grip": 0.02}')
    result = skill_result_from_action(GoalStatus.STATUS_SUCCEEDED, message, 1.25)
    assert result == SkillResult.ok("held", detail="lifted 0.15 m", evidence={"grip": 0.02}, duration_s=1.25)


def test_a_result_without_the_run_skill_fields_succeeds_by_status_with_the_message_as_evidence() -> None:
    result = skill_result_from_action(GoalStatus.STATUS_SUCCEEDED, String(data="ok"), 0.1)
    assert result == SkillResult.ok(evidence={"data": "ok"}, duration_s=0.1)


def test_a_goal_the_server_no_longer_knows_maps_to_server_unavailable() -> None:
    result = skill_result_from_action(GoalStatus.STATUS_UNKNOWN, RunSkill.Result(), 0.1)
    assert result.failure_kind is FailureKind.SERVER_UNAVAILABLE
