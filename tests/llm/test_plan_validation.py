"""Plan validation: unknown skills, bad arguments, absent objects and prompt-less VLA calls never pass."""

from __future__ import annotations

from bt_executive.llm.model.plan_validation import ProposedStep, check_plan, check_step
from bt_executive.skills.manifest import SkillManifest
from bt_executive.skills.registry import RegisteredSkill, SkillRegistry
from bt_executive.skills.world_state import ObjectState, WorldState
from bt_executive.testing import valid_manifest_data

WORLD = WorldState(
    objects=(
        ObjectState(id="red_cube", position=(0.3, 0.1, 0.02)),
        ObjectState(id="plate", position=(0.4, 0.2, 0.0)),
    )
)


def test_a_valid_step_becomes_a_skill_call(skill_registry: SkillRegistry) -> None:
    call, issues = check_step(
        skill_registry, 0, ProposedStep(skill="tabletop/pick", args={"object": "red_cube"}), WORLD
    )
    assert (call is not None and call.label(), issues) == ("pick(red_cube)", [])


def test_an_unknown_skill_is_refused_with_close_matches(skill_registry: SkillRegistry) -> None:
    _, issues = check_step(skill_registry, 0, ProposedStep(skill="tabletop/pik"))
    assert (issues[0].reason, issues[0].suggestions[0]) == ("unknown skill", "tabletop/pick")


def test_a_tool_name_given_as_a_skill_is_matched_to_its_id(skill_registry: SkillRegistry) -> None:
    _, issues = check_step(skill_registry, 0, ProposedStep(skill="tabletop__place_on"))
    assert issues[0].suggestions[0] == "tabletop/place_on"


def test_invalid_arguments_name_the_json_path_and_reason(skill_registry: SkillRegistry) -> None:
    step = ProposedStep(skill="tabletop/pick", args={"object": "red_cube", "grasp": {"lift_height": 5}})
    _, issues = check_step(skill_registry, 2, step)
    assert issues[0].message() == "step 3 tabletop/pick: $.grasp.lift_height: 5 is greater than the maximum of 0.3"


def test_an_object_absent_from_the_world_is_refused_with_close_ids(skill_registry: SkillRegistry) -> None:
    _, issues = check_step(skill_registry, 0, ProposedStep(skill="tabletop/pick", args={"object": "red_cub"}), WORLD)
    assert (issues[0].path, issues[0].suggestions) == ("$.object", ("red_cube",))


def test_a_vla_call_without_a_prompt_is_refused() -> None:
    data = valid_manifest_data(id="test/vla", kind="vla", parameters=None, ros=None, vla={"policy": "oracle"})
    registry = SkillRegistry([RegisteredSkill(SkillManifest.model_validate(data), "test")])
    _, issues = check_step(registry, 0, ProposedStep(skill="test/vla", prompt="  "))
    assert [i.reason for i in issues] == ["a VLA skill needs a non-empty prompt"]


def test_a_plan_is_ok_only_when_every_step_is(skill_registry: SkillRegistry) -> None:
    steps = [
        ProposedStep(skill="tabletop/pick", args={"object": "red_cube"}),
        ProposedStep(skill="tabletop/place_on", args={}),
    ]
    check = check_plan(skill_registry, steps, WORLD)
    assert (check.ok, len(check.calls), [i.step for i in check.issues]) == (False, 1, [1])
