"""Which site knowledge an LLM planner shows: facts about the skills it offers, or none for a profile that says so."""

from __future__ import annotations

from bt_executive.llm.model.llm_planner import LLMPlanner
from bt_executive.llm.profiles import LLMProfile
from bt_executive.skills.dirs import knowledge_dirs
from bt_executive.skills.knowledge import discover_knowledge
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import WorldState

TASK = "open the drawer"


def _system_prompt(registry: SkillRegistry, **changes: object) -> str:
    profile = LLMProfile.model_validate(
        {"name": "p", "model": "openai/none", "output_mode": "structured", "skills": ["tabletop/*"], **changes}
    )
    planner = LLMPlanner(profile, registry, knowledge=discover_knowledge(knowledge_dirs()))
    world = WorldState(drawers={"drawer": 0.0})
    return str(planner.messages(planner.palette(TASK, world), TASK, world)[0]["content"])


def test_facts_about_skills_the_planner_does_not_offer_are_left_out(skill_registry: SkillRegistry) -> None:
    system = _system_prompt(skill_registry)
    assert ("site/drawer_sticks" in system, "site/charging_rules" in system) == (True, False)


def test_a_profile_without_knowledge_shows_none(skill_registry: SkillRegistry) -> None:
    assert "Site knowledge" not in _system_prompt(skill_registry, knowledge=False)
