"""The model planner's kinds (``planner: litellm``, and ``auto``: the grammar first, then a model), registered in
setup.py like any third party's."""

from __future__ import annotations

from bt_executive.llm.plan import Planner
from bt_executive.llm.plugins import PlannerRequest


def litellm(request: PlannerRequest) -> Planner:
    """A model profile: skill calls through litellm, or (``output_mode: rewrite``) a restatement the grammar plans.

    Either way the model sees the caller's plan check (``request.plan_gate``: the executive's own) as repair
    text (pick(table), a step that can never start), so a bad plan is mended or refused in the planner.
    """
    registry, gate = request.registry, request.plan_gate

    if request.profile.output_mode == "rewrite":
        from bt_executive.llm.model.rewrite_planner import RewritePlanner

        return RewritePlanner(request.profile, registry, request.robot, plan_gate=gate)
    from bt_executive.llm.model.llm_planner import LLMPlanner  # numpy and the model client: only for a model
    from bt_executive.skills.dirs import knowledge_dirs
    from bt_executive.skills.knowledge import discover_knowledge

    return LLMPlanner.from_config(
        request.profile.name,
        registry,
        request.robot,
        config_path=request.llm_config,
        knowledge=discover_knowledge(knowledge_dirs()),
        frame_source=request.frame_source,
        plan_gate=gate,
    )


def auto(request: PlannerRequest) -> Planner:
    """``planner: auto``: the grammar first, the ``fallback`` profile for what it cannot parse (built on need)."""
    from bt_executive.llm.model.auto_planner import AutoPlanner

    fallback, build = request.profile.fallback, request.build
    if fallback is None or build is None:
        return AutoPlanner(request.registry)
    # The model is built (litellm imported, its server started) only when a task needs it.
    return AutoPlanner(request.registry, lambda: build(fallback), fallback_name=fallback)
