"""Routing eval: how well a router ranks the expected skill for golden queries, and the CI gate on it.

The golden file (``tests/golden/routing.yaml``) lists natural-language
queries, each with the skill it should route to and optionally others that
are also right (``also_ok``)::

    queries:
      - {query: "shut the drawer", expected: tabletop/close_drawer}
      - {query: "tip the cup into the bowl", expected: tabletop/pour, also_ok: [liquids/pour_liquid]}

Figures: P@1 (the first hit is right), MRR (mean of 1/rank of the first
right hit, 0 beyond the ranks looked at) and recall@K (a right skill in the
top K). ``gate`` turns them into pass/fail against thresholds (P@1 ≥ 0.85,
MRR ≥ 0.90 to start), with the figures and the misses to say why.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from bt_executive.skills.loader import load_model
from bt_executive.skills.manifest import SKILL_ID_PATTERN

DEFAULT_P_AT_1 = 0.85
DEFAULT_MRR = 0.90
DEFAULT_RECALL_K = 5

Ranker = Callable[[str, int], Sequence[str]]
"""A router as the eval sees it: (query, k) -> skill ids, best first (``lambda q, k: [h.id for h in ...]``)."""


class GoldenQuery(BaseModel):
    """One golden query: the text and the skill(s) it should route to."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    query: str = Field(min_length=1, max_length=500)
    expected: str = Field(pattern=SKILL_ID_PATTERN)
    also_ok: tuple[str, ...] = ()

    def right(self) -> frozenset[str]:
        """Every id that counts as a correct route."""
        return frozenset((self.expected, *self.also_ok))


class GoldenRouting(BaseModel):
    """The golden routing file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    queries: tuple[GoldenQuery, ...] = Field(min_length=1)


def load_golden(path: Path) -> GoldenRouting:
    """Read a golden routing file; ManifestError naming the file and field on bad input."""
    return load_model(path, GoldenRouting)


class QueryOutcome(BaseModel):
    """How one golden query was routed."""

    model_config = ConfigDict(frozen=True)

    query: str
    expected: str
    got: tuple[str, ...]
    rank: int | None = Field(description="1-based rank of the first right id, None if not in the list")


class RoutingReport(BaseModel):
    """P@1, MRR and recall@K of a router over golden queries, with every outcome."""

    model_config = ConfigDict(frozen=True)

    p_at_1: float
    mrr: float
    recall_at_k: float
    k: int
    outcomes: tuple[QueryOutcome, ...]

    def misses(self) -> list[QueryOutcome]:
        """The queries whose first hit was wrong."""
        return [o for o in self.outcomes if o.rank != 1]


def evaluate(ranker: Ranker, golden: GoldenRouting, k: int = DEFAULT_RECALL_K) -> RoutingReport:
    """Route every golden query through ``ranker`` (top ``k``) and score the rankings."""
    outcomes = []
    for q in golden.queries:
        got = tuple(ranker(q.query, k))[:k]
        right = q.right()
        rank = next((n for n, skill in enumerate(got, start=1) if skill in right), None)
        outcomes.append(QueryOutcome(query=q.query, expected=q.expected, got=got, rank=rank))
    n = len(outcomes)
    return RoutingReport(
        p_at_1=sum(o.rank == 1 for o in outcomes) / n,
        mrr=sum(1.0 / o.rank for o in outcomes if o.rank) / n,
        recall_at_k=sum(o.rank is not None for o in outcomes) / n,
        k=k,
        outcomes=tuple(outcomes),
    )


class GateResult(BaseModel):
    """Whether routing quality meets the thresholds, with the figures that say so."""

    model_config = ConfigDict(frozen=True)

    passed: bool
    p_at_1: float
    mrr: float
    min_p_at_1: float
    min_mrr: float
    failures: tuple[str, ...] = Field(description="one line per missed threshold")

    def summary(self) -> str:
        """One line for a CI log."""
        verdict = "PASS" if self.passed else "FAIL"
        return (
            f"routing gate {verdict}: P@1 {self.p_at_1:.3f} (min {self.min_p_at_1:.2f}), "
            f"MRR {self.mrr:.3f} (min {self.min_mrr:.2f})" + ("; " + "; ".join(self.failures) if self.failures else "")
        )


def gate(report: RoutingReport, min_p_at_1: float = DEFAULT_P_AT_1, min_mrr: float = DEFAULT_MRR) -> GateResult:
    """Pass when P@1 and MRR reach their thresholds; say which one missed otherwise."""
    failures = []
    if report.p_at_1 < min_p_at_1:
        failures.append(f"P@1 {report.p_at_1:.3f} < {min_p_at_1:.2f}")
    if report.mrr < min_mrr:
        failures.append(f"MRR {report.mrr:.3f} < {min_mrr:.2f}")
    return GateResult(
        passed=not failures,
        p_at_1=report.p_at_1,
        mrr=report.mrr,
        min_p_at_1=min_p_at_1,
        min_mrr=min_mrr,
        failures=tuple(failures),
    )
