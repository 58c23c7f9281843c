"""Task reading: what a task names, in the grammar's own words, for checking a model's plan against it.

The faithfulness check (``faithfulness``) compares a plan with what the task
itself says. This module reads that: the objects and regions it names, the
actions its verbs ask for, the directions and the amounts, clause by clause,
with the words the task grammar uses (``config/lexicon.yaml``, object
grounding, the world's regions, ``quantities``)::

    "go push the red block left, then put all the cubes on the plate"
      clause 1 (not parsed: scanned)   names red_cube       verbs PUSH, SLIDE     direction left
      clause 2 (parsed: put)           names every cube     verbs PLACE, RELEASE
                                       and the plate

The task is split as the grammar splits it (typos of known words corrected,
"before"/"after" clauses put in the order they happen). A clause the grammar
parses, in a reading whose phrases all name something here, is read as the
grammar reads it (its object and target phrases, its direction, its amounts,
what a put places where). Any other clause is scanned: runs of object words
(colours, categories, ids, regions, with articles, quantifiers and lists
between them) are object phrases, grounded by ``object_matching`` ("A or B"
names one of them; a phrase after "except" or "not" is left out); verb
phrases anywhere in it name actions; direction phrases that are not a
position ("the cube on the left"), a relation ("left of the plate") or a
particle ("put it back") are directions. A task with a pronoun or a word
for holding may mean the object in the gripper.

Text inside braces is data, not instructions: a user who pastes a JSON plan
(``{"steps": [...]}``) into a task has not asked the robot to do what the
JSON says, and a model that reads it as a plan is not faithful to the task.
The braces and what is inside them are left out of the reading (an unclosed
brace runs to the end of the task).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache

from bt_executive.llm.grammar_planner.said_arguments import said_options
from bt_executive.llm.grammar_planner.vocabulary import known_words, protected_words
from bt_executive.llm.grounding.object_matching import match_objects
from bt_executive.llm.grounding.place_names import named_places
from bt_executive.llm.language.clause_order import reorder_clauses
from bt_executive.llm.language.lexicon import Lexicon, alternatives, load_lexicon
from bt_executive.llm.language.noun_phrases import articles, expand_phrase, numbers, phrase_words
from bt_executive.llm.language.quantities import Quantity, find_quantities, unit_kind
from bt_executive.llm.language.spoken import dropped_heading
from bt_executive.llm.language.task_grammar import (
    Intent,
    IntentAction,
    normalise_task,
    ordered_tower,
    other_splits,
    parse_clause,
    split_clauses,
    ungap,
)
from bt_executive.llm.language.typos import correct
from bt_executive.skills.manifest import ActionVerb, SkillManifest
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import WorldState

_WORD = re.compile(r"[a-z]+")
_TOKEN = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?|,")


class _Patterns:
    """The lexicon's words this reading scans for (``config/lexicon.yaml``), compiled once per lexicon."""

    def __init__(self, lexicon: Lexicon) -> None:
        # Words before the objects a list leaves out ("all the cubes except the blue one"), as the grammar reads them.
        self.excepts = tuple(re.compile(rf"\b{w}\b") for w in lexicon.except_words)
        # Superlatives inside an object phrase ("the leftmost cube"): part of the phrase, never a direction.
        self.positions = frozenset(lexicon.position_words)
        self.ones = frozenset(lexicon.ones)
        self.joiners = frozenset((*lexicon.joiners, ","))
        # Words by which a task may mean the object in the gripper ("put it on the plate", "what you are holding").
        self.held = re.compile(rf"\b(?:{alternatives(lexicon.held_words)})\b")
        # "the cube WHICH is left of the red one": what follows describes the phrase before it.
        self.relative = re.compile(rf"\b(?:{alternatives(lexicon.relative_pronouns)})\b")
        # What follows a verb as its object: a request's verb is read by the word before one of these.
        self.pronouns = frozenset(lexicon.object_pronouns)
        # A gap that ends in a negation ("that is not", "that isn t") before an object phrase: the phrase is left out.
        self.negated = re.compile(rf"\b(?:{alternatives(lexicon.negations)})\s*$")
        # A relation between two object phrases of a clause with no verb ("red on green"): a put, as the grammar's
        # verbless form reads one.
        self.placed = re.compile(rf"\b(?:{alternatives(lexicon.verbless_relations)})\b")
        # Words shortly before a direction that make it a position ("the block furthest to the left").
        self.extremes = frozenset(lexicon.extreme_words)
        # "is it open or closed": a question of which of two states holds, which asks for a report of a state.
        words = lexicon.clause_patterns
        subjects = alternatives((*words.pronoun_subjects, "this", "that"))
        self.which_state = re.compile(
            rf"\b(?:{alternatives(words.be_forms)})\s+(?:{subjects}|the(?:\s+[a-z0-9]+){{1,3}}?)\s+[a-z]+\s+or\s+[a-z]+\b"
        )
        sides = lexicon.sides
        # "the cube on the left (hand side)": a position that follows an object phrase, no direction
        self.side = re.compile(
            rf"^(?:{alternatives(sides.reading_prepositions)})\s+(?:{alternatives(sides.owners)})\s+(?:left|right)"
            rf"(?:\s+(?:{alternatives(sides.reading_nouns)}))?"
        )


@cache
def _patterns() -> _Patterns:
    return _Patterns(load_lexicon())


@dataclass(frozen=True)
class Mention:
    """One object phrase of the task and the world ids it matches.

    ``every``: a quantified or plural phrase ("all the cubes") names each id; otherwise it names one
    of them. ``excluded``: the phrase follows an exception or a negation ("except the blue one", "not
    red"), so its ids must not be acted on. ``required``: False for an object named only to say which
    one is meant ("the mug out of THE FRIDGE", "the cube closest to THE BOWL") or that a pronoun may
    stand for (the one held): it may be acted on, but need not be.
    """

    phrase: str
    ids: tuple[str, ...]
    every: bool = False
    excluded: bool = False
    required: bool = True


@dataclass(frozen=True)
class Placement:
    """A put the grammar read ("put all the cubes in the bowl"): the objects that end on or in the target.

    ``every``: each of ``objects`` must end there; otherwise one of them."""

    objects: tuple[str, ...]
    target: str
    every: bool
    clause: str


@dataclass(frozen=True)
class ClauseReading:
    """What one clause says: its object phrases, the actions its verbs allow, directions and amounts.

    ``intent``: the grammar's reading of it, when the grammar parses it and its phrases ground here
    (None: the clause was scanned)."""

    text: str
    intent: Intent | None
    mentions: tuple[Mention, ...] = ()
    actions: frozenset[ActionVerb] = frozenset()
    skills: frozenset[str] = frozenset()
    directions: tuple[str, ...] = ()
    amounts: tuple[Quantity, ...] = ()
    verbs: tuple[str, ...] = ()
    placements: tuple[Placement, ...] = ()
    unread: tuple[str, ...] = ()
    """Requests of a scanned clause that no verb the robot knows reads ("... and report its condition")."""
    object_ids: tuple[str, ...] = ()
    target_ids: tuple[str, ...] = ()
    """What the parsed intent's object and target phrases match in the world (empty for a scanned clause)."""

    def asks_for(self, manifest: SkillManifest) -> bool:
        """Whether this clause's verbs ask for what ``manifest`` does, or it names the skill by a phrase of its own."""
        return bool(set(manifest.actions) & self.actions) or manifest.id in self.skills

    @property
    def named(self) -> frozenset[str]:
        """The ids this clause's (not excluded) phrases match."""
        return frozenset(i for m in self.mentions if not m.excluded for i in m.ids)


@dataclass(frozen=True)
class TaskReading:
    """The whole task, clause by clause (``text``: as normalised, data cut out), and the text read as data."""

    task: str
    clauses: tuple[ClauseReading, ...]
    data: tuple[str, ...] = ()
    text: str = ""
    mentions: tuple[Mention, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "mentions", tuple(m for c in self.clauses for m in c.mentions))

    @property
    def actions(self) -> frozenset[ActionVerb]:
        """Every action some verb of the task asks for."""
        return frozenset(a for c in self.clauses for a in c.actions)

    @property
    def skills(self) -> frozenset[str]:
        """Skills the task asks for by a phrase of their own (a manifest's ``language.phrases``)."""
        return frozenset(s for c in self.clauses for s in c.skills)

    @property
    def directions(self) -> tuple[str, ...]:
        """Every direction the task says, in order, once each."""
        return tuple(dict.fromkeys(d for c in self.clauses for d in c.directions))

    @property
    def amounts(self) -> tuple[Quantity, ...]:
        """Every amount the task says, in order."""
        return tuple(q for c in self.clauses for q in c.amounts)

    @property
    def verbs(self) -> tuple[str, ...]:
        """The verb phrases the task uses, in order, once each."""
        return tuple(dict.fromkeys(v for c in self.clauses for v in c.verbs))


def without_data(task: str) -> tuple[str, tuple[str, ...]]:
    """The task with every brace group (JSON, templates) cut out, and the groups cut: data, not instructions."""
    kept: list[str] = []
    cut: list[str] = []
    depth, start = 0, 0
    for index, char in enumerate(task):
        if char == "{":
            if depth == 0:
                kept.append(task[start:index])
                start = index
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                cut.append(task[start : index + 1])
                kept.append(", ")  # what follows is another clause, never the end of a phrase before it
                start = index + 1
    (cut if depth else kept).append(task[start:])
    return "".join(kept), tuple(cut)


_SAME_AMOUNT = re.compile(r"\b(?:the )?same (?:speed|pace|distance|amount|length|height|angle|time|duration)\b")
"""A clause that says an amount of the clause before it again, without the number ("with the same speed")."""


_FOR_A_TIME = re.compile(r"\bfor (?:about |around |roughly |some )?$")
"""Before a time ("chill FOR 10 seconds", "hold it up FOR five seconds"): how long something lasts."""


def _lasting(clause: ClauseReading, registry: SkillRegistry) -> ClauseReading:
    """A clause that says how long it lasts ("chill for 10 seconds", "hold it up for five seconds") asks for the
    skills that only wait a time, unless a skill it asks for takes the time itself ("follow me for 5 minutes")."""
    lasting = [q for q in clause.amounts if q.kind == "duration" and _FOR_A_TIME.search(clause.text[: q.span[0]])]
    if not lasting or any(clause.asks_for(m) and _time_params(m) for m in registry):
        return clause
    waits = {m.id for m in registry if (timed := _time_params(m)) and timed == set(m.parameter_names())}
    return replace(clause, skills=clause.skills | waits)


def _time_params(manifest: SkillManifest) -> set[str]:
    """The parameters of ``manifest`` that take a time."""
    return {p for p in manifest.parameter_names() if unit_kind(manifest.parameter_schema(p)) == "duration"}


def read_task(task: str, world: WorldState, registry: SkillRegistry) -> TaskReading:
    """Read ``task`` clause by clause with the grammar's words; text in braces is left out as data."""
    phrases = skill_phrases(registry)
    vocabulary = _Vocabulary.of(world, registry)
    split = task_clauses(task, world, registry)
    clauses = [_lasting(_read_clause(c, world, phrases, vocabulary), registry) for c in split.clauses]
    heading = dropped_heading(without_data(task)[0])
    if heading and not any(c.verbs or c.actions or c.skills for c in clauses):
        # "Night round: pump house and boiler room, 20 loops": the heading the grammar drops says what the list
        # under it asks for, when nothing under it asks for anything
        head = _read_clause(normalise_task(heading), world, phrases, vocabulary)
        if head.skills or head.actions:
            clauses.insert(0, head)
    for index in range(1, len(clauses)):
        clause, before = clauses[index], clauses[index - 1]
        if clause.intent is None and not clause.verbs and not clause.skills and clause.mentions:
            # "tap red twice and blue once", "..., then the green one": a bare object phrase asks for what the
            # clause before asked, on it (the grammar's elision)
            clauses[index] = replace(clause, actions=clause.actions | before.actions, skills=before.skills)
    for index in range(1, len(clauses)):
        clause = clauses[index]
        said = [c for c in clauses[:index] if c.amounts]
        if not clause.amounts and said and _SAME_AMOUNT.search(clause.text):
            # "..., and after that to the hallway with the same speed": that clause's amounts again, its own
            # (a copy: each clause's amount is used by a step of its own)
            clauses[index] = replace(clause, amounts=tuple(q.model_copy() for q in said[-1].amounts))
    held = world.gripper.holding
    if held is not None and _patterns().held.search(" ".join(split.clauses)) and clauses:
        last = clauses[-1]  # "put it on the plate": the object in the gripper may be what "it" is
        pronoun = Mention(phrase="(what the gripper holds)", ids=(held,), required=False)
        clauses[-1] = replace(last, mentions=(*last.mentions, pronoun))
    return TaskReading(task=task, clauses=tuple(clauses), data=split.data, text=split.text)


@dataclass(frozen=True)
class TaskClauses:
    """A task's clauses as the grammar splits them, the text it read them from, and the text left out as data."""

    clauses: tuple[str, ...]
    text: str
    data: tuple[str, ...]


def task_clauses(task: str, world: WorldState, registry: SkillRegistry) -> TaskClauses:
    """The clauses of ``task`` as the grammar reads them: brace groups left out as data, normalised, typos of
    known words corrected, "before"/"after" clauses put in the order they happen, split at 'then', ',' ..."""
    text, data = without_data(task)
    phrases = skill_phrases(registry)
    normalised = normalise_task(text)

    def object_of(clause: str) -> str | None:
        intent = parse_clause(clause, phrases.keys())
        return intent.object if intent is not None else None

    ordered = reorder_clauses(corrected(normalised, world, registry), object_of, phrases.keys())
    if ordered_tower(ordered) is not None:  # "stack all three, blue at the bottom, ...": one request
        return TaskClauses(clauses=(ordered,), text=normalised, data=data)
    # "put X on Y and the red one in Z": two clauses, each with the verb, as the grammar plans them
    clauses = tuple(part for clause in split_clauses(ordered) for part in ungap(clause))
    return TaskClauses(clauses=clauses, text=normalised, data=data)


def corrected(text: str, world: WorldState, registry: SkillRegistry) -> str:
    """``text`` with the typos the grammar would correct corrected ("stakc the bleu cube" -> "stack the blue cube"),
    other names of this world's rooms said as its regions' ("the lounge": the living room), and other words
    for the skills' options said as the options ("the quiet setting": eco)."""
    text = said_options(named_places(text, world).text, registry)[0]
    words = list(_WORD.finditer(text))
    fixed = correct([w.group() for w in words], known_words(world, registry), protected=protected_words(world))
    if not fixed.notes:
        return text
    out, at = [], 0
    for match, word in zip(words, fixed.words, strict=True):
        out += [text[at : match.start()], word]
        at = match.end()
    return "".join([*out, text[at:]])


def skill_phrases(registry: SkillRegistry) -> dict[str, frozenset[str]]:
    """Each manifest verb phrase (``language.phrases``) -> the skills that claim it."""
    table: dict[str, set[str]] = {}
    for manifest in registry:
        for phrase in manifest.phrases():
            table.setdefault(phrase, set()).add(manifest.id)
    return {phrase: frozenset(ids) for phrase, ids in table.items()}


def verb_meanings(lex: Lexicon) -> dict[str, frozenset[ActionVerb]]:
    """Each verb phrase of the lexicon -> the actions it asks for (``verbs`` through ``intent_actions``,
    and ``actions``); a put allows a skill that picks and places in one motion."""
    table: dict[str, set[ActionVerb]] = {}
    for phrase, intent in lex.verb_phrases():
        table.setdefault(phrase, set()).update(lex.intent_actions.get(intent, ()))
    for phrase, action in lex.action_phrases():
        table.setdefault(phrase, set()).add(action)
    return {phrase: frozenset(_with_combined(actions)) for phrase, actions in table.items()}


def _with_combined(actions: Iterable[ActionVerb]) -> set[ActionVerb]:
    """A place of an object not yet held is a pick and a place: PLACE allows a PICK_AND_PLACE skill too."""
    found = set(actions)
    if ActionVerb.PLACE in found:
        found.add(ActionVerb.PICK_AND_PLACE)
    return found


def intent_actions(intent: Intent, lex: Lexicon) -> frozenset[ActionVerb]:
    """The actions a parsed clause asks for by its form ("red cube on the plate" is a put with no verb)."""
    if intent.action is IntentAction.ACT:
        return frozenset()  # its verb phrase is read with the others
    return frozenset(_with_combined(lex.intent_actions.get(intent.action.value, ())))


class _Vocabulary:
    """The words that can be part of an object phrase in this world, and those that can be its head."""

    def __init__(
        self, content: frozenset[str], heads: frozenset[str], glue: frozenset[str], known: frozenset[str] = frozenset()
    ) -> None:
        self.content = content
        self.heads = heads
        self.glue = glue
        self.known = known  # the words the grammar reads, but those asking what no skill does ("report", "email")

    @classmethod
    def of(cls, world: WorldState, registry: SkillRegistry) -> _Vocabulary:
        lex = load_lexicon()
        colours = set(lex.colour_words()) | set(lex.colours)
        categories = set(lex.category_words()) | set(lex.categories)
        heads = colours | categories
        content = set(heads)
        for obj in world.objects:
            words = phrase_words(obj.id)
            content.update(words)
            heads.update(_head(words))  # "front" of front_door is no object on its own; "door" is
            heads.update(phrase_words(obj.colour) + phrase_words(obj.category))
            if obj.inside:
                content.update(phrase_words(obj.inside))
        for drawer in world.drawers:
            content.update(phrase_words(drawer))
            heads.update(_head(phrase_words(drawer)))
        for region in world.regions:
            content.update(phrase_words(region))
            heads.update(_head(phrase_words(region)))
        content |= heads
        quantifier_words = {w for q in lex.quantifiers for w in q.split()}
        patterns = _patterns()
        glue = {*articles(), *lex.ignored, *quantifier_words, *numbers(), *patterns.positions, *patterns.joiners}
        glue |= patterns.ones
        asks_nothing_here = {*lex.clause_split.report_verbs, *(p for p in lex.out_of_scope if " " not in p)}
        known = known_words(world, registry) - asks_nothing_here
        return cls(frozenset(content), frozenset(heads), frozenset(glue - content), known)


def _head(words: Sequence[str]) -> list[str]:
    """The word that can stand for a name on its own: its last word of letters (``pump`` of pump_2, not "2";
    ``shelf`` of shelf_a: "a" is an article first), or an opaque id's one word (``v12``, ``m7``: "check v12"
    names the valve), with any opaque word of letters and digits beside it (``l4`` of label_l4: "l4 barcode")."""
    opaque = [w for w in words if not w.isalpha() and not w.isdigit() and any(c.isalpha() for c in w)]
    return [w for w in words if w.isalpha() and len(w) > 1][-1:] + opaque or list(words[-1:])


@dataclass(frozen=True)
class _Token:
    word: str
    start: int
    end: int


def _tokens(clause: str) -> list[_Token]:
    return [_Token(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(clause.replace("_", " ").replace("-", " "))]


def _read_clause(
    clause: str, world: WorldState, phrases: dict[str, frozenset[str]], vocabulary: _Vocabulary
) -> ClauseReading:
    """One clause: as the grammar parses it when it does (in the first reading whose phrases all ground),
    else scanned."""
    lex = load_lexicon()
    intent = ordered_tower(clause) or parse_clause(clause, phrases.keys())
    amounts = tuple(find_quantities(clause))
    tokens = [t for t in _tokens(clause) if not any(a.span[0] <= t.start < a.span[1] for a in amounts)]
    spans = _object_spans(tokens, vocabulary)  # "follow me at 2 m" names no pump_2
    verbs, actions, skills = _verbs(tokens, spans, lex, phrases)
    if intent is not None:
        actions |= intent_actions(intent, lex)
        if intent.verb is not None and intent.verb in phrases:
            skills |= phrases[intent.verb]
        for reading in (intent, *other_splits(intent)):
            mentions = _intent_mentions(reading, world, vocabulary)
            if mentions is not None:
                directions: tuple[str, ...] = (reading.direction,) if reading.direction else ()
                puts = _placements(reading, world)
                object_ids, target_ids = (
                    match_objects(p, world).ids if p else () for p in (reading.object, reading.target)
                )
                return ClauseReading(
                    clause,
                    reading,
                    mentions,
                    actions,
                    skills,
                    directions,
                    amounts,
                    verbs,
                    puts,
                    object_ids=object_ids,
                    target_ids=target_ids,
                )
    mentions = _scanned_mentions(clause, tokens, spans, world)
    if intent is not None and intent.action is IntentAction.PUT and intent.target == "the table":
        mentions += _ground("the table", world, excluded=False)  # "put it down": onto the table
    directions = _directions(tokens, spans, verbs, lex)
    if not verbs and len(mentions) >= 2 and _patterns().placed.search(clause):
        actions |= _with_combined(lex.intent_actions.get(IntentAction.PUT.value, ()))  # "red on green please"
        mentions += _unknown_things(tokens, spans, vocabulary, lex)  # "light the candles on the table": no put
    unread = _unread_requests(tokens, verbs, lex, phrases, vocabulary)
    unread += tuple(m.group() for m in _patterns().which_state.finditer(clause))
    return ClauseReading(clause, None, mentions, actions, skills, directions, amounts, verbs, (), unread)


def _unknown_things(
    tokens: Sequence[_Token], spans: Sequence[tuple[int, int]], vocabulary: _Vocabulary, lex: Lexicon
) -> tuple[Mention, ...]:
    """ "light THE CANDLES on the table": in a clause read as a put by its relation alone, a word after a
    determiner beside the relation that no word list of this robot has is a thing the task names and the world
    does not hold; a mention of nothing, so no plan passes for putting the rest of the clause somewhere."""
    inside = {i for start, stop in spans for i in range(start, stop)}
    determiners = set(lex.determiners)
    before = {r.split()[0] for r in lex.verbless_relations}  # "the candles ON the table"
    after = {r.split()[-1] for r in lex.verbless_relations}  # "the mug IN the candles"
    words = [t.word for t in tokens]
    found = []
    for at in range(1, len(tokens)):
        word = words[at]
        if at in inside or words[at - 1] not in determiners or not word.isalpha() or len(word) < 3:
            continue
        if not ((at + 1 < len(words) and words[at + 1] in before) or (at >= 2 and words[at - 2] in after)):
            continue  # not a side of the relation the put is read from
        if {word, word.removesuffix("s"), word.removesuffix("es")} & (vocabulary.known | vocabulary.glue):
            continue
        found.append(Mention(phrase=f"{tokens[at - 1].word} {word}", ids=()))
    return tuple(found)


def _unread_requests(
    tokens: Sequence[_Token],
    verbs: Sequence[str],
    lex: Lexicon,
    phrases: dict[str, frozenset[str]],
    vocabulary: _Vocabulary,
) -> tuple[str, ...]:
    """ "examine the pump for cracks AND REPORT ITS CONDITION", "EMAIL IT to me": a word that starts the clause or
    follows "and", then a determiner or pronoun, and that the grammar does not know (or knows only as a way to ask
    for a report, which no skill here makes of a thing's state): a request the robot cannot be shown to serve."""
    said = {w for v in verbs for w in v.split()} | {w for p in phrases for w in p.split()}
    heads = frozenset(lex.determiners) | frozenset(_patterns().pronouns)
    results = frozenset(lex.clause_split.report_nouns)  # "report the reading": what a read returns
    words = [t.word for t in tokens]
    found = []
    for at, word in enumerate(words[:-1]):
        after = words[at + 2] if at + 2 < len(words) else ""
        if at > 0 and words[at - 1] != "and":
            continue
        if words[at + 1] not in heads or after in results or word in said or word in vocabulary.known:
            continue
        if word in vocabulary.content or word in vocabulary.glue or not word.isalpha() or word.endswith("ly"):
            continue
        found.append(" ".join(words[at : at + 3]))
    return tuple(found)


def _intent_mentions(intent: Intent, world: WorldState, vocabulary: _Vocabulary) -> tuple[Mention, ...] | None:
    """The grammar's phrases of a parsed clause, grounded; None when one of them grounds nothing.

    The objects a phrase names only to say which one it means ("the mug out of the fridge") are named
    too, but not required."""
    if intent.action is IntentAction.HOME:
        return ()
    mentions: list[Mention] = []
    for phrase in (intent.object, intent.target, intent.top):
        if phrase is not None:
            mentions += _ground(phrase, world, excluded=False)
    if intent.excluding is not None:
        mentions += _ground(intent.excluding, world, excluded=True)
    if any(not m.ids for m in mentions):
        return None
    for phrase in (intent.object, intent.target, intent.top):
        tokens = _tokens(phrase or "")
        spans = _object_spans(tokens, vocabulary)
        for start, stop in spans[1:] if len(spans) > 1 else ():
            inner = phrase[tokens[start].start : tokens[stop - 1].end] if phrase else ""
            mentions += [replace(m, required=False) for m in _ground(inner, world, excluded=False) if m.ids]
    return tuple(mentions)


def _placements(intent: Intent, world: WorldState) -> tuple[Placement, ...]:
    """What a put or a stack of named objects onto one named target leaves on or in it."""
    if intent.action not in (IntentAction.PUT, IntentAction.STACK) or intent.tower:
        return ()
    if intent.object is None or intent.target is None:
        return ()  # "put it on the plate": the pronoun's object is the planner's to resolve
    targets = {i for m in _ground(intent.target, world, excluded=False) for i in m.ids}
    if len(targets) != 1:
        return ()
    left_out = (
        {i for m in _ground(intent.excluding or "", world, excluded=True) for i in m.ids} if intent.excluding else set()
    )
    found = []
    for mention in _ground(intent.object, world, excluded=False):
        ids = tuple(i for i in mention.ids if i not in left_out and i not in targets)
        if ids:
            found.append(Placement(objects=ids, target=next(iter(targets)), every=mention.every, clause=intent.clause))
    return tuple(found)


def _ground(phrase: str, world: WorldState, *, excluded: bool) -> tuple[Mention, ...]:
    """The mentions a phrase stands for: one per listed part; a quantified phrase names every match."""
    parts, quantified = expand_phrase(phrase)
    return tuple(Mention(phrase=p, ids=_match(p, world), every=quantified, excluded=excluded) for p in parts)


def table_ids(world: WorldState) -> tuple[str, ...]:
    """What "the table" names here: where the grammar puts a thing down ("drop it") or sets it aside."""
    return _match("the table", world)


def _match(phrase: str, world: WorldState) -> tuple[str, ...]:
    """The objects (or the region, or the drawer) a phrase names here."""
    objects = match_objects(phrase, world).ids
    words = set(phrase_words(phrase)) - set(load_lexicon().ignored) - articles()
    places = tuple(name for name in (*world.regions, *world.drawers) if words and set(phrase_words(name)) == words)
    if places:  # "the kitchen" is the room, not the kitchen_table: a word of its name, but not its head
        objects = tuple(i for i in objects if set(_head(phrase_words(i))) & words)
    return tuple(sorted({*objects, *places}))


def _object_spans(tokens: Sequence[_Token], vocabulary: _Vocabulary) -> list[tuple[int, int]]:
    """Token ranges [start, end) of the object phrases: object words and the glue between them, with a head."""
    spans: list[tuple[int, int]] = []
    patterns = _patterns()
    index = 0
    while index < len(tokens):
        if tokens[index].word not in vocabulary.content and tokens[index].word not in vocabulary.glue:
            index += 1
            continue
        end = index
        while end < len(tokens) and (tokens[end].word in vocabulary.content or tokens[end].word in vocabulary.glue):
            end += 1
        start, stop = index, end
        while start < stop and tokens[start].word in patterns.joiners:
            start += 1  # "and the red cube": the joiner belongs between phrases
        while stop > start and tokens[stop - 1].word in vocabulary.glue - patterns.ones:
            stop -= 1  # "the red cube and": the trailing "and" joins the next clause's words, not this phrase
        if any(t.word in vocabulary.heads for t in tokens[start:stop]):
            stop = _with_position(tokens, stop)
            spans.append((start, stop))
        index = max(end, stop)
    return spans


def _with_position(tokens: Sequence[_Token], stop: int) -> int:
    """A phrase's end, taking a position that follows it ("the cube on the left"): a position is no direction."""
    rest = " ".join(t.word for t in tokens[stop : stop + 5])
    found = _patterns().side.match(rest)
    return stop + len(found.group().split()) if found else stop


def _scanned_mentions(
    clause: str, tokens: Sequence[_Token], spans: Sequence[tuple[int, int]], world: WorldState
) -> tuple[Mention, ...]:
    """The object phrases of a clause the grammar did not parse, grounded; "A or B" names one of them."""
    mentions: list[Mention] = []
    patterns = _patterns()
    gap_from = 0
    for start, stop in spans:
        gap = clause[gap_from : tokens[start].start]
        excluded = bool(patterns.negated.search(gap)) or (
            gap_from > 0 and any(pattern.search(gap) for pattern in patterns.excepts)
        )
        phrase = clause[tokens[start].start : tokens[stop - 1].end]
        alternatives = [p for p in re.split(r"\s+or\s+", phrase) if p.strip()]
        if len(alternatives) > 1:  # "the red or the green cube": either one
            ids = {i for part in alternatives for m in _ground(part, world, excluded=False) for i in m.ids}
            mentions.append(Mention(phrase=phrase, ids=tuple(sorted(ids)), excluded=excluded))
        else:
            mentions += _ground(phrase, world, excluded=excluded)
        gap_from = tokens[stop - 1].end
    return _described(clause, tokens, spans, mentions, world)


_LOCATING = frozenset({"on", "in", "inside", "at", "on top of"})
"""Between two object phrases ("the tag ON the shelf"): the second may say where the first is."""


def _described(
    clause: str,
    tokens: Sequence[_Token],
    spans: Sequence[tuple[int, int]],
    mentions: list[Mention],
    world: WorldState,
) -> tuple[Mention, ...]:
    """ "the cube WHICH IS on the left of the red cube": a phrase, a relative pronoun, then another phrase that
    says which one the first is. Where the whole grounds to one of the first phrase's matches, the first names
    that one, and the second is named only to say which (not required). "tag l4 on shelf a", where the world
    has the tag on the shelf: the shelf only says where the tag is (not required either)."""
    if len(spans) != len(mentions):
        return tuple(mentions)  # an "A or B" list grounded as one: no span-by-span reading
    relative = _patterns().relative
    where = {o.id: {o.supported_by, o.inside} for o in world.objects}
    for index in range(len(spans) - 1):
        (start, stop), (_, after_stop) = spans[index], spans[index + 1]
        gap = clause[tokens[stop - 1].end : tokens[spans[index + 1][0]].start]
        first, then = mentions[index], mentions[index + 1]
        if gap.strip() in _LOCATING and len(first.ids) == 1 and len(then.ids) == 1 and not first.excluded:
            if then.ids[0] in where.get(first.ids[0], set()):  # "tag l4 ON SHELF A": where the tag is
                mentions[index + 1] = replace(then, required=False)
            continue
        if not relative.search(gap) or mentions[index].excluded:
            continue
        whole = match_objects(clause[tokens[start].start : tokens[after_stop - 1].end], world).ids
        if len(whole) == 1 and whole[0] in mentions[index].ids and len(mentions[index].ids) > 1:
            mentions[index] = replace(mentions[index], ids=whole)
            mentions[index + 1] = replace(mentions[index + 1], required=False)
    return tuple(mentions)


def _verbs(
    tokens: Sequence[_Token], spans: Sequence[tuple[int, int]], lex: Lexicon, phrases: dict[str, frozenset[str]]
) -> tuple[tuple[str, ...], frozenset[ActionVerb], frozenset[str]]:
    """The verb phrases outside object phrases, longest first, and the actions and skills they ask for."""
    meanings = verb_meanings(lex)
    known = sorted({*meanings, *phrases}, key=lambda p: (-len(p.split()), p))
    inside = {i for start, stop in spans for i in range(start, stop)}
    words = [t.word for t in tokens]
    determiners = set(lex.determiners)
    taken: set[int] = set()
    found: list[tuple[int, str]] = []
    for phrase in known:
        parts = phrase.split()
        for at in range(len(words) - len(parts) + 1):
            cover = set(range(at, at + len(parts)))
            if at > 0 and words[at - 1] in determiners:
                continue  # "a touch", "the push": a noun, not an action the task asks for
            if words[at : at + len(parts)] == parts and not cover & (inside | taken):
                taken |= cover
                found.append((at, phrase))
    found.sort()
    actions = frozenset(a for _, p in found for a in meanings.get(p, ()))
    skills = {s for _, p in found for s in phrases.get(p, ())}
    nouns = _phrase_nouns(phrases, lex)
    for at, word in enumerate(words):  # "snap one photo there": a photo is what take_photo makes
        if at not in inside:
            skills.update(nouns.get(word, nouns.get(word.removesuffix("s"), ())))
    return tuple(p for _, p in found), actions, frozenset(skills)


def _phrase_nouns(phrases: dict[str, frozenset[str]], lex: Lexicon) -> dict[str, frozenset[str]]:
    """The noun of each skill phrase of the form "<verb> a/the <noun> [of|on|from]" ("take a photo of": photo)
    -> the skills that claim it: a clause that names it asks for one of them, whatever its verb."""
    determiners = set(lex.determiners)
    glue = {w for relation in lex.relations.get("from", ()) for w in relation.split()} | set(lex.modifier_relations)
    table: dict[str, set[str]] = {}
    for phrase, skills in phrases.items():
        words = phrase.split()
        while words and words[-1] in glue:
            words.pop()
        if len(words) >= 3 and words[-2] in determiners and words[-1].isalpha():
            table.setdefault(words[-1], set()).update(skills)
    return {noun: frozenset(skills) for noun, skills in table.items()}


_NOT_A_SIDE = frozenset({"now", "away", "here", "there"})
"""What follows "right" when it means at once or exactly ("right now", "right there"), not a side."""


def _directions(
    tokens: Sequence[_Token], spans: Sequence[tuple[int, int]], verbs: Sequence[str], lex: Lexicon
) -> tuple[str, ...]:
    """The directions a scanned clause says: direction phrases that are not a position, a relation or a particle."""
    inside = {i for start, stop in spans for i in range(start, stop)}
    particles = set(lex.function_words)  # "back", "away": directions only after a push verb ("push it back")
    pushed = bool(set(verbs) & set(lex.verbs.get("push", ())))
    words = [t.word for t in tokens]
    found: list[tuple[int, str]] = []
    taken: set[int] = set()
    for phrase, direction in lex.direction_phrases():
        parts = phrase.split()
        for at in range(len(words) - len(parts) + 1):
            cover = set(range(at, at + len(parts)))
            if words[at : at + len(parts)] != parts or cover & (inside | taken):
                continue
            after = words[at + len(parts)] if at + len(parts) < len(words) else ""
            if after == "of":
                continue  # "left of the plate": a relation, not a way to move
            starts = {",", *(v.split()[0] for v in verbs)}  # "Right, follow me": a request follows
            if phrase == "right" and (after in _NOT_A_SIDE or (at == 0 and after in starts)):
                continue  # "right now", "right away", "Right, follow me": no side at all
            if set(words[max(0, at - 3) : at]) & _patterns().extremes:
                continue  # "the block furthest to the left": a position, not a way to move
            if phrase in particles and not pushed:
                continue  # "put it back on the plate", "put the cubes away": a particle, not a way to push
            taken |= cover
            found.append((at, direction))
    found.sort()
    return tuple(dict.fromkeys(d for _, d in found))
