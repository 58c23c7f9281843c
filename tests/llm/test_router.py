"""The skill router: cheap links first, embedding last, failures contained, palettes narrowed to K."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
import pytest

from bt_executive.llm.embedding.embedder import FloatArray
from bt_executive.llm.eval.synthetic_skills import synthetic_manifests
from bt_executive.llm.routing.enablers import add_enablers
from bt_executive.llm.routing.route_item import RouteItem, route_item, route_items
from bt_executive.llm.routing.router import (
    EXACT,
    Bm25Link,
    Router,
    clauses,
    is_question,
    narrow_palette,
)
from bt_executive.skills.knowledge import KnowledgeSkill
from tests.llm.routing_data import catalog_skills, shared_embedder, tabletop_skills


def _top(router: Router, query: str) -> str:
    return router.route(query, 3)[0].id


@pytest.fixture(scope="module")
def chain() -> Router:
    return Router(tabletop_skills(), embedder=shared_embedder())


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("grab the red block", "tabletop/pick"),
        ("shut the drawer", "tabletop/close_drawer"),
        ("nudge the green cube to the left", "tabletop/push"),
        ("put the blue block on top of the red one", "tabletop/stack"),
        ("pause for two seconds", "builtin/wait"),
    ],
)
def test_chain_routes_reworded_tasks_to_their_skill(chain: Router, query: str, expected: str) -> None:
    assert _top(chain, query) == expected


def test_lexical_links_alone_route_a_task_that_names_its_verb_and_object() -> None:
    lexical = Router(tabletop_skills())
    assert [link.name for link in lexical.links] == ["verb", "keyword", "bm25"]
    assert _top(lexical, "open the drawer") == "tabletop/open_drawer"


def test_hits_are_ranked_with_scores_and_the_deciding_link(chain: Router) -> None:
    hits = chain.route("pour the cube into the bowl", 4)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert hits[0].id == "tabletop/pour"
    assert hits[0].link in hits[0].scores
    assert hits[0].scores[hits[0].link] == max(hits[0].scores.values())


def test_a_query_naming_a_skill_id_is_decided_by_the_exact_link(chain: Router) -> None:
    hit = chain.route("tabletop/tap", 1)[0]
    assert (hit.id, hit.link) == ("tabletop/tap", EXACT)
    assert chain.route("close drawer", 1)[0].id == "tabletop/close_drawer"


class BrokenLink:
    """A link that always raises, to show a failing matcher is skipped."""

    name = "broken"
    weight = 1.0

    def scores(self, query: str, candidates: Sequence[int]) -> dict[int, float]:
        raise RuntimeError("index corrupted")


def test_a_link_that_raises_is_logged_and_skipped(caplog: pytest.LogCaptureFixture) -> None:
    items = route_items(tabletop_skills())
    router = Router(items, links=[BrokenLink(), Bm25Link(items)])
    with caplog.at_level(logging.WARNING, logger="bt_executive.llm.routing.router"):
        hits = router.route("open the drawer", 2)
    assert hits[0].id == "tabletop/open_drawer"
    assert "broken" not in hits[0].scores
    assert "router link 'broken' failed" in caplog.text


class BrokenEmbedder:
    """An embedder whose model is gone."""

    name = "broken"

    def embed(self, texts: Sequence[str]) -> FloatArray:
        raise OSError("model file vanished")


def test_an_embedder_that_fails_leaves_the_lexical_links_routing(caplog: pytest.LogCaptureFixture) -> None:
    router = Router(tabletop_skills(), embedder=BrokenEmbedder())
    with caplog.at_level(logging.WARNING, logger="bt_executive.llm.routing.router"):
        hits = router.route("shut the drawer", 1)
    assert hits[0].id == "tabletop/close_drawer"
    assert "embedding" in caplog.text


class CountingEmbedder:
    """Counts the texts embedded, to show the embedding link sees only the cheap links' candidates."""

    name = "counting"

    def __init__(self) -> None:
        self.texts = 0

    def embed(self, texts: Sequence[str]) -> FloatArray:
        self.texts += len(texts)
        return np.full((len(texts), 2), np.sqrt(0.5), dtype=np.float32)


def test_embedding_link_scores_only_the_candidates_the_cheap_links_chose() -> None:
    counting = CountingEmbedder()
    router = Router(synthetic_manifests(300), embedder=counting, candidate_limit=40)
    router.route("pick up the tote from the conveyor", 5)
    assert counting.texts == 41  # the query and 40 candidates


def test_bad_k_and_empty_catalogs() -> None:
    with pytest.raises(ValueError, match="k must be at least 1"):
        Router(tabletop_skills()).route("go home", 0)
    assert Router([]).route("go home", 3) == []


def test_two_skills_with_one_id_are_refused() -> None:
    item = RouteItem(id="a/b", description="x")
    with pytest.raises(ValueError, match="share the id 'a/b'"):
        Router([item, item])


def test_knowledge_skills_route_beside_tool_skills() -> None:
    skills = catalog_skills()
    knowledge = next(s for s in skills if isinstance(s, KnowledgeSkill))
    assert route_item(knowledge).kind == "knowledge"
    router = Router(skills)
    hit = router.route("does the drawer stick when you pull it?", 1)[0]
    assert (hit.id, hit.kind) == ("site/drawer_sticks", "knowledge")
    assert router.route("pull the drawer open", 1)[0].kind == "tool"


@pytest.mark.parametrize(
    ("query", "question"),
    [("which floor is the lab on", True), ("is the plate fragile?", True), ("open the door", False)],
)
def test_questions_are_told_from_commands(query: str, question: bool) -> None:
    assert is_question(query) is question


def test_clauses_split_multi_step_tasks() -> None:
    assert clauses("open the drawer, then go home") == ["open the drawer", "go home"]
    assert clauses("pick up the red cube and pour it into the bowl") == [
        "pick up the red cube",
        "pour it into the bowl",
    ]
    assert clauses("go home") == ["go home"]


def test_a_catalog_of_at_most_k_skills_is_passed_unchanged() -> None:
    skills = tabletop_skills()
    assert narrow_palette(skills, "pick up the red cube", k=len(skills)) == [s.id for s in skills]


def test_a_large_catalog_is_narrowed_to_k_plus_the_always_on_skills() -> None:
    skills = [*tabletop_skills(), *synthetic_manifests(200)]
    ids = narrow_palette(skills, "open the drawer", k=10)
    assert len(ids) == 11
    assert ids[0] == "tabletop/open_drawer"
    assert ids[-1] == "tabletop/home"
    assert narrow_palette(skills, "open the drawer", k=10, always_on=("no/such_skill",))[-1] != "no/such_skill"


def test_placing_brings_the_pick_it_needs_first() -> None:
    items = route_items(tabletop_skills())
    assert add_enablers(["tabletop/place_on"], items)[:2] == ["tabletop/place_on", "tabletop/pick"]
    assert "tabletop/open_drawer" in add_enablers(["tabletop/close_drawer"], items)


def test_a_pick_brings_the_same_owners_skills_that_use_what_it_holds() -> None:
    followers = add_enablers(["tabletop/pick"], route_items(tabletop_skills()))
    assert {"tabletop/place_on", "tabletop/pour"} <= set(followers)


def test_synthetic_catalogs_are_valid_distinct_and_reproducible() -> None:
    first = synthetic_manifests(500, seed=3)
    assert [m.id for m in first] == [m.id for m in synthetic_manifests(500, seed=3)]
    assert len({m.id for m in first}) == 500
    assert not {m.id.split("/")[0] for m in first} & {"tabletop", "builtin", "nav", "kitchen", "site"}
    with pytest.raises(ValueError, match="count"):
        synthetic_manifests(-1)


def test_a_shared_router_never_adds_skills_the_palette_does_not_offer() -> None:
    everything = [*tabletop_skills(), *synthetic_manifests(100)]
    offered = [s for s in everything if s.id != "tabletop/open_drawer"]
    ids = narrow_palette(offered, "open the drawer", k=8, router=Router(everything))
    assert "tabletop/open_drawer" not in ids
    assert set(ids) <= {s.id for s in offered}


def test_a_warmed_router_scores_the_whole_catalog_with_the_embedding_link() -> None:
    counting = CountingEmbedder()
    router = Router(synthetic_manifests(300), embedder=counting, candidate_limit=40)
    router.warm()
    assert counting.texts == 300
    hits = router.route("pick up the tote from the conveyor", 300)
    assert all("embedding" in hit.scores for hit in hits)
    assert counting.texts == 301  # only the query was embedded after warm()


def test_a_task_no_skill_routes_well_is_offered_the_generalist_skill() -> None:
    skills = [*tabletop_skills(), *synthetic_manifests(200)]
    weak = narrow_palette(skills, "make me a sandwich", k=10)
    strong = narrow_palette(skills, "open the drawer", k=10)
    assert ("tabletop/vla_manipulate" in weak, "tabletop/vla_manipulate" in strong) == (True, False)
