"""The routing eval gate: P@1 and MRR on the golden queries fail the build below their thresholds.

The full chain (verb, keyword, BM25, MiniLM embedding) routes over
config/skills + config/catalog + the knowledge bundles. A degraded router
(descriptions blanked, or a random ranker) must fail the same gate, so the
gate is shown to bite. With 2,000 synthetic distractor skills installed, the
narrowed palette of every tabletop task must still hold every skill its
expected plan uses.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from bt_executive.llm.eval.routing_eval import (
    DEFAULT_MRR,
    DEFAULT_P_AT_1,
    GoldenRouting,
    QueryOutcome,
    RoutingReport,
    evaluate,
    gate,
    load_golden,
)
from bt_executive.llm.eval.synthetic_skills import synthetic_manifests
from bt_executive.llm.model.palette import build_palette
from bt_executive.llm.model.prompts import system_prompt, task_message
from bt_executive.llm.routing.router import DEFAULT_K, Router, narrow_palette
from bt_executive.skills.errors import ManifestError
from bt_executive.skills.manifest import SkillManifest
from bt_executive.skills.world_state import ObjectState, WorldState
from tests.llm.routing_data import catalog_items, golden, shared_embedder, tabletop_skills, tabletop_tasks


def _ranker(router: Router) -> Callable[[str, int], Sequence[str]]:
    return lambda query, k: [hit.id for hit in router.route(query, k)]


def test_golden_file_is_big_enough_and_names_only_known_skills() -> None:
    known = {item.id for item in catalog_items()}
    queries = golden().queries
    assert len(queries) >= 60
    assert len({q.expected for q in queries}) >= 40
    unknown = {s for q in queries for s in q.right()} - known
    assert not unknown


def test_full_chain_passes_the_gate() -> None:
    router = Router(catalog_items(), embedder=shared_embedder())
    result = gate(evaluate(_ranker(router), golden()))
    assert result.passed, result.summary()
    assert (result.min_p_at_1, result.min_mrr) == (DEFAULT_P_AT_1, DEFAULT_MRR)


def test_router_with_blanked_descriptions_fails_the_gate() -> None:
    blanked = [item.model_copy(update={"description": "-", "objects": (), "scenes": ()}) for item in catalog_items()]
    router = Router(blanked, embedder=shared_embedder())
    result = gate(evaluate(_ranker(router), golden()))
    assert not result.passed
    assert result.failures


def test_random_ranker_fails_the_gate() -> None:
    ids = [item.id for item in catalog_items()]
    rng = random.Random(0)
    result = gate(evaluate(lambda query, k: rng.sample(ids, k), golden()))
    assert not result.passed
    assert result.p_at_1 < DEFAULT_P_AT_1


def test_gate_names_each_missed_threshold() -> None:
    report = RoutingReport(
        p_at_1=0.5,
        mrr=0.95,
        recall_at_k=1.0,
        k=5,
        outcomes=(QueryOutcome(query="q", expected="a/b", got=("a/c", "a/b"), rank=2),),
    )
    result = gate(report)
    assert not result.passed
    assert result.failures == ("P@1 0.500 < 0.85",)
    assert "FAIL" in result.summary()


def test_metrics_count_ranks_and_also_ok_answers() -> None:
    golden_set = GoldenRouting.model_validate(
        {
            "queries": [
                {"query": "one", "expected": "a/one"},
                {"query": "two", "expected": "a/two", "also_ok": ["a/deux"]},
                {"query": "three", "expected": "a/three"},
            ]
        }
    )
    answers = {"one": ["a/one"], "two": ["a/x", "a/deux"], "three": ["a/x", "a/y"]}
    report = evaluate(lambda query, k: answers[query][:k], golden_set, k=2)
    assert report.p_at_1 == pytest.approx(1 / 3)
    assert report.mrr == pytest.approx((1 + 0.5 + 0) / 3)
    assert report.recall_at_k == pytest.approx(2 / 3)
    assert [o.query for o in report.misses()] == ["two", "three"]


def test_a_bad_golden_file_names_the_file_and_field(tmp_path: Path) -> None:
    path = tmp_path / "routing.yaml"
    path.write_text("queries:\n  - {query: open the door, expected: NotAnId}\n")
    with pytest.raises(ManifestError) as err:
        load_golden(path)
    assert str(path) in str(err.value)
    assert "expected" in str(err.value)


@pytest.fixture(scope="module")
def big_catalog() -> tuple[list[SkillManifest], Router]:
    """The tabletop skills among 2,000 synthetic distractors, and the full-chain router over them."""
    catalog = [*tabletop_skills(), *synthetic_manifests(2000)]
    return catalog, Router(catalog, embedder=shared_embedder())


@pytest.mark.slow
def test_narrowed_palette_keeps_every_skill_each_tabletop_plan_needs_among_2000_skills(
    big_catalog: tuple[list[SkillManifest], Router],
) -> None:
    catalog, router = big_catalog
    missing = {}
    for task, needed in tabletop_tasks():
        palette = narrow_palette(catalog, task, router=router)
        assert len(palette) <= DEFAULT_K + 1
        if not needed <= set(palette):
            missing[task] = sorted(needed - set(palette))
    assert missing == {}, f"recall@{DEFAULT_K} below 100%: {missing}"


WORLD = WorldState(
    objects=(
        ObjectState(id="red_cube", category="cube", colour="red", position=(0.4, -0.1, 0.43)),
        ObjectState(id="plate", category="plate", position=(0.35, 0.2, 0.41)),
        ObjectState(id="bowl", category="bowl", position=(0.55, -0.2, 0.41)),
    ),
    drawers={"drawer": 0.0},
)


def _prompt_chars(manifests: Sequence[SkillManifest], task: str) -> int:
    palette = build_palette(manifests, WORLD)
    tools = json.dumps(palette.openai_tools(), sort_keys=True)
    return len(system_prompt(palette, None, WORLD, "tools")) + len(task_message(task, WORLD)) + len(tools)


@pytest.mark.slow
def test_narrowed_prompt_at_2000_skills_stays_within_10_percent_of_a_24_skill_catalog(
    big_catalog: tuple[list[SkillManifest], Router],
) -> None:
    catalog, router = big_catalog
    by_id = {m.id: m for m in catalog}
    small = catalog[:DEFAULT_K]  # the tabletop skills first, then distractors: a 24-skill robot
    for task in ("put the red cube on the plate", "open the drawer and then close it"):
        narrowed = [by_id[i] for i in narrow_palette(catalog, task, router=router)]
        assert _prompt_chars(narrowed, task) <= 1.10 * _prompt_chars(small, task)
