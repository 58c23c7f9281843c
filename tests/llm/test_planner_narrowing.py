"""The LLM planner with a large catalog: a narrowed palette, and site knowledge as context, never as tools."""

from __future__ import annotations

import json

from bt_executive.llm.eval.synthetic_skills import synthetic_manifests
from bt_executive.llm.model.llm_planner import LLMPlanner
from bt_executive.llm.profiles import LLMProfile
from bt_executive.skills.dirs import knowledge_dirs
from bt_executive.skills.knowledge import KnowledgeSkill, discover_knowledge
from bt_executive.skills.registry import RegisteredSkill, SkillRegistry
from bt_executive.skills.world_state import ObjectState, WorldState
from bt_executive.testing import ScriptedLLMServer, ScriptedReply

WORLD = WorldState(
    objects=(
        ObjectState(id="red_cube", category="cube", colour="red", position=(0.3, 0.1, 0.02)),
        ObjectState(id="plate", category="plate", colour="green", position=(0.4, 0.2, 0.006)),
    ),
)
TASK = "put the red cube on the plate"
PICK_AND_PLACE = (("tabletop__pick", {"object": "red_cube"}), ("tabletop__place_on", {"target": "plate"}))
"""The model's faithful answer to TASK (an unfaithful one would be sent back for a repair)."""


def planner(
    llm: ScriptedLLMServer, registry: SkillRegistry, knowledge: list[KnowledgeSkill] | None = None, **profile: object
) -> LLMPlanner:
    base = LLMProfile(name="scripted", model="openai/scripted", api_base=llm.base_url, timeout_s=5.0)
    return LLMPlanner(LLMProfile.model_validate({**base.model_dump(), **profile}), registry, knowledge=knowledge or [])


def with_distractors(registry: SkillRegistry, count: int) -> SkillRegistry:
    extra = [RegisteredSkill(m, "synthetic") for m in synthetic_manifests(count)]
    return SkillRegistry([*(RegisteredSkill(m, "shipped") for m in registry), *extra])


def test_a_large_catalog_is_narrowed_to_k_routed_skills_plus_home_including_what_the_task_needs(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry
) -> None:
    scripted_llm.queue(ScriptedReply.tool_calls(*PICK_AND_PLACE))
    planner(scripted_llm, with_distractors(skill_registry, 300)).plan(TASK, WORLD)
    names = {t["function"]["name"] for t in scripted_llm.requests[0].body["tools"]} - {"refuse"}
    assert (len(names) <= 24 + 1, {"tabletop__pick", "tabletop__place_on", "tabletop__home"} <= names) == (True, True)


def test_site_knowledge_goes_into_the_system_prompt_and_never_into_the_tools(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry
) -> None:
    knowledge = discover_knowledge(knowledge_dirs())
    fragile = next(k for k in knowledge if k.name == "plate_fragile")
    scripted_llm.queue(ScriptedReply.tool_calls(*PICK_AND_PLACE))
    planner(scripted_llm, skill_registry, knowledge=knowledge).plan(TASK, WORLD)
    request = scripted_llm.requests[0]
    names = {t["function"]["name"] for t in request.body["tools"]}
    system = request.body["messages"][0]["content"]
    assert (fragile.description in system, any("plate_fragile" in n for n in names)) == (True, False)


def test_a_skill_the_model_describes_joins_its_tools_and_can_be_planned(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry
) -> None:
    from bt_executive.skills.dirs import catalog_skill_dirs

    catalog = SkillRegistry.discover(catalog_skill_dirs())
    scripted_llm.queue(ScriptedReply.tool_calls(("describe_skill", {"name": "cleaning/wipe_table"})))
    scripted_llm.queue(ScriptedReply.tool_calls(("cleaning__wipe_table", {"surface": "plate"})))
    plan = planner(scripted_llm, catalog, catalog_tools=True, palette_k=5).plan("scrub the plate", WORLD)
    first_tools = {t["function"]["name"] for t in scripted_llm.requests[0].body["tools"]}
    second_tools = {t["function"]["name"] for t in scripted_llm.requests[1].body["tools"]}
    assert ("cleaning__wipe_table" in first_tools, "cleaning__wipe_table" in second_tools) == (False, True)
    assert [(c.skill, c.args) for c in plan.steps] == [("cleaning/wipe_table", {"surface": "plate"})]


def test_an_unknown_skill_lookup_answers_with_close_matches_and_a_hint(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry
) -> None:
    scripted_llm.queue(ScriptedReply.tool_calls(("describe_skill", {"name": "tabletop/pik"})))
    scripted_llm.queue(ScriptedReply.tool_calls(*PICK_AND_PLACE))
    planner(scripted_llm, skill_registry, catalog_tools=True).plan(TASK, WORLD)
    error = json.loads(scripted_llm.requests[1].body["messages"][-1]["content"])["error"]
    assert (error["code"], "tabletop/pick" in error["close_matches"], "list_skills" in error["hint"]) == (
        "unknown_skill",
        True,
        True,
    )
