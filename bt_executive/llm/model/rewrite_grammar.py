"""The rewrite grammar: the robot's controlled language as a llama.cpp GBNF grammar, built per robot and world.

In ``rewrite`` mode a local model does not write skill calls: it restates a
task the task grammar could not parse in sentences the task grammar can, and
the deterministic planner plans those. This module writes the language those
sentences are in, from the same words the grammar reads: the lexicon's verbs
(only for forms some skill of this registry serves), the actions the
registry's skills declare (through the lexicon's ``actions``) and their own
``language.phrases``, the world's object words (colour, category, id) and
region names, the lexicon's directions, and amounts in the units the skills'
parameters take. A reply constrained by it (llama.cpp's ``grammar`` request
field) always has the shape::

    root    ::= clause (" then " clause){0,2}
    clause  ::= put-verb " " object " " ("on" | "in") " " object
              | push-verb " " object " " direction [" " amount]
              | action-verb [" " object | " " region] [" " amount]
              | action-verb " " object " from up close"        (a task asking for a close look)
              | action-verb " the " option " on " object       (an option the task says: "the qr")
              | list-verb " " places [" " amount]              (the places it lists, for a patrol)
              | ... | "go home"
    object  ::= "the red cube" | "the plate" | "all the cubes" | ...

The grammar is held as data (``RewriteGrammar.rules``), rendered to GBNF and
sampled from the same data, so a test can check that every sentence it allows
parses with the task grammar.
"""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from bt_executive.llm.language.intents import IntentAction
from bt_executive.llm.language.lexicon import Lexicon, load_lexicon
from bt_executive.llm.language.noun_phrases import numbers, phrase_words
from bt_executive.llm.language.quantities import COUNT, unit_kind
from bt_executive.llm.language.task_grammar import TaskNotUnderstood, asks_from_near, parse_task
from bt_executive.llm.model.faithful_details import options_told, said_between, said_words
from bt_executive.llm.model.task_reading import TaskReading, read_task
from bt_executive.skills.manifest import ActionVerb, Role
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import WorldState

MAX_CLAUSES = 3
"""The most clauses a rewrite may have: the eval's longest tasks have three, and a small model loops past that."""

UNIT_WORDS: dict[str, tuple[str, ...]] = {
    "length": ("cm", "mm", "metres"),
    "time": ("seconds", "minutes"),
    "angle": ("degrees",),
    "count": ("times",),
}
"""How a rewrite spells an amount of each kind a skill parameter takes (words the quantities reader knows)."""

_FORM_SHAPES: dict[str, str] = {
    "pick": "object",
    "put": "object-on-object",
    "stack": "object-onto-object",
    "push": "object-direction",
    "pour": "object-into-object",
    "tap": "object",
    "open": "object",
    "close": "object",
}
"""What follows each form's verb (``task_grammar.GRAMMAR``'s forms)."""


@dataclass(frozen=True)
class Ref:
    """A reference to another rule of the grammar."""

    name: str


@dataclass(frozen=True)
class Chars:
    """One character of a class, as GBNF writes it (``[0-9]``)."""

    spec: str

    def sample(self, rng: random.Random) -> str:
        """One character of the class (only ``a-b`` ranges and single characters are used here)."""
        choices: list[str] = []
        spec = self.spec
        i = 0
        while i < len(spec):
            if i + 2 < len(spec) and spec[i + 1] == "-":
                choices += [chr(c) for c in range(ord(spec[i]), ord(spec[i + 2]) + 1)]
                i += 3
            else:
                choices.append(spec[i])
                i += 1
        return rng.choice(choices)


Symbol = str | Ref | Chars
Alternative = tuple[Symbol, ...]


@dataclass(frozen=True)
class RewriteGrammar:
    """The controlled language of one robot in one world: named rules of alternatives, ``root`` first."""

    rules: dict[str, tuple[Alternative, ...]]

    @property
    def says_anything(self) -> bool:
        """Whether any command is left (a task asking only for what no skill does narrows them all away)."""
        return "root" in self.rules

    def gbnf(self) -> str:
        """The grammar as llama.cpp's GBNF text (one rule a line)."""
        return "\n".join(f"{name} ::= {render_alternatives(alts)}" for name, alts in self.rules.items()) + "\n"

    def sample(self, rng: random.Random, rule: str = "root") -> str:
        """One sentence the grammar allows, chosen at random: for tests that every one of them parses."""
        return "".join(self._expand(symbol, rng) for symbol in rng.choice(self.rules[rule]))

    def _expand(self, symbol: Symbol, rng: random.Random) -> str:
        if isinstance(symbol, Ref):
            return self.sample(rng, symbol.name)
        if isinstance(symbol, Chars):
            return symbol.sample(rng)
        return symbol

    def phrases(self, rule: str) -> tuple[str, ...]:
        """The literal alternatives of a rule of literals (verbs, objects): what the prompt may list."""
        return tuple("".join(s for s in alt if isinstance(s, str)) for alt in self.rules.get(rule, ()))


def render_alternatives(alternatives: Iterable[Alternative]) -> str:
    """``"a" b | "c"``: alternatives in GBNF, literals JSON-quoted (GBNF's escapes are JSON's)."""
    return " | ".join(" ".join(_render(s) for s in alt) or '""' for alt in alternatives)


def _render(symbol: Symbol) -> str:
    if isinstance(symbol, Ref):
        return symbol.name
    if isinstance(symbol, Chars):
        return f"[{symbol.spec}]"
    return json.dumps(symbol)


@dataclass(frozen=True)
class Focus:
    """What a task names (``task_reading``), to narrow the language to: a rewrite that strays is refused anyway.

    A faithful plan acts only on objects the task names, with verbs the task's verbs allow, in the
    directions it says (``faithfulness``), so a language without the others loses no faithful rewrite and
    leaves a small model fewer wrong words to choose. An empty field narrows nothing."""

    objects: frozenset[str] = frozenset()
    actions: frozenset[ActionVerb] = frozenset()
    directions: frozenset[str] = frozenset()
    amounts: tuple[str, ...] | None = None
    """The amounts as the task says them ("5 centimetres"); None: any amount, (): none."""
    verbs: frozenset[str] | None = None
    """The verb phrases the task says; None: every verb. Given, each form keeps its plain verb ("put") and the
    task's own ("shove" for a push), and the other verb phrases only those the task says where it says one:
    verbs of one form parse alike, so a small model is not left to choose among forty-three ways to put."""
    clauses: int = MAX_CLAUSES
    """How many commands a rewrite may chain: the task's clauses that ask or name something, or its verbs where
    it says more ("go near the dishwasher and wait there": two), at most three."""
    home: bool = True
    """Whether "go home" may be said: a step that only brings the arm home is faithful only to a task saying so."""
    listed: tuple[str, ...] = ()
    """The places the task names, in its order, when it names two or more ("patrol: corridor_b -> pump_house"):
    said as one list ("the corridor b and the pump house") for a skill that takes several."""
    near: bool = False
    """Whether a clause asks for a look from near by ("a close-up picture of"): "... from up close" may be said."""
    options: tuple[str, ...] = ()
    """The options of the skills' parameters the task says ("the barcode", "on eco"), as the rewrite says them."""
    skills: frozenset[str] = frozenset()
    """The skills the clauses the grammar parses ask for by phrases of their own or by what they say of the robot
    ("still docked?": an undock): each keeps a phrase of its own, whatever verbs the task says."""


def task_focus(task: str, world: WorldState, registry: SkillRegistry, *, reading: TaskReading | None = None) -> Focus:
    """The objects (ids), actions and directions ``task`` names, read as the faithfulness check reads it
    (``reading``: that reading, already made)."""
    reading = reading if reading is not None else read_task(task, world, registry)
    named = {i for mention in reading.mentions if not mention.excluded for i in mention.ids}
    amounts = tuple(dict.fromkeys(q.text for q in reading.amounts))
    # A skill the task asks for by a phrase of its own ("a photo of ...") is asked for with its actions too.
    asked = {a for skill in reading.skills if skill in registry for a in registry.get(skill).actions}
    homing = [c.intent is not None and c.intent.action is IntentAction.HOME for c in reading.clauses]
    asking = sum(
        1
        for c, home in zip(reading.clauses, homing, strict=True)
        if home or c.actions or c.skills or any(not m.excluded for m in c.mentions)
    )
    places = [i for m in reading.mentions if not m.excluded and len(m.ids) == 1 for i in m.ids if i in world.regions]
    listed = tuple(dict.fromkeys(places))
    return Focus(
        frozenset(named),
        frozenset(reading.actions) | asked,
        frozenset(reading.directions),
        (*amounts, *_counted(reading, amounts)),
        frozenset(reading.verbs),
        min(max(asking, len(set(reading.verbs)), 1) + _between_repeats(reading), MAX_CLAUSES),
        any(homing),
        listed if len(listed) > 1 else (),
        any(asks_from_near(c.text) for c in reading.clauses),
        _options_said(reading, registry),
        frozenset(s for c in reading.clauses if c.intent is not None for s in c.skills),  # parsed, not scanned
    )


def _between_repeats(reading: TaskReading) -> int:
    """The commands a step done in between repeats adds ("tap it twice and wait 2 s in between": tap, wait,
    tap is three commands for two clauses)."""
    if not any(said_between(c) for c in reading.clauses):
        return 0
    return max((int(q.value) - 1 for q in reading.amounts if q.kind == COUNT), default=0)


def _counted(reading: TaskReading, amounts: tuple[str, ...]) -> tuple[str, ...]:
    """ "take three photos of the valve": a number before a plural noun, said as a count ("three times")
    where the task says no amount of its own there."""
    found = []
    for clause in reading.clauses:
        words = clause.text.replace(",", " ").split()
        for number, noun in itertools.pairwise(words):
            if number in numbers() and noun.endswith("s") and not any(number in a.split() for a in amounts):
                found.append(f"{number} times")
    return tuple(dict.fromkeys(found))


def _options_said(reading: TaskReading, registry: SkillRegistry) -> tuple[str, ...]:
    """The options (string enum values but the default) of a parameter of some skill here that the task says
    outside its object phrases: "scan the BARCODE on label l4", "vacuum it on the ECO setting"."""
    said = said_words(reading)
    found = [
        " ".join(value.split("_"))
        for manifest in registry
        for param in (manifest.parameters or {}).get("properties", {})
        for value in options_told(manifest, param, said)
    ]
    return tuple(dict.fromkeys(found))


def rewrite_grammar(
    registry: SkillRegistry,
    world: WorldState,
    lexicon: Lexicon | None = None,
    *,
    focus: Focus = Focus(),
    strict: bool = False,
) -> RewriteGrammar:
    """The controlled language for ``registry``'s skills in ``world`` (see the module docstring), narrowed to
    what one task names when ``focus`` says it.

    ``strict`` (``restatement_search``): no object or place the task does not name, even where it names
    none (a prompt falls back to every object, so a model has something to say), one verb per form and one
    phrase per object (words that plan alike: a search tries each meaning once)."""
    lex = lexicon or load_lexicon()
    declared = {verb for manifest in registry for verb in manifest.actions}
    wanted = focus.actions or frozenset(declared)
    rules: dict[str, tuple[Alternative, ...]] = {}
    clauses: list[Alternative] = []
    if strict:
        objects = _object_phrases(world, lex, focus.objects, one_each=True) if focus.objects else []
    else:
        objects = _object_phrases(world, lex, focus.objects) or _object_phrases(world, lex, frozenset())
    rules["object"] = tuple((p,) for p in objects)
    form_verbs: set[str] = set()
    for intent, shape in _FORM_SHAPES.items():
        if not (declared & wanted).intersection(lex.intent_actions.get(intent, ())):
            continue  # no skill here serves the form, or the task asks for none of it: it would be refused
        verbs = [v for v in lex.verbs.get(intent, ()) if v not in lex.requests.wish_verbs]  # parse, but copy no command
        if not verbs:
            continue
        form_verbs.update(verbs)  # every one: none of them is an action phrase of its own
        if focus.verbs is not None:
            plain = intent if intent in verbs else verbs[0]
            verbs = [v for v in verbs if v == plain or v in focus.verbs]
        if strict:
            verbs = verbs[:1]
        verb_rule = f"{intent}-verb"
        rules[verb_rule] = tuple((v,) for v in verbs)
        clauses += _form_clauses(Ref(verb_rule), shape)
    amounts = _amount_kinds(registry) if focus.amounts is None else ["said"] if focus.amounts else []
    if focus.amounts:
        said = [*focus.amounts, " ".join(focus.amounts)] if len(focus.amounts) > 1 else [*focus.amounts]
        rules["amount"] = tuple((a,) for a in said)  # the task's own words: no other amount is faithful
    elif amounts:
        rules["amount"] = ((Ref("number"), " ", Ref("unit")),)
        rules["number"] = ((Chars("1-9"),), (Chars("1-9"), Chars("0-9")), (Chars("1-9"), Chars("0-9"), Chars("0-9")))
        rules["unit"] = tuple((w,) for kind in amounts for w in UNIT_WORDS[kind])
    if "push-verb" in rules:
        rules["direction"] = tuple((d,) for d in lex.directions if not focus.directions or d in focus.directions)
    if amounts:  # "pour the green cube into the bowl a quarter turn", "put it on the plate 5 mm": the grammar
        # reads an amount after any form and binds it to the parameter of its kind
        clauses += [(*clause, " ", Ref("amount")) for clause in list(clauses)]
    actions = _action_phrases(registry, declared & wanted, lex, form_verbs)
    if focus.verbs is not None and focus.verbs & set(actions):
        kept = [a for a in actions if a in focus.verbs]
        # An action the task asks for with no verb of its own ("go there, snap one photo, come back": INSPECT
        # by the photo's noun) keeps one phrase per skill and per action, as a task with no verb does.
        # Only phrases that ask for nothing but such actions: "patrol" (NAVIGATE, INSPECT) does not stand in for
        # a photo beside "go to".
        meaning = _phrase_actions(registry, lex)
        served = {v for a in kept for v in meaning.get(a, ())}
        unsaid = (declared & wanted) - served
        extra = _action_phrases(registry, unsaid, lex, form_verbs, first_only=True) if unsaid else []
        actions = list(dict.fromkeys([*kept, *(a for a in extra if meaning.get(a, set()) <= unsaid)]))
    elif focus.verbs is not None:  # no verb of the task's among them: one phrase per skill and per action
        actions = _action_phrases(registry, declared & wanted, lex, form_verbs, first_only=True)
    if focus.verbs is not None:  # a skill a clause asks for by no verb ("still on the charger?": an undock)
        own = [m.language.phrases for m in registry if m.id in focus.skills]
        actions += [p[0] for p in own if p and not set(p) & set(actions) and p[0] not in form_verbs]
    if actions:
        places = [*objects, *(_region_phrases(world, focus.objects) if focus.objects or not strict else [])]
        rules["place"] = tuple((p,) for p in places)
        amount = f" {_sentence(rules['amount'][0])}" if amounts else None
        skill_phrases = {p for manifest in registry for p in manifest.language.phrases}
        shapes: list[tuple[str, Alternative, list[str]]] = [("act-bare", (), [""])]
        with_person, with_destination = _person_phrases(registry), _destination_phrases(registry)
        if with_person & set(actions):  # "come along with me": some phrases need their person
            shapes.append(("act-me", (" me",), [" me"]))
        if places:  # none in a strict language of a task that names no object or place
            shapes.append(("act-place", (" ", Ref("place")), [f" {p}" for p in places[:3]]))
            if focus.near:  # "a close-up picture of the valve": the grammar approaches it first
                shapes.append(("act-near", (" ", Ref("place"), " from up close"), [f" {places[0]} from up close"]))
                if amount is not None:  # "from close, 30 cm distance": approached to that distance
                    away: Alternative = (" ", Ref("place"), " from ", Ref("amount"), " away")
                    shapes.append(("act-away", away, [f" {places[0]} from{amount} away"]))
            for n, option in enumerate(focus.options):  # "read the barcode on label l4", "vacuum the hall on eco"
                said_first: Alternative = (" the ", option, " on ", Ref("place"))
                said_last: Alternative = (" ", Ref("place"), " on ", option)
                shapes.append((f"act-option-{n}", said_first, [f" the {option} on {places[0]}"]))
                shapes.append((f"act-on-option-{n}", said_last, [f" {places[0]} on {option}"]))
        if len(places) > 1 and with_destination & set(actions):  # "clear the table into the bin"
            into: Alternative = (" ", Ref("place"), " into ", Ref("place"))
            shapes.append(("act-place-into", into, [f" {places[0]} into {places[1]}"]))
        if focus.listed:  # "patrol the corridor b, the pump house and the boiler room"
            listing = _listing([f"the {' '.join(phrase_words(r))}" for r in focus.listed])
            rules["places"] = ((listing,),)
            shapes.append(("act-places", (" ", Ref("places")), [f" {listing}"]))
            if amount is not None:
                shapes.append(("act-places-amount", (" ", Ref("places"), " ", Ref("amount")), [f" {listing}{amount}"]))
        if amount is not None:
            shapes.append(("act-amount", (" ", Ref("amount")), [amount]))
            if places:
                tail: Alternative = (" ", Ref("place"), " ", Ref("amount"))
                shapes.append(("act-place-amount", tail, [f" {places[0]}{amount}"]))
        takes_lists = _list_phrases(registry)
        for rule, tail, probes in shapes:
            # A verb phrase joins a shape only when the task grammar reads it so ("look at" needs an object),
            # and a list of places only a skill's own phrase for a list ("patrol", not "go to": each place once).
            fitting = [a for a in actions if all(_parses(a + probe, skill_phrases) for probe in probes)]
            if rule.startswith("act-places"):
                fitting = [a for a in fitting if a in takes_lists]
            if rule == "act-place-into":
                fitting = [a for a in fitting if a in with_destination]
            if rule == "act-me":  # only the phrases that need "me": the rest are said bare
                bare = rules.get("act-bare", ())
                fitting = [a for a in fitting if a in with_person and (a,) not in bare]
            if fitting:
                rules[rule] = tuple((p,) for p in fitting)
                clauses.append((Ref(rule), *tail))
    if focus.home and any("at_home" in effect for manifest in registry for effect in manifest.effects):
        clauses.append(("go home",))
    rules["clause"] = tuple(clauses)
    root: list[Alternative] = []
    for n in range(1, min(focus.clauses, MAX_CLAUSES) + 1):
        chain: list[Symbol] = [Ref("clause")]
        for _ in range(n - 1):
            chain += [" then ", Ref("clause")]
        root.append(tuple(chain))
    return RewriteGrammar(_pruned({"root": tuple(root), **rules}))


def _list_phrases(registry: SkillRegistry) -> set[str]:
    """The own phrases of the skills that take a list (an array parameter: a patrol's waypoints)."""
    found: set[str] = set()
    for manifest in registry:
        properties = (manifest.parameters or {}).get("properties", {})
        if any(isinstance(schema, dict) and schema.get("type") == "array" for schema in properties.values()):
            found.update(manifest.language.phrases)
    return found


def _destination_phrases(registry: SkillRegistry) -> set[str]:
    """The own phrases of the skills that take an object and where it goes beside their own verb (a clear_table's
    table and destination): "clear the kitchen table into the dishwasher"."""
    return {
        p for m in registry if {Role.OBJECT, Role.DESTINATION} <= set(m.roles().values()) for p in m.language.phrases
    }


def _person_phrases(registry: SkillRegistry) -> set[str]:
    """The own phrases of the skills that act with a person (a ``person`` role: a follow)."""
    return {p for m in registry if Role.PERSON in m.roles().values() for p in m.language.phrases}


def _listing(phrases: list[str]) -> str:
    """ "the a, the b and the c"."""
    return f"{', '.join(phrases[:-1])} and {phrases[-1]}" if len(phrases) > 1 else "".join(phrases)


def _pruned(rules: dict[str, tuple[Alternative, ...]]) -> dict[str, tuple[Alternative, ...]]:
    """The rules without empty ones and the alternatives that need them (a world with no objects: no object)."""
    while True:
        empty = {name for name, alternatives in rules.items() if not alternatives}
        if not empty:
            return rules
        rules = {
            name: tuple(a for a in alternatives if not any(isinstance(s, Ref) and s.name in empty for s in a))
            for name, alternatives in rules.items()
            if name not in empty
        }


def _sentence(alternative: Alternative) -> str:
    """A sentence of one alternative, with "2 cm" for a generic amount: a probe for the task grammar."""
    return "".join(s if isinstance(s, str) else "2 cm" if s == Ref("number") else "" for s in alternative)


def _form_clauses(verb: Ref, shape: str) -> list[Alternative]:
    obj = Ref("object")
    if shape == "object":
        return [(verb, " ", obj)]
    if shape == "object-on-object":
        return [(verb, " ", obj, " on ", obj), (verb, " ", obj, " in ", obj)]
    if shape == "object-onto-object":
        return [(verb, " ", obj, " on ", obj)]
    if shape == "object-into-object":
        return [(verb, " ", obj, " into ", obj)]
    return [(verb, " ", obj, " ", Ref("direction"))]


def _object_phrases(world: WorldState, lex: Lexicon, only: frozenset[str], *, one_each: bool = False) -> list[str]:
    """How a rewrite names the world's objects (those in ``only``, if any are): "the red cube", "the plate",
    "the m7", "all the cubes". A phrase that names several objects here ("the cube" among three) is left
    out: the grammar planner would refuse it as ambiguous. No "it": every clause names its object, so a
    pronoun never refers to nothing. "all the plates" only where there are two plates or more. ``one_each``:
    the first phrase of each object only."""
    phrases: list[str] = []
    kinds = Counter(obj.category for obj in world.objects)
    looks = Counter((obj.colour, obj.category) for obj in world.objects)
    for obj in world.objects:
        if only and obj.id not in only:
            continue
        category = " ".join(phrase_words(obj.category))
        colour = " ".join(phrase_words(obj.colour))
        ident = " ".join(phrase_words(obj.id))
        named = [f"{colour} {category}".strip() if looks[(obj.colour, obj.category)] == 1 else ""]
        named += [category if kinds[obj.category] == 1 else ""]
        named += [ident if ident not in (f"{colour} {category}".strip(), category) else ""]
        phrases += [f"the {words}" for words in named if words][: 1 if one_each else None]
        plural = f"{category}s"
        every = {o.id for o in world.objects if o.category == obj.category}
        if plural in lex.categories.get(obj.category, ()) and len(every) > 1 and (not only or every <= only):
            phrases.append(f"all the {plural}")
    phrases += [f"the {' '.join(phrase_words(d))}" for d in world.drawers if not only or d in only]
    return list(dict.fromkeys(phrases))


def _parses(sentence: str, skill_phrases: set[str]) -> bool:
    try:
        parse_task(sentence, skill_phrases)
    except TaskNotUnderstood:
        return False
    return True


def _region_phrases(world: WorldState, only: frozenset[str]) -> list[str]:
    return [f"the {' '.join(phrase_words(r))}" for r in world.regions if not only or r in only]


def _action_phrases(
    registry: SkillRegistry, declared: set[ActionVerb], lex: Lexicon, form_verbs: set[str], *, first_only: bool = False
) -> list[str]:
    """Verb phrases for what the skills declare beyond the forms: the lexicon's for their actions, their own
    (``first_only``: the first of each action's and of each skill's, not every way of saying it)."""
    own = [[p for p in manifest.language.phrases if p not in form_verbs] for manifest in registry]
    said = [[p for p in lex.actions.get(verb, ()) if p not in form_verbs] for verb in sorted(declared)]
    said += [phrases for manifest, phrases in zip(registry, own, strict=True) if declared & set(manifest.actions)]
    return list(dict.fromkeys(p for phrases in said for p in (phrases[:1] if first_only else phrases)))


def _phrase_actions(registry: SkillRegistry, lex: Lexicon) -> dict[str, set[ActionVerb]]:
    """The actions each verb phrase asks for: the lexicon's for its actions, a skill's own for the skill's."""
    found: dict[str, set[ActionVerb]] = {}
    for verb, phrases in lex.actions.items():
        for phrase in phrases:
            found.setdefault(phrase, set()).add(verb)
    for manifest in registry:
        for phrase in manifest.language.phrases:
            found.setdefault(phrase, set()).update(manifest.actions)
    return found


def _amount_kinds(registry: SkillRegistry) -> list[str]:
    """The kinds of amount (length, time, ...) some skill parameter here takes, in ``UNIT_WORDS``' order."""
    kinds = {unit_kind(m.parameter_schema(p)) for m in registry for p in m.parameter_names()}
    return [k for k in UNIT_WORDS if k in kinds]
