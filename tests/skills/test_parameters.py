"""Goal parameters: arguments are checked against the schema, then merged over the default goal."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bt_executive.skills.manifest import Role, SkillManifest
from bt_executive.skills.parameters import (
    InvalidArguments,
    argument_at,
    field_errors,
    goal_arguments,
    merge_goal,
    validate_arguments,
    with_argument,
)
from bt_executive.skills.registry import SkillRegistry

from .strategies import json_values, names


def test_overrides_win_over_defaults() -> None:
    assert merge_goal({"speed": 0.5}, {"speed": 0.9}) == {"speed": 0.9}


def test_nested_dicts_recurse_and_keep_deep_keys() -> None:
    defaults = {"grasp": {"approach_height": 0.12, "lift_height": 0.15, "force": {"max": 20}}}
    merged = merge_goal(defaults, {"grasp": {"lift_height": 0.2, "force": {"min": 5}}})
    assert merged == {"grasp": {"approach_height": 0.12, "lift_height": 0.2, "force": {"max": 20, "min": 5}}}


def test_arrays_replace_whole() -> None:
    assert merge_goal({"waypoints": [1, 2, 3]}, {"waypoints": [9]}) == {"waypoints": [9]}


def test_a_leaf_replaces_a_dict_and_a_dict_replaces_a_leaf() -> None:
    assert merge_goal({"a": {"b": 1}, "c": 2}, {"a": 5, "c": {"d": 3}}) == {"a": 5, "c": {"d": 3}}


def test_merge_modifies_neither_input() -> None:
    defaults: dict[str, Any] = {"grasp": {"approach_height": 0.12}, "list": [1]}
    overrides: dict[str, Any] = {"grasp": {"lift_height": 0.2}}
    merged = merge_goal(defaults, overrides)
    merged["grasp"]["approach_height"] = 0.0
    merged["list"].append(2)
    assert (defaults, overrides) == ({"grasp": {"approach_height": 0.12}, "list": [1]}, {"grasp": {"lift_height": 0.2}})


@given(st.dictionaries(names, json_values, max_size=4), st.dictionaries(names, json_values, max_size=4))
def test_every_override_key_is_in_the_result_unchanged_unless_both_are_dicts(
    defaults: dict[str, Any], overrides: dict[str, Any]
) -> None:
    merged = merge_goal(defaults, overrides)
    for key, value in overrides.items():
        if not (isinstance(value, dict) and isinstance(defaults.get(key), dict)):
            assert merged[key] == value
    assert set(merged) == set(defaults) | set(overrides)


def test_invalid_argument_error_names_the_json_path(skill_registry: SkillRegistry) -> None:
    pick = skill_registry.get("tabletop/pick")
    with pytest.raises(InvalidArguments) as caught:
        validate_arguments(pick, {"object": "red_cube", "grasp": {"approach_height": 5}})
    assert caught.value.errors[0][0] == "$.grasp.approach_height"


def test_every_argument_problem_is_reported(skill_registry: SkillRegistry) -> None:
    push = skill_registry.get("tabletop/push")
    with pytest.raises(InvalidArguments) as caught:
        validate_arguments(push, {"direction": "up", "colour": "red"})
    assert len(caught.value.errors) == 3  # missing object, bad enum, unknown key


def test_field_errors_name_a_missing_or_unexpected_argument_itself(skill_registry: SkillRegistry) -> None:
    pick = skill_registry.get("tabletop/pick")
    errors = field_errors(pick.parameters or {}, {"grasp": {"lift_height": 0.9, "speed": 1}, "colour": "red"})
    assert [field for field, _ in errors] == ["colour", "grasp.lift_height", "grasp.speed", "object"]


def test_vla_skill_needs_the_object_and_target_its_success_check_names(skill_registry: SkillRegistry) -> None:
    vla = skill_registry.get("tabletop/vla_manipulate")
    with pytest.raises(InvalidArguments, match="target"):
        validate_arguments(vla, {"object": "red_cube"})


def test_goal_arguments_merge_call_over_manifest_default_goal(skill_registry: SkillRegistry) -> None:
    pick = skill_registry.get("tabletop/pick")
    goal = goal_arguments(pick, {"object": "red_cube", "grasp": {"lift_height": 0.2}})
    assert goal == {"object": "red_cube", "grasp": {"approach_height": 0.12, "lift_height": 0.2}}


def test_a_nested_argument_is_read_and_set_by_its_dotted_path() -> None:
    args: dict[str, Any] = {"object": "red_cube"}
    with_argument(args, "grasp.approach_height", 0.05)
    with_argument(args, "grasp.lift_height", 0.2)
    assert args == {"object": "red_cube", "grasp": {"approach_height": 0.05, "lift_height": 0.2}}
    assert (argument_at(args, "grasp.lift_height"), argument_at(args, "object")) == (0.2, "red_cube")
    assert argument_at(args, "grasp.force") is None
    assert argument_at(args, "object.x") is None


def test_a_role_may_name_a_nested_parameter_that_exists_and_no_other(skill_registry: SkillRegistry) -> None:
    pick = skill_registry.get("tabletop/pick")
    assert pick.roles()["grasp.approach_height"] is Role.QUANTITY
    assert pick.parameter_schema("grasp.lift_height")["unit"] == "m"
    dumped = pick.model_dump(mode="json")
    dumped["language"]["roles"] = {"grasp.approach_hieght": "quantity"}
    with pytest.raises(ValueError, match=r"language\.roles names 'grasp\.approach_hieght', which is not a parameter"):
        SkillManifest.model_validate(dumped)
