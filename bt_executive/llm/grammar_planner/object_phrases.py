"""Object phrases resolved to ids: pronouns, the held object, lists, quantifiers, "the others"."""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable
from functools import cache

from bt_executive.llm.grammar_planner.imagined_plan import ImaginedPlan
from bt_executive.llm.grammar_planner.planning_errors import NotAfforded, SameObjectTwice, UnplannableStep
from bt_executive.llm.grammar_planner.said_arguments import choice_apart, counts_apart, unit_apart
from bt_executive.llm.grammar_planner.skill_choice import Referent, fit, region_named, regions_listed
from bt_executive.llm.grounding.object_matching import (
    AmbiguousObject,
    UnknownObject,
    ignored_words,
    match_objects,
    object_words,
    resolve_all,
    resolve_object,
)
from bt_executive.llm.language.lexicon import Lexicon, alternatives, load_lexicon
from bt_executive.llm.language.noun_phrases import count_said, expand_phrase, numbers, phrase_words, stated_count
from bt_executive.llm.language.task_grammar import Condition, Intent, IntentAction, object_phrase, other_splits
from bt_executive.llm.plan import PlannerRefused, RefusalKind

_MOVES_HELD = frozenset({IntentAction.PUT, IntentAction.POUR, IntentAction.STACK})

_ACTS = frozenset(
    {IntentAction.PUSH, IntentAction.POUR, IntentAction.TAP, IntentAction.OPEN, IntentAction.CLOSE, IntentAction.ACT}
)
"""The intents whose skill is chosen from the manifests by verb and referent (``_PlanBuilder.act``)."""

_OR = re.compile(r"\s+or\s+")


class _Patterns:
    """The lexicon's words for which objects a phrase means (``config/lexicon.yaml``), compiled once per lexicon."""

    def __init__(self, lexicon: Lexicon) -> None:
        counts = alternatives(numbers())
        # Phrases that name particular objects: "the two cubes" with three here is ambiguous, "two cubes" is not.
        self.definite = re.compile(rf"^(?:{alternatives(lexicon.definite_words)})\b")
        # "any two cubes": any of them, as "two cubes"
        self.any_count = re.compile(rf"^(?:{alternatives(lexicon.any_count_words)})\s+(?=(?:{counts})\s)")
        # "the other two", "the others", "the rest of the cubes", "the remaining blocks"
        self.others = re.compile(
            rf"^(?:all\s+)?(?:of\s+)?(?:the\s+)?(?:{alternatives(lexicon.other_words)})"
            rf"(?:\s+(?P<n>{counts}))?(?:\s+(?P<what>(?!of\b).+))?$"
        )
        # Phrases that ask for any one of their matches ("a cube", "any block", "one of the cubes").
        self.indefinite = re.compile(rf"^(?:{alternatives(lexicon.indefinite_words)})\b")
        # An object phrase that says the object's id outright ("the charging dock id dock", "the gauge named p7").
        self.id_said = re.compile(rf"^(?:.*?\s)?(?:{alternatives(lexicon.id_words)})\s+(?P<id>[a-z0-9_]+)$")
        # Words that name the object in the gripper ("the cube you are holding").
        self.held = re.compile(rf"\b(?:{alternatives(lexicon.held_phrases)})\b")
        self.ones = frozenset(lexicon.ones)


@cache
def _patterns() -> _Patterns:
    return _Patterns(load_lexicon())


class ObjectPhrases(ImaginedPlan):
    """The layer that reads object phrases against the world (and the steps so far)."""

    # -- object phrases ---------------------------------------------------------------------------
    def resolve(self, phrase: str | None, intent: Intent, *, among: Collection[str] | None = None) -> str:
        """The id a phrase names; a pronoun is the previous clause's object (or its destination, where
        only that fits: "put the cube in the drawer and shut it"), else the held one."""
        if phrase is None:
            candidates = [c for c in (self.last_object, self.last_target, self.held()) if c is not None]
            fitting = [c for c in candidates if among is None or c in among]
            if not fitting and among is not None:  # "open the drawer, put the cubes inside, close it": the drawer
                fitting = [c for c in reversed(self.named) if c in among][:1]
            referent = next(iter(fitting or candidates), None)
            if referent is None:
                raise UnplannableStep(
                    f"'it' in {intent.clause!r} refers to nothing: no object earlier in the task "
                    "and the gripper is empty"
                )
            if among is not None and referent not in among:
                raise UnplannableStep(f"'it' in {intent.clause!r} refers to {referent}, which cannot be used there")
            return referent
        if not set(phrase_words(phrase)) - ignored_words():  # "the object", "the item": as 'it'
            return self.resolve(None, intent, among=among)
        alternatives = _OR.split(phrase)
        if len(alternatives) > 1:  # "the red cube or the blue cube": either will do, the nearest
            options = sorted({self.resolve(part, intent, among=among) for part in alternatives})
            chosen = self._nearest(options)
            self.notes.append(f"{phrase!r} -> {chosen} (either of {', '.join(options)}: the nearest)")
            return chosen
        # The one held now, else the one held when the task came ("open the drawer and put inside the cube
        # you hold": opening the drawer sets it down first).
        held = self.held() or self.world.gripper.holding
        if held is not None and _patterns().held.search(phrase) and (among is None or held in among):
            self.notes.append(f"{phrase!r} -> {held} (the one held)")
            return held
        try:
            match = resolve_object(phrase, self.world, exclude=self.history.excluded, among=among)
        except UnknownObject:
            said = self.said_beside(phrase) or self._one_of_kind(phrase)
            if said is None:
                raise
            return self.resolve(said, intent, among=among)
        except AmbiguousObject as err:
            # "put the cube down" while holding one cube: the held one is the one meant.
            held = self.held()
            if intent.action in _MOVES_HELD and held is not None and held in err.candidates:
                self.notes.append(f"{phrase!r} -> {held} (the one held)")
                return held
            if _patterns().indefinite.match(phrase.strip().lower()):  # "a cube": any one will do, the nearest
                chosen = self._nearest(err.candidates)
                self.notes.append(f"{phrase!r} -> {chosen} (any one of {', '.join(err.candidates)}: the nearest)")
                self.antecedent = chosen
                return chosen
            # "the red cube on the green one", "..., then the green one": 'one' is of the kind of the
            # previous clause's object, else of the object named just before.
            for before in (self.last_object, self.antecedent):
                if "one" not in phrase.split() or before is None or (named := self.world.object(before)) is None:
                    continue
                same = [c for c in err.candidates if (o := self.world.object(c)) and o.category == named.category]
                if len(same) == 1:
                    self.notes.append(f"{phrase!r} -> {same[0]} ('one': a {named.category}, as {before})")
                    return same[0]
            if (region := self.last_region) is not None:
                # "go to the boiler room and read the gauge (there)": the one in the room the plan went to
                inside = [c for c in err.candidates if self.holds("at", c, region)]
                if len(inside) == 1:
                    self.notes.append(f"{phrase!r} -> {inside[0]} (the one in {region}, where the plan went)")
                    return inside[0]
                if not inside and phrase.split()[-1:] == ["there"]:
                    raise self._not_there(phrase, ", ".join(err.candidates), region) from None
            raise
        object_id = match.ids[0]
        region = self.last_region
        if region is not None and phrase.split()[-1:] == ["there"] and not self.holds("at", object_id, region):
            # "go to the boiler room and read the thermometer there": the one thermometer is elsewhere
            raise self._not_there(phrase, object_id, region)
        self.antecedent = object_id
        self.named.append(object_id)
        if match.rule != "exact":
            self.notes.append(f"{phrase!r} -> {object_id} ({match.rule})")
        return object_id

    def _not_there(self, phrase: str, named: str, region: str) -> PlannerRefused:
        """The refusal of "X there" where no X is in the region the plan went to (not a task misread: the
        words are understood, the thing is not there)."""
        inside = sorted(o.id for o in self.world.objects if self.holds("at", o.id, region))
        which = f"none of {named} is" if "," in named else f"{named} is not"
        return PlannerRefused(
            f"{phrase!r}: {which} in {region}, where the plan went"
            f" (there: {', '.join(inside) or 'nothing this world knows of'})",
            RefusalKind.NO_SUCH_OBJECT,
            candidates=tuple(inside),
        )

    def said_beside(self, phrase: str) -> str | None:
        """What an object phrase that names nothing here names once the words said beside the object are left
        out: an id said outright ("the charging dock id dock": dock), or a reason run on after the object
        ("the front door theres a draft": the front door), where what is left names one object."""
        stated = _patterns().id_said.match(phrase)
        if stated is not None and self.world.object(stated.group("id")) is not None:
            self.notes.append(f"{phrase!r} -> {stated.group('id')} (its id, said)")
            return stated.group("id")
        words = phrase.split()
        for opener in sorted(load_lexicon().reason_openers, key=len, reverse=True):
            size = len(opener.split())
            for start in range(1, len(words) - size + 1):
                if words[start : start + size] != opener.split():
                    continue
                before = " ".join(words[:start])
                if len(match_objects(before, self.world, exclude=self.history.excluded).ids) == 1:
                    self.notes.append(f"{phrase!r}: {' '.join(words[start:])!r} is a reason, left out")
                    return before
        return None

    def _one_of_kind(self, phrase: str) -> str | None:
        """ "..., then the leftmost one": the phrase with 'one' said as the kind of the object named before
        ("the leftmost cube"), for a phrase that names nothing here as said; None without a 'one' or an object
        before it."""
        words = phrase.split()
        before = self.last_object or self.antecedent
        named = self.world.object(before) if before is not None else None
        if "one" not in words or named is None:
            return None
        return " ".join(named.category if w == "one" else w for w in words)

    def _nearest(self, ids: Iterable[str]) -> str:
        """Of ``ids``, the one nearest the robot's base in the table plane (ties: the first id)."""
        return min(ids, key=lambda i: (self._distance(i), i))

    def in_order(self, ids: list[str], order: str) -> list[str]:
        """``ids`` in the order said: from the robot's left (largest y) to its right, nearest first, largest
        first (by volume; alike in size, in the order they came), ..."""

        def key(object_id: str) -> float:
            found = self.world.object(object_id)
            if found is None:
                return math.inf
            return {
                "left_to_right": -found.position[1],
                "right_to_left": found.position[1],
                "nearest_first": self._distance(object_id),
                "farthest_first": -self._distance(object_id),
                "largest_first": -math.prod(found.size),
                "smallest_first": math.prod(found.size),
            }[order]

        return sorted(ids, key=key)

    def _distance(self, object_id: str) -> float:
        found = self.world.object(object_id)
        return math.hypot(found.position[0], found.position[1]) if found is not None else math.inf

    def others(self, intent: Intent) -> list[str] | None:
        """The objects "the other two", "the others", "the rest (of the cubes)" or "the remaining cubes" name:
        those of the kind said (else of the kind of the object before) that the task has not named yet;
        None when the phrase is not of this form."""
        found = _patterns().others.match(" ".join((intent.object or "").lower().split()))
        if found is None:
            return None
        kind = (found.group("what") or "").strip()
        singular = bool(kind) and not kind.endswith("s")  # "the other cube": one
        number = found.group("n") or ("1" if singular else None)
        kind = "" if kind in _patterns().ones else kind
        if not self.named and self.last_object is None and self.held() is None:
            raise PlannerRefused(
                f"{intent.object!r} in {intent.clause!r}: other than what? nothing was named before it",
                RefusalKind.AMBIGUOUS,
            )
        if not kind:
            before = self.world.object(self.last_object or self.antecedent or "")
            if before is None:
                raise UnplannableStep(f"{intent.object!r} in {intent.clause!r}: the others of what? say which")
            kind = before.category
        target = self.resolve(intent.target, intent) if intent.target else None
        phrases, _ = expand_phrase(kind if kind.startswith(("all", "the")) else f"all the {kind}")
        ids = [
            i
            for phrase in phrases
            for i in resolve_all(phrase, self.world, exclude=self.history.excluded)
            if i not in self.named and i != target
        ]
        if not ids or (number is not None and count_said(number) != len(ids)):
            raise PlannerRefused(
                f"{intent.object!r}: {len(ids)} not named yet ({', '.join(ids) or 'none'})",
                RefusalKind.AMBIGUOUS if ids else RefusalKind.NO_SUCH_OBJECT,
                candidates=tuple(ids),
            )
        self.notes.append(f"{intent.object!r} -> {', '.join(ids)} (not named before)")
        return ids

    def plural_of_many(self, phrase: str) -> bool:
        """Whether a phrase ends in a plural of a word several objects here have ("the pressure gauges"), where
        the lexicon's categories did not say it is plural: every object its singular names, more than one."""
        words = phrase_words(phrase)
        last = words[-1] if words else ""
        if len(last) < 4 or not last.endswith("s") or last.endswith("ss") or _patterns().indefinite.match(phrase):
            return False
        if len(words) > 4 or {"of", "that", "which"} & set(words):
            return False  # "one of the cubes", "the cube that sits on the blue ones": one object, said about others
        if any(last in object_words(o) for o in self.world.objects):
            return False  # a word an object has as it is ("glass", an id ending in s)
        for ending in ("es", "s"):
            one = " ".join([*words[:-1], last.removesuffix(ending)])
            found = match_objects(one, self.world, exclude=self.history.excluded).ids
            if len(found) > 1:
                return True
        return False

    def names_one(self, phrase: str | None) -> bool:
        """Whether a phrase names exactly one object here (a pronoun, a list or quantifier, and a phrase asking
        for any one of several, "a cube", count as yes)."""
        if phrase is None:
            return True
        phrases, quantified = expand_phrase(phrase)
        if quantified or len(phrases) != 1:
            return True
        found = match_objects(phrases[0], self.world, exclude=self.history.excluded).ids
        return len(found) == 1 or (bool(found) and _patterns().indefinite.match(phrase.strip().lower()) is not None)

    def grounded_reading(self, intent: Intent) -> Intent:
        """The first reading of a placement whose object and target phrases each name one object here.

        "put the cube on the plate in the bowl": (the cube) in (the plate in the bowl) names no target
        here, (the cube on the plate) in (the bowl) does. The grammar's reading when none does (its
        refusal then names what did not match)."""
        # A split of the clause's own words that says only "it" would lose an object the clause was given
        # ("find the banana and put it on the plate": the banana), unless "it" has something to mean.
        it_means = intent.object is None or self.held() is not None or self.last_object is not None
        readings = [intent, *(r for r in other_splits(intent) if r.object is not None or it_means)]
        if len(readings) == 1:
            return intent
        for reading in readings:
            if all(self.names_one(phrase) for phrase in (reading.object, reading.target)):
                if reading is not intent:
                    self.notes.append(f"{intent.clause!r} read as {reading.object!r} -> {reading.target!r}")
                return reading
        return intent

    def condition_holds(self, intent: Intent, condition: Condition) -> bool:
        """Whether an "if" holds in the world as the steps so far leave it. Where the world state cannot say
        (a fridge's door), a clause that would only make it false ("if the fridge is shut, open it") is
        kept, as doing it either way ends the same; any other clause is refused rather than guessed."""
        if condition.subject is None:
            holding = not self.holds("gripper_empty")
            return holding if condition.state == "holding" else not holding
        subject = self.resolve(condition.subject, intent)
        if subject in self.world.drawers:
            is_open = self.holds("drawer_open", subject)
            return is_open if condition.state == "open" else not is_open
        undoes = {"closed": IntentAction.OPEN, "open": IntentAction.CLOSE}.get(condition.state)
        if undoes is not None and intent.action is undoes:
            return True
        raise PlannerRefused(
            f"{condition.clause!r}: the world state does not say whether {subject} is {condition.state}",
            RefusalKind.AMBIGUOUS,
            candidates=(subject,),
        )

    def _regions_left(self, regions: list[str], excluding: str, clause: str) -> list[str]:
        """The regions a list names less those its exception names (each must name one here)."""
        named = region_named(excluding, self.world)
        skipped = regions_listed(excluding, self.world) or ([named] if named is not None else [])
        if not skipped:
            raise UnknownObject(excluding, sorted(self.world.regions), why="no place here is so named")
        left = [r for r in regions if r not in skipped]
        if not left:
            raise PlannerRefused(
                f"{clause!r}: nothing is left once {excluding!r} is left out", RefusalKind.NO_SUCH_OBJECT
            )
        self.notes.append(f"left out {excluding!r}: {', '.join(skipped)}")
        return left

    def each_object(self, intent: Intent) -> list[Intent]:
        """One intent per object a list or a quantifier names ("all the cubes": in id order); a list of
        regions is one intent when a skill takes a list of places ("patrol A and B"), else one per region."""
        if intent.object is None:
            return [intent]
        said_ids = intent.object.split()
        if len(said_ids) > 1 and all(self.world.object(i) is not None for i in said_ids):  # "read p7 t3 boiler_gauge"
            return self.each_object(intent.model_copy(update={"object": " and ".join(said_ids)}))
        if intent.action in _ACTS and any(counts_apart(intent.object, m)[1] for m in self.skills_for(intent)):
            return [intent]  # "scan all 8 levels of the shelf": a count of the skill's, not of objects
        for manifest in self.skills_for(intent) if intent.action in _ACTS else ():
            rest, units = unit_apart(intent.object, manifest)
            if units and rest != intent.object:  # "read p7 and t3, in bar": each of them, in bar
                said = f" in {next(iter(units.values()))}"
                each = self.each_object(intent.model_copy(update={"object": rest}))
                return [i.model_copy(update={"object": f"{i.object}{said}"}) if i.object else i for i in each]
        chosen = choice_apart(intent.object, self.skills_for(intent)) if intent.action in _ACTS else intent.object
        if chosen != intent.object and object_phrase(chosen) is not None:
            # "vacuum the kitchen and the hallway on max": each of them, on max (the clause keeps the choice)
            return self.each_object(intent.model_copy(update={"object": chosen}))
        regions = regions_listed(intent.object, self.world) if intent.action in _ACTS else None
        if regions and intent.excluding is not None:  # "vacuum all rooms except the kitchen"
            regions = self._regions_left(regions, intent.excluding, intent.clause)
        if regions and intent.order is not None:  # "vacuum every room, largest first": no size of a place here
            raise PlannerRefused(
                f"{intent.clause!r}: {intent.order.replace('_', ' ')} orders things, and {', '.join(regions)} are "
                "places: say them in the order wanted",
                RefusalKind.AMBIGUOUS,
                candidates=tuple(regions),
            )
        if regions:
            listed = Referent(regions[0], region=True, more=tuple(regions[1:]))
            if any(fit(m, listed, self.world) for m in self.skills_for(intent)):
                if intent.excluding is None:
                    return [intent]
                # "patrol every room except the control room": the places left, by name, for the skill's list
                left = " and ".join(r.replace("_", " ") for r in regions)
                return [intent.model_copy(update={"object": left, "excluding": None})]
            self.notes.append(f"{intent.object!r} -> {', '.join(regions)}")
            return [intent.model_copy(update={"object": r}) for r in regions]
        others = self.others(intent)
        if others is not None:  # "the other two", "the rest of the cubes": one intent each
            return [intent.model_copy(update={"object": i}) for i in others]
        any_count = _patterns().any_count
        phrases, quantified = expand_phrase(any_count.sub("", intent.object))
        if not quantified and len(phrases) == 1 and self.plural_of_many(phrases[0]):
            quantified = True  # "read the pressure gauges": a plural the lexicon does not know, of several here
        if not quantified and len(phrases) == 1 and intent.excluding is None:
            if intent.tower:
                raise UnplannableStep(f"{intent.clause!r}: a tower needs two objects or more")
            return [intent]
        ids: list[str] = []
        for phrase in phrases:
            if quantified:
                found = resolve_all(phrase, self.world, exclude=self.history.excluded)
                target = self.resolve(intent.target, intent) if intent.target and not intent.tower else None
                ids.extend(i for i in found if i != target and i not in ids)
            elif self.plural_of_many(phrase):  # "all the gauges and the thermometer"
                found = resolve_all(phrase, self.world, exclude=self.history.excluded)
                ids.extend(i for i in found if i not in ids)
            else:
                ids.append(self.resolve(phrase, intent))
        if not ids:  # "stack all the bowls on the bowl": the one bowl is where they go
            raise UnplannableStep(f"{intent.clause!r}: {intent.object!r} names nothing but where it goes")
        if intent.excluding is not None:
            left_out = {self.resolve(p, intent) for p in expand_phrase(intent.excluding)[0]}
            ids = [i for i in ids if i not in left_out]
            if not ids:
                raise PlannerRefused(
                    f"{intent.clause!r}: nothing is left once {intent.excluding!r} is left out",
                    RefusalKind.NO_SUCH_OBJECT,
                )
            self.notes.append(f"left out {intent.excluding!r}: {', '.join(sorted(left_out))}")
        count = stated_count(any_count.sub("", intent.object))
        if count is not None and count < len(ids) and not _patterns().definite.match(intent.object.strip().lower()):
            # "put two cubes on the plate", "any two cubes": which ones is not said, the nearest will do
            nearest = sorted(ids, key=lambda i: (self._distance(i), i))[:count]
            self.notes.append(
                f"{intent.object!r} -> {', '.join(nearest)} (any {count} of {', '.join(ids)}: the nearest)"
            )
            ids = [i for i in ids if i in nearest]
        if count is not None and count != len(ids):
            raise PlannerRefused(
                f"{intent.object!r} names {count}, but {len(ids)} match: say which",
                RefusalKind.AMBIGUOUS,
                candidates=tuple(ids),
            )
        if intent.action is IntentAction.PICK and len(ids) > 1:
            raise NotAfforded(
                f"{intent.clause!r} names {', '.join(ids)}, but the gripper holds one object at a time; "
                "say where to put them"
            )
        if intent.order is not None:  # "going from your left to your right": y is to the robot's left
            ids = self.in_order(ids, intent.order)
        self.notes.append(
            f"{intent.object!r} -> {', '.join(ids)}"
            + (
                f" ({intent.order.replace('_', ' ')})"
                if intent.order
                else " (every match, in id order)"
                if quantified
                else ""
            )
        )
        if intent.action is IntentAction.STACK:
            # "stack all the cubes on the plate": a tower, each one on the one before; "build a tower of
            # the cubes": the first one is the base.
            if intent.tower:
                if intent.target is not None:  # "with the blue cube at the bottom": it is one of the tower's
                    bottom = self.resolve(intent.target, intent)
                    ids = [bottom, *(i for i in ids if i != bottom)]
                if intent.top is not None:
                    top = self.resolve(intent.top, intent)
                    ids = [*(i for i in ids if i != top), top]
                if len(ids) < 2:
                    raise UnplannableStep(f"{intent.clause!r}: a tower needs two objects or more, found {ids}")
                base, ids = ids[0], ids[1:]
            else:
                base = intent.target or ""
            bases = [base, *ids[:-1]]
            self.notes.append(f"stacked as a tower: {' on '.join(reversed(ids))} on {base}")
            return [
                intent.model_copy(update={"object": i, "target": b, "tower": False})
                for i, b in zip(ids, bases, strict=True)
            ]
        if intent.action is IntentAction.PUT and intent.target is None and len(ids) > 1:
            # "put the red cube and the green cube inside": inside what came before the list, for each of them
            where = self.resolve(None, intent)
            return [intent.model_copy(update={"object": i, "target": where}) for i in ids]
        return [intent.model_copy(update={"object": i}) for i in ids]

    def _target(self, intent: Intent, obj: str) -> str:
        target = self.resolve(intent.target, intent)
        if intent.target is None and target in (self.held(), self.world.gripper.holding):
            # "offload the tote" (holding it): 'it' for where is the held one, which never goes onto itself
            raise PlannerRefused(f"{intent.clause!r} does not say where {target} goes", RefusalKind.AMBIGUOUS)
        self.last_target = target
        if target == obj:
            raise SameObjectTwice(f"{intent.clause!r} names {obj} as both the object and where it goes")
        return target
