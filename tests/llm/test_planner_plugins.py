"""Planners are plugins: a distribution's planner kind is found and used like ours, through one entry-point group."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

from bt_executive.executive.planner_factory import make_planner
from bt_executive.llm.grammar_planner.planner import GrammarPlanner
from bt_executive.llm.model.auto_planner import AutoPlanner
from bt_executive.llm.plan import ClosablePlanner, ContextPlanner, Planner, WarmablePlanner
from bt_executive.llm.plugins import UnknownPlannerKind, planner_kinds
from bt_executive.llm.profiles import load_llm_config
from bt_executive.skills.errors import ManifestError
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import WorldState

PLUGIN = """
from bt_executive.llm.plan import Plan
from bt_executive.skills.call import SkillCall


class AlwaysHome:
    def __init__(self, request):
        self.skills = len(request.registry)

    def plan(self, task, world_state, prior_attempts=()):
        return Plan(steps=(SkillCall(skill="tabletop/home", args={}),), planner=f"always_home/{self.skills}")
"""


@pytest.fixture
def installed_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A distribution on sys.path that registers planner kind ``always_home`` (as pip would install it)."""
    (tmp_path / "always_home_planner.py").write_text(PLUGIN, encoding="utf-8")
    info = tmp_path / "always_home_planner-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: always-home-planner\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[bt_executive.planners]\nalways_home = always_home_planner:AlwaysHome\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "always_home_planner", raising=False)
    config = yaml.safe_load((Path(__file__).parents[2] / "config" / "llm.yaml").read_text(encoding="utf-8"))
    config["profiles"]["mine"] = {"planner": "always_home", "description": "a third party's planner"}
    path = tmp_path / "llm.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


def test_ours_register_like_anyone_elses() -> None:
    assert {"auto", "litellm", "stub"} <= set(planner_kinds())


def test_a_third_party_planner_kind_is_found_and_plans(installed_plugin: Path, skill_registry: SkillRegistry) -> None:
    planner = make_planner("mine", skill_registry, llm_config=installed_plugin)
    plan = planner.plan("whatever you like", WorldState())
    assert ([c.skill for c in plan.steps], plan.planner) == (["tabletop/home"], f"always_home/{len(skill_registry)}")


def test_a_profile_naming_a_kind_nobody_installed_is_refused_naming_the_field(tmp_path: Path) -> None:
    config = yaml.safe_load((Path(__file__).parents[2] / "config" / "llm.yaml").read_text(encoding="utf-8"))
    config["profiles"]["mine"] = {"planner": "nobody_has_this"}
    path = tmp_path / "llm.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    with pytest.raises(ManifestError) as err:
        load_llm_config(path)
    assert "profiles.mine.planner: 'nobody_has_this' is not installed" in str(err.value)


def test_an_unknown_kind_asked_of_the_registry_names_the_kinds_there_are() -> None:
    from bt_executive.llm.plugins import planner_factory

    with pytest.raises(UnknownPlannerKind, match=r"kinds: .*auto.*litellm.*stub"):
        planner_factory("nobody_has_this")


def test_the_optional_abilities_are_named_not_probed(skill_registry: SkillRegistry) -> None:
    grammar, auto = make_planner("stub", skill_registry), make_planner("auto", skill_registry)
    abilities = [
        (type(p).__name__, isinstance(p, Planner), isinstance(p, WarmablePlanner), isinstance(p, ClosablePlanner))
        for p in (grammar, auto)
    ]
    assert (type(grammar), type(auto)) == (GrammarPlanner, AutoPlanner)
    assert abilities == [("GrammarPlanner", True, False, False), ("AutoPlanner", True, True, True)]
    assert not isinstance(grammar, ContextPlanner)
