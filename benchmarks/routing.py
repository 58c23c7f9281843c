"""How well and how fast does the skill router route, and does narrowing keep the planner's prompt flat?

Three measurements in one run:

1. Quality on ``tests/golden/routing.yaml`` over config/skills + config/catalog
   + the knowledge bundles: P@1, MRR and recall@5 of the lexical links alone
   (verb, keyword, BM25), the embedding link alone (all-MiniLM-L6-v2 in
   numpy) and the whole chain. "x lexical" is each row's MRR over the
   lexical row's.
2. Routing latency per golden query (median and p90), item vectors cached
   (the steady state of a running executive), the query's own embedding
   included; and the cold cost of embedding the catalog once.
3. The planner's prompt (system prompt + task message + tool definitions, the
   ``tools`` output mode) for tabletop tasks with 20, 200 and 2,000 skills
   installed (the tabletop skills plus synthetic distractors), with the palette
   narrowed to K = 24 and without. Tokens are approximated as characters / 4.
   "x @24" is the ratio against the prompt of a 24-skill catalog, which the
   narrowed prompt should stay within 10 % of at any catalog size.

    .venv/bin/python benchmarks/routing.py [--sizes 20 200 2000] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bt_executive.llm.embedding.embedder import CachedEmbedder
from bt_executive.llm.embedding.minilm import MiniLmEmbedder
from bt_executive.llm.eval.routing_eval import Ranker, evaluate, load_golden
from bt_executive.llm.eval.synthetic_skills import synthetic_manifests
from bt_executive.llm.model.palette import build_palette
from bt_executive.llm.model.prompts import system_prompt, task_message
from bt_executive.llm.routing.route_item import RouteItem, route_items
from bt_executive.llm.routing.router import DEFAULT_K, EmbeddingLink, Router, narrow_palette
from bt_executive.runtime.paths import config_dir
from bt_executive.skills.capabilities import RobotCapabilities
from bt_executive.skills.dirs import catalog_skill_dirs, default_skill_dirs, knowledge_dirs
from bt_executive.skills.knowledge import discover_knowledge
from bt_executive.skills.manifest import SkillManifest
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import ObjectState, WorldState

GOLDEN = Path(__file__).resolve().parents[1] / "tests" / "golden" / "routing.yaml"
PROMPT_TASKS = (
    "put the red cube on the plate",
    "open the drawer and then close it",
    "pick up the red cube and pour it into the bowl",
    "push the green cube to the right",
)
_WORLD = WorldState(
    objects=tuple(
        ObjectState(id=i, category=c, colour=col, position=p)
        for i, c, col, p in (
            ("red_cube", "cube", "red", (0.4, -0.1, 0.43)),
            ("green_cube", "cube", "green", (0.45, 0.0, 0.43)),
            ("blue_cube", "cube", "blue", (0.5, 0.1, 0.43)),
            ("plate", "plate", "white", (0.35, 0.2, 0.41)),
            ("bowl", "bowl", "white", (0.55, -0.2, 0.41)),
        )
    ),
    drawers={"drawer": 0.0},
    at_home=True,
)


def _percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def _ranker(router: Router) -> Ranker:
    return lambda query, k: [hit.id for hit in router.route(query, k)]


def _quality(items: list[RouteItem], embedder: CachedEmbedder, path: Path = GOLDEN) -> dict[str, dict[str, float]]:
    golden = load_golden(path)
    routers = {
        "lexical": Router(items),
        "embedding": Router(items, links=[EmbeddingLink(items, embedder)]),
        "chain": Router(items, embedder=embedder),
    }
    out: dict[str, dict[str, float]] = {}
    for name, router in routers.items():
        report = evaluate(_ranker(router), golden, k=5)
        latencies = []
        for query in golden.queries:  # item vectors cached, as in a running executive; the query's not
            embedder.forget([query.query])
            start = time.perf_counter()
            router.route(query.query, 5)
            latencies.append((time.perf_counter() - start) * 1e3)
        out[name] = {
            "p_at_1": round(report.p_at_1, 3),
            "mrr": round(report.mrr, 3),
            "recall_at_5": round(report.recall_at_k, 3),
            "median_ms": round(statistics.median(latencies), 2),
            "p90_ms": round(_percentile(latencies, 0.9), 2),
        }
    return out


def _prompt_chars(manifests: Sequence[SkillManifest], robot: RobotCapabilities, task: str) -> int:
    palette = build_palette(manifests, _WORLD)
    tools = json.dumps(palette.openai_tools(), sort_keys=True)
    return len(system_prompt(palette, robot, _WORLD, "tools")) + len(task_message(task, _WORLD)) + len(tools)


def _prompts(sizes: Sequence[int], embedder: CachedEmbedder) -> list[dict[str, Any]]:
    robot = RobotCapabilities.from_yaml(config_dir() / "robots" / "tabletop_arm.yaml")
    tabletop = list(SkillRegistry.discover(default_skill_dirs(), use_entry_points=False))

    def catalog(size: int) -> list[SkillManifest]:
        return [*tabletop, *synthetic_manifests(max(size - len(tabletop), 0))]

    def mean_chars(manifests: list[SkillManifest], narrow: bool) -> float:
        by_id = {m.id: m for m in manifests}
        router = Router(manifests, embedder=embedder) if narrow else None
        chars = []
        for task in PROMPT_TASKS:
            shown = [by_id[i] for i in narrow_palette(manifests, task, router=router)] if narrow else manifests
            chars.append(_prompt_chars(shown, robot, task))
        return statistics.mean(chars)

    baseline = mean_chars(catalog(DEFAULT_K), narrow=False)
    rows = []
    for size in sizes:
        manifests = catalog(size)
        start = time.perf_counter()
        narrowed = mean_chars(manifests, narrow=True)
        narrow_s = (time.perf_counter() - start) / len(PROMPT_TASKS)
        full = mean_chars(manifests, narrow=False)
        rows.append(
            {
                "skills": len(manifests),
                "narrowed_chars": round(narrowed),
                "narrowed_tokens": round(narrowed / 4),
                "full_chars": round(full),
                "full_tokens": round(full / 4),
                "narrowed_vs_24": round(narrowed / baseline, 3),
                "full_vs_24": round(full / baseline, 3),
                "narrow_s_per_task": round(narrow_s, 2),
            }
        )
    return [{"skills": DEFAULT_K, "baseline_chars": round(baseline), "baseline_tokens": round(baseline / 4)}, *rows]


def main() -> None:
    """Run the benchmark and print its tables (and JSON with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 200, 2000])
    parser.add_argument(
        "--golden", type=Path, default=GOLDEN, help="golden queries (e.g. tests/golden/routing_heldout.yaml)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    registry = SkillRegistry.discover(catalog_skill_dirs(), use_entry_points=False)
    items = route_items([*registry, *discover_knowledge(knowledge_dirs())])
    embedder = CachedEmbedder(MiniLmEmbedder())
    start = time.perf_counter()
    embedder.embed([i.text for i in items])
    cold_ms = (time.perf_counter() - start) * 1e3
    quality = _quality(items, embedder, args.golden)
    prompts = _prompts(args.sizes, embedder)

    lexical_mrr = quality["lexical"]["mrr"] or 1.0
    queries = len(load_golden(args.golden).queries)
    print(f"routing quality, {queries} queries of {args.golden.name} over {len(items)} skills")
    print(f"  {'router':10s} {'P@1':>6s} {'MRR':>6s} {'R@5':>6s} {'x lexical':>10s} {'median ms':>10s} {'p90 ms':>8s}")
    for name, row in quality.items():
        print(
            f"  {name:10s} {row['p_at_1']:6.3f} {row['mrr']:6.3f} {row['recall_at_5']:6.3f} "
            f"{row['mrr'] / lexical_mrr:10.2f} {row['median_ms']:10.2f} {row['p90_ms']:8.2f}"
        )
    print(f"  embedding the {len(items)} skills once (cold): {cold_ms:.0f} ms")
    base = prompts[0]
    tasks = len(PROMPT_TASKS)
    print(f"planner prompt (tools mode), mean of {tasks} tasks; 24-skill catalog: {base['baseline_tokens']} tokens")
    print(f"  {'skills':>7s} {'narrowed tok':>13s} {'x @24':>7s} {'full tok':>10s} {'x @24':>7s} {'narrow s':>9s}")
    for row in prompts[1:]:
        print(
            f"  {row['skills']:7d} {row['narrowed_tokens']:13d} {row['narrowed_vs_24']:7.3f} "
            f"{row['full_tokens']:10d} {row['full_vs_24']:7.3f} {row['narrow_s_per_task']:9.2f}"
        )
    if args.json:
        print(json.dumps({"quality": quality, "cold_embed_ms": round(cold_ms), "prompts": prompts}, sort_keys=True))


if __name__ == "__main__":
    main()
