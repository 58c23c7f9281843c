"""Enablers: the skills a routed skill needs before it can run, found through preconditions and effects.

"Put the red cube on the plate" names placing, not picking, yet a plan for it
starts with a pick: ``place_on`` needs ``not gripper_empty``, and ``pick``
achieves ``holding(object)``. A narrowed palette that kept only what the
words name would leave the planner unable to make the first step, so for
every routed skill we add, when nothing chosen already achieves it, a skill
whose effects achieve each precondition that a plan has to bring about.

Only state that earlier steps create is chained (holding, on, in, at,
drawer_open, and their negations): ``exists``, ``reachable``,
``gripper_empty`` and ``at_home`` are normally true at the start and would
pull a dozen unrelated skills in. ``not gripper_empty`` is read as
``holding`` (what a plan does to make the gripper non-empty). Followers (the
same owner's skills that use what a chosen skill achieves) come along too.
"""

from __future__ import annotations

from collections.abc import Sequence

from bt_executive.llm.routing.route_item import RouteItem
from bt_executive.skills.predicates import parse_predicate

_GIVEN = frozenset({"exists", "reachable", "gripper_empty", "at_home"})
"""Predicates a task normally starts with: never chained when required positively."""
_SAME_AS: dict[tuple[str, bool], tuple[str, bool]] = {
    ("gripper_empty", True): ("holding", False),
    ("holding", True): ("gripper_empty", False),
}
"""Two ways to say one fact; keys are canonicalised to the value."""

Fact = tuple[str, bool]
"""A predicate name and whether it is negated (arguments are not compared: a palette is not a plan)."""


def _fact(text: str) -> Fact | None:
    try:
        predicate = parse_predicate(text)
    except ValueError:
        return None
    key = (predicate.name, predicate.negated)
    return _SAME_AS.get(key, key)


def needed_facts(item: RouteItem) -> list[Fact]:
    """The preconditions of ``item`` that an earlier step must bring about."""
    out = []
    for text in item.preconditions:
        fact = _fact(text)
        if fact is not None and not (fact[0] in _GIVEN and not fact[1]):
            out.append(fact)
    return out


def achieved_facts(item: RouteItem) -> set[Fact]:
    """The facts ``item``'s effects make true."""
    return {f for f in (_fact(t) for t in item.effects) if f is not None}


def add_enablers(chosen: Sequence[str], items: Sequence[RouteItem], preference: Sequence[str] = ()) -> list[str]:
    """``chosen`` with, after each skill, an enabler for every precondition nothing chosen achieves.

    Among several enablers, one with the needing skill's owner wins (a
    ``tabletop`` place is enabled by ``tabletop/pick``), then the earliest in
    ``preference`` (the router's ranking), then the first by id. After the
    enablers come the skill's *followers*: skills of the same owner that need
    what it achieves (a pick's ``holding`` -> place_on, pour), because what a
    plan picks up it must put somewhere, whatever the task's words call that.
    """
    by_id = {i.id: i for i in items}
    rank = {skill_id: n for n, skill_id in enumerate(preference)}
    providers: dict[Fact, list[RouteItem]] = {}
    consumers: dict[tuple[str, Fact], list[RouteItem]] = {}
    for item in sorted(items, key=lambda i: i.id):
        if item.kind != "tool":
            continue
        for fact in achieved_facts(item):
            providers.setdefault(fact, []).append(item)
        for fact in needed_facts(item):
            consumers.setdefault((_owner(item), fact), []).append(item)
    out: list[str] = []
    achieved: set[Fact] = set()
    for skill_id in chosen:
        if skill_id in by_id:
            achieved |= achieved_facts(by_id[skill_id])
    for skill_id in chosen:
        if skill_id in out:
            continue
        out.append(skill_id)
        needing = by_id.get(skill_id)
        if needing is None:
            continue
        owner = _owner(needing)
        for fact in needed_facts(needing):
            if fact in achieved or not providers.get(fact):
                continue
            best = min(providers[fact], key=lambda p: (_owner(p) != owner, rank.get(p.id, len(rank)), p.id))
            if best.id not in out:
                out.append(best.id)
            achieved |= achieved_facts(best)
        for fact in sorted(achieved_facts(needing)):
            for follower in consumers.get((_owner(needing), fact), []):
                if follower.id not in out:
                    out.append(follower.id)
    return out


def _owner(item: RouteItem) -> str:
    return item.id.split("/", 1)[0]
