"""The planner against a real model on this machine: SmolLM2-135M served by llama.cpp on loopback.

The model is small and its plans are often semantically wrong, so these
tests assert structure only: every plan that comes out is schema-valid, in
the palette, with valid arguments naming objects of the world; a refused
reply is repaired by the real model; nothing invalid ever comes out.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

from bt_executive.llm.grounding.object_arguments import object_argument_names, world_ids
from bt_executive.llm.model.compact_grammar import compact_grammar
from bt_executive.llm.model.llm_planner import LLMPlanner
from bt_executive.llm.model.plan_schema import plan_json_schema
from bt_executive.llm.plan import Plan, PlannerError, PlannerRefused
from bt_executive.llm.profiles import LLMProfile, load_llm_config
from bt_executive.llm.serving.local_model import LocalModelError, LocalModelServer, default_gguf, is_serving
from bt_executive.sim.backend import SimBackend
from bt_executive.skills.capabilities import RobotCapabilities
from bt_executive.skills.parameters import validate_arguments
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import WorldState
from bt_executive.testing import ScriptedLLMServer, ScriptedReply
from bt_executive.testing.llm_server import require_local_model

pytestmark = pytest.mark.slow

TASKS = ("put the red cube on the green plate", "open the drawer", "push the blue cube to the left")


@pytest.fixture(scope="module")
def world() -> Iterator[WorldState]:
    """The real tabletop's world state (layout seed 0)."""
    backend = SimBackend.from_files(seed=0)
    try:
        yield backend.world_state()
    finally:
        backend.close()


def _local_profile(api_base: str, **changes: object) -> LLMProfile:
    shipped = load_llm_config().profile("local")
    data = {**shipped.model_dump(), "api_base": api_base, "local_server": None, **changes}
    return LLMProfile.model_validate(data)


def _assert_structurally_valid(plan: Plan, registry: SkillRegistry, world: WorldState) -> None:
    ids = world_ids(world)
    for call in plan.steps:
        manifest = registry.get(call.skill)
        validate_arguments(manifest, call.args)
        assert all(call.args[n] in ids for n in object_argument_names(manifest.parameters) if n in call.args)


def test_structured_plans_from_the_real_model_are_valid_in_palette_and_name_real_objects(
    local_llm: str, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities, world: WorldState
) -> None:
    config = load_llm_config()
    planner = LLMPlanner(_local_profile(local_llm), skill_registry, tabletop_robot, examples=config.examples)
    for task in TASKS[1:2]:  # one task here: the other tests plan TASKS[0] and TASKS[2] on the real model too
        try:
            plan = planner.plan(task, world)
        except PlannerRefused:
            plan = Plan()  # refuse(kind, reason) is a valid answer too; the grammar let it through well-formed
        _assert_structurally_valid(plan, skill_registry, world)
        assert planner.last_trace is not None
        assert planner.last_trace.requests[0].problems == ()  # the grammar allowed only a valid plan


def test_the_real_models_raw_reply_matches_the_plan_schema(
    local_llm: str, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities, world: WorldState
) -> None:
    profile = _local_profile(local_llm)
    planner = LLMPlanner(profile, skill_registry, tabletop_robot)
    with ScriptedLLMServer(fallback_url=local_llm) as proxy:  # nothing queued: a recording pass-through
        proxied = LLMPlanner(profile.model_copy(update={"api_base": proxy.base_url}), skill_registry, tabletop_robot)
        with contextlib.suppress(PlannerRefused):  # the model may refuse; the request is what is checked
            proxied.plan(TASKS[0], world)
        grammar = proxy.requests[0].body["grammar"]  # the shipped profile: compact_json
    schema = _schema(planner, profile, world)
    assert grammar == compact_grammar(schema)
    jsonschema.validate({"steps": []}, schema)


def _schema(planner: LLMPlanner, profile: LLMProfile, world: WorldState) -> dict[str, object]:
    return plan_json_schema(
        planner.palette(TASKS[0], world),
        max_steps=profile.max_steps,
        rationale=profile.rationale,
        required_only=profile.required_only,
        max_string_length=profile.max_string_length,
    )


def test_the_compact_grammar_gets_compact_json_valid_against_the_plan_schema_from_the_real_model(
    local_llm: str, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities, world: WorldState
) -> None:
    profile = _local_profile(local_llm)
    planner = LLMPlanner(profile, skill_registry, tabletop_robot)
    palette = planner.palette(TASKS[0], world)
    body = {
        "model": "smollm2",
        "messages": planner.messages(palette, TASKS[0], world),
        "max_tokens": profile.max_tokens,
        "temperature": 0.0,
        **planner.request_options(palette)["extra_body"],
    }
    request = urllib.request.Request(
        f"{local_llm}/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        content = json.loads(response.read())["choices"][0]["message"]["content"]
    plan = json.loads(content)
    jsonschema.validate(plan, _schema(planner, profile, world))
    assert content == json.dumps(plan, separators=(",", ":"), ensure_ascii=False)


def test_a_refused_reply_is_repaired_by_the_real_model(
    local_llm: str, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities, world: WorldState
) -> None:
    with ScriptedLLMServer(fallback_url=local_llm) as llm:
        llm.queue(ScriptedReply.json_plan({"steps": [{"skill": "tabletop/grab", "args": {"object": "red_cube"}}]}))
        planner = LLMPlanner(_local_profile(llm.base_url), skill_registry, tabletop_robot)
        try:
            plan = planner.plan("pick up the red cube", world)
        except PlannerRefused:
            plan = Plan()  # the real model may answer the repair with refuse(kind, reason): well-formed too
        repair_prompt = llm.requests[1].texts()[-1]
    _assert_structurally_valid(plan, skill_registry, world)
    assert planner.last_trace is not None
    assert ("unknown skill" in repair_prompt, len(planner.last_trace.requests)) == (True, 2)


def test_tool_mode_on_a_model_without_tool_support_never_yields_an_invalid_call(
    local_llm: str, skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities, world: WorldState
) -> None:
    planner = LLMPlanner(_local_profile(local_llm, output_mode="tools", max_tokens=48), skill_registry, tabletop_robot)
    try:
        plan = planner.plan(TASKS[2], world)
    except PlannerError as err:
        error = str(err)
    else:
        error = "profile 'local'"
        _assert_structurally_valid(plan, skill_registry, world)
    assert "profile 'local'" in error


def test_llm_server_command_serves_until_sigterm(tmp_path: Path) -> None:
    require_local_model()
    command = [sys.executable, "-m", "bt_executive.cli.main", "llm-server", "--port", "0"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ)
    try:
        assert process.stdout is not None
        ready = process.stdout.readline()
        base_url = ready.split()[2]
        with urllib.request.urlopen(base_url.removesuffix("/v1") + "/health", timeout=10) as response:
            health = json.loads(response.read())
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert (ready.startswith("llm-server ready: http://127.0.0.1:"), health.get("status"), code) == (True, "ok", 0)


def test_the_server_runs_in_a_child_that_stop_ends_and_that_leaves_when_its_parent_does(tmp_path: Path) -> None:
    # In-process, xllamacpp's server could hang its owner's release under load (issue 23): a child is always ended.
    require_local_model()
    server = LocalModelServer(port=0)
    url = server.start()
    child = server._process
    assert child is not None
    assert is_serving(url)
    server.stop()
    assert (child.poll() is not None, is_serving(url)) == (True, False)
    # A parent that dies without stopping it: the child's stdin ends and it leaves on its own.
    orphan = subprocess.Popen(
        [
            *(sys.executable, "-m", "bt_executive.llm.serving.llama_process", "--gguf", str(default_gguf())),
            *("--alias", "smollm2", "--context", "512", "--threads", "1"),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert orphan.stdout is not None
    assert orphan.stdout.readline().startswith("listening ")
    assert orphan.stdin is not None
    orphan.stdin.close()
    assert orphan.wait(10) == 0


def test_a_model_file_llama_cpp_cannot_load_is_a_clear_error(tmp_path: Path) -> None:
    require_local_model()
    bad = tmp_path / "not_a_model.gguf"
    bad.write_bytes(b"GGUF but not really")
    with pytest.raises(LocalModelError, match="could not serve"):
        LocalModelServer(bad, port=0).start()
