"""Planner profiles by name: ``auto`` (grammar first, the default), ``stub``, or an LLM profile of config/llm.yaml."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from bt_executive.llm.grammar_planner.planner import GrammarPlanner
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
    from bt_executive.llm.model.profiles import load_llm_config

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
    """The planner a profile names (a ``vision`` profile sees ``frame_source``'s frames); unknown: an error."""
    if profile == STUB:
        return GrammarPlanner(registry)
    from bt_executive.llm.model.profiles import load_llm_config

    config = load_llm_config(llm_config)
    chosen = config.profile(profile)
    if chosen.planner == STUB:
        return GrammarPlanner(registry)
    if chosen.planner == AUTO:
        from bt_executive.llm.grammar_planner.auto_planner import AutoPlanner

        fallback = chosen.fallback
        if fallback is None:
            return AutoPlanner(registry)
        # The model is built (litellm imported, its server started) only when a task needs it.
        return AutoPlanner(
            registry, lambda: make_planner(fallback, registry, llm_config, robot), fallback_name=fallback
        )
    if chosen.output_mode == "rewrite":  # the model restates the task, the grammar planner plans it
        from bt_executive.llm.model.rewrite_planner import RewritePlanner
        from bt_executive.trees.plan_check import require_runnable

        gate = lambda plan, world: require_runnable(plan, registry, world)  # noqa: E731
        return RewritePlanner(chosen, registry, robot, plan_gate=gate)
    from bt_executive.llm.model.llm_planner import LLMPlanner  # numpy and the model client: only for a model profile
    from bt_executive.skills.dirs import knowledge_dirs
    from bt_executive.skills.knowledge import discover_knowledge
    from bt_executive.trees.plan_check import require_runnable

    knowledge = discover_knowledge(knowledge_dirs())
    # The model sees the executive's own plan check as repair text (pick(table), a step that can never start),
    # so a bad plan is mended or refused in the planner, before the task tree would refuse it.
    return LLMPlanner.from_config(
        profile,
        registry,
        robot,
        config_path=llm_config,
        knowledge=knowledge,
        frame_source=frame_source,
        plan_gate=lambda plan, world: require_runnable(plan, registry, world),
    )
