"""The structured-plan schema: one branch per skill, so only palette skills with valid arguments fit."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from jsonschema.validators import Draft202012Validator

from bt_executive.llm.model.palette import build_palette
from bt_executive.llm.model.plan_schema import plan_json_schema, response_format
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import ObjectState, WorldState

WORLD = WorldState(objects=(ObjectState(id="red_cube", position=(0.3, 0.1, 0.02)),))


@pytest.fixture
def schema(skill_registry: SkillRegistry) -> dict[str, Any]:
    """The plan schema over the shipped skills, narrowed to a one-cube world, at most 3 steps."""
    return plan_json_schema(build_palette(skill_registry, WORLD), max_steps=3)


def test_the_schema_is_a_valid_json_schema_with_one_branch_per_skill(
    schema: dict[str, Any], skill_registry: SkillRegistry
) -> None:
    Draft202012Validator.check_schema(schema)
    consts = [b["properties"]["skill"]["const"] for b in schema["properties"]["steps"]["items"]["oneOf"]]
    assert consts == [*skill_registry.ids(), "refuse"]


def test_a_valid_plan_fits(schema: dict[str, Any]) -> None:
    jsonschema.validate({"steps": [{"skill": "tabletop/pick", "args": {"object": "red_cube"}}]}, schema)


@pytest.mark.parametrize(
    "plan",
    [
        {"steps": [{"skill": "tabletop/grab", "args": {"object": "red_cube"}}]},
        {"steps": [{"skill": "tabletop/pick", "args": {"object": "blue_cube"}}]},
        {"steps": [{"skill": "tabletop/pick", "args": {}}]},
        {"steps": [{"skill": "tabletop/home", "args": {}}] * 4},
        {"plan": []},
    ],
    ids=["unknown-skill", "absent-object", "missing-arg", "over-the-cap", "no-steps"],
)
def test_an_invalid_plan_does_not_fit(schema: dict[str, Any], plan: dict[str, Any]) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(plan, schema)


def test_required_only_drops_optional_arguments(skill_registry: SkillRegistry) -> None:
    schema = plan_json_schema(build_palette(skill_registry), required_only=True)
    pick = next(
        b
        for b in schema["properties"]["steps"]["items"]["oneOf"]
        if b["properties"]["skill"]["const"] == "tabletop/pick"
    )
    assert list(pick["properties"]["args"]["properties"]) == ["object"]


def test_response_format_asks_for_strict_json_schema(schema: dict[str, Any]) -> None:
    fmt = response_format(schema)
    assert (fmt["type"], fmt["json_schema"]["strict"], fmt["json_schema"]["schema"] is schema) == (
        "json_schema",
        True,
        True,
    )
