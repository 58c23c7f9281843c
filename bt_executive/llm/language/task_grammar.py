"""The task grammar: a task sentence parsed into a list of intents, with the words from the lexicon.

An intent is one thing the user asked for ("put the red cube on the green
plate"), with the object phrases still in the user's words; matching them to
world-state ids is ``object_matching``'s job, and turning intents into skill
calls is the planner's. The forms are few and closed; the words that fill
them (verb synonyms, directions, politeness) come from ``config/lexicon.yaml``
(``lexicon``), so "grab the crimson block and drop it onto the dish" is the
same task as "pick up the red cube and put it on the plate". A task outside
the forms is refused with a message that lists every form, rather than
guessed at::

    "Please grab the red block, then set it down in the bowl and park the arm."
      -> PICK(red block) + PUT(it -> bowl) ; HOME

This module reads the whole task: conditions ("if the drawer is closed, ..."), topics and remarks that
ask nothing, repeats ("do that twice"), elided clauses ("..., then the green one"). The parts it builds
on have rooms of their own: ``intents`` (what a task parses to), ``lexicon_patterns`` (the lexicon as
regular expressions), ``clause_split`` (normalising and cutting a task into clauses) and ``clause_forms``
(one clause read into an intent). Their public names are re-exported here, the grammar's one entry.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from functools import cache
from typing import NamedTuple

from bt_executive.llm.language.clause_forms import (
    _leads,
    _named_amounts,
    _without_amount_frames,
    object_phrase,
    ordered_tower,
    other_splits,
    parse_clause,
    rephrased,
    side_described,
    without_article,
)
from bt_executive.llm.language.clause_order import reorder_clauses
from bt_executive.llm.language.clause_split import (
    also,
    infinitive_first,
    is_remark,
    normalise_task,
    split_clauses,
    ungap,
)
from bt_executive.llm.language.intents import (
    GRAMMAR,
    LLM_PLANNER_HINT,
    Condition,
    Direction,
    Intent,
    IntentAction,
    TaskNotUnderstood,
)
from bt_executive.llm.language.lexicon import Lexicon, alternatives, load_lexicon
from bt_executive.llm.language.lexicon_patterns import _compiled
from bt_executive.llm.language.noun_phrases import expand_phrase, looks_plural
from bt_executive.llm.language.quantities import (
    COUNT,
    NUMBER_WORDS,
    Quantity,
    find_quantities,
    is_repetition,
    said_number,
    unit_said,
)
from bt_executive.skills.manifest import ActionVerb

__all__ = [
    "GRAMMAR",
    "LLM_PLANNER_HINT",
    "Condition",
    "Direction",
    "Intent",
    "IntentAction",
    "TaskNotUnderstood",
    "infinitive_first",
    "merge_pick",
    "normalise_task",
    "object_phrase",
    "ordered_tower",
    "other_splits",
    "parse_clause",
    "parse_task",
    "rephrased",
    "split_clauses",
    "ungap",
]

_S = r"\s+"
"""Between the words of a phrase where the pattern takes any run of spaces."""


class _Patterns:
    """The lexicon's ``task_grammar`` words as compiled patterns and sets (the rules' shapes are here)."""

    def __init__(self, lexicon: Lexicon) -> None:
        words = lexicon.task_grammar
        self.holding_words = frozenset(words.holding_words)
        self.keeping = re.compile(rf"^(?:{alternatives(words.keeping_verbs)})\b")
        self.keeping_words = frozenset(words.keeping_words)
        states = alternatives([*lexicon.states["open"], *lexicon.states["closed"], "empty"])
        self.if_state = re.compile(
            rf"^if\s+(?P<x>.+?)\s+(?:{alternatives(words.if_be)})(?P<neg>\s+not|(?<=n t))?"
            rf"\s+(?:{alternatives(words.if_still, after=_S)})?(?P<state>{states})$"
        )
        hands = alternatives(words.hands)
        self.if_holding = re.compile(
            rf"^if\s+(?:{alternatives(words.holding, space=_S)})\s+(?:{alternatives(words.something, space=_S)})"
            rf"(?:\s+(?:{alternatives(words.hand_relations)})\s+(?:{alternatives(words.hand_owners)})\s+(?:{hands}))?$"
        )
        self.hand = re.compile(rf"^(?:{alternatives(words.hand_owners)})\s+(?:{hands})$")
        # the state a word says: "opened" is open, "shut" closed
        self.state_of = {word: state for state, said in lexicon.states.items() for word in said}
        times = alternatives(words.party_times)
        # A statement of how many people there are ("we re four for lunch", "there will be 6 of us").
        self.party = re.compile(
            rf"^(?:(?:{times}|for (?:{alternatives(words.party_leading_meals)}))\s+)?"
            rf"(?:{alternatives(words.party_we, space=_S)})"
            rf"\s+(?P<n>\S+)(?:\s+(?:{alternatives(words.party_people)}))?"
            rf"(?:\s+(?:for|at)\s+(?:{alternatives(words.party_meals)}))?"
            rf"(?:\s+(?:{times}))?$"
        )
        self.there = frozenset(words.there)
        self.replacing = re.compile(rf"\s+(?:{alternatives(words.replacing)})$") if words.replacing else None
        in_place = alternatives(words.in_place, space=_S)
        self.in_place = re.compile(rf"^(?:{in_place})(?:\s+|$)|\s+(?:{in_place})$")
        ends = alternatives(words.orders)
        owners = alternatives(words.order_owners, after=_S)
        self.order_said = re.compile(
            rf"^(?:(?:{alternatives(words.order_leads)})\s+)?(?:from\s+)?(?:{owners})?"
            rf"(?P<first>{ends})(?:\s+one)?(?:\s+(?:{alternatives(words.order_ends)}))?\s+"
            rf"(?:{alternatives(words.order_links)})(?:\s+(?:{owners})?(?:{ends}))?$"
        )
        # The order its first end names: "from the left to the right" starts at the left.
        self.orders = dict(words.orders)
        self.leave_be = re.compile(
            rf"^(?:and\s+)?leave\s+(?:{alternatives(words.leave_determiners)})\s+.+?\s+"
            rf"(?:{alternatives(words.leave_be, space=_S)})$"
        )
        splitting = lexicon.clause_split
        self.do_again = re.compile(
            rf"^(?:{alternatives(splitting.repeat_verbs)})\s+(?:{alternatives(splitting.repeat_objects, space=_S)})"
            r"(?:\s+(?P<rest>.+))?$"
        )
        self.again = frozenset(splitting.again)
        not_so = alternatives(words.not_so, after=r"\b")
        self.so = re.compile(rf",\s+so\s+(?!{not_so})(?=\S)")
        # A clause that says how near to do what came before ("..., close enough to see the seal").
        self.close_enough = re.compile(
            rf"^(?:{alternatives(words.close_enough_verbs, after=_S)})?(?:up\s+)?close enough\b.*$"
            rf"|^(?:from\s+)?(?:{alternatives(words.up_close)})$"
        )
        # Words that ask for a look from near by ("a close-up photo of", "read it from up close"): approach first.
        taken = alternatives(words.taken_words, after=_S)
        self.closeness = re.compile(
            rf"\b(?:{alternatives(words.close_words)})(?=\s+(?:{alternatives(words.look_nouns)})\b)"
            rf"|\s+(?:{taken})?(?:from\s+)?(?:{alternatives(words.near_phrases)})(?=,|$)"
            rf"|\s+(?:{taken})?from\s+(?:{alternatives(words.near_words)})(?=,|$)"  # "from close, 30 cm"
        )
        # A look from a stated distance ("from half a metre away"): approach to that distance first.
        self.from_away = re.compile(
            rf"\s+from\s+(?:{alternatives(words.about_words, after=_S)})?(?P<amount>\S+(?:\s+\S+){{0,2}}?)\s+away$"
        )
        # "read the gauge from 40 cm", "from 30 centimetres distance": a length said with "from" alone, last
        self.from_length = re.compile(
            rf"\s+from\s+(?:{alternatives(words.about_words, after=_S)})?(?P<amount>\S+(?:\s+\S+){{0,2}}?)"
            r"(?:\s+(?:distance|off|back))?$"
        )
        # What after a statement verb says what should happen ("the cube is to go in the bowl"): not described.
        self.not_a_description = frozenset(words.not_a_description)
        self.conditions = frozenset(words.conditions)
        # A clause that asks a question ("whats the temp on the thermometer").
        self.asked = re.compile(rf"^(?:{alternatives(words.asking_words)})\b")
        # The speaker's own purpose after a request ("..., i need to see the inspection tag"): why, not what.
        speakers = alternatives(words.speakers)
        self.own_purpose = re.compile(
            rf"^(?:(?:{speakers})\s+(?:just\s+)?(?:{alternatives(words.purpose_needs)})\s+to"
            rf"|(?:{speakers})\s+(?:{alternatives(words.purpose_musts)}))\s+(?:{alternatives(words.purpose_verbs)})\b"
        )
        self.is_ = re.compile(
            rf"^(?P<x>.+?)\s+(?:{alternatives(words.is_forms)})\s+(?:{alternatives(words.is_adverbs, after=_S)})?"
            rf"(?:{alternatives([*lexicon.states['open'], *lexicon.states['closed'], *words.is_places])})\b"
        )
        also_said = also()
        self.elided = re.compile(rf"^(?P<x>(?:{alternatives(words.elided_articles)})\s+.+?)(?:\s+{also_said})?$")
        self.do_too = re.compile(rf"^do\s+(?P<x>(?:{alternatives(words.do_determiners)})\s+.+)$")


@cache
def _patterns() -> _Patterns:
    return _Patterns(load_lexicon())


def _amounts_only(clause: str) -> tuple[Quantity, ...]:
    """The amounts of a clause that says nothing else ("1 m clearance", "hold at 0.8 m"), else none."""
    amounts = find_quantities(clause)
    if not amounts:
        return ()
    named, bare = _named_amounts(clause, amounts)
    patterns = _patterns()
    rest = set(_without_amount_frames(bare, named).split()) - patterns.holding_words
    if patterns.keeping.match(clause):  # "stay about 2 m back", "give up after five minutes": how far, how long
        rest -= patterns.keeping_words
    rest -= {word for amount in named if amount.named for word in amount.named.split()}
    return tuple(named) if not rest else ()


_OPPOSITE = {"open": "closed", "closed": "open", "holding": "empty", "empty": "holding"}


def _condition(clause: str) -> Condition | None:
    """ "if the drawer is closed", "if you ve got something in your hand": a condition on the world's state."""
    patterns = _patterns()
    if patterns.if_holding.match(clause):
        return Condition(subject=None, state="holding", clause=clause)
    found = patterns.if_state.match(clause)
    if found is None:
        return None
    state = patterns.state_of.get(found["state"], found["state"])
    subject: str | None = found["x"]
    if patterns.hand.match(found["x"]):
        if state != "empty":
            return None
        subject = None  # "if your hand is empty"
    elif state == "empty":
        return None  # "if the bin is empty": no world state here says so
    if found["neg"] is not None:
        state = _OPPOSITE[state]
    return Condition(subject=subject, state=state, clause=clause)


_TRAILING_IF = re.compile(r"^(?P<request>.+?)\s+if\s+(?P<state>.+)$")


def _trailing_condition(clause: str, skill_phrases: Collection[str]) -> tuple[Condition, str] | None:
    """ "close the drawer if it s open": a request, then the condition it is said under ('it' is what the
    request names), as the condition and the request; None when the words after "if" state no condition."""
    found = _TRAILING_IF.match(clause)
    if found is None or (request := parse_clause(found["request"], skill_phrases)) is None:
        return None
    said = f"if {found['state']}"
    # "put the cube in the drawer if it s open": of a placement, 'it' is where it goes (what opens and shuts)
    referent = request.target if request.action is IntentAction.PUT and request.target else request.object
    if referent is not None:
        said = _IT.sub(referent, said, count=1)
    condition = _condition(said)
    return (condition, found["request"]) if condition is not None else None


def _party(clause: str) -> Quantity | None:
    """How many people a statement says there are, as a count, if it says so."""
    found = _patterns().party.match(clause)
    value = said_number(found["n"]) if found is not None else None
    if found is None or value is None:
        return None
    return Quantity(value=value, unit=COUNT, kind=COUNT, span=found.span("n"), text=f"{found['n']} people")


def _object_of(clause: str) -> str | None:
    """The object phrase of one clause, if it parses and names one."""
    intent = parse_clause(clause)
    return intent.object if intent is not None else None


def parse_task(task: str, skill_phrases: Collection[str] = ()) -> tuple[Intent, ...]:
    """Parse a task into intents; TaskNotUnderstood (listing the grammar) if any clause is outside it.

    ``skill_phrases``: the verb phrases the robot's manifests add (``language.phrases``)."""
    grammar, patterns = _compiled(), _patterns()
    text = grammar.prefix.sub("", normalise_task(task, skill_phrases) + " ").strip()
    text = reorder_clauses(text, _object_of, skill_phrases)
    if (ordered := ordered_tower(text)) is not None:
        return (ordered,)
    clauses = split_clauses(text, skill_phrases)
    if not clauses:
        raise TaskNotUnderstood(task, task)
    intents: list[Intent] = []
    parts = _parts(clauses, skill_phrases)
    # "the rug sheds all the time, so please vacuum the living room": what comes before ", so" says why;
    # a clause of it that asks nothing is read as a description, not refused
    consequence = patterns.so.search(text)
    why = len(_parts(split_clauses(text[: consequence.start()], skill_phrases), skill_phrases)) if consequence else 0
    leads = _leads(skill_phrases)
    topic: _Topic | None = None  # what "it" means after "the bin is full, ..." or "fridge, ..."
    condition: Condition | None = None  # the "if" the next request is said under
    counted: Quantity | None = None  # how many people a statement said there are, for the next request
    described = False
    in_place = False  # "without moving from where you are, ...": no step may drive the base
    for number, clause in enumerate(parts):
        if (still := patterns.in_place.search(clause)) is not None:
            in_place, clause = True, (clause[: still.start()] + " " + clause[still.end() :]).strip()
            if not clause:
                continue
        near = patterns.closeness.sub("", clause).strip()  # "take a close-up photo of the pump": approach it first
        standoff: tuple[Quantity, ...] = ()
        away = patterns.from_away.search(near) or _from_length(near)
        if away is not None and (standoff := tuple(find_quantities(away["amount"]))):
            near = near[: away.start()]  # "photograph the thermometer from half a metre away": from there
        close, clause = (near != clause), " ".join(near.split())
        replacing = patterns.replacing.search(clause) if patterns.replacing is not None else None
        if replacing is not None:  # "..., then tap the blue cube instead": this request, not the one before
            clause = clause[: replacing.start()]
        if (trailing := _trailing_condition(clause, skill_phrases)) is not None:
            condition, clause = trailing  # "close the drawer if it s open": as "if the drawer is open, close it"
        intent = _ordered_in_clause(clause, skill_phrases) or parse_clause(clause, skill_phrases)
        if intent is not None and number + 1 < len(parts) and _says_what_is(clause, leads):
            intent = None  # "the red cube is on the plate, move it to the bowl": what is, then what to do
        if (said := _condition(clause)) is not None and number + 1 < len(parts):
            condition = said  # "if the drawer is closed, open it first": the next clause is said under it
            if said.subject is not None:
                topic = _Topic(said.subject, needed=False)  # what "it" means in that clause
            continue
        if intents and patterns.keeping.match(clause) and (kept := _amounts_only(clause)):
            # "follow me, keep about two metres back and give up after five minutes": more of the clause before
            intents[-1] = intents[-1].model_copy(update={"quantities": (*intents[-1].quantities, *kept)})
            continue
        if intents and patterns.close_enough.match(clause) and intents[-1].object is not None:
            # "get me a shot of pump two, close enough to see the seal": from near by, so approach it first
            approach = Intent(action=IntentAction.ACT, clause=clause, verb="approach", object=intents[-1].object)
            if len(intents) < 2 or (intents[-2].verb, intents[-2].object) != ("approach", approach.object):
                intents.insert(len(intents) - 1, approach)
            continue
        if intents and patterns.own_purpose.match(clause):
            described = True  # "..., i need to see the inspection tag": why it was asked, after the request
            continue
        if intent is None and intents and is_remark(clause):
            described = True  # "..., i m walking the site": the speaker about themself, after what they asked
            continue
        if intents and (order := _order_said(clause)) is not None:
            intents[-1] = intents[-1].model_copy(update={"order": order})  # "..., going from left to right"
            continue
        if patterns.leave_be.match(clause):
            continue  # "leave the blue one where it is": nothing to do for it
        if intents and (unit := unit_said(clause)) and not unit[0] and intents[-1].object is not None:
            last = intents[-1]  # "read the red gauge there, in bar": the unit of the clause before
            intents[-1] = last.model_copy(update={"object": f"{last.object} in {unit[1]}"})
            continue
        if intent is None and intents and (more := _more_of_act(clause, intents[-1], skill_phrases)) is not None:
            intents[-1] = more  # "patrol the control room then corridor b": one list, as "A and B"
            continue
        if intent is None and (here := _HERE.search(clause)) and len(clause[: here.start()].split()) <= 2:
            # "i m in the hallway, come here": where they are (a bare going verb only: "bring it here" is to them)
            for place in _speaker_places(parts[:number]):
                if (intent := parse_clause(f"{clause[: here.start()]} to {place}", skill_phrases)) is not None:
                    break
        if intent is None and (there := _THERE.search(clause)):
            for place in _there_places(topic, parts[:number]):  # "..., go there": the topic, else a place said
                if (intent := parse_clause(f"{clause[: there.start()]} to {place}", skill_phrases)) is not None:
                    break
        intent = intent or _wished_request(clause, skill_phrases)
        named = next((i.object for i in reversed(intents) if i.object and not _IT.fullmatch(i.object)), None)
        if intent is None and topic is None and named is not None and (it := _IT.search(clause)) and it.start() > 0:
            # "clear the kitchen table, then lay it for four": a verb phrase that names its object ("lay the
            # table") said of "it", what the clauses before last named ("it is open" states, it asks nothing)
            intent = parse_clause(_IT.sub(named, clause, count=1), skill_phrases)
        intent = intent or _elided(clause, intents[-1] if intents else None, leads)
        if intent is None and number + 1 < len(parts):  # "grasp and lift the red block": the object is shared
            after = parse_clause(parts[number + 1], skill_phrases)
            if after is not None and after.object is not None:
                intent = parse_clause(f"{clause} {after.object}", skill_phrases)
        if intent is None and intents and _WHAT_IT_IS.fullmatch(clause):
            # "scan the code on label l4, it s a qr": what kind it is, read with the request (an option it names)
            intents[-1] = intents[-1].model_copy(update={"clause": f"{intents[-1].clause}, {clause}"})
            continue
        if intent is None and number + 1 < len(parts) and _where_someone_is(clause, parts[number + 1]):
            described = True  # "i am in the living room, come there": where "there" is
            continue
        if intent is None and (party := _party(clause)) is not None:
            counted = party  # "we re four for lunch, lay the table": how many, for the request after it
            described = True
            continue
        if intent is None and (about := _subject(clause, leads, last=number + 1 == len(parts))) is not None:
            if intents and _says_a_number(clause):
                raise TaskNotUnderstood(task, clause)  # "..., it only has three levels": not dropped unread
            if topic is None or object_phrase(about.phrase) is not None:  # "see the cube? it s the small one"
                topic = about._replace(needed=about.needed and number >= why)  # a reason need not be used
            described = True  # it describes the world or a wish; the clauses after it ask
            continue
        if intent is None and number < why and (consequence is not None):
            described = True  # background to the request after ", so"
            continue
        if intent is None and intents and (total := _repeat_total(clause)) and not (topic and topic.needed):
            # "nudge it 15 mm back, do that twice": the clause before, that many times in all (to a count
            # parameter where its skill has one: "patrol A then B, do that twice" is two loops)
            before = intents[-1]
            if any(q.unit == COUNT for q in before.quantities):
                raise TaskNotUnderstood(task, clause)  # "tap it twice, do that three times": not guessed at
            count = Quantity(value=total, unit=COUNT, kind=COUNT, span=(0, 0), text=f"{total} times")
            intents[-1] = before.model_copy(update={"quantities": (*before.quantities, count)})
            continue
        if intent is None and intents and (amounts := _amounts_only(clause)):
            # "undock, 1 m clearance", "approach the pump, hold at 0.8 m": more of the clause before
            intents[-1] = intents[-1].model_copy(update={"quantities": (*intents[-1].quantities, *amounts)})
            continue
        if intent is None:
            raise TaskNotUnderstood(task, clause)
        if topic is not None:
            if intent.object in patterns.there:  # "corridor b, go there": the place just said
                intent = intent.model_copy(update={"object": topic.phrase})
            elif (
                topic.needed
                and intent.object is not None
                and without_article(intent.object) == without_article(topic.phrase)
            ):
                pass  # "the hallway, go to the hallway": the topic, named again
            elif intent.object is None and not intent.bare and intent.action is not IntentAction.HOME:
                intent = intent.model_copy(update={"object": topic.phrase})
            elif intent.object is not None and (it := _IT.match(intent.object)) is not None:
                # "the living room is dusty, vacuum it on eco": 'it' and how, the topic and how
                intent = intent.model_copy(update={"object": f"{topic.phrase}{intent.object[it.end() :]}"})
            elif intent.action is IntentAction.PUT and intent.target is None and intent.relation is not None:
                # "the drawer is open, put the green cube inside of it": 'it' is what the statement was about
                intent = intent.model_copy(update={"target": topic.phrase})
            elif topic.needed:  # "i want the red cube, go home": the wish would be lost
                raise TaskNotUnderstood(task, parts[number - 1])
            topic = None
        if condition is not None:
            intent, condition = intent.model_copy(update={"condition": condition}), None
        if counted is not None and not any(q.unit == COUNT for q in intent.quantities):
            intent, counted = intent.model_copy(update={"quantities": (*intent.quantities, counted)}), None
        if close and intent.object is None and intents and _goes_to_a_thing(intents[-1]):
            # "approach the valve and photograph it from 1 m": the approach just asked is the one from 1 m (a
            # second one would be skipped: the valve is in reach by then)
            intents[-1] = intents[-1].model_copy(update={"quantities": standoff})
        elif close:  # on what it names, or on 'it'
            approach = Intent(action=IntentAction.ACT, clause=clause, verb="approach", object=intent.object)
            intents.append(approach.model_copy(update={"quantities": standoff}))
        if replacing is not None and intents:
            intents[-1] = _instead_of(intents[-1], intent, task)
            continue
        if intents and _grasps_a_part(intents[-1]) and intent.object is None:
            # "grasp the drawer handle and open it": the skill on the drawer grasps its handle itself
            intents[-1] = intent.model_copy(update={"object": _whole_of(intents[-1].object)})
            continue
        if intents and _restates(intents[-1], intent, parts[number - 1]):
            continue  # "whats the temp on the thermometer, can you read it": the question, asked again
        if intents and _releases_it(intent, intents[-1]):
            # "put the cube on the plate, release it 5 mm above": how that placement lets go, not another one
            intents[-1] = intents[-1].model_copy(update={"quantities": (*intents[-1].quantities, *intent.quantities)})
        elif intents and (merged := merge_pick(intents[-1], intent)) is not None:
            intents[-1] = merged
        else:
            intents.append(intent)
    if described and not intents:
        raise TaskNotUnderstood(task, task)  # it only describes: nothing is asked
    if in_place:
        intents = [i.model_copy(update={"in_place": True}) for i in intents]
    return tuple(intents)


def _instead_of(before: Intent, intent: Intent, task: str) -> Intent:
    """The request said "instead" of the one before it: the same act on something else, or another act on the
    same thing ('it' is the thing before's); TaskNotUnderstood when it shares neither (what it replaces is not
    said)."""
    if intent.object is None and not intent.bare and intent.action is not IntentAction.HOME:
        return intent.model_copy(update={"object": before.object})
    if intent.action is before.action or (intent.object is not None and intent.object == before.object):
        return intent
    raise TaskNotUnderstood(task, intent.clause)


def _releases_it(intent: Intent, before: Intent) -> bool:
    """Whether ``intent`` only lets go of 'it' ("release it", "drop it from 2 cm", "let go"), onto a table it does
    not name, right after a placement, which lets go of it already: what it says is how that placement does it."""
    return (
        intent.action is IntentAction.PUT
        and "table" not in intent.clause.split()
        and intent.object is None
        and intent.target == "the table"
        and before.action in (IntentAction.PUT, IntentAction.STACK)
        and before.target not in (None, "the table")
    )


def says_in_place(text: str) -> bool:
    """Whether a normalised task says the base must not move ("without moving from where you are, ...")."""
    in_place = _patterns().in_place
    return any(in_place.search(part.strip()) for part in text.split(","))


def _goes_to_a_thing(intent: Intent) -> bool:
    """Whether a clause only goes to something it names, with no amount said ("approach the valve", "go to the
    pump"): where a look from a length after it ("..., photograph it from 1 m") is taken from."""
    going = {"approach", *load_lexicon().actions.get(ActionVerb.NAVIGATE, [])}
    return (
        intent.action is IntentAction.ACT
        and intent.verb in going
        and intent.object is not None
        and not intent.quantities
    )


def asks_from_near(clause: str) -> bool:
    """Whether a clause asks for a look from near by ("a close-up photo of", "a detail photo of", "read it from
    up close"): the grammar approaches the object first."""
    return _patterns().closeness.search(" ".join(clause.split())) is not None


def _order_said(clause: str) -> str | None:
    """The order a clause of only an ordering asks for ("going from your left to your right"), if it is one."""
    patterns = _patterns()
    found = patterns.order_said.match(clause)
    if found is None:
        # "..., nearest first" (its "first" already cut as a closing word): a superlative alone is an order; a
        # side alone is not ("push it, left" says where)
        alone = re.sub(r"\s+ones?$", "", clause)
        return patterns.orders[alone] if alone in patterns.orders and alone not in ("left", "right") else None
    return patterns.orders[found.group("first")]


def _ordered_in_clause(clause: str, skill_phrases: Collection[str]) -> Intent | None:
    """ "tap the cubes from right to left": a request on several things, then the order to do them in, said in
    the clause rather than after a comma; None unless the words before the order ask for one thing each of
    several ("push the red cube from left to right" says where it goes, not an order)."""
    words = clause.split()
    for cut in range(2, len(words) - 1):
        if _patterns().order_said.match(" ".join(words[cut:])) is None:
            continue
        intent = parse_clause(" ".join(words[:cut]), skill_phrases)
        if intent is None or intent.object is None:
            return None
        phrases, quantified = expand_phrase(intent.object)
        several = quantified or len(phrases) > 1 or looks_plural(intent.object.split()[-1])
        order = _order_said(" ".join(words[cut:]))
        return intent.model_copy(update={"order": order}) if several and order is not None else None
    return None


def _repeat_total(clause: str) -> int:
    """How many times in all a clause asks for the one before to be done ("do that twice": 2, "repeat it 3
    more times": 4, "do that again": 2); 0 when it does not ask that."""
    found = _patterns().do_again.match(clause)
    if found is None or found.group("rest") is None:
        return 0
    rest = found.group("rest")
    if rest in _patterns().again:
        return 2
    counts = [q for q in find_quantities(re.sub(r"\s*\bmore\b", "", rest)) if q.unit == COUNT]
    if len(counts) != 1 or counts[0].value != int(counts[0].value) or counts[0].value < 1:
        return 0
    said = int(counts[0].value)
    return said + 1 if re.search(r"\bmore\b", rest) else said


def _parts(clauses: list[str], skill_phrases: Collection[str]) -> list[str]:
    """The clauses cut at gaps and purposes, without the ones that ask for nothing ("thanks")."""
    parts = [piece for whole in clauses for part in ungap(whole) for piece in _purpose(part, skill_phrases)]
    lexicon = load_lexicon()
    empty = {*lexicon.empty_clauses, *lexicon.filler_suffixes}  # ", if it isn't too much bother"
    return [part for part in parts if part not in empty] or parts


_PURPOSE = re.compile(r"\s+(?:in order\s+)?to\s+(?=\S)")


def _purpose(clause: str, skill_phrases: Collection[str]) -> list[str]:
    """ "X to Y", where Y is a task of its own: Y alone when X only handles a part of Y's object ("pull the
    handle to open the drawer"), else X then Y ("go to the kitchen to wipe the table")."""
    verbs = _leads(skill_phrases)
    found = next(
        (m for m in _PURPOSE.finditer(clause) if clause[m.end() :].split()[0] in verbs and m.start() > 0), None
    )
    if found is None:
        return [clause]
    means, purpose = clause[: found.start()], clause[found.end() :]
    if parse_clause(purpose, skill_phrases) is None:
        return [clause]
    if _waits_for_someone(means):  # "wait 30 seconds for me to take it": theirs, not a step (one clause)
        return [clause]
    if means.split()[-1] in load_lexicon().parts:  # "push the handle": the purpose's means
        return [purpose]
    if parse_clause(means, skill_phrases) is None:
        return [clause]
    return [means, purpose]


def _waits_for_someone(means: str) -> bool:
    """Whether a clause is a wait "for <a person>" ("wait a minute for me"): the "to ..." after it is theirs."""
    lexicon, words = load_lexicon(), means.split()
    if not any(means == w or means.startswith(f"{w} ") for w in lexicon.task_grammar.waiting_verbs):
        return False
    return any(
        words[-len(p.split()) - 1 :] == ["for", *p.split()] for p in lexicon.people if len(words) > len(p.split())
    )


def _grasps_a_part(intent: Intent) -> bool:
    """A pick of a part of something ("grasp the drawer handle")."""
    return intent.action is IntentAction.PICK and _whole_of(intent.object) is not None


def _whole_of(phrase: str | None) -> str | None:
    """ "the drawer handle" -> "the drawer" (None when the phrase names no part of something)."""
    words = (phrase or "").split()
    if len(words) < 3 or words[-1] not in load_lexicon().parts:
        return None
    return " ".join(words[:-1])


_ELIDED_NAME = re.compile(r"^(?P<x>[a-z]*\d[a-z0-9_]*|[a-z]+_[a-z0-9_]+)$")
_ELIDED_PLAIN = re.compile(r"^(?P<x>[a-z]+(?: [a-z0-9]+)?)$")
"""A name with a digit or an underscore ("p7", "pump_2"): never a verb."""


_SAME_AGAIN = re.compile(r"\s+(?:at|with|by|on|for) the same (?:speed|pace|distance|power|setting|amount|time)$")
"""An amount said as the one before, at the end of a clause that repeats the clause before on something else."""


def _elided(clause: str, previous: Intent | None, leads: Collection[str] = ()) -> Intent | None:
    """ "put the red cube in the bowl, then the green one": a bare object phrase repeats the previous
    clause's action on it (same destination, same direction); so does a short name after an act ("read t3
    then p7")."""
    if previous is not None and previous.direction is not None and (again := _other_way(clause, previous)):
        return again
    if clause.startswith("to ") and previous is not None and (previous.verb or "").endswith(" to"):
        clause = clause[3:]  # "drive to the kitchen, and after that to the hallway": the going again
    if previous is not None and previous.quantities and (same := _SAME_AGAIN.search(clause)) is not None:
        clause = clause[: same.start()]  # "..., then the hallway at the same speed": the amounts before, again
    done = _patterns().do_too.match(clause)
    if done is not None and previous is not None and previous.object is not None and not find_quantities(clause):
        # "hoover the living room on max, then do the hallway on eco": the verb before, on what "do" names
        return previous.model_copy(
            update={"object": object_phrase(done.group("x")), "clause": clause, "quantities": ()}
        )
    if (counted := _counted_elision(clause, previous, leads)) is not None:
        return counted
    statement = _compiled().statement.match(clause)  # "the cable keeps ...": no bare object phrase
    match = _patterns().elided.match(clause) if not statement else None
    if match is None and previous is not None and previous.action is IntentAction.ACT:
        match = _short_name(clause, leads)  # "go to the kitchen then hallway": the act again, on it
    if match is not None and previous is not None and previous.bare and previous.object is None:
        # "undock 0.8m then boiler_room": after a verb that names nothing, a bare name is where to go next
        return Intent(action=IntentAction.ACT, clause=clause, verb="go to", object=object_phrase(match.group("x")))
    if match is None or previous is None or previous.object is None or previous.action is IntentAction.HOME:
        return None
    if any(q.unit == COUNT for q in previous.quantities):
        return None  # "tap the red cube twice, then the blue one": twice again, or once? Not guessed at
    phrase = object_phrase(match.group("x"))
    # "read the gauge in the boiler room, then the one in corridor b": the phrase said is the whole object for a
    # skill that takes no target (``joined``), not the one before joined to its place again
    joined = phrase if previous.joined is not None else None
    return previous.model_copy(update={"object": phrase, "clause": clause, "joined": joined})


def _counted_elision(clause: str, previous: Intent | None, leads: Collection[str]) -> Intent | None:
    """ "tap the red cube twice, then the blue one once", "tap red twice and blue once": a bare object phrase
    with a count of its own repeats the previous clause's action on it that many times (its count, not the
    previous one's; the previous clause's other amounts stay)."""
    counts = [q for q in find_quantities(clause) if is_repetition(q)]
    if len(counts) != 1 or previous is None:
        return None
    bare = " ".join(_without_amount_frames(clause, counts).split())
    if not bare or bare.split()[0] in _compiled().lexicon.verb_words() | set(leads):
        return None
    once = previous.model_copy(update={"quantities": tuple(q for q in previous.quantities if q.unit != COUNT)})
    plain = _ELIDED_PLAIN.match(bare)  # "blue once": a colour or a short name, as "the blue"
    again = _elided(bare, once, leads) or (_elided(f"the {bare}", once, leads) if plain else None)
    if again is None:
        return None
    return again.model_copy(update={"quantities": (*once.quantities, *counts), "clause": clause})


def _more_of_act(clause: str, previous: Intent, skill_phrases: Collection[str]) -> Intent | None:
    """ "patrol the control room then corridor b", "read t3 then p7": a short name after an act asked by a
    skill's own verb is one more thing that act is on, "A and B" (the planner calls the skill once per thing,
    or once with the list where it takes one); None otherwise ("go to A then B" is two trips)."""
    if previous.action is not IntentAction.ACT or previous.object is None or previous.verb not in skill_phrases:
        return None
    match = _short_name(clause, _leads(skill_phrases))
    return None if match is None else previous.model_copy(update={"object": f"{previous.object} and {match['x']}"})


def _short_name(clause: str, leads: Collection[str]) -> re.Match[str] | None:
    """A clause that is only a short name ("p7", "corridor b"), never a verb."""
    words = clause.split()
    if len(words) > 2 or set(words) & (set(leads) | _compiled().lexicon.verb_words()):
        return None
    return _ELIDED_NAME.match(clause) or _ELIDED_PLAIN.match(clause)


def _other_way(clause: str, previous: Intent) -> Intent | None:
    """'push the cube left 5 cm then right 5 cm': a clause of only a direction (and its amounts) repeats the
    previous move on the same object that way, with the amounts it says (none: the skill's own)."""
    amounts = find_quantities(clause)
    bare = _without_amount_frames(clause, amounts).strip() if amounts else clause.strip()
    said = " ".join(bare.split())
    direction_of = _compiled().direction_of
    direction = direction_of.get(said)
    if direction is None:  # "then 4 cm back towards you": two ways of saying one way
        halves = [(said[:at], said[at + 1 :]) for at, char in enumerate(said) if char == " "]
        agreed = {direction_of[a] for a, b in halves if a in direction_of and direction_of.get(b) == direction_of[a]}
        direction = agreed.pop() if len(agreed) == 1 else None
    if direction is None:
        return None
    if said == "back" and previous.direction != direction_of.get("forward"):
        return None  # "push it left, then back": back where it was, or backwards? After "forward" both are one way
    return previous.model_copy(update={"direction": direction, "quantities": tuple(amounts), "clause": clause})


_NEEDS_GRASP = (IntentAction.PUT, IntentAction.POUR, IntentAction.STACK)


def merge_pick(first: Intent, second: Intent) -> Intent | None:
    """ "pick the X, then put it on the Y" as one intent: the pick is the means, the placement the goal
    ("pick up the X and lift it 20 cm": one pick, lifting 20 cm).

    Kept apart, a replan after the placement would see "pick the X" undone (the X is on the Y now, not
    in the gripper) and pick it again. None when the two clauses are not such a pair.
    """
    lifts = first.action is IntentAction.PICK is second.action and second.quantities and not first.quantities
    if lifts and second.object in (None, first.object):  # "pick up the cube and lift it 20 cm": one pick
        return first.model_copy(update={"quantities": second.quantities, "clause": f"{first.clause}, {second.clause}"})
    if first.action is not IntentAction.PICK or second.action not in _NEEDS_GRASP:
        return None
    if first.quantities:
        return None  # "pick it up with an approach height of 5 cm, then ...": the pick's own amounts, kept
    if second.object is not None and second.object != first.object:
        return None
    return second.model_copy(update={"object": first.object, "clause": f"{first.clause}, {second.clause}"})


_SAID_PLACE = re.compile(
    r"\b(?:in|on|at|into|onto|near|by|to) (?:the |your |my |our )?(?P<place>[a-z_]+(?: [a-z_]+){0,2}?)"
    r"(?= by\b| before\b| after\b| at\b| for\b| so\b|$)"
)
"""A place said after a preposition, up to where the clause goes on to say when or why."""


_IT = re.compile(r"\bit\b")

_WHAT_IT_IS = re.compile(r"(?:it|that|this) (?:s|is) (?:a|an|the) [a-z]+(?: one| code| kind| type| setting)?")
"""A short statement of what kind a thing is, right after a request ("..., it s a qr")."""

_THERE = re.compile(r"\s+(?:over\s+)?there$")
_HERE = re.compile(r"\s+(?:over\s+)?here$")


def _where_someone_is(clause: str, following: str) -> bool:
    """Whether ``clause`` says where the speaker (or the robot) is or will be, for the next clause's "there"
    or "here" ("i am waiting you in living room, come there please", "i m in the hallway, come here")."""
    speakers = (*load_lexicon().task_grammar.speakers, "you")
    return (
        clause.split()[0] in speakers
        and _SAID_PLACE.search(clause) is not None
        and (_THERE.search(following) is not None or _HERE.search(following) is not None)
    )


def _speaker_places(before: Sequence[str]) -> list[str]:
    """What "here" stands for: a place the speaker said they are in ("i m in the hallway"), last first."""
    speakers = load_lexicon().task_grammar.speakers
    return _said_places(text for text in before if text.split()[:1] and text.split()[0] in speakers)


def _said_places(texts: Iterable[str]) -> list[str]:
    """The places said after a preposition in ``texts``, the last said first."""
    return [m.group("place") for text in reversed(list(texts)) for m in reversed(list(_SAID_PLACE.finditer(text)))]


def _there_places(topic: _Topic | None, before: Sequence[str]) -> list[str]:
    """What "there" may stand for in "..., go there": the topic ("the hallway is dusty"), unless it is the
    speaker or the robot, then the places said after a preposition in the clauses before it, last first ("i am
    in the living room, come there"; "you should be on your charger by the end of the shift, so head there")."""
    places = [] if topic is None or topic.phrase in (*load_lexicon().robot_words, "i", "we") else [topic.phrase]
    return places + _said_places(before)


class _Topic(NamedTuple):
    phrase: str
    needed: bool  # a wish or a bare noun phrase: the next clause must use it, or the task is not understood


def _restates(before: Intent, intent: Intent, asked: str) -> bool:
    """Whether ``intent`` ("can you read it") only asks again what the question before it asked ("whats the
    temp on the thermometer"): the same verb on "it", with nothing more said."""
    return (
        _patterns().asked.match(asked) is not None
        and intent.verb == before.verb
        and intent.action is before.action
        and intent.object is None
        and not intent.quantities
        and intent.target is None
    )


def _wished_request(clause: str, skill_phrases: Collection[str]) -> Intent | None:
    """ "i need a photo of v12", "i d like a scan of shelf a": a wish whose object is itself a request (what a
    skill's noun names), read as that request; None when what is wished for is a thing ("i want the mug")."""
    for wish in sorted(load_lexicon().wishes, key=len, reverse=True):
        if clause.startswith(wish + " "):
            wanted = parse_clause(clause[len(wish) :].strip(), skill_phrases)
            return wanted if wanted is not None and wanted.object is not None else None
    return None


def _from_length(clause: str) -> re.Match[str] | None:
    """ "read the gauge from 40 cm": a look from one length said with "from" alone, at the clause's end, where
    to look from, as "from 40 cm away". Only a look ("follow me from 2 metres" is a distance of its own)."""
    said = _patterns().from_length.search(clause)
    if said is None or not _is_a_look(" ".join(clause.split())):
        return None
    amounts = find_quantities(said["amount"])
    whole = len(amounts) == 1 and amounts[0].kind == "length" and amounts[0].text.strip() == said["amount"].strip()
    return said if whole else None


def _is_a_look(clause: str) -> bool:
    """Whether the clause starts with a phrase the lexicon's INSPECT action has ("read", "take a photo of")."""
    looks = load_lexicon().actions.get(ActionVerb.INSPECT, [])
    return any(clause == p or clause.startswith(p + " ") for p in looks)


def _says_what_is(clause: str, leads: Collection[str]) -> bool:
    """Whether a clause before others says how the world is ("the red cube is on the plate", "the drawer s
    open"), not what it should be: a description of what the next clause acts on, never a goal to plan."""
    said = _patterns().is_.match(clause)
    return said is not None and clause.split()[0] not in leads and object_phrase(said.group("x")) is not None


def _says_a_number(clause: str) -> bool:
    """Whether a clause says a number ("it only has three levels", "it s 2 m away")."""
    return any(w.isdigit() or w in NUMBER_WORDS for w in re.findall(r"[a-z0-9]+", clause))


def _subject(clause: str, leads: Collection[str], *, last: bool) -> _Topic | None:
    """What a clause that asks for nothing is about ("the bin is full": the bin; "i d like the blue mug": the
    blue mug; "fridge", before "open it": the fridge); None when it may ask for something.

    A statement ("the bin is full", "battery s low") plans nothing, and says what a following "it" means.
    A wish ("i d like the blue mug") or a bare noun phrase ("fridge") does only before a request that acts
    on "it" ("..., could you get it", "..., open it"), never alone."""
    lexicon = load_lexicon()
    words = clause.split()
    if _patterns().conditions & set(words):
        return None
    for presenting in sorted(lexicon.presentatives, key=len, reverse=True):
        if clause.startswith(presenting + " "):  # "there s a draught, ...", "..., there s a cat out there"
            return _Topic(object_phrase(clause[len(presenting) :]) or clause, needed=False)
    for wish in sorted(lexicon.wishes, key=len, reverse=True):
        if clause.startswith(wish + " "):
            wanted = object_phrase(clause[len(wish) :])
            return _Topic(wanted, needed=True) if wanted is not None and not last else None
    if words[0] in leads:
        return None
    said = _compiled().statement.match(clause)
    subject = said and (said.group("x") or said.group("p"))
    if said is not None and subject and len(subject.split()) <= 4 and "," not in (said.group("rest") or ""):
        rest = (said.group("rest") or "").split()
        return None if rest and rest[0] in _patterns().not_a_description else _Topic(subject, needed=False)
    described = side_described(clause)  # "the cube to the right of the red cube": "the cube right of the red cube"
    short = len(words) <= 6 or (
        described != clause and sum(w not in lexicon.determiners for w in described.split()) <= 5
    )
    if not last and short and not any(w in leads for w in described.split()):
        return _Topic(described, needed=True)  # "fridge", "the blue mug in the fridge": the topic of what follows
    return None
