"""Clauses whose skill is chosen from the manifests by verb and referent, and the arguments they say."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from functools import cache

from pydantic import JsonValue

from bt_executive.llm.grammar_planner.attempt_history import call_key
from bt_executive.llm.grammar_planner.chaining import Chaining
from bt_executive.llm.grammar_planner.imagined_plan import RATIONALE_LIMIT, atom
from bt_executive.llm.grammar_planner.planning_errors import MissingSkill, NotAfforded, UnplannableStep
from bt_executive.llm.grammar_planner.said_arguments import (
    choice_apart,
    counts_apart,
    is_choice,
    surface_apart,
    unit_apart,
)
from bt_executive.llm.grammar_planner.skill_choice import (
    Fit,
    Referent,
    candidates,
    choose,
    fit,
    names_category,
    referent_param,
    region_holding,
    region_named,
    regions_listed,
    regions_partly_named,
    same_kind,
)
from bt_executive.llm.grounding.object_matching import (
    ObjectMatchError,
    UnknownObject,
    match_objects,
    names_by_relation,
    object_words,
)
from bt_executive.llm.language.lexicon import alternatives, load_lexicon
from bt_executive.llm.language.noun_phrases import phrase_words
from bt_executive.llm.language.quantities import (
    COUNT,
    Quantity,
    QuantityOutOfBounds,
    UnitMismatch,
    english,
    is_repetition,
    unit_kind,
)
from bt_executive.llm.language.quantities import fit as fit_quantity
from bt_executive.llm.language.task_grammar import Intent, IntentAction, TaskNotUnderstood, object_phrase
from bt_executive.llm.plan import PlannerRefused, RefusalKind
from bt_executive.skills.affordances import AFFORDANCE_NAMES
from bt_executive.skills.call import SkillCall
from bt_executive.skills.conditions import goal_predicates
from bt_executive.skills.manifest import ActionVerb, Role, SkillManifest
from bt_executive.skills.parameters import argument_at, argument_errors, with_argument
from bt_executive.skills.world_state import WorldState


@cache
def _from_region() -> re.Pattern[str]:
    """An object phrase that ends in a place ("the red mug from the kitchen"): ``place_relations`` before it
    (compiled on first use: importing the planner does not read the lexicon)."""
    relations = alternatives(load_lexicon().place_relations)
    return re.compile(rf"^(?P<what>.+?)\s+(?:{relations})\s+(?P<where>(?:the\s+)?\S+(?:\s+\S+)?)$")


@cache
def _from_first() -> re.Pattern[str]:
    """An object phrase that starts with where from ("from res1", of "pipette 50 ul from res1 into mp3"): the thing
    taken from, the skill's object (what moves, the liquid, is not named)."""
    return re.compile(rf"^(?:{alternatives(load_lexicon().relations['from'])})\s+(?P<what>.+)$")


@cache
def _said_from() -> re.Pattern[str]:
    """A place said as where something comes from ("mp9 out of the incubator"; the lexicon's ``from`` relations)."""
    return re.compile(rf"\s(?:{alternatives(load_lexicon().relations['from'])})\s")


@cache
def _to_where() -> re.Pattern[str]:
    """What, a placement's relation word, then where ("it onto the conveyor"; ``clause_patterns.relations``)."""
    return re.compile(
        rf"^(?P<what>.+?)\s+(?:{alternatives(load_lexicon().clause_patterns.relations)})\s+(?P<where>.+)$"
    )


@cache
def _for_someone() -> re.Pattern[str]:
    """ "... for me to take it": what someone else is to do, which a wait gives them time for."""
    return re.compile(rf"\bfor (?:{alternatives(load_lexicon().people)}) to\b")


@cache
def _implied_preposition() -> re.Pattern[str]:
    """The word before what a skill that takes no object acts on anyway ("undock from the charger")."""
    return re.compile(rf"^(?:{alternatives(load_lexicon().place_words.implied_prepositions)})\s+")


_UNIT_SUFFIXES = frozenset({"s", "m", "cm", "mm", "ms", "deg", "rad", "hz", "mps", "sec", "min", "pct", "percent"})
"""Unit suffixes of manifest parameter names (``max_duration_s``, ``speed_pct``): how manifests name their
parameters, not words a user says, so they stay beside the code that reads parameter names."""


def _names_param(named: str, param: str) -> bool:
    """Whether what a task calls an amount ("clearance", "max duration") names this parameter
    (``clearance``, ``max_duration_s``): its words, without a unit suffix, include every word said."""
    words = set(param.lower().rsplit(".", 1)[-1].split("_")) - _UNIT_SUFFIXES  # "grasp.approach_height"
    return set(named.split()) <= words


def _said_by_word(fitted: dict[str, float], clause: str) -> dict[str, float]:
    """Of several parameters an unnamed amount converts to, the ones a word of the clause names by a word of its
    own ("lift the cube 10 cm": ``grasp.lift_height``, not ``grasp.approach_height``); all of them else."""
    own = {p: set(p.rsplit(".", 1)[-1].split("_")) - _UNIT_SUFFIXES for p in fitted}
    shared = set.intersection(*own.values())
    words = set(clause.split())
    said = {p: v for p, v in fitted.items() if (own[p] - shared) & words}
    return said or fitted


_MOVES = frozenset(
    {ActionVerb.PICK, ActionVerb.PICK_AND_PLACE, ActionVerb.TRANSFER, ActionVerb.PUSH, ActionVerb.PULL}
    | {ActionVerb.SLIDE}
)
"""The actions that move the object they act on: after one, "move it back" may mean back where it was."""


class _Fitting(Collection[str]):
    """The ids of the world's objects some skill fits, each fitted when first asked about: a clause's phrase
    names one or two objects, and fitting every skill to every object cost a home plan a millisecond."""

    def __init__(self, world: WorldState, skills: list[SkillManifest]) -> None:
        self._world = world
        self._skills = skills
        self._known: dict[str, bool] = {}

    def __contains__(self, item: object) -> bool:
        if not isinstance(item, str):
            return False
        known = self._known.get(item)
        if known is None:
            known = self._known[item] = any(fit(m, Referent(item), self._world) for m in self._skills)
        return known

    def __iter__(self) -> Iterator[str]:
        return (o.id for o in self._world.objects if o.id in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class SkillActs(Chaining):
    """Clauses whose skill is chosen from the manifests by verb and referent, and the arguments they say."""

    def act(self, intent: Intent) -> None:
        """A clause served by one skill chosen from the manifests (open, push, wipe, go to, read ...)."""
        actions = self.actions(intent)
        doing = intent.verb or intent.action.value
        skills = candidates(self.registry, intent.verb, actions)
        if not skills:
            raise MissingSkill(f"{intent.clause!r}: no skill of this robot can {doing}")
        skills = self.giving_the_held(intent, skills)
        if intent.object is not None and (source := _from_first().match(intent.object)) is not None:
            intent = intent.model_copy(update={"object": source.group("what")})  # "pipette 50 ul from res1 into mp3"
        intent = self.said_apart(self.place_apart(self.destination_apart(intent, skills), skills), skills)
        counted: dict[str, int] = {}
        for manifest in skills if intent.object is not None else ():
            rest, counted = counts_apart(intent.object or "", manifest)
            if counted:  # "scan 3 levels of the shelf": levels, the parameter the noun names
                intent = intent.model_copy(update={"object": rest})
                break
        units: dict[str, str] = {}
        for manifest in skills if intent.object is not None else ():
            rest, units = unit_apart(intent.object or "", manifest)
            if units:  # "read p7 in bar": the unit the reading is expected in ("read it in psi": it)
                intent = intent.model_copy(update={"object": object_phrase(rest)})
                break
        place = self.place_to_go(intent, skills)
        if place is not None:  # "photograph the control room": go there, then the skill on nothing named
            self.act(Intent(action=IntentAction.ACT, clause=intent.clause, verb="go to", object=intent.object))
            self.notes.append(f"{intent.clause!r}: at {place}, on nothing named there")
            intent = intent.model_copy(update={"object": None, "bare": True})
        referent = self.referent(intent, skills)
        chosen = choose(skills, referent, self.world, doing=doing, actions=actions)
        if referent is None:
            referent = self.unnamed_referent(chosen.manifest)
            chosen = Fit(chosen.manifest, referent_param(chosen.manifest, region=False), chosen.score)
        args = self.arguments(chosen, referent, intent)
        self.refuse_speed_in_words(chosen.manifest, args, intent)
        for param, unit in units.items():
            if param not in chosen.manifest.parameter_names():
                raise TaskNotUnderstood(intent.clause, intent.clause)
            args[param] = unit
        for param, number in counted.items():
            if param not in chosen.manifest.parameter_names():
                raise TaskNotUnderstood(intent.clause, intent.clause)
            amount = Quantity(value=number, unit=COUNT, kind=COUNT, span=(0, 0), text=f"{number} {param}")
            schema = chosen.manifest.parameter_schema(param)
            args[param] = int(fit_quantity(amount, {"unit": COUNT, **schema}, param, owner=chosen.manifest.id))
        skill = chosen.manifest.id
        if referent is not None and not referent.region:
            self.last_object = referent.id
        self.last_region = referent.id if referent is not None and referent.region and not referent.more else None
        wanted = goal_predicates(chosen.manifest, args)
        self.goal.extend(wanted)
        if self.already_done(skill, args):
            return
        if wanted and all(self.state.holds(w) for w in wanted):
            self.skip(SkillCall(skill=skill, args=args).label(), wanted[0])
            return
        trip = frozenset(chosen.manifest.actions) == {ActionVerb.NAVIGATE}  # a dock, a drive: only goes somewhere
        if self.restates(skill, args, intent, actions | ({ActionVerb.NAVIGATE} if trip else frozenset())):
            self.notes.append(f"{intent.clause!r}: the same {SkillCall(skill=skill, args=args).label()} as before")
            return
        if self.refines(skill, args, intent) or self.waits_in_last(args, intent):
            return
        if referent is not None and not referent.region:  # "..., close the drawer, then tap the red cube" in it
            self.open_what_hides(referent.id, SkillCall(skill=skill, args=args))
        self.emit(skill, args, intent.clause)
        self.last_actions, self.last_verb = actions, intent.verb

    def open_what_hides(self, obj: str, grasp: SkillCall) -> None:
        """Open the closed drawer ``obj`` lies in before ``grasp`` (or any call on it: a tap, a photo): a closed
        drawer hides what is in it."""
        container = self.container_of(obj)
        if container is not None and self.affords(container, "openable"):
            opened = atom("drawer_open", container)
            if not self.state.holds(opened):
                self.meet_preconditions(grasp, [opened])

    def refuse_speed_in_words(self, manifest: SkillManifest, args: dict[str, JsonValue], intent: Intent) -> None:
        """Refuse a call of a skill that takes a speed, left unset, when the task says how fast only in words
        ("drive to the boiler room slowly"): the default speed is not what was asked, and no number is guessed."""
        if self.said_speed is None:
            return
        for param in manifest.parameter_names():
            unit = manifest.parameter_schema(param).get("unit")
            if (
                param in args
                or not isinstance(unit, str)
                or unit_kind({"unit": unit}) not in ("speed", "angular speed")
            ):
                continue
            raise PlannerRefused(
                f"{intent.clause!r}: the task says {self.said_speed!r}, and {manifest.id}'s {param} takes a speed in "
                f"{unit}: say how fast",
                RefusalKind.AMBIGUOUS,
            )

    def refines(self, skill: str, args: dict[str, JsonValue], intent: Intent) -> bool:
        """Whether a clause says, in other words, how to make the call just made ("undock and back off about
        a metre" is one undock, a metre out): the step just before is the same skill, asked with another
        verb, and this clause only adds arguments to it. That step then takes them."""
        if not self.steps or intent.verb is None or self.last_verb in (None, intent.verb):
            return False
        last = self.steps[-1]
        if last.skill != skill or len(args) <= len(last.args) or any(args.get(k) != v for k, v in last.args.items()):
            return False
        self.check_arguments(self.registry.get(skill), args)
        self.steps[-1] = last.model_copy(update={"args": args})
        self.notes.append(f"{intent.clause!r}: says how to {last.label()}: {self.steps[-1].label()}")
        return True

    def waits_in_last(self, args: dict[str, JsonValue], intent: Intent) -> bool:
        """Whether a wait for someone ("hand it over and wait a minute for me to take it") is how long the step
        just before waits for them: a wait of seconds only, after a step whose skill has a time in seconds it
        was not given (hand_over's timeout_s). That step then takes the time (out of its bounds: refused)."""
        if not self.steps or set(args) != {"seconds"} or not _for_someone().search(intent.clause):
            return False
        last = self.steps[-1]
        manifest = self.registry.get(last.skill)
        timed = [
            p
            for p in manifest.parameter_names()
            if p not in last.args and manifest.parameter_schema(p).get("unit") == "s"
        ]
        if len(timed) != 1:
            return False
        waited = {**last.args, timed[0]: args["seconds"]}
        errors = argument_errors(manifest.parameters, waited)  # the skill's own schema says what it takes
        if errors:
            raise PlannerRefused(
                f"{intent.clause!r}: {args['seconds']} s for {last.skill}'s {timed[0]}: "
                + "; ".join(reason for _, reason in errors),
                RefusalKind.NOT_AFFORDED,
            )
        self.steps[-1] = last.model_copy(update={"args": waited})
        self.notes.append(f"{intent.clause!r}: how long {last.label()} waits: {self.steps[-1].label()}")
        return True

    def place_to_go(self, intent: Intent, skills: list[SkillManifest]) -> str | None:
        """The region a clause names for skills that act on objects, none of which it names, and that need none
        named ("take a photo in the boiler room"): the robot goes there first. None otherwise."""
        if intent.object is None or match_objects(intent.object, self.world).ids:
            return None
        region = region_named(intent.object, self.world) or region_named(intent.object, self.world, partly=True)
        if region is None or any(fit(m, Referent(region, region=True), self.world) for m in skills):
            return None
        for manifest in skills:
            param = referent_param(manifest, region=False)
            required = set((manifest.parameters or {}).get("required", ()))
            if param is not None and param not in required:
                navigation = candidates(self.registry, "go to", frozenset({ActionVerb.NAVIGATE}))
                if any(fit(m, Referent(region, region=True), self.world) for m in navigation):
                    return region
        return None

    def restates(self, skill: str, args: dict[str, JsonValue], intent: Intent, actions: frozenset[ActionVerb]) -> bool:
        """Whether a clause says again what the clause before it did, by going ("go to the charger and
        dock" is one dock, "dock and charge" too): the same call, the step just before, and one of the two
        clauses a going verb or the call a skill that only goes somewhere (a fetch or a vacuum done again is
        done again)."""
        if not self.steps or call_key(self.steps[-1].skill, self.steps[-1].args) != call_key(skill, args):
            return False
        going = ActionVerb.NAVIGATE in actions | self.last_actions
        return going and self.steps[-1].rationale != intent.clause[:RATIONALE_LIMIT]

    def referent(self, intent: Intent, skills: list[SkillManifest]) -> Referent | None:
        """What the clause acts on: a region it names, else the object among those some skill fits."""
        fitting = _Fitting(self.world, skills)
        if intent.object is not None and self.names_a_person(intent.object, skills):
            return None  # "follow me": the skill's person, its default
        if intent.object is not None and self.implied(intent.object, skills):
            return None  # "undock from the charger", "hand over the mug" (the one held): the skill's own
        if intent.object is None:
            if intent.bare:
                return None  # "undock", "wait 10 seconds": nothing named
            if self.last_region is not None:  # "go to the living room and vacuum it"
                place = Referent(self.last_region, region=True)
                if any(fit(m, place, self.world) for m in skills):
                    return place
            held = self.held()
            if held is not None and self.last_object in (None, held) and self.hands_over_held(skills):
                self.notes.append(f"'it' in {intent.clause!r} -> {held} (the one held)")
                return None  # "hand it to me": the skill takes what is held, no object argument
            if intent.there and self.last_region is not None:
                return None  # "go to the boiler room and take a photo there": where it is, nothing named
            if intent.there and not fitting:
                return None  # "go near the dishwasher and wait there": a skill that takes no object
            return Referent(self.resolve(None, intent, among=fitting))  # "put the cube in the drawer and shut it"
        regions = regions_listed(intent.object, self.world)
        if regions:  # a list of places for one skill that takes them all (each_object split the others)
            return Referent(regions[0], region=True, more=tuple(regions[1:]))
        region = region_named(intent.object, self.world)
        if region is not None and any(fit(m, Referent(region, region=True), self.world) for m in skills):
            return Referent(region, region=True)
        takes_place = any({Role.OBJECT, Role.PLACE} <= set(m.roles().values()) for m in skills)
        if takes_place and intent.joined is not None and intent.target is not None and names_by_relation(intent.joined):
            # "hand me a mug from the counter": the mug there (the place is an argument too), not any mug
            return Referent(self.resolve(intent.joined, intent, among=fitting))
        try:
            return Referent(self.resolve(intent.object, intent, among=fitting))
        except UnknownObject:
            # "go to the corridor": the one region whose name holds the words, where no object here is named by
            # them ("go to the pump" names pump_2, never pump_house: a skill that cannot take it refuses)
            region = region_named(intent.object, self.world, partly=True)
            named = match_objects(intent.object, self.world).ids
            if (
                region is not None
                and not named
                and any(fit(m, Referent(region, region=True), self.world) for m in skills)
            ):
                self.notes.append(f"{intent.object!r} -> {region} (the one place so named)")
                return Referent(region, region=True)
            places = regions_partly_named(intent.object, self.world)
            if (
                len(places) > 1
                and not named
                and intent.target is None
                and any(fit(m, Referent(places[0], region=True), self.world) for m in skills)
            ):
                raise PlannerRefused(
                    f"{intent.object!r} names {len(places)} places here: say which", RefusalKind.AMBIGUOUS, places
                ) from None
            # Named, but no skill fits it: resolve it among everything, so the refusal says why.
            return Referent(self.resolve(intent.object, intent))

    def take_quantities(self, manifest: SkillManifest, args: dict[str, JsonValue], intent: Intent) -> None:
        """Each amount the clause names goes to the quantity parameter whose unit it converts to, checked
        against that parameter's bounds; an amount no parameter takes is not guessed at, nor one that two take
        (unless its name or a word of the clause names one of them: "lift it 10 cm")."""
        for amount in intent.quantities:
            params = [
                p for p, role in manifest.roles().items() if role is Role.QUANTITY and argument_at(args, p) is None
            ]
            if amount.named is not None:  # "with a clearance of 1 m": the parameter it names, if the skill has one
                named = [p for p in params if _names_param(amount.named, p)]
                if len(named) > 1:
                    raise TaskNotUnderstood(intent.clause, amount.text)
                params = named or params
            if is_repetition(amount):  # "scan the shelf twice": two scans, not two levels; "patrol it twice": 2 loops
                params = [p for p in params if set(p.split("_")) <= english().repetition_params]  # not mix_cycles
            fitted: dict[str, float] = {}
            for param in params:
                try:
                    fitted[param] = fit_quantity(amount, manifest.parameter_schema(param), param, owner=manifest.id)
                except UnitMismatch:
                    continue
                except ValueError:
                    continue  # no unit stated for it
            if len(fitted) > 1:
                fitted = _said_by_word(fitted, intent.clause)  # "lift it 10 cm": the lift height, not the approach
            if len(fitted) != 1:
                raise TaskNotUnderstood(intent.clause, amount.text if fitted else intent.clause)
            [(param, value)] = fitted.items()
            is_integer = manifest.parameter_schema(param).get("type") == "integer"
            with_argument(args, param, int(value) if is_integer and value == int(value) else value)

    def unnamed_referent(self, manifest: SkillManifest) -> Referent | None:
        """What a skill acts on when the task names nothing ("recharge"): its default when that is here, else
        the one object here it fits; a default naming nothing in this world is never sent."""
        param = referent_param(manifest, region=False)
        if param is None:
            return None
        default = manifest.parameter_schema(param).get("default")
        if default is None or self.world.object(str(default)) is not None:
            return None  # the skill's own choice, and it names something here (or it needs none)
        fitting = sorted(o.id for o in self.world.objects if fit(manifest, Referent(o.id), self.world) is not None)
        # "set the table" (its parameter ``table``): of those it fits, the one of the kind the parameter names
        kind = [i for i in fitting if (o := self.world.object(i)) is not None and o.category == param]
        if len(kind) == 1 and len(fitting) > 1:
            self.notes.append(f"{manifest.id}'s {param}: {kind[0]}, the one {param} here ({default!r} is not)")
            return Referent(kind[0])
        if len(fitting) == 1:
            self.notes.append(f"{manifest.id}'s {param}: {fitting[0]}, the one here ({default!r} is not)")
            return Referent(fitting[0])
        if not fitting:
            raise PlannerRefused(
                f"{manifest.id} would act on {default!r}, which is not in the world; name what to use",
                RefusalKind.NO_SUCH_OBJECT,
            )
        raise PlannerRefused(f"{manifest.id} needs its {param}: say which", RefusalKind.AMBIGUOUS, candidates=fitting)

    def implied(self, phrase: str, skills: list[SkillManifest]) -> bool:
        """Whether a phrase names what skills that take nothing named act on anyway: an object of a category
        their ``objects`` name ("undock from the charger"), or the held one for a skill that needs one held
        ("hand over the red mug")."""
        if any(referent_param(m, region=False) or referent_param(m, region=True) for m in skills):
            return False
        phrase = _implied_preposition().sub("", phrase)
        ids = match_objects(phrase, self.world, exclude=self.history.excluded).ids
        held = self.held()
        needs_held = any("not gripper_empty" in m.preconditions for m in skills)
        if held is not None and held in ids and needs_held:
            self.notes.append(f"{phrase!r} -> {held} (the one held)")
            return True
        objects = [o for i in ids if (o := self.world.object(i)) is not None]
        return len(objects) == 1 and any(names_category(m, objects[0].category) for m in skills)

    def giving_the_held(self, intent: Intent, skills: list[SkillManifest]) -> list[SkillManifest]:
        """The skills that hand over what is held, when the clause names the held object to a skill that would
        go and get it ("hand the red mug to me" while holding it: hand it over, do not fetch it); else ``skills``."""
        held = self.held()
        if held is None or self.hands_over_held(skills):
            return skills
        shared = {action for m in skills for action in m.actions}
        givers = [m for m in self.registry if set(m.actions) & shared and self.hands_over_held([m])]
        if intent.object is None:  # "give me that" while holding something: that is what is held
            return givers or skills
        try:
            named = match_objects(intent.object, self.world).ids
        except ObjectMatchError:
            return skills
        return givers if givers and held in named else skills

    @staticmethod
    def hands_over_held(skills: list[SkillManifest]) -> bool:
        """Whether the skills take no object argument and act on what is held ("hand over")."""
        if any(referent_param(m, region=False) or referent_param(m, region=True) for m in skills):
            return False
        return any("not gripper_empty" in m.preconditions for m in skills)

    @staticmethod
    def names_a_person(phrase: str, skills: list[SkillManifest]) -> bool:
        """Whether ``phrase`` is the person the robot serves ("me", "the operator") and a skill takes one."""
        return phrase in load_lexicon().people and any(Role.PERSON in m.roles().values() for m in skills)

    def said_apart(self, intent: Intent, skills: list[SkillManifest]) -> Intent:
        """The clause's phrases without what they say of the skill rather than the object: a target no skill
        takes joined back to its object ("read the label on the shelf"), a choice among a parameter's values
        ("on max power", "with the wrist camera"), the part of a place ("the floor of the living room")."""
        takes_target = any(
            role in (Role.DESTINATION, Role.PLACE, Role.PERSON) for m in skills for role in m.roles().values()
        )
        if intent.target is not None and is_choice(intent.target, skills):
            intent = intent.model_copy(update={"target": None})
        elif (
            intent.target is not None
            and intent.joined is not None
            and region_holding(intent.joined, self.world, load_lexicon())
        ):
            intent = intent.model_copy(update={"object": intent.joined, "target": None})  # "the room with the pump"
        elif intent.target is not None and intent.joined is not None and not takes_target:
            intent = intent.model_copy(update={"object": intent.joined, "target": None})
        if intent.object is None:
            return intent
        words = {w for o in self.world.objects for w in object_words(o)}
        words |= {w for name in self.world.regions for w in phrase_words(name)}
        phrase = surface_apart(choice_apart(intent.object, skills), skills, words, self.world.regions)
        if phrase != intent.object and object_phrase(phrase) is None:
            return intent.model_copy(update={"object": None})  # "vacuum it on eco": 'it', once the choice is apart
        return intent if phrase == intent.object else intent.model_copy(update={"object": phrase})

    def destination_apart(self, intent: Intent, skills: list[SkillManifest]) -> Intent:
        """ "offload to pack station 2", "drop it onto the conveyor" (holding a tote): skills that put down what
        is held, taking only where, are told where by the words the clause read as its object, unless those name
        the held one ("offload the tote")."""
        if intent.target is not None or intent.object is None or not self.hands_over_held(skills):
            return intent
        if not all(Role.DESTINATION in m.roles().values() for m in skills):
            return intent
        held = self.held()
        split = _to_where().match(intent.object)
        if split is not None:  # "it onto the conveyor": what (the held one), then where
            what = split.group("what")
            if what not in load_lexicon().clause_order.pronouns and held not in match_objects(what, self.world).ids:
                return intent
            return intent.model_copy(update={"object": None, "target": split.group("where")})
        if held is not None and held in match_objects(intent.object, self.world).ids:
            return intent
        return intent.model_copy(update={"object": None, "target": intent.object})

    def place_apart(self, intent: Intent, skills: list[SkillManifest]) -> Intent:
        """ "the red mug from the kitchen": the region is the skill's place, not part of the object."""
        found = _from_region().match(intent.object or "")
        if found is None or intent.target is not None or region_named(found.group("where"), self.world) is None:
            return intent
        if not any(Role.PLACE in m.roles().values() for m in skills):
            return intent
        return intent.model_copy(update={"object": found.group("what"), "target": found.group("where")})

    def _moved(self, object_id: str) -> bool:
        """Whether a step so far moves ``object_id`` (picks, pushes, pulls or slides it)."""
        return any(
            object_id in step.args.values() and set(self.registry.get(step.skill).actions) & _MOVES
            for step in self.steps
        )

    def _from_where(self, manifest: SkillManifest, referent: Referent | None, intent: Intent) -> dict[str, str | None]:
        """For a skill with both a place it takes from and a destination ("unload the plate from the incubator
        onto a bench"), what each takes: the place said after "from"/"out of" is the source, and otherwise the
        one the object is in or on now; a place said otherwise is the destination, else its default (None: not
        set). Empty for any other skill: one place parameter takes what the clause names, as before."""
        roles = manifest.roles()
        source = next((p for p, r in roles.items() if r is Role.PLACE), None)
        destination = next((p for p, r in roles.items() if r is Role.DESTINATION), None)
        if source is None or destination is None:
            return {}
        said_from = intent.target is not None and _said_from().search(intent.joined or "") is not None
        target = self._target(intent, referent.id if referent else "") if intent.target is not None else None
        return {
            source: target if said_from else self._held_in(referent),
            destination: None if said_from else target,
        }

    def refuse_other_kind(self, manifest: SkillManifest, destination: JsonValue, acted: str | None = None) -> None:
        """Refuse a destination of a kind the skill does not take (``other_kind``)."""
        why = self.other_kind(manifest, destination, acted)
        if why is not None:
            raise NotAfforded(why)

    def other_kind(self, manifest: SkillManifest, destination: JsonValue, acted: str | None = None) -> str | None:
        """Why a destination is of a kind the skill's ``objects`` do not name, where they name the kinds of where
        things go ("load mp7 onto the bench" with a loader for readers and incubators; "pipette into the
        bench"): they name the kind of something here besides what the call acts on (``acted``); a list of only
        what it acts on ("clear the table", into the dishwasher) says nothing of where. None when it takes it."""
        dest = self.world.object(destination) if isinstance(destination, str) else None
        generic = set(manifest.objects) & set(load_lexicon().ignored)
        if dest is None or not manifest.objects or generic or names_category(manifest, dest.category):
            return None
        acting = self.world.object(acted) if acted is not None else None
        kinds = [o.category for o in self.world.objects if acting is None or not same_kind(o.category, acting.category)]
        if not any(names_category(manifest, kind) for kind in kinds):
            return None
        if any(word in AFFORDANCE_NAMES and dest.affords(word) for word in manifest.objects):
            return None  # "pour it into the bin": a skill for any container, and the bin is one
        return (
            f"{manifest.id} puts things in or on {', '.join(manifest.objects)}, not {dest.id} "
            f"(a {dest.category.replace('_', ' ')})"
        )

    def _held_in(self, referent: Referent | None) -> str | None:
        """What the object acted on is in or on in the world now (None: nothing known)."""
        obj = self.world.object(referent.id) if referent is not None and not referent.region else None
        return (obj.inside or obj.supported_by) if obj is not None else None

    def arguments(self, chosen: Fit, referent: Referent | None, intent: Intent) -> dict[str, JsonValue]:
        """The call's arguments, each from the words of its role; what the clause says and no role takes
        is not guessed at (the task is not understood)."""
        manifest = chosen.manifest
        args: dict[str, JsonValue] = {}
        if chosen.param is not None and referent is not None:
            listed = manifest.parameter_schema(chosen.param).get("type") == "array"
            args[chosen.param] = list(referent.ids()) if listed else referent.id
        required = set((manifest.parameters or {}).get("required", ()))
        took_target = took_direction = False
        from_where = self._from_where(manifest, referent, intent)
        for param, role in manifest.roles().items():
            if param in args:
                continue
            if param in from_where:  # a skill that takes both where from and where to: each its own words
                if from_where[param] is not None:
                    args[param] = from_where[param]
                    if role is Role.DESTINATION:
                        self.refuse_other_kind(manifest, args[param], referent.id if referent else None)
                took_target = took_target or intent.target is not None  # said as one of the two
                continue
            if role in (Role.DESTINATION, Role.PLACE) and (intent.target is not None or param in required):
                place = region_named(intent.target, self.world) if intent.target and role is Role.PLACE else None
                args[param] = place or self._target(intent, referent.id if referent else "")
                if role is Role.DESTINATION:
                    self.refuse_other_kind(manifest, args[param], referent.id if referent else None)
                took_target = True
            elif role is Role.PERSON and intent.target is not None and intent.target in load_lexicon().people:
                took_target = True  # "hand it to me": the skill's person, its default
            elif role is Role.DIRECTION and intent.direction is not None:
                if intent.direction == "back" and not intent.quantities and referent and self._moved(referent.id):
                    raise PlannerRefused(
                        f"{intent.clause!r}: back to where {referent.id} was before this task moved it, or towards "
                        "the robot? Say which (no skill puts an object back where it was)",
                        RefusalKind.AMBIGUOUS,
                    )
                allowed = manifest.parameter_schema(param).get("enum")
                if allowed is not None and intent.direction not in allowed:
                    raise NotAfforded(f"{manifest.id} moves {', '.join(map(str, allowed))}, not {intent.direction}")
                args[param] = intent.direction
                took_direction = True
        self.take_quantities(manifest, args, intent)
        words = set(intent.clause.split())
        for param in manifest.parameter_names():
            allowed = manifest.parameter_schema(param).get("enum")
            if param in args or not isinstance(allowed, list):
                continue
            said = [v for v in allowed if isinstance(v, str) and v in words]
            if len(said) == 1:  # "turn off the light": state off
                args[param] = said[0]
        if (intent.target is not None and not took_target) or (intent.direction is not None and not took_direction):
            raise TaskNotUnderstood(intent.clause, intent.clause)
        missing = sorted(required - set(args))
        if missing:
            raise UnplannableStep(f"{intent.clause!r}: {manifest.id} needs {', '.join(missing)}, which it does not say")
        return args

    def amounts_to_steps(self, intent: Intent, first: int) -> None:
        """The amounts of a pick, put or stack clause, each to a call it made whose skill takes it ("place the
        cube on the plate with a release height of 3 cm": place_on's release_height): one whose parameter it
        names first, else the last first (the clause's own call; the grasp before a put is its means). An
        amount none of them takes is not understood (or out of bounds, where one bounds it), never dropped."""
        for amount in intent.quantities:
            one = intent.model_copy(update={"quantities": (amount,)})
            made = [i for i in range(len(self.steps) - 1, first - 1, -1) if i not in self.set_aside]
            named = [i for i in made if amount.named is not None and self._names_a_param(self.steps[i].skill, amount)]
            bounded: QuantityOutOfBounds | None = None
            for index in [*named, *(i for i in made if i not in named)]:
                call = self.steps[index]
                manifest = self.registry.get(call.skill)
                args = dict(call.args)
                try:
                    self.take_quantities(manifest, args, one)
                except TaskNotUnderstood:
                    continue
                except QuantityOutOfBounds as err:
                    bounded = bounded or err  # another call's parameter may take it
                    continue
                self.steps[index] = call.model_copy(update={"args": args})
                break
            else:
                if bounded is not None:
                    raise bounded
                raise TaskNotUnderstood(intent.clause, intent.clause)  # an amount no call of this clause takes

    def _names_a_param(self, skill: str, amount: Quantity) -> bool:
        manifest = self.registry.get(skill)
        return any(_names_param(amount.named or "", p) for p in (*manifest.parameter_names(), *manifest.roles()))
