"""The palette: one tool per skill, invertible names, stable order, world-narrowed object arguments."""

from __future__ import annotations

import json
import re

from bt_executive.llm.model.palette import EXECUTE_SKILL_TOOL, TOOL_NAME_PATTERN, build_palette, tool_names
from bt_executive.skills.manifest import SkillManifest
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import ObjectState, WorldState
from bt_executive.testing import valid_manifest_data

WORLD = WorldState(
    objects=(
        ObjectState(id="red_cube", position=(0.3, 0.1, 0.02)),
        ObjectState(id="plate", position=(0.4, 0.2, 0.0)),
    ),
    drawers={"drawer": 0.0},
)


def test_every_tool_name_is_legal_and_maps_back_to_its_skill(skill_registry: SkillRegistry) -> None:
    palette = build_palette(skill_registry)
    names = [t.name for t in palette.tools]
    assert all(re.match(TOOL_NAME_PATTERN, n) for n in names)
    assert [palette.skill_for(n) for n in names] == list(skill_registry.ids())


def test_long_ids_are_cut_with_a_sha1_suffix_and_stay_unique() -> None:
    long_a, long_b = "owner/" + "a" * 60, "owner/" + "a" * 59 + "b"
    names = tool_names([long_a, long_b])
    assert all(len(n) <= 64 and re.match(r".*_[0-9a-f]{8}$", n) for n in names.values())
    assert len(set(names.values())) == 2


def test_ids_that_slug_alike_get_distinct_names() -> None:
    names = tool_names(["a__b/c", "a/b__c"])
    assert len(set(names.values())) == 2


def test_description_carries_actions_objects_and_scenes(skill_registry: SkillRegistry) -> None:
    tool = next(t for t in build_palette(skill_registry).tools if t.skill == "tabletop/pick")
    assert re.search(r"Actions: PICK, GRASP\. Objects: cube, .*\. Scenes: tabletop, kitchen\.$", tool.description)


def test_vla_tools_require_a_prompt_and_every_tool_offers_an_optional_rationale(skill_registry: SkillRegistry) -> None:
    data = valid_manifest_data(id="test/vla", kind="vla", parameters=None, ros=None, vla={"policy": "oracle"})
    manifests = [SkillManifest.model_validate(data), skill_registry.get("tabletop/pick")]
    tools = {t.skill: t for t in build_palette(manifests).tools}
    vla = tools["test/vla"].parameters
    pick = tools["tabletop/pick"].parameters
    assert ("prompt" in vla["required"], "rationale" in pick["properties"], "rationale" in pick["required"]) == (
        True,
        True,
        False,
    )


def test_tools_are_sorted_by_id_and_byte_identical_across_builds(skill_registry: SkillRegistry) -> None:
    first = json.dumps(build_palette(skill_registry, WORLD).openai_tools())
    second = json.dumps(build_palette(skill_registry, WORLD).openai_tools())
    skills = [t.skill for t in build_palette(skill_registry).tools]
    assert (first == second, skills == sorted(skills)) == (True, True)


def test_object_arguments_are_narrowed_to_world_ids(skill_registry: SkillRegistry) -> None:
    tools = {t.skill: t.parameters for t in build_palette(skill_registry, WORLD).tools}
    assert tools["tabletop/pick"]["properties"]["object"]["enum"] == ["drawer", "plate", "red_cube"]
    assert tools["tabletop/push"]["properties"]["direction"]["enum"] == ["forward", "back", "left", "right"]


def test_narrowing_can_be_turned_off(skill_registry: SkillRegistry) -> None:
    tools = {t.skill: t.parameters for t in build_palette(skill_registry, WORLD, narrow_objects=False).tools}
    assert "enum" not in tools["tabletop/pick"]["properties"]["object"]


def test_skills_without_metadata_fall_back_to_one_execute_skill_tool() -> None:
    bare = [
        SkillManifest.model_validate(
            valid_manifest_data(id=f"test/s{i}", kind="vla", parameters=None, ros=None, vla={"policy": "oracle"})
        )
        for i in range(3)
    ]
    palette = build_palette(bare)
    assert [t.name for t in palette.tools] == [EXECUTE_SKILL_TOOL]
    assert palette.tools[0].parameters["properties"]["skill"]["enum"] == ["test/s0", "test/s1", "test/s2"]
