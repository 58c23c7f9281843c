"""The skill router: which few skills of a large catalog a task is about, cheap matchers first.

A robot with ten skills can show the model all of them; a fleet catalog of
hundreds cannot, so the planner gets the top few routed skills. The router
is a chain of links, each scoring every item in [0, 1]::

    query ─┬─ exact     the query names a skill id or name     -> decides alone
           ├─ verb      ActionVerb the query's words name ∩ the skill's actions
           ├─ keyword   name words, objects, scenes found in the query
           ├─ bm25      BM25 over id, description, objects, scenes
           │            (the cheap links pick up to ``candidate_limit`` candidates)
           └─ embedding cosine of all-MiniLM-L6-v2 vectors, candidates only
    score = Σ weight · link score, x intent;  the link adding most "decided" the hit

Intent: a question ("which floor is the server room on?") asks for a fact,
so knowledge skills keep their score and tool skills lose 30 %; a command
("open the door") asks for an action, and knowledge skills lose 30 %. Both
kinds stay in the ranking: a knowledge skill about the drawer still follows
the drawer skills.

Weights (verb 0.1, keyword 0.1, BM25 0.3, embedding 0.5) and the 0.7 intent
factor were chosen on the golden routing set; benchmarks/routing.py shows each
link's own P@1 and MRR beside the chain's.

Each link's failure is contained: a link that raises is logged and skipped,
and the others still rank. Item vectors come from a ``CachedEmbedder``, so a
catalog is embedded once per text, and only where candidates need it;
``Router.warm()`` embeds the whole catalog up front (about 12 ms a skill), after
which the embedding link scores every skill, not only the cheap links' picks.

``narrow_palette`` is what the planner uses: the top-K routed skills for a
task (each clause of a multi-step task routed too, so "pick ... and pour ..."
keeps both), the skills those need first (place_on needs a pick: see
``enablers``) and always-on skills such as ``tabletop/home``; a catalog of at
most K skills passes unchanged.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from functools import cache
from typing import Protocol

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from bt_executive.llm.embedding.embedder import CachedEmbedder, Embedder
from bt_executive.llm.language.lexicon import alternatives, load_lexicon
from bt_executive.llm.language.tokens import tokenize
from bt_executive.llm.language.verb_lexicon import verbs_in
from bt_executive.llm.routing.bm25 import Bm25Index
from bt_executive.llm.routing.enablers import add_enablers
from bt_executive.llm.routing.route_item import Routable, RouteItem, RouteKind, route_items

_log = logging.getLogger(__name__)

DEFAULT_K = 24
DEFAULT_ALWAYS_ON: tuple[str, ...] = ("tabletop/home",)
WEAK_ROUTE = {"embedding": 0.6, "lexical": 0.2}
"""Best-hit scores below which a route is weak (the task may be one no skill was made for), per chain:
the embedding link scores a paraphrase near 0.8-1.0 and a task no skill serves near 0.3-0.5 (measured on
the catalog); the lexical links alone give a matching verb and object 0.4-0.5 and an unrelated task 0."""
GENERALIST = "GENERALIST"
"""Skills every narrowed palette keeps: home is the recovery step of every plan."""
EXACT = "exact"
OFF_INTENT = 0.7
"""Score factor for a knowledge skill on a command, and for a tool skill on a question."""


@cache
def _question() -> re.Pattern[str]:
    """A query that opens with a question word (``config/lexicon.yaml``: ``routing.question_words``)."""
    return re.compile(rf"^({alternatives(load_lexicon().routing.question_words)})\b", re.IGNORECASE)


def is_question(query: str) -> bool:
    """Whether a query asks for a fact (ends with '?' or opens with a question word) rather than an action."""
    text = query.strip()
    return text.endswith("?") or bool(_question().match(text))


class RouteHit(BaseModel):
    """One routed skill: its id, its fused score, and which link decided it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    score: float
    link: str = Field(description="the link whose weighted score added most (or 'exact')")
    kind: RouteKind = "tool"
    scores: dict[str, float] = Field(default_factory=dict, description="weighted score per link that ran")


class RouteLink(Protocol):
    """One matcher of the chain: a score in [0, 1] for each candidate item (absent means 0)."""

    name: str
    weight: float

    def scores(self, query: str, candidates: Sequence[int]) -> dict[int, float]:
        """Scores of the items at ``candidates`` (indices into the router's items) for ``query``."""
        ...


class VerbLink:
    """1 for a skill declaring an action verb the query's words name (via the verb lexicon), else 0."""

    name = "verb"

    def __init__(self, items: Sequence[RouteItem], weight: float = 0.1) -> None:
        self.weight = weight
        self._actions = [frozenset(i.actions) for i in items]

    def scores(self, query: str, candidates: Sequence[int]) -> dict[int, float]:
        """1.0 for candidates whose actions meet the query's verbs."""
        wanted = {v.value for v in verbs_in(query)}
        if not wanted:
            return {}
        return {i: 1.0 for i in candidates if self._actions[i] & wanted}


class KeywordLink:
    """How much of a skill's name, objects and scenes the query spells out."""

    name = "keyword"

    def __init__(self, items: Sequence[RouteItem], weight: float = 0.1) -> None:
        self.weight = weight
        self._names = [set(tokenize(i.name)) for i in items]
        self._objects = [[set(tokenize(o)) for o in i.objects] for i in items]
        self._scenes = [[set(tokenize(s)) for s in i.scenes] for i in items]

    def scores(self, query: str, candidates: Sequence[int]) -> dict[int, float]:
        """0.6 x share of name words present + 0.3 if an object is named + 0.1 if a scene is."""
        words = set(tokenize(query))
        out: dict[int, float] = {}
        for i in candidates:
            name = self._names[i]
            score = 0.6 * len(name & words) / len(name) if name else 0.0
            if any(o and o <= words for o in self._objects[i]):
                score += 0.3
            if any(s and s <= words for s in self._scenes[i]):
                score += 0.1
            if score:
                out[i] = score
        return out


class Bm25Link:
    """BM25 over each skill's text, scaled so the best candidate scores 1."""

    name = "bm25"

    def __init__(self, items: Sequence[RouteItem], weight: float = 0.3) -> None:
        self.weight = weight
        # The id's owner counts too: "kitchen" in a query is evidence for kitchen/* skills.
        self._index = Bm25Index([tokenize(f"{i.id} {i.text}") for i in items])

    def scores(self, query: str, candidates: Sequence[int]) -> dict[int, float]:
        """Max-normalised BM25 scores of the candidates."""
        raw = self._index.scores(tokenize(query))
        best = max((raw[i] for i in candidates), default=0.0)
        if best <= 0.0:
            return {}
        return {i: raw[i] / best for i in candidates if raw[i] > 0.0}


class EmbeddingLink:
    """Cosine similarity of the query's and each candidate's sentence vectors, scaled so the best is 1.

    Raw cosines of short queries sit in a narrow band (0.1-0.6); scaling by the
    best candidate's lets the link separate as strongly as BM25 does.
    """

    name = "embedding"

    def __init__(self, items: Sequence[RouteItem], embedder: Embedder, weight: float = 0.5) -> None:
        self.weight = weight
        self._texts = [i.text for i in items]
        self.warmed = False
        """Set by warm(): every item vector is cached, so scoring all items costs dot products only."""
        self.embedder = embedder if isinstance(embedder, CachedEmbedder) else CachedEmbedder(embedder)

    def warm(self) -> None:
        """Embed every item now (e.g. at start-up), so every later query scores the whole catalog."""
        self.embedder.embed(self._texts)
        self.warmed = True

    def scores(self, query: str, candidates: Sequence[int]) -> dict[int, float]:
        """Cosines of the candidates; item vectors come from the cache after the first time."""
        if not candidates:
            return {}
        vectors = self.embedder.embed([query, *(self._texts[i] for i in candidates)])
        cosines = np.maximum(vectors[1:] @ vectors[0], 0.0)
        best = float(cosines.max())
        if best <= 0.0:
            return {}
        return {i: float(c) / best for i, c in zip(candidates, cosines, strict=True) if c > 0.0}


class Router:
    """Ranks routable skills for a query through the link chain; ``route(query, k)``."""

    def __init__(
        self,
        skills: Iterable[Routable | RouteItem],
        *,
        embedder: Embedder | None = None,
        links: Sequence[RouteLink] | None = None,
        candidate_limit: int = 100,
    ) -> None:
        self.items = route_items(skills)
        self._index_of = {item.id: n for n, item in enumerate(self.items)}
        self._by_name: dict[str, int] = {}
        for n, item in enumerate(self.items):
            self._by_name.setdefault(item.name, n)  # two owners with one name: the first (sorted input) wins
        self.candidate_limit = candidate_limit
        self._knowledge = np.array([item.kind == "knowledge" for item in self.items], dtype=bool)
        if links is None:
            cheap: list[RouteLink] = [VerbLink(self.items), KeywordLink(self.items), Bm25Link(self.items)]
            links = [*cheap, EmbeddingLink(self.items, embedder)] if embedder is not None else cheap
        self.links: list[RouteLink] = list(links)
        with_embedding = any(isinstance(link, EmbeddingLink) for link in self.links)
        self.weak_below = WEAK_ROUTE["embedding" if with_embedding else "lexical"]
        """A best hit scoring below this is a weak route (see ``WEAK_ROUTE``)."""

    def __len__(self) -> int:
        return len(self.items)

    def ids(self) -> list[str]:
        """Every routable id, in input order."""
        return [i.id for i in self.items]

    def warm(self) -> None:
        """Embed every item now, so routing never waits for it and the embedding link sees all items."""
        for link in self.links:
            if isinstance(link, EmbeddingLink):
                link.warm()

    def _exact(self, query: str) -> int | None:
        text = query.strip().lower()
        if text in self._index_of:
            return self._index_of[text]
        # "open_drawer" or "open drawer" typed as the whole query names that skill.
        return self._by_name.get(re.sub(r"[\s\-]+", "_", text))

    def _run(self, link: RouteLink, query: str, candidates: Sequence[int]) -> dict[int, float] | None:
        try:
            return link.scores(query, candidates)
        except Exception:  # a broken matcher costs its own evidence, never the route
            _log.warning("router link %r failed on %r; skipped", link.name, query, exc_info=True)
            return None

    def route(self, query: str, k: int = 5) -> list[RouteHit]:
        """The ``k`` best skills for ``query``, best first, with their fused scores and deciding link."""
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        if not self.items:
            return []
        per_link: dict[str, dict[int, float]] = {}
        every = range(len(self.items))
        total = np.zeros(len(self.items))
        expensive = [link for link in self.links if link.name == EmbeddingLink.name]
        for link in [link for link in self.links if link not in expensive]:
            got = self._run(link, query, every)
            if got is not None:
                per_link[link.name] = {i: link.weight * s for i, s in got.items()}
                for i, s in per_link[link.name].items():
                    total[i] += s
        # Cheap scores pick the candidates the expensive links see; a small catalog, or one whose vectors
        # warm() computed, is all candidates. Two explicit states, so a route never depends on which queries
        # happened to fill the cache before it.
        warm = all(getattr(link, "warmed", False) for link in expensive)
        if len(self.items) <= self.candidate_limit or warm:
            candidates: list[int] = list(every)
        else:
            candidates = [int(i) for i in np.argsort(-total, kind="stable")[: self.candidate_limit]]
        for link in expensive:
            got = self._run(link, query, candidates)
            if got is not None:
                per_link[link.name] = {i: link.weight * s for i, s in got.items()}
                for i, s in per_link[link.name].items():
                    total[i] += s
        off_intent = self._knowledge != is_question(query)
        total = np.where(off_intent, total * OFF_INTENT, total)
        exact = self._exact(query)
        if exact is not None:
            total[exact] = total.max() + 1.0
        order = np.argsort(-total, kind="stable")[:k]
        hits = []
        for i in (int(n) for n in order):
            contributions = {name: s[i] for name, s in per_link.items() if i in s}
            link_name = EXACT if i == exact else max(contributions, key=contributions.__getitem__, default="none")
            hits.append(
                RouteHit(
                    id=self.items[i].id,
                    score=round(float(total[i]), 6),
                    link=link_name,
                    kind=self.items[i].kind,
                    scores={n: round(v, 6) for n, v in contributions.items()},
                )
            )
        return hits


@cache
def _clause_split() -> re.Pattern[str]:
    """Where a several-step task is cut: at a step joiner (with a comma before it or not), a joiner, ';' or ','."""
    words = load_lexicon().routing
    steps, joiners = alternatives(words.step_joiners), alternatives(words.joiners)
    return re.compile(rf"\s*(?:,\s*(?:{steps})|\b(?:{steps})\b|\b(?:{joiners})\b|;|,)\s*", re.IGNORECASE)


def clauses(task: str) -> list[str]:
    """The parts of a multi-step task ("pick X and pour it", "open A, then go home"), each routed alone."""
    return [part for part in _clause_split().split(task) if part and part.strip()]


def narrow_palette(
    skills: Iterable[Routable | RouteItem],
    query: str,
    k: int = DEFAULT_K,
    always_on: Sequence[str] = DEFAULT_ALWAYS_ON,
    *,
    router: Router | None = None,
    embedder: Embedder | None = None,
    generalist_below: float | None = None,
) -> list[str]:
    """The skill ids a planner is shown for ``query``: top-K routed plus ``always_on``; all of them if ≤ K.

    A multi-step task routes as a whole and clause by clause; their rankings
    are interleaved (every clause's best first), so each step's skill is in.
    Skills that routed skills need first (see ``enablers``) are added within
    the K. When even the best route is weak (below ``generalist_below``, by
    default the router's ``weak_below``: the robot may have no skill made for
    this task), skills that declare the
    ``GENERALIST`` verb (a prompt-conditioned VLA policy) are offered too,
    rather than only the nearest misses. Pass ``router`` to reuse one built
    over the same skills.
    """
    items = route_items(skills)
    ids = [i.id for i in items]
    if len(items) <= k:
        return ids
    router = router or Router(items, embedder=embedder)
    parts = clauses(query)
    queries = [*parts, query] if len(parts) > 1 else [query]
    known = set(ids)
    # A router shared across calls may know more skills than this palette offers: keep only ours.
    routed = [[h for h in router.route(q, k) if h.id in known] for q in queries]
    rankings = [[h.id for h in hits] for hits in routed]
    chosen: list[str] = []
    for rank in range(k):
        for ranking in rankings:
            if rank < len(ranking) and ranking[rank] not in chosen and len(chosen) < k:
                chosen.append(ranking[rank])
    # A routed skill whose preconditions an earlier step must create brings its enabler (place_on -> pick);
    # enablers go right after the skill that needs them, so the cut at K drops the weakest routes instead.
    chosen = add_enablers(chosen, items, preference=rankings[-1])[:k]
    chosen += [s for s in always_on if s in known and s not in chosen]
    best = max((hits[0].score for hits in routed if hits), default=0.0)
    if best < (router.weak_below if generalist_below is None else generalist_below):
        chosen += [i.id for i in items if GENERALIST in i.actions and i.id not in chosen]
    return chosen
