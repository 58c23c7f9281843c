"""The executive's plan check inside the LLM planner's repair loop (``plan_gate``).

A model's plan that the task tree would refuse (``pick(table)``, a step that
can never start where it runs) goes back to the model as repair text; one it
insists on ends as the check says: ``planner_refused`` (not_afforded) for an
object that does not allow the action.
"""

from __future__ import annotations

import pytest

from bt_executive.llm.model.llm_planner import LLMPlanner
from bt_executive.llm.plan import PlannerRefused, RefusalKind
from bt_executive.llm.profiles import LLMProfile
from bt_executive.skills.capabilities import RobotCapabilities
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import ObjectState, WorldState
from bt_executive.testing import ScriptedLLMServer, ScriptedReply
from bt_executive.trees.plan_check import require_runnable

WORLD = WorldState(
    objects=(
        ObjectState(id="red_cube", category="cube", colour="red", position=(0.3, 0.1, 0.02)),
        ObjectState(id="plate", category="plate", colour="green", position=(0.4, 0.2, 0.006)),
        ObjectState(id="table", category="table", colour="brown", position=(0.45, 0.0, 0.0)),
    ),
    at_home=True,
)
PICK_RED = ("tabletop__pick", {"object": "red_cube"})
PICK_PLATE = ("tabletop__pick", {"object": "plate"})
PLACE_PLATE = ("tabletop__place_on", {"target": "plate"})
PICK_TABLE = ("tabletop__pick", {"object": "table"})


def _gated(llm: ScriptedLLMServer, registry: SkillRegistry, robot: RobotCapabilities) -> LLMPlanner:
    profile = LLMProfile(name="scripted", model="openai/scripted", api_base=llm.base_url, timeout_s=5.0)
    return LLMPlanner(profile, registry, robot, plan_gate=lambda plan, world: require_runnable(plan, registry, world))


def test_a_step_that_can_never_start_goes_back_to_the_model_and_is_mended(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    scripted_llm.queue(ScriptedReply.tool_calls(PICK_RED, PICK_PLATE), ScriptedReply.tool_calls(PICK_RED, PLACE_PLATE))
    plan = _gated(scripted_llm, skill_registry, tabletop_robot).plan("put the red cube on the plate", WORLD)
    feedback = scripted_llm.requests[1].texts()[-1]
    assert ([c.label() for c in plan.steps], "step 2 tabletop/pick" in feedback) == (
        ["pick(red_cube)", "place_on(plate)"],
        True,
    )


def test_a_model_that_insists_on_picking_the_table_is_refused_not_afforded(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    scripted_llm.queue(*(ScriptedReply.tool_calls(PICK_TABLE) for _ in range(3)))
    with pytest.raises(PlannerRefused) as refused:
        _gated(scripted_llm, skill_registry, tabletop_robot).plan("pick up the table", WORLD)
    assert (refused.value.kind, len(scripted_llm.requests)) == (RefusalKind.NOT_AFFORDED, 3)


def test_a_model_that_calls_refuse_ends_planner_refused_with_its_kind_and_reason(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    refuse = ("refuse", {"kind": "no_such_object", "reason": "there is no purple cube"})
    scripted_llm.queue(ScriptedReply.tool_calls(PICK_RED, refuse))
    with pytest.raises(PlannerRefused) as refused:
        _gated(scripted_llm, skill_registry, tabletop_robot).plan("pick up the purple cube", WORLD)
    assert (refused.value.kind, "no purple cube" in refused.value.reason, len(scripted_llm.requests)) == (
        RefusalKind.NO_SUCH_OBJECT,
        True,
        1,
    )


def test_a_structured_refusal_with_an_unknown_kind_is_sent_back_for_repair(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    bad = {"steps": [{"skill": "refuse", "args": {"kind": "bored", "reason": "no"}}]}
    good = {"steps": [{"skill": "refuse", "args": {"kind": "unsafe", "reason": "it would hurt someone"}}]}
    scripted_llm.queue(ScriptedReply.json_plan(bad), ScriptedReply.json_plan(good))
    profile = LLMProfile(
        name="scripted",
        model="openai/scripted",
        api_base=scripted_llm.base_url,
        timeout_s=5.0,
        output_mode="structured",
    )
    with pytest.raises(PlannerRefused) as refused:
        LLMPlanner(profile, skill_registry, tabletop_robot).plan("hit the person with the cube", WORLD)
    assert (refused.value.kind, "refuse needs kind" in scripted_llm.requests[1].texts()[-1]) == (
        RefusalKind.UNSAFE,
        True,
    )
