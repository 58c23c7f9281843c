"""serve's planners: one per profile for the process's lifetime, warmed on a thread, closed at shutdown."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
import yaml

from bt_executive.cli.scene_world import scene_world_state
from bt_executive.executive.planner_cache import PlannerCache
from bt_executive.executive.planner_factory import make_planner, uses_local_model
from bt_executive.llm.model.auto_planner import AutoPlanner
from bt_executive.llm.model.llm_planner import LLMPlanner
from bt_executive.llm.plan import PlannerError
from bt_executive.llm.profiles import load_llm_config
from bt_executive.llm.serving.local_model import is_serving
from bt_executive.runtime.paths import config_dir
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import WorldState
from bt_executive.testing.llm_server import require_local_model


def _factory(llm_config: Path | None = None) -> PlannerCache:
    return PlannerCache(lambda profile, registry: make_planner(profile, registry, llm_config))


def test_every_task_of_a_profile_gets_the_same_planner(skill_registry: SkillRegistry) -> None:
    planners = _factory()
    first, again, stub = (
        planners("auto", skill_registry),
        planners("auto", skill_registry),
        planners("stub", skill_registry),
    )
    assert (again is first, stub is first, len(planners)) == (True, False, 2)


def test_a_profile_that_fails_to_build_is_asked_again_not_cached(skill_registry: SkillRegistry) -> None:
    planners = _factory()
    for _task in range(2):
        with pytest.raises(KeyError, match="nonexistent"):
            planners("nonexistent", skill_registry)
    assert len(planners) == 0


def test_a_closed_cache_builds_no_more_planners(skill_registry: SkillRegistry) -> None:
    planners = _factory()
    planners("stub", skill_registry)
    planners.close()
    with pytest.raises(RuntimeError, match="closed"):
        planners("stub", skill_registry)


@pytest.mark.parametrize(
    ("profile", "local"), [("auto", True), ("local", True), ("stub", False), ("openai", False), ("nonexistent", False)]
)
def test_profiles_that_plan_with_a_model_of_this_process_are_known(profile: str, local: bool) -> None:
    assert uses_local_model(profile) is local


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.mark.slow
def test_a_warmed_local_model_serves_every_task_until_the_cache_closes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, skill_registry: SkillRegistry
) -> None:
    require_local_model()
    monkeypatch.setenv("BT_EXECUTIVE_CACHE", str(tmp_path / "cache"))
    config = yaml.safe_load((config_dir() / "llm.yaml").read_text())
    api_base = f"http://127.0.0.1:{_free_port()}/v1"
    fallback_profile = config["profiles"]["auto"]["fallback"]
    config["profiles"][fallback_profile]["api_base"] = api_base  # a port of its own: this planner starts the server
    llm_config = tmp_path / "llm.yaml"
    llm_config.write_text(yaml.safe_dump(config))
    planners = _factory(llm_config)
    warming = planners.warm_in_background("auto", skill_registry, scene_world_state)
    warming.join(300)
    auto = planners("auto", skill_registry)
    assert isinstance(auto, AutoPlanner)
    fallback = auto._fallback_planner()
    served_warm = is_serving(api_base)
    same_fallback = auto._fallback_planner() is fallback and planners("auto", skill_registry) is auto
    planners.close()
    assert (served_warm, same_fallback, is_serving(api_base)) == (True, True, False)


def test_a_closed_local_planner_never_starts_its_server_again(skill_registry: SkillRegistry) -> None:
    # A warm-up thread that outlives serve's shutdown must not start a model after close().
    shipped = load_llm_config().profile("local")
    planner = LLMPlanner(shipped.model_copy(update={"api_base": f"http://127.0.0.1:{_free_port()}/v1"}), skill_registry)
    planner.close()
    with pytest.raises(PlannerError, match="closed"):
        planner.warm(WorldState())
