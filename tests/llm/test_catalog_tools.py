"""Catalog tools: list, describe and search skills as JSON a model reads, with errors it can act on."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest

from bt_executive.llm.model.catalog_tools import CatalogTools, catalog_tool_definitions
from bt_executive.llm.model.palette import TOOL_NAME_PATTERN
from tests.llm.routing_data import catalog_skills, shared_embedder


@pytest.fixture(scope="module")
def tools() -> CatalogTools:
    return CatalogTools(catalog_skills(), embedder=shared_embedder())


def test_list_skills_pages_through_every_skill_with_name_description_and_schema(tools: CatalogTools) -> None:
    first = tools.list_skills(limit=10)
    assert first["total"] == len(catalog_skills())
    assert len(first["skills"]) == 10
    assert set(first["skills"][0]) == {"name", "kind", "description", "schema"}
    seen = [s["name"] for s in first["skills"]]
    offset = first["next_offset"]
    while offset is not None:
        page = tools.list_skills(offset=offset, limit=10)
        seen += [s["name"] for s in page["skills"]]
        offset = page["next_offset"]
    assert sorted(seen) == sorted(s.id for s in catalog_skills())


def test_list_skills_filters_by_verb_scene_and_text(tools: CatalogTools) -> None:
    opening = tools.list_skills(verb="open", limit=50)
    names = {s["name"] for s in opening["skills"]}
    assert "tabletop/open_drawer" in names
    assert "tabletop/pick" not in names
    kitchen_drawers = tools.list_skills(scene="kitchen", text="drawer", limit=50)
    assert {s["name"] for s in kitchen_drawers["skills"]} >= {"tabletop/open_drawer", "tabletop/close_drawer"}
    assert all("kitchen" in tools.describe_skill(s["name"])["scenes"] for s in kitchen_drawers["skills"])


def test_unknown_verb_lists_the_verbs(tools: CatalogTools) -> None:
    answer = tools.list_skills(verb="teleport")
    assert answer["error"]["code"] == "unknown_verb"
    assert "NAVIGATE" in answer["error"]["verbs"]


def test_describe_skill_gives_the_whole_skill_by_id_or_tool_name(tools: CatalogTools) -> None:
    by_id = tools.describe_skill("tabletop/pick")
    assert by_id["schema"]["required"] == ["object"]
    assert "holding(object)" in by_id["effects"]
    assert "missed_grasp" in by_id["failure_kinds"]
    assert tools.describe_skill("tabletop__pick") == by_id


def test_unknown_name_gets_close_matches_and_a_hint_to_list(tools: CatalogTools) -> None:
    answer = tools.describe_skill("tabletop/pik")
    assert answer["error"]["code"] == "unknown_skill"
    assert "tabletop/pick" in answer["error"]["close_matches"]
    assert "list_skills" in answer["error"]["hint"]


def test_search_skills_ranks_by_meaning(tools: CatalogTools) -> None:
    answer = tools.search_skills("shut the drawer", limit=3)
    assert answer["skills"][0]["name"] == "tabletop/close_drawer"
    assert {"score", "matched_by"} <= set(answer["skills"][0])


def test_knowledge_skills_are_listed_without_a_schema(tools: CatalogTools) -> None:
    fact = tools.describe_skill("site/drawer_sticks")
    assert (fact["kind"], fact["schema"]) == ("knowledge", None)


def test_definitions_are_valid_openai_tools() -> None:
    definitions = catalog_tool_definitions()
    assert [d["function"]["name"] for d in definitions] == ["list_skills", "describe_skill", "search_skills"]
    for definition in definitions:
        assert definition["type"] == "function"
        jsonschema.Draft202012Validator.check_schema(definition["function"]["parameters"])
        assert re.match(TOOL_NAME_PATTERN, definition["function"]["name"])


def test_call_dispatches_a_model_tool_call_from_json_text(tools: CatalogTools) -> None:
    answer = tools.call("describe_skill", json.dumps({"name": "tabletop/home"}))
    assert answer["name"] == "tabletop/home"
    json.dumps(answer)  # JSON-able, as a tool result must be


@pytest.mark.parametrize(
    ("tool", "arguments", "code"),
    [
        ("teleport", {}, "unknown_tool"),
        ("describe_skill", "{not json", "bad_arguments"),
        ("describe_skill", {}, "bad_arguments"),
        ("list_skills", {"limit": "ten"}, "bad_arguments"),
        ("list_skills", {"colour": "red"}, "bad_arguments"),
        ("list_skills", {"limit": 500}, "bad_argument"),
        ("search_skills", {"query": "  "}, "bad_argument"),
    ],
)
def test_bad_calls_come_back_as_structured_errors(
    tools: CatalogTools, tool: str, arguments: dict[str, object] | str, code: str
) -> None:
    assert tools.call(tool, arguments)["error"]["code"] == code
