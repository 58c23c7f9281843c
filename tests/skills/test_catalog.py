"""The fleet catalog (config/catalog) and the routing golden set are valid data for the router.

The catalog is routing data beside the tabletop robot, never part of it; the
golden set names only skills that exist and exercises every catalog skill.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
import yaml

from bt_executive.cli.main import main
from bt_executive.runtime.paths import config_dir
from bt_executive.skills.dirs import catalog_skill_dirs, default_skill_dirs, knowledge_dirs
from bt_executive.skills.knowledge import discover_knowledge
from bt_executive.skills.manifest import SkillKind
from bt_executive.skills.registry import SkillRegistry, collect

CATALOG = config_dir() / "catalog"
GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "routing.yaml"


@cache
def _catalog() -> SkillRegistry:
    return SkillRegistry.discover([CATALOG], use_entry_points=False)


@cache
def _all_tools() -> SkillRegistry:
    return SkillRegistry.discover(catalog_skill_dirs(), use_entry_points=False)


@cache
def _golden() -> list[dict[str, object]]:
    data = yaml.safe_load(GOLDEN.read_text(encoding="utf-8"))
    queries = data["queries"]
    assert isinstance(queries, list)
    return queries


def _expected(entry: dict[str, object]) -> str:
    value = entry["expected"]
    assert isinstance(value, str)
    return value


# ---- the catalog


def test_every_catalog_manifest_validates() -> None:
    report = collect([CATALOG], use_entry_points=False)
    assert ([str(p) for p in report.problems], len(report.skills) >= 32) == ([], True)


def test_cli_validate_accepts_the_catalog(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["skills", "validate", str(CATALOG)]) == 0
    assert "0 invalid" in capsys.readouterr().out


def test_ids_are_unique_across_the_tabletop_skills_and_the_catalog() -> None:
    tabletop = SkillRegistry.discover(default_skill_dirs(), use_entry_points=False)
    assert len(_all_tools()) == len(tabletop) + len(_catalog())


def test_catalog_owner_is_the_domain_folder_and_spans_at_least_eight_domains() -> None:
    misplaced = [m.id for m in _catalog() if Path(_catalog().source(m.id)).parent.name != m.id.split("/")[0]]
    domains = {m.id.split("/")[0] for m in _catalog()}
    assert (misplaced, len(domains) >= 8) == ([], True)


def test_every_catalog_skill_is_a_run_skill_action_at_skills_slash_its_name() -> None:
    wrong = [
        m.id
        for m in _catalog()
        if m.kind is not SkillKind.ROS_ACTION
        or m.ros is None
        or m.ros.action_type != "bt_executive_interfaces/action/RunSkill"
        or m.ros.action_name != f"skills/{m.name}"
    ]
    assert wrong == []


def test_catalog_holds_the_near_duplicates_that_make_routing_hard() -> None:
    names = {m.name for m in _all_tools()}
    assert {"place_on", "place_in", "insert", "open_drawer", "open_cabinet", "open_door", "pour", "pour_into"} <= names


def test_default_robot_is_unchanged_by_the_catalog(skill_registry: SkillRegistry) -> None:
    catalog_ids = set(_catalog().ids())
    assert (default_skill_dirs(), catalog_ids & set(skill_registry.ids())) == ([config_dir() / "skills"], set())


def test_catalog_skill_dirs_are_the_skills_then_the_catalog() -> None:
    assert catalog_skill_dirs() == [config_dir() / "skills", config_dir() / "catalog"]


# ---- the golden routing set


def test_golden_set_has_at_least_seventy_unique_queries_in_the_documented_format() -> None:
    queries = _golden()
    bad = [q for q in queries if not {"query", "expected"} <= set(q) or set(q) - {"query", "expected", "also_ok"}]
    texts = [str(q["query"]).lower() for q in queries]
    assert (bad, len(queries) >= 70, len(set(texts)) == len(texts)) == ([], True, True)


def test_golden_set_names_only_existing_skills() -> None:
    known = set(_all_tools().ids()) | {k.id for k in discover_knowledge(knowledge_dirs())}
    named = set()
    for entry in _golden():
        named.add(_expected(entry))
        also = entry.get("also_ok", [])
        assert isinstance(also, list)
        named.update(str(a) for a in also)
    assert sorted(named - known) == []


def test_golden_set_covers_forty_tool_skills_and_every_catalog_skill() -> None:
    expected = {_expected(q) for q in _golden()}
    tools = expected & set(_all_tools().ids())
    assert (len(tools) >= 40, sorted(set(_catalog().ids()) - expected)) == (True, [])


def test_golden_set_includes_knowledge_skills() -> None:
    knowledge = {k.id for k in discover_knowledge(knowledge_dirs())}
    assert len({_expected(q) for q in _golden()} & knowledge) >= 5


def test_few_golden_queries_copy_their_skills_description() -> None:
    """Honest queries: at most one in ten shares a run of four words with its skill's description."""
    registry = _all_tools()
    knowledge = {k.id: k.description for k in discover_knowledge(knowledge_dirs())}

    def grams(text: str) -> set[tuple[str, ...]]:
        words = re.findall(r"[a-z0-9]+", text.lower())
        return {tuple(words[i : i + 4]) for i in range(len(words) - 3)}

    copied = []
    for entry in _golden():
        skill_id = _expected(entry)
        description = knowledge.get(skill_id) or registry.get(skill_id).description
        if grams(str(entry["query"])) & grams(description):
            copied.append(entry["query"])
    assert len(copied) <= len(_golden()) // 10, copied


def test_the_held_out_routing_queries_name_only_skills_that_exist() -> None:
    from bt_executive.llm.eval.routing_eval import load_golden

    held_out = load_golden(GOLDEN.with_name("routing_heldout.yaml"))
    known = set(SkillRegistry.discover(catalog_skill_dirs(), use_entry_points=False).ids())
    missing = [q.expected for q in held_out.queries if q.expected not in known]
    assert (len(held_out.queries) >= 25, missing) == (True, [])
