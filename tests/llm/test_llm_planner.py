"""LLMPlanner through litellm against a scripted OpenAI-compatible server on loopback.

Each scripted conversation ends in a valid plan or a PlannerError, and no
invalid call ever comes out of ``plan``.
"""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest

from bt_executive.llm.model.llm_planner import LLMPlanner
from bt_executive.llm.plan import Plan, PlannerError
from bt_executive.llm.profiles import LLMProfile, PlanExample
from bt_executive.skills.call import AttemptRecord, SkillCall, SkillResult
from bt_executive.skills.capabilities import RobotCapabilities
from bt_executive.skills.failures import FailureKind
from bt_executive.skills.parameters import validate_arguments
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import ObjectState, WorldState
from bt_executive.testing import ScriptedLLMServer, ScriptedReply

WORLD = WorldState(
    objects=(
        ObjectState(id="red_cube", category="cube", colour="red", position=(0.3, 0.1, 0.02)),
        ObjectState(id="plate", category="plate", colour="green", position=(0.4, 0.2, 0.006)),
        ObjectState(id="bowl", category="bowl", colour="white", position=(0.25, -0.25, 0.03)),
    ),
    drawers={"drawer": 0.0},
    at_home=True,
)
PICK = ("tabletop__pick", {"object": "red_cube"})
PLACE = ("tabletop__place_on", {"target": "plate"})
GOOD_PLAN = {
    "steps": [
        {"skill": "tabletop/pick", "args": {"object": "red_cube"}},
        {"skill": "tabletop/place_on", "args": {"target": "plate"}},
    ]
}


def _planner(
    llm: ScriptedLLMServer,
    registry: SkillRegistry,
    robot: RobotCapabilities,
    **changes: object,
) -> LLMPlanner:
    base = LLMProfile(name="scripted", model="openai/scripted", api_base=llm.base_url, timeout_s=5.0)
    return LLMPlanner(LLMProfile.model_validate({**base.model_dump(), **changes}), registry, robot)


def _assert_valid(plan: Plan, registry: SkillRegistry) -> None:
    for call in plan.steps:
        validate_arguments(registry.get(call.skill), call.args)


def test_tool_calls_become_the_plan_in_order(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    scripted_llm.queue(ScriptedReply.tool_calls(PICK, PLACE))
    plan = _planner(scripted_llm, skill_registry, tabletop_robot).plan("put the red cube on the plate", WORLD)
    assert [(c.skill, c.args) for c in plan.steps] == [
        ("tabletop/pick", {"object": "red_cube"}),
        ("tabletop/place_on", {"target": "plate"}),
    ]


def test_request_carries_the_palette_as_tools_and_the_world_in_the_prompt(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    scripted_llm.queue(ScriptedReply.tool_calls(PICK))
    _planner(scripted_llm, skill_registry, tabletop_robot).plan("pick up the red cube", WORLD)
    body = scripted_llm.requests[0].body
    names = [t["function"]["name"] for t in body["tools"]]
    skills, last = names[:-1], names[-1]  # the skills sorted, then refuse (refusal_tool)
    assert (
        skills == sorted(skills),
        last,
        "tabletop__pick" in names,
        "red_cube" in scripted_llm.requests[0].texts()[0],
    ) == (
        True,
        "refuse",
        True,
        True,
    )


def test_prose_gets_one_nudge_then_the_tool_calls_are_used(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    scripted_llm.queue(ScriptedReply.content("Sure! First I would pick the cube."), ScriptedReply.tool_calls(PICK))
    plan = _planner(scripted_llm, skill_registry, tabletop_robot).plan("pick up the red cube", WORLD)
    nudge = scripted_llm.requests[1].texts()[-1]
    assert ([c.skill for c in plan.steps], "tool calls only" in nudge) == (["tabletop/pick"], True)


def test_prose_after_the_nudge_is_a_planner_error(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    scripted_llm.queue(ScriptedReply.content("I think so."), ScriptedReply.content("Still talking."))
    with pytest.raises(PlannerError, match=r"'scripted'.*prose"):
        _planner(scripted_llm, skill_registry, tabletop_robot).plan("pick up the red cube", WORLD)


def test_done_without_tool_calls_is_an_empty_plan(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    scripted_llm.queue(ScriptedReply.content("DONE"))
    plan = _planner(scripted_llm, skill_registry, tabletop_robot).plan("make sure the arm is home", WORLD)
    assert plan.is_done


def test_malformed_tool_arguments_are_sent_back_and_repaired(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    scripted_llm.queue(ScriptedReply.tool_calls(("tabletop__pick", '{"object": "red_')), ScriptedReply.tool_calls(PICK))
    plan = _planner(scripted_llm, skill_registry, tabletop_robot).plan("pick up the red cube", WORLD)
    feedback = scripted_llm.requests[1].texts()[-1]
    assert ([c.args for c in plan.steps], "not valid JSON" in feedback) == ([{"object": "red_cube"}], True)


def test_unknown_skill_is_refused_with_close_matches(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    scripted_llm.queue(
        ScriptedReply.tool_calls(("tabletop__pik", {"object": "red_cube"})), ScriptedReply.tool_calls(PICK)
    )
    _planner(scripted_llm, skill_registry, tabletop_robot).plan("pick up the red cube", WORLD)
    feedback = scripted_llm.requests[1].texts()[-1]
    assert "unknown skill (did you mean tabletop/pick" in feedback


def test_invalid_arguments_are_refused_with_path_and_reason(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    bad = ("tabletop__push", {"object": "red_cube", "direction": "up"})
    good = ("tabletop__push", {"object": "red_cube", "direction": "left"})
    scripted_llm.queue(ScriptedReply.tool_calls(bad), ScriptedReply.tool_calls(good))
    plan = _planner(scripted_llm, skill_registry, tabletop_robot).plan("push the red cube left", WORLD)
    feedback = scripted_llm.requests[1].texts()[-1]
    assert ("$.direction: 'up' is not one of" in feedback, plan.steps[0].args["direction"]) == (True, "left")


def test_refused_tool_calls_are_answered_before_the_repair_request(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    scripted_llm.queue(ScriptedReply.tool_calls(("tabletop__pick", {})), ScriptedReply.tool_calls(PICK))
    _planner(scripted_llm, skill_registry, tabletop_robot).plan("pick up the red cube", WORLD)
    roles = [m["role"] for m in scripted_llm.requests[1].body["messages"]]
    assert roles[-3:] == ["assistant", "tool", "user"]


def test_an_object_absent_from_the_world_is_never_planned(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    ghost = ("tabletop__pick", {"object": "purple_cube"})
    scripted_llm.queue(*(ScriptedReply.tool_calls(ghost) for _ in range(3)))
    with pytest.raises(PlannerError, match=r"purple_cube' is not an object in the world state"):
        _planner(scripted_llm, skill_registry, tabletop_robot).plan("pick the purple cube", WORLD)


def test_repairs_are_bounded_then_planner_error(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    scripted_llm.queue(*(ScriptedReply.tool_calls(("tabletop__pick", {})) for _ in range(5)))
    with pytest.raises(PlannerError, match="after 1 repair"):
        _planner(scripted_llm, skill_registry, tabletop_robot, max_repairs=1).plan("pick", WORLD)
    assert (len(scripted_llm.requests), scripted_llm.pending()) == (2, 3)


def test_the_tool_name_wins_over_a_smuggled_skill_argument(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    smuggled = ("tabletop__tap", {"object": "red_cube", "skill": "tabletop/pick"})
    scripted_llm.queue(ScriptedReply.tool_calls(smuggled))
    plan = _planner(scripted_llm, skill_registry, tabletop_robot).plan("tap the red cube", WORLD)
    assert [(c.skill, c.args) for c in plan.steps] == [("tabletop/tap", {"object": "red_cube"})]


def test_structured_mode_sends_the_plan_schema_and_reads_the_json_plan(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    scripted_llm.queue(ScriptedReply.json_plan(GOOD_PLAN))
    planner = _planner(scripted_llm, skill_registry, tabletop_robot, output_mode="structured")
    plan = planner.plan("put the red cube on the plate", WORLD)
    body = scripted_llm.requests[0].body
    schema = body["response_format"]["json_schema"]["schema"]
    branches = schema["properties"]["steps"]["items"]["oneOf"]
    assert (len(plan.steps), "tools" in body, len(branches)) == (2, False, len(skill_registry) + 1)  # + refuse


def test_structured_mode_repairs_malformed_json(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    scripted_llm.queue(ScriptedReply.content('{"steps": [{"skill": '), ScriptedReply.json_plan(GOOD_PLAN))
    planner = _planner(scripted_llm, skill_registry, tabletop_robot, output_mode="structured")
    plan = planner.plan("put the red cube on the plate", WORLD)
    assert ("not valid JSON" in scripted_llm.requests[1].texts()[-1], len(plan.steps)) == (True, 2)


def test_structured_empty_steps_is_an_empty_plan(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    scripted_llm.queue(ScriptedReply.json_plan({"steps": []}))
    plan = _planner(scripted_llm, skill_registry, tabletop_robot, output_mode="structured").plan("done?", WORLD)
    assert plan.is_done


def test_a_slow_reply_past_the_timeout_is_a_planner_error_naming_the_profile(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    scripted_llm.queue(ScriptedReply.tool_calls(PICK).delayed(5.0))
    planner = _planner(scripted_llm, skill_registry, tabletop_robot, timeout_s=0.5)
    with pytest.raises(PlannerError, match=r"profile 'scripted'.*(?i:timeout|timed out)"):
        planner.plan("pick up the red cube", WORLD)


def test_an_http_500_once_is_retried_and_the_plan_comes_back(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    scripted_llm.queue(ScriptedReply.error(500, "model crashed"), ScriptedReply.tool_calls(PICK))
    plan = _planner(scripted_llm, skill_registry, tabletop_robot).plan("pick up the red cube", WORLD)
    assert ([c.skill for c in plan.steps], len(scripted_llm.requests)) == (["tabletop/pick"], 2)


def test_a_500_every_time_is_a_planner_error_naming_the_profile_after_n_plus_one_requests(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    retries = 2
    scripted_llm.queue(*[ScriptedReply.error(500, "model crashed")] * (retries + 3))
    planner = _planner(scripted_llm, skill_registry, tabletop_robot, provider_retries=retries)
    with pytest.raises(PlannerError, match=r"profile 'scripted'.*model crashed \(after 2 retries\)"):
        planner.plan("pick up the red cube", WORLD)
    assert len(scripted_llm.requests) == retries + 1


@pytest.mark.parametrize("reply", [ScriptedReply.error(429, "slow down"), ScriptedReply.error(503, "overloaded")])
def test_rate_limits_and_unavailable_servers_are_retried(
    reply: ScriptedReply,
    scripted_llm: ScriptedLLMServer,
    skill_registry: SkillRegistry,
    tabletop_robot: RobotCapabilities,
) -> None:
    scripted_llm.queue(reply, ScriptedReply.tool_calls(PICK))
    plan = _planner(scripted_llm, skill_registry, tabletop_robot).plan("pick up the red cube", WORLD)
    assert [c.skill for c in plan.steps] == ["tabletop/pick"]


def test_a_reset_connection_is_retried(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    scripted_llm.queue(ScriptedReply.connection_reset(), ScriptedReply.tool_calls(PICK))
    plan = _planner(scripted_llm, skill_registry, tabletop_robot).plan("pick up the red cube", WORLD)
    assert ([c.skill for c in plan.steps], len(scripted_llm.requests)) == (["tabletop/pick"], 2)


@pytest.mark.parametrize("status", [400, 401, 404])
def test_a_client_error_is_never_retried(
    status: int, scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    scripted_llm.queue(ScriptedReply.error(status, "your mistake"), ScriptedReply.tool_calls(PICK))
    with pytest.raises(PlannerError, match=r"profile 'scripted'"):
        _planner(scripted_llm, skill_registry, tabletop_robot).plan("pick up the red cube", WORLD)
    assert len(scripted_llm.requests) == 1


def test_provider_retries_zero_means_one_request(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    scripted_llm.queue(ScriptedReply.error(500, "model crashed"), ScriptedReply.tool_calls(PICK))
    with pytest.raises(PlannerError, match=r"profile 'scripted'.*model crashed$"):
        _planner(scripted_llm, skill_registry, tabletop_robot, provider_retries=0).plan("pick up the red cube", WORLD)
    assert len(scripted_llm.requests) == 1


def test_a_timeout_is_not_retried(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    scripted_llm.queue(*[ScriptedReply.tool_calls(PICK).delayed(3.0)] * 3)
    with pytest.raises(PlannerError, match=r"profile 'scripted'"):
        _planner(scripted_llm, skill_registry, tabletop_robot, timeout_s=0.5).plan("pick up the red cube", WORLD)
    assert len(scripted_llm.requests) == 1


def test_the_api_key_reaches_the_server_but_no_log_record_or_error(
    scripted_llm: ScriptedLLMServer,
    skill_registry: SkillRegistry,
    tabletop_robot: RobotCapabilities,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    key = "sk-test-5f1e2d3c4b5a69788796a5b4c3d2e1f0"
    monkeypatch.setenv("BT_TEST_LLM_KEY", key)
    scripted_llm.queue(ScriptedReply.error(401, f"bad key {key}"))
    caplog.set_level(logging.DEBUG)
    with pytest.raises(PlannerError) as raised:
        _planner(scripted_llm, skill_registry, tabletop_robot, api_key_env="BT_TEST_LLM_KEY").plan("pick", WORLD)
    logged = "\n".join(r.getMessage() for r in caplog.records)
    sent = scripted_llm.requests[0].headers.get("Authorization", "")
    assert (key in sent, key in str(raised.value), key in logged, raised.value.__cause__) == (True, False, False, None)


def test_a_missing_key_variable_is_a_planner_error_naming_it(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    planner = _planner(scripted_llm, skill_registry, tabletop_robot, api_key_env="BT_TEST_UNSET_KEY_VAR")
    with pytest.raises(PlannerError, match="BT_TEST_UNSET_KEY_VAR"):
        planner.plan("pick", WORLD)


def test_a_vision_profile_attaches_the_camera_frame_as_a_png_image_part(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    frame = np.zeros((224, 224, 3), np.uint8)
    profile = LLMProfile(name="vlm", model="openai/vlm", api_base=scripted_llm.base_url, vision=True)
    planner = LLMPlanner(profile, skill_registry, tabletop_robot, frame_source=lambda: frame)
    scripted_llm.queue(ScriptedReply.tool_calls(PICK))
    planner.plan("pick up the red cube", WORLD)
    request = scripted_llm.requests[0]
    urls = request.image_urls()
    assert (len(urls), urls[0][:22], "red_cube" in request.texts()[-1]) == (1, "data:image/png;base64,", True)


def test_a_text_profile_sends_no_image(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    profile = LLMProfile(name="text", model="openai/text", api_base=scripted_llm.base_url)
    planner = LLMPlanner(profile, skill_registry, tabletop_robot, frame_source=lambda: np.zeros((8, 8, 3), np.uint8))
    scripted_llm.queue(ScriptedReply.tool_calls(PICK))
    planner.plan("pick up the red cube", WORLD)
    assert scripted_llm.requests[0].image_urls() == []


def test_a_replan_shows_the_failed_attempt_to_the_model(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    failed = AttemptRecord(
        step=0,
        call=SkillCall(skill="tabletop/pick", args={"object": "red_cube"}),
        result=SkillResult.failed(FailureKind.MISSED_GRASP, "fingers closed on nothing"),
    )
    scripted_llm.queue(ScriptedReply.tool_calls(PICK))
    _planner(scripted_llm, skill_registry, tabletop_robot).plan("pick up the red cube", WORLD, [failed])
    prompt = scripted_llm.requests[0].texts()[-1]
    assert "FAILED: missed_grasp - fingers closed on nothing" in prompt


def test_few_shot_examples_become_turns_in_structured_mode(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    example = PlanExample(task="put the bowl away", objects=("bowl",), steps=())
    profile = LLMProfile(
        name="fs", model="openai/fs", api_base=scripted_llm.base_url, output_mode="structured", few_shot=True
    )
    planner = LLMPlanner(profile, skill_registry, tabletop_robot, examples=[example])
    scripted_llm.queue(ScriptedReply.json_plan(GOOD_PLAN))
    planner.plan("put the red cube on the plate", WORLD)
    messages = scripted_llm.requests[0].body["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert json.loads(messages[2]["content"]) == {"steps": []}


def test_every_returned_call_validates(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    scripted_llm.queue(ScriptedReply.tool_calls(PICK, PLACE, ("tabletop__home", {})))
    plan = _planner(scripted_llm, skill_registry, tabletop_robot).plan("put the red cube on the plate, go home", WORLD)
    _assert_valid(plan, skill_registry)
    assert plan.planner == "llm:scripted"


def test_the_task_objects_lever_offers_only_the_objects_the_task_names(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    scripted_llm.queue(ScriptedReply.json_plan(GOOD_PLAN))
    planner = _planner(scripted_llm, skill_registry, tabletop_robot, output_mode="structured", task_objects=True)
    planner.plan("put the red cube on the plate", WORLD)
    schema = scripted_llm.requests[0].body["response_format"]["json_schema"]["schema"]
    pick = next(
        b
        for b in schema["properties"]["steps"]["items"]["oneOf"]
        if b["properties"]["skill"]["const"] == "tabletop/pick"
    )
    assert pick["properties"]["args"]["properties"]["object"]["enum"] == ["plate", "red_cube"]


def test_the_drop_repeats_lever_collapses_back_to_back_duplicates_only(
    scripted_llm: ScriptedLLMServer, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    scripted_llm.queue(ScriptedReply.tool_calls(PICK, PICK, PLACE, PICK))
    task = "pick up the red cube, put it on the plate, then pick it up again"
    plan = _planner(scripted_llm, skill_registry, tabletop_robot, drop_repeats=True).plan(task, WORLD)
    assert ([c.label() for c in plan.steps], "dropped 1 repeated call" in plan.notes) == (
        ["pick(red_cube)", "place_on(plate)", "pick(red_cube)"],
        True,
    )
