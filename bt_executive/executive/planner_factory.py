"""Planner profiles by name: ``auto`` (grammar first, the default), ``stub``, or an LLM profile of config/llm.yaml."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from bt_executive.llm.plan import Planner
from bt_executive.skills.capabilities import RobotCapabilities
from bt_executive.skills.registry import SkillRegistry

if TYPE_CHECKING:  # llm_planner (numpy, the model client) loads only when an LLM profile is asked for
    from bt_executive.llm.model.llm_planner import FrameSource

STUB = "stub"
AUTO = "auto"


def uses_local_model(profile: str, llm_config: Path | None = None) -> bool:
    """Whether ``profile`` plans with a model this process serves itself (``local``, or ``auto`` falling back to it)."""
    if profile == STUB:
        return False
    from bt_executive.llm.profiles import load_llm_config

    config = load_llm_config(llm_config)
    seen: set[str] = set()
    while profile not in seen:
        seen.add(profile)
        try:
            chosen = config.profile(profile)
        except KeyError:
            return False
        if chosen.planner != AUTO or chosen.fallback is None:
            return chosen.local_server is not None
        profile = chosen.fallback
    return False


def make_planner(
    profile: str,
    registry: SkillRegistry,
    llm_config: Path | None = None,
    robot: RobotCapabilities | None = None,
    frame_source: FrameSource | None = None,
) -> Planner:
    """The planner a profile names, built by its kind's plugin (``llm/plugins.py``); unknown: an error.

    A ``vision`` profile sees ``frame_source``'s frames; a model planner repairs against the executive's own
    plan check.
    """
    from bt_executive.llm.plugins import PlannerRequest, planner_factory
    from bt_executive.llm.profiles import LLMProfile, load_llm_config
    from bt_executive.trees.plan_check import require_runnable

    # "stub" needs no profiles file.
    chosen = LLMProfile(name=STUB, planner=STUB) if profile == STUB else load_llm_config(llm_config).profile(profile)
    request = PlannerRequest(
        profile=chosen,
        registry=registry,
        robot=robot,
        llm_config=llm_config,
        frame_source=frame_source,
        build=lambda name: make_planner(name, registry, llm_config, robot),
        plan_gate=lambda plan, world: require_runnable(plan, registry, world),
    )
    return planner_factory(chosen.planner)(request)
