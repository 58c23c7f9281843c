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
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Sequence
from enum import StrEnum
from functools import cache
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from bt_executive.llm.grounding.object_matching import expand_phrase
from bt_executive.llm.language.clause_order import reorder_clauses
from bt_executive.llm.language.lexicon import Lexicon, load_lexicon
from bt_executive.llm.language.quantities import COUNT, Quantity, find_quantities, unit_said
from bt_executive.llm.language.spoken import strip_enumerators, tidy
from bt_executive.llm.plan import PlannerError

GRAMMAR: tuple[str, ...] = (
    "pick (up) the X",
    "pick (up) the X (and|then|,) (put|place) (it) on|in (the) Y",
    "put|place the X on|onto|in|into (the) Y",
    "stack the X on (top of) the Y",
    "push the X forward|back|left|right|away from you|towards you",
    "pour the X into the Y",
    "tap|press|poke|touch the X",
    "open|close the D",
    "(go) home",
)
"""Every form the deterministic planner understands (verb synonyms in config/lexicon.yaml); X may be a
list ("the red and the blue cube") or quantified ("all the cubes"); chain forms with 'then', ',' or 'and'."""

LLM_PLANNER_HINT = "For free-form tasks use an LLM profile (--planner auto falls back to one, or --planner local)"

Direction = Literal["forward", "back", "left", "right"]


class IntentAction(StrEnum):
    """What one clause of a task asks for."""

    PICK = "pick"
    PUT = "put"  # pick (unless held) then place_on
    STACK = "stack"
    PUSH = "push"
    POUR = "pour"
    TAP = "tap"
    OPEN = "open"
    CLOSE = "close"
    HOME = "home"
    ACT = "act"  # any other verb: the skill is chosen from the manifests by the verb and the objects


class Condition(BaseModel):
    """What an "if" before a clause asks of the world ("if the drawer is closed, open it"): the planner
    checks it in the world as its steps leave it, and drops the clause when it does not hold."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    subject: str | None = Field(description="the object phrase it is about; None: the robot's gripper")
    state: Literal["open", "closed", "holding", "empty"]
    clause: str = Field(description="the condition as written (normalised), for notes and errors")


class Intent(BaseModel):
    """One clause of a task, with its object phrases in the user's words.

    ``object`` is None for a pronoun ("put it on the plate"): the object of the
    previous clause, or the one in the gripper. It may name several objects
    ("the red and the blue cube", "all the cubes"); the planner expands those.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    action: IntentAction
    clause: str = Field(description="the clause as written (normalised), for notes and errors")
    object: str | None = None
    target: str | None = None
    relation: Literal["on", "in"] | None = None
    direction: Direction | None = None
    tower: bool = Field(default=False, description="stack the objects on each other (no target named)")
    excluding: str | None = Field(default=None, description="objects left out of a plural ('except the red one')")
    top: str | None = Field(default=None, description="the object a tower ends with ('with the red cube on top')")
    verb: str | None = Field(default=None, description="the verb phrase as said ('go to', 'fetch')")
    bare: bool = Field(default=False, description="the act verb stands alone: nothing named ('undock', 'wait')")
    quantities: tuple[Quantity, ...] = Field(default=(), description="amounts the clause names ('10 cm', 'twice')")
    joined: str | None = Field(
        default=None,
        description="object and target as one phrase ('the label on the shelf'), for a skill that takes no target",
    )
    order: Literal["left_to_right", "right_to_left", "nearest_first", "farthest_first"] | None = Field(
        default=None, description="the order to take the objects of a plural in ('going from your left to your right')"
    )
    condition: Condition | None = Field(default=None, description="the 'if' the clause is said under, if any")


class TaskNotUnderstood(PlannerError):
    """A task (or one clause of it) is outside the grammar."""

    def __init__(self, task: str, clause: str, verbs: Sequence[str] = ()) -> None:
        self.task = task
        self.clause = clause
        where = "" if clause == task else f" (the part {clause!r})"
        if verbs:  # what this robot's skills are asked with, not the tabletop's forms
            forms = f"'<verb> the X (on|in|to the Y)' with this robot's verbs: {', '.join(verbs)}"
        else:
            forms = "; ".join(GRAMMAR)
        self.forms = f"it reads {forms}"
        super().__init__(
            f"the task grammar cannot parse {task!r}{where}. It understands: {forms}; "
            f"chained with 'then', ',' or 'and'. {LLM_PLANNER_HINT}."
        )

    def for_robot(self, verbs: Sequence[str]) -> TaskNotUnderstood:
        """The same error, listing the verbs of the robot's own skills."""
        return TaskNotUnderstood(self.task, self.clause, verbs)


_ARTICLE = re.compile(r"^(?:the|a|an|that|this)\s+")
_PRONOUN = frozenset({"it", "that", "this", "them", "one", "those", "these", "both of them", "all of them", "top"})
"""Words that stand for an object named before ("top": "then put the green one on top")."""
_ON = r"(?P<rel>on top of|onto|on to|on|into|in to|inside of|inside|in|upon|atop|over to|over|to)"
_IN_WORDS = frozenset({"in", "into", "in to", "inside", "inside of"})
# Words that name a destination but not a relation ("move the cube to the bowl"): the target decides.
_NEUTRAL_WORDS = frozenset({"to", "over", "over to"})
# Where a pick takes the object from ("out of the bowl", "off the plate"): kept with the object phrase,
# whose grounding checks it ("from the table" checks nothing: everything stands on it).
_FROM = r"(?:\s+(?P<src>(?:from|off of|off|out of)\s+.+?))?"

# The forms, applied to what follows the verb phrase.
_FORMS: dict[IntentAction, re.Pattern[str]] = {
    IntentAction.PICK: re.compile(rf"^(?P<x>.+?)(?:\s+up)?{_FROM}$"),
    IntentAction.PUT: re.compile(rf"^(?:(?P<x>.+?)\s+)?(?:(?:back|down)\s+)*{_ON}\s+(?P<y>.+)$"),
    IntentAction.STACK: re.compile(r"^(?P<x>.+?)(?:\s+up)?\s+(?:on top of|onto|on to|on|upon|atop)\s+(?P<y>.+)$"),
    IntentAction.POUR: re.compile(
        r"^(?:(?:the\s+)?contents\s+of\s+|from\s+)?(?P<x>.+?)\s+(?:into|in to|in|over|onto|on)\s+(?P<y>.+)$"
    ),
    IntentAction.TAP: re.compile(r"^(?:on\s+)?(?P<x>.+)$"),
    IntentAction.OPEN: re.compile(r"^(?P<x>.+?)(?:\s+(?:up|all the way))?$"),
    IntentAction.CLOSE: re.compile(r"^(?P<x>.+?)(?:\s+(?:up|all the way))?$"),
}
# Intents tried in this order when one verb means several ("move the cube left" is a push).
_ORDER = (IntentAction.PUSH, IntentAction.STACK, IntentAction.PUT, IntentAction.POUR, IntentAction.PICK)


class _Compiled:
    """The lexicon turned into the regular expressions the grammar runs (built once per lexicon)."""

    def __init__(self, lex: Lexicon) -> None:
        self.verbs: dict[str, list[IntentAction]] = {}
        for phrase, intent in lex.verb_phrases():
            self.verbs.setdefault(phrase, []).append(IntentAction(intent))
        for intents in self.verbs.values():
            intents.sort(key=lambda i: _ORDER.index(i) if i in _ORDER else len(_ORDER))
        self.verb_re = re.compile(r"^(?P<v>" + "|".join(re.escape(p) for p in self.verbs) + r")(?:\s+(?P<rest>.*))?$")
        self.particles: list[tuple[IntentAction, re.Pattern[str]]] = []
        for intent, forms in lex.particle_verbs.items():
            for form in forms:
                verb, _, particle = (part.strip() for part in form.partition("..."))
                pattern = rf"^{re.escape(verb)}\s+(?P<x>.+?)\s+{re.escape(particle)}$"
                self.particles.append((IntentAction(intent), re.compile(pattern)))
        self.home = re.compile(r"^(?:" + "|".join(f"(?:{p})" for p in lex.home_phrases) + r")$")
        directions = lex.direction_phrases()
        self.direction_of = dict(directions)
        alternatives = "|".join(re.escape(p) for p, _ in directions)
        vague = "|".join(_alternatives(lex.vague_amounts))
        self.push = re.compile(
            rf"^(?P<x>.+?)\s+(?:(?:{vague})\s+)?"
            rf"(?:(?:to|towards|toward)\s+(?:the\s+)?)?(?P<d>{alternatives})(?:\s+(?P<d2>{alternatives}))?"
            rf"(?:\s+(?:{vague}))?$"
        )
        self.lexicon = lex
        self.separator = self.separator_with(frozenset())
        self.put_down = frozenset(lex.put_down_verbs)
        relations = "|".join(_alternatives(lex.unsupported_relations))
        self.unsupported = re.compile(rf"(?:^|\s)(?:{relations})(?:\s|$)")
        # "put the red cube in the bowl and the blue cube on the plate": the verb serves both halves.
        self.gapped = re.compile(
            r"^(?P<v>" + "|".join(re.escape(p) for p in self.verbs) + r")\s+(?P<a>.+?\s+" + _ON + r"\s+.+?)"
            r"(?:\s*,\s*(?:and\s+)?|\s+and\s+)"
            r"(?P<b>(?:the|a|an)\s+.+?\s+(?:on top of|onto|on|into|inside|in|upon)\s+.+)$"
        )
        self.prefix = re.compile(r"^(?:(?:" + "|".join(_alternatives(lex.filler_prefixes)) + r")(?:\s*,)?\s+)+")
        self.suffix = re.compile(r"(?:[\s,]+(?:" + "|".join(_alternatives(lex.filler_suffixes)) + r"))+$")
        # "like a drum" is an aside, "i d like a photo" a wish: no aside right after a wishing word
        self.aside = re.compile(
            r"(?:^|(?<!\bi d)(?<!\bid)(?<!\bwould)(?<!\bshould)\s)(?:"
            + "|".join(_alternatives(lex.asides))
            + r")(?:\s.*)?$"
        )
        self.adverbs = re.compile(r"(?:^|\s)(?:" + "|".join(_alternatives(lex.adverbs)) + r")(?=\s|,|$)")

    @functools.cached_property
    def verb_starts(self) -> frozenset[str]:
        """The first words of the lexicon's verbs and action phrases: what a request starts with."""
        return frozenset(self.lexicon.verb_words() | {p.split()[0] for p, _ in self.lexicon.action_phrases()})

    @functools.cached_property
    def and_nothing(self) -> re.Pattern[str]:
        """ "and" or a comma before a clause that asks for nothing ("get off the charger and stand by"): a break."""
        empty = "|".join(_alternatives(self.lexicon.empty_clauses))
        return re.compile(rf"(?:,|\s+and)\s+(?=(?:{empty})(?:,|$))")

    @functools.cached_property
    def dash_break(self) -> re.Pattern[str]:
        """A dash before a correction, a statement or a verb: a clause break ("follow me - stay 2 m back")."""
        said = ["no", "sorry", "wait", "i mean", "or rather", "i", "i ve", "i m", "i d", "it s", "its", "that s"]
        said += ["thats", "they re", "we re", "you ll", "you re", "stay", "keep", *self.verb_starts]
        alternatives = "|".join(sorted(re.escape(w) for w in said))
        return re.compile(rf"\s*(?:\s[-–]+|—+)\s*(?=(?:{alternatives})\b)")

    @functools.lru_cache(maxsize=16)  # noqa: B019 - one _Compiled per lexicon, and few skill sets
    def separator_with(self, skill_verbs: frozenset[str]) -> re.Pattern[str]:
        """Where a task splits into clauses: 'then', ',' or 'and' before a verb (the lexicon's, and the first
        words of the robot's skill phrases: "..., wait 5 seconds, then ..."). "the red, green and blue cubes"
        is one list."""
        verbs = "|".join(sorted(re.escape(w) for w in self.lexicon.verb_words() | skill_verbs))
        # A comma before politeness starts a clause ("..., please open it"), but not one before an article or
        # a pronoun that politeness may start with ("the robot will", "it will"): "..., the blue one on the plate".
        fillers = {w.split()[0] for w in self.lexicon.filler_prefixes} - set(self.lexicon.determiners)
        fillers -= {"it", "you", "we", "i", "they", "he", "she", "see", "look", "after", "everyone", "folks"}
        leads = "|".join(sorted({re.escape(w) for w in fillers} | set(verbs.split("|"))))
        return re.compile(
            rf"\s*(?:,\s*(?:and\s+)?(?:then\s+)?(?=(?:{leads})\b)|\s+and\s+then\s+|\s+then\s+"
            rf"|\s+(?:and\s+)?after\s+that\s+|\s+(?:and\s+)?afterwards\s+|\s+and\s+(?=(?:{verbs})\b)"
            rf"|,?\s+but\s+(?=(?:{verbs})\b))\s*"
        )


def _alternatives(phrases: list[str]) -> list[str]:
    return [re.escape(p) for p in sorted(phrases, key=len, reverse=True)] or ["(?!)"]


@cache
def _compiled() -> _Compiled:
    return _Compiled(load_lexicon())


def normalise_task(task: str) -> str:
    """Lower case, one space between words, clause punctuation reduced to commas, no final stop; spoken
    fillers, self-corrections and list numbers tidied away (``spoken``)."""
    text = strip_enumerators(task).lower().replace("\u2019", "'")
    text = re.sub(r"(?<![a-z])w/\s*", "with ", text)  # "undock w/ 80 cm clearance"
    # dictation's homophones of "two" before a unit: "tap it too times", "wait for to seconds"
    text = re.sub(
        r"\b(?:too|to)\s+(?=(?:times|seconds?|secs?|minutes?|mins?|cm|centimetres?|centimeters?|photos|pictures|pics"
        r"|shots|snapshots|readings|loops|laps)\b)",
        "two ",
        text,
    )
    # "a close-up shot of", "a close up of": a near look, one word, so "close up" is not read as a verb;
    # "a close-up" alone is a photograph's name
    text = re.sub(r"\bclose[- ]?ups?\b(?=\s+(?:of|from)\b)", "closeup photo", text)
    text = re.sub(r"\bclose[- ]?up\b(?=\s+[a-z]+\s+of\b)", "closeup", text)
    text = re.sub(r"(?<![\d.])\b2\s+(?=the\b)", "to ", text)  # texting's "head over 2 the living room"
    text = re.sub(r"\b(the|a)\s+read\b(?=\s+[a-z])", r"\1 red", text)  # dictation's "the read gauge": red
    # "0.3 metres a second": a rate
    text = re.sub(
        r"\b(metres?|meters?|m|cm|mm|degrees?|deg)\s+(?:an?|for)\s+(second|sec|minute|min|hour)\b", r"\1 per \2", text
    )
    # "go till the kitchen" (till: to), "drive up close to g1" (up to it)
    text = re.sub(r"\b(go|come|drive|walk|head|move|get|roll)\s+(?:till|until)\s+(?=the\b)", r"\1 to ", text)
    text = re.sub(r"\b(go|come|drive|walk|move|get|roll)\s+up\s+close\s+to\b", r"\1 up to", text)
    # a dash is a clause break only before a correction or a statement, or after an opening word ("quick - ");
    # elsewhere it may join a list to what it explains ("both doors - first the front door, ...")
    text = re.sub(r"^(?:quick|ok|okay|right|alright|so|now|listen|hey|oh|oops|right then)\s*[-–—]+\s*", "", text)
    grammar = _compiled()
    text = grammar.dash_break.sub(", ", text)
    text = re.sub(r"\b([a-z][a-z_]*)\s*=\s*(\d+(?:\.\d+)?)\b", r"\2 \1", text)  # "loops=3" as "3 loops"
    text = re.sub(r",?\s*\b([a-z][a-z_]*)\s*=\s*([a-z][a-z0-9_]*)\b", r" with the \2 \1", text)  # "code=barcode"
    if (head := re.match(r"^\s*([a-z]+)\s*:\s+", text)) is not None and head.group(1) in grammar.verb_starts:
        text = f"{head.group(1)} {text[head.end() :]}"  # "patrol: a -> b -> c": the verb of the list after it
    text = re.sub(r"[;:!?]", ",", text)
    text = re.sub(r"\.(?=\s|$)", ",", text)  # a full stop ends a clause; "0.5" keeps its dot
    text = re.sub(r"[\"'()\[\]]", " ", text)
    text = re.sub(r"\s+", " ", text).strip(" ,")
    text = re.sub(r"\s*,(?:\s*,)*\s*", ", ", text)
    text = re.sub(r"\bx(\d+)\b", r"\1 times", text.replace(" + ", " and "))  # "patrol a + b x3"
    # "the rest of the cubes" names objects, it does not "rest" them (a placing verb); "the rest position" stays
    text = re.sub(r"\bthe rest of (?:the |these |those )?", "the remaining ", text)
    text = re.sub(r"\bthe rest\b(?! (?:position|pose|configuration|posture))", "the others", text)
    spellings = load_lexicon().spellings  # "pls", "whats": whole words only (not "u" in "u_turn")
    text = re.sub(r"(?<![a-z0-9_])[a-z]+(?![a-z0-9_])", lambda w: spellings.get(w.group(0), w.group(0)), text)
    return tidy(text)


def split_clauses(task: str, skill_phrases: Collection[str] = ()) -> list[str]:
    """The clauses of a normalised task, split at 'then', ',', 'and then' and 'and <verb>'."""
    grammar = _compiled()
    leads = frozenset(p.split()[0] for p in skill_phrases)
    separator = grammar.separator_with(leads)
    verbs = grammar.lexicon.verb_words() | leads
    # "go and recharge", "come and see": the going is how, not a task of its own
    task = re.sub(r"\b(?:go|come)\s+and\s+(?=(\w+))", lambda m: "" if m.group(1) in verbs else m.group(0), task)
    # "taking the mug off the table and dropping it in the bin": each -ing verb after the first is a verb too
    task = re.sub(r"\b(and |then |, )(\w+ing)\b", lambda m: m.group(1) + infinitive_first(m.group(2), verbs), task)
    # "you put the cube inside and after that you close the drawer": a request said to "you" is a request
    alternatives = "|".join(sorted(re.escape(w) for w in verbs))
    # "tap it, do that twice", "..., then do it again": a repetition is a clause of its own ("again" survives)
    task = re.sub(r",\s*(?:and\s+)?(?:then\s+)?(?=(?:do|repeat) (?:that|it|this|the same)\b)", ", then ", task)
    task = re.sub(
        r"\b((?:do|repeat) (?:that|it|this|the same(?: thing)?)) (?:again|one more time|once again)\b",
        r"\1 once more",
        task,
    )
    # "open drawer -> wait 5 s -> close drawer": an arrow before a verb is "then"
    task = re.sub(rf"\s*(?:->|=>|-->|→)\s*(?=(?:{alternatives})\b)", ", then ", task)
    # "patrol kitchen -> hallway -> living room": a chain of arrows is a list ("red cube -> plate" is a placement)
    task = re.sub(r"[^,]*(?:(?:->|=>|-->|→)[^,]*){2,}", lambda m: re.sub(r"\s*(?:->|=>|-->|→)\s*", ", ", m[0]), task)
    task = re.sub(rf"(^|,\s|\band\s|\bthen\s|\bafter that\s)you\s+(?=(?:{alternatives})\b)", r"\1", task)
    # "close that drawer, it s sticking out": what follows describes, it is a clause of its own
    task = re.sub(r",\s+(?=(?:it|they|this|that|there)\s+(?:s|is|are|re|was|looks|seems)\b)", " then ", task)
    # "..., the floor might still be wet", "..., only if that s not too much trouble": a remark is a clause of its own
    task = re.sub(r",\s+(?=[^,]+$)", lambda m: ", then " if _REMARK.match(task[m.end() :]) else m.group(), task)
    task = grammar.and_nothing.sub(", then ", task)
    # "read the thermometer and tell me what it says": being told is a clause of its own (lexicon: empty_clauses)
    task = re.sub(
        r"(?:,|\s+and)\s+(?=(?:tell|show)\s+(?:me|us)\s+what\b|(?:report|return)\s+(?:back\s+)?(?:the\s+)?"
        r"(?:results?|readings?|values?|what)\b)",
        ", then ",
        task,
    )
    # "go charge, battery s low", "..., the floor is wet": a statement about a thing is a clause of its own
    task = re.sub(
        r",\s+(?=(?:the\s+|my\s+|your\s+|its\s+|our\s+)?[a-z]+(?:\s+[a-z]+)?\s+(?:s|is|are|was|looks|seems)\s+"
        r"(?!to\b|going\b|gonna\b|supposed\b)[a-z]+$)",
        " then ",
        task,
    )
    # "green cube into the bowl, red cube onto the plate, leave the blue one": each placement is a clause
    task = re.sub(r",\s+(?=(?:the\s+|a\s+)?[a-z_]+(?:\s+[a-z_]+)?\s+(?:into|onto|inside)\s)", ", then ", task)
    task = re.sub(r",\s+(?=(?:and\s+)?leave\s)", ", then ", task)
    # "tap every cube, going from your left to your right": the order is a clause of its own
    task = re.sub(
        r",\s+(?=(?:going|working|moving|starting|one by one|in order|in turn|from (?:your |the )?(?:left|right)"
        r"|(?:left|right) to (?:right|left))\b)",
        ", then ",
        task,
    )
    # "patrol hallway then kitchen, 5 loops": an amount after a comma is more of the clause before
    task = re.sub(r",\s+(?=\d+(?:\.\d+)?\s*[a-z]+\s*(?:,|$))", " then ", task)
    parts = separator.split(task) if task else []
    clauses = []
    for part in parts:
        part = grammar.adverbs.sub("", part)  # "set it gently onto the plate"
        part = grammar.aside.sub("", part)  # "..., because that s where the toys live": why, not what
        clause = grammar.suffix.sub("", grammar.prefix.sub("", part.strip() + " ").strip()).strip(" ,")
        if clause:
            clauses.append(clause)
    return clauses


_CONTENTS = re.compile(
    r"^(?:(?:whatever|what|everything|anything)\s+(?:s|is)\s+(?:in|inside)|the\s+contents\s+of)\s+(?=\S)"
)


def object_phrase(text: str | None) -> str | None:
    """An object phrase as written ("the red cube"); None for a pronoun ("it")."""
    if text is None:
        return None
    phrase = _CONTENTS.sub("", text.strip())  # "whatever s in the red mug": the red mug (poured, emptied)
    bare = _ARTICLE.sub("", phrase).strip()
    return None if not bare or bare in _PRONOUN else phrase


_EXCEPT = re.compile(
    r"^(?P<kept>.+?)\s*,?\s+(?:except(?:\s+for)?|but\s+not|but|other\s+than|apart\s+from|excluding|save\s+for)"
    r"\s+(?P<ex>.+)$"
)


_ALSO = r"(?:too|as well|also)"
"""Words that end a clause repeating an earlier one ("... and the blue cube too")."""
_TRAILING_TOO = re.compile(rf"\s+{_ALSO}$")


def _except(phrase: str | None) -> tuple[str | None, str | None]:
    """A phrase without its exception ("all cubes but the blue one" -> "all cubes", "the blue one")."""
    found = _EXCEPT.match(phrase) if phrase else None
    return (phrase, None) if found is None else (found.group("kept"), found.group("ex"))


def _intent(action: IntentAction, clause: str, groups: dict[str, str | None]) -> Intent | None:
    x, excluding = _except(groups.get("x"))
    y, excluding_after = _except(groups.get("y"))  # "move every cube to the plate except the red one"
    if y is not None:
        y = _TRAILING_TOO.sub("", y)  # "then put the red cube in the bowl too"
    if x is not None and y is not None:
        x = re.sub(r"\s+away$", "", x)  # "tuck the green cube away in the drawer"
    groups = {**groups, "x": x, "y": y}
    excluding = excluding or excluding_after
    obj = object_phrase(groups.get("x"))
    source = groups.get("src")
    if obj is not None and source:
        obj = f"{obj} {source}"  # "the red cube out of the bowl": grounded as a relation
    target = object_phrase(groups.get("y"))
    # Either phrase may be a pronoun ("then put it on the plate", "open the drawer and put the cube in
    # it"): None, and the planner resolves it to the previous clause's object (or the one held).
    rel = groups.get("rel")
    relation: Literal["on", "in"] | None = None
    if rel is not None and rel not in _NEUTRAL_WORDS:
        relation = "in" if rel in _IN_WORDS else "on"
    direction = groups.get("d")
    return Intent(
        action=action,
        clause=clause,
        object=obj,
        target=target,
        relation=relation,
        direction=_compiled().direction_of[direction] if direction else None,
        excluding=excluding,
    )


def parse_clause(clause: str, skill_phrases: Collection[str] = ()) -> Intent | None:
    """The intent of one clause, or None when no form of the grammar matches it.

    The tabletop's forms first (pick, put, stack, ...), then the act form: a verb phrase from the
    lexicon's ``actions`` or from a manifest's ``language.phrases`` (``skill_phrases``), then what it acts
    on, where, which way."""
    clause = _owned(_counted_nouns(clause, skill_phrases), skill_phrases)
    amounts = find_quantities(clause)
    if not amounts and (counted := _FOR_COUNT.search(clause)) is not None and (n := _count_word(counted["n"])):
        # "set the table for four": a count said with no noun after it, for a skill's count parameter
        amounts = [Quantity(value=n, unit=COUNT, kind=COUNT, span=counted.span("n"), text=counted["n"])]
    if amounts:  # "push the red cube 10 cm to the left": the amount is read apart from the phrases
        amounts, bare = _named_amounts(clause, amounts)
        bare = _without_amount_frames(bare, amounts)
        bare = re.sub(r"\s+(?:by|for|at)(?=\s+(?:to|towards|toward|$))|\s+(?:by|for|at)$", "", " ".join(bare.split()))
        bare = _compiled().suffix.sub("", bare.strip(" ,")).strip(" ,")  # "drive to the room please, 0.2 m/s"
        intent = _parse_clause(bare, skill_phrases)
        return None if intent is None else intent.model_copy(update={"clause": clause, "quantities": tuple(amounts)})
    return _parse_clause(clause, skill_phrases)


_COUNTED_NOUNS = re.compile(r"^(?P<v>[a-z]+)\s+(?P<n>\S+)\s+(?P<noun>[a-z]+)\s+(?P<rest>(?:of|at|on)\s+.+)$")


def _counted_nouns(clause: str, skill_phrases: Collection[str]) -> str:
    """ "take three photos of the valve" as "take a photo of the valve 3 times", where "take a photo of" is a
    phrase of this robot's skills or the lexicon: a count of what a verb-and-noun phrase makes."""
    found = _COUNTED_NOUNS.match(clause)
    if found is None or (n := _count_word(found["n"])) is None or n != int(n):
        return clause
    phrases = {*skill_phrases, *(p for p, _ in load_lexicon().action_phrases())}
    noun = found["noun"]
    for one in dict.fromkeys((noun, noun.removesuffix("s"), noun.removesuffix("es"))):
        for article in ("a", "an"):
            said = f"{found['v']} {article} {one}"
            if any(p == said or p.startswith(said + " ") for p in phrases):
                once = f"{said} {found['rest']}"
                return once if n == 1 else f"{once} {int(n)} times"
    return clause


_OWNED = re.compile(
    r"^(?P<v>[a-z]+)\s+(?:(?P<its>its|their)|(?P<x>(?:the|this|that)\s+[a-z_]+(?:\s+[a-z_]+)?)\s+s)\s+"
    r"(?P<n>[a-z]+)\b(?P<rest>.*)$"
)


def _owned(clause: str, skill_phrases: Collection[str]) -> str:
    """ "scan its barcode", "scan the label s barcode" as "scan the barcode on it/the label", where "scan the
    barcode on" is a phrase of this robot's skills or the lexicon."""
    found = _OWNED.match(clause)
    if found is None:
        return clause
    said = f"{found['v']} the {found['n']} on"
    phrases = {*skill_phrases, *(p for p, _ in load_lexicon().action_phrases())}
    if said not in phrases:
        return clause
    return f"{said} {'it' if found['its'] else found['x']}{found['rest']}"


_FOR_COUNT = re.compile(r"\s+for\s+(?P<n>\S+)$")


def _count_word(word: str) -> float | None:
    """The number a word says ("4", "four"), if it is one."""
    said = find_quantities(f"{word} times")
    return said[0].value if len(said) == 1 and said[0].text.split()[0] == word else None


_NAMED_BEFORE = re.compile(
    r"(?:(?:with|at|using|and|keeping|maintaining|set)\s+)?(?:a|an|the|its|your)\s+"
    r"(?P<name>[a-z]+(?:\s[a-z]+)?)\s+of\s*$"
    # "with standoff 0.3 m": a parameter's name, bare
    r"|(?:with|using|at)\s+(?!(?:a|an|the|its|your)\b)(?P<bare>[a-z]+)(?:\s+of)?\s*$"
)
_NAMED_AFTER = re.compile(r"^\s+(?:of\s+)?(?P<name>[a-z]+)(?=\s*(?:,|$|\band\b|\bthen\b))")


def _named_amounts(clause: str, amounts: list[Quantity]) -> tuple[list[Quantity], str]:
    """Each amount with what the clause says it is ("with a clearance of 120 cm", "1 m clearance"), and the
    clause without the naming words said before it; the planner gives a named amount to the parameter of
    that name, and never guesses between two it could name."""
    named: list[Quantity] = []
    bare = clause
    for amount in reversed(amounts):
        before, after = bare[: amount.span[0]], bare[amount.span[1] :]
        found = _NAMED_BEFORE.search(before)
        if found is not None:
            bare = before[: found.start()] + " " * (len(before) - found.start()) + bare[amount.span[0] :]
            named.append(amount.model_copy(update={"named": found.group("name") or found.group("bare")}))
            continue
        after_name = _NAMED_AFTER.match(after)
        named.append(amount.model_copy(update={"named": after_name.group("name") if after_name else None}))
        if after_name is not None and after_name.group("name") not in _compiled().direction_of:
            # "at a 60 degree tilt": the name said after is not part of what follows ("50 cm left" keeps its way)
            end = amount.span[1] + after_name.end()
            bare = bare[: amount.span[1]] + " " * (end - amount.span[1]) + bare[end:]
    return list(reversed(named)), bare


_HOLDING_WORDS = frozenset({"hold", "stay", "stop", "keep", "at", "with", "and", "a", "an", "the"})
_KEEPING = re.compile(r"^(?:stay|keep|remain|hold|give up|stop|quit)\b")
_KEEPING_WORDS = frozenset(
    {"back", "behind", "away", "about", "around", "roughly", "approximately", "from", "me", "us", "give", "up"}
    | {"after", "quit", "ok", "okay", "or", "so", "of", "distance", "a", "max", "maximum", "at", "most"}
)


def _amounts_only(clause: str) -> tuple[Quantity, ...]:
    """The amounts of a clause that says nothing else ("1 m clearance", "hold at 0.8 m"), else none."""
    amounts = find_quantities(clause)
    if not amounts:
        return ()
    named, bare = _named_amounts(clause, amounts)
    rest = set(_without_amount_frames(bare, named).split()) - _HOLDING_WORDS
    if _KEEPING.match(clause):  # "stay about 2 m back", "give up after five minutes": how far, how long
        rest -= _KEEPING_WORDS
    rest -= {word for amount in named if amount.named for word in amount.named.split()}
    return tuple(named) if not rest else ()


def _without_amount_frames(clause: str, amounts: list[Quantity]) -> str:
    """The clause without its amounts and the words that only frame them ("at a distance of 2 metres",
    "and stop 0.8 metres away"): the lexicon's ``amount_frames``."""
    frames = load_lexicon().amount_frames
    lead = "|".join(_alternatives(frames.get("before", [])))
    tail = "|".join(_alternatives(frames.get("after", [])))
    bare = clause
    for amount in reversed(amounts):
        before, after = bare[: amount.span[0]], bare[amount.span[1] :]
        before = re.sub(rf"(?:\s+(?:{lead}))+\s*$", " ", " " + before)[1:] if lead else before
        after = re.sub(rf"^\s*(?:{tail})(?=\s|,|$)", "", after) if tail else after
        bare = before + after
    return bare


def _parse_clause(clause: str, skill_phrases: Collection[str]) -> Intent | None:
    """A clause with no amount in it, rephrased where the lexicon says how ("what does the gauge say" as
    "read the gauge"), its particle read first ("take the rubbish out" as "take out the rubbish")."""
    clause = infinitive_first(clause, _leads(skill_phrases))
    reading = rephrased(clause, skill_phrases)
    if reading is not None and (intent := _parse_plain(reading, skill_phrases)) is not None:
        return intent
    return _parse_plain(clause, skill_phrases)


def rephrased(clause: str, skill_phrases: Collection[str] = ()) -> str | None:
    """The request a clause means by the lexicon's first rephrasing that matches it and yields a request
    starting with a verb the lexicon or a manifest knows; None when none does."""
    lexicon = load_lexicon()
    leads = _leads(skill_phrases)
    for rephrasing in lexicon.rephrasings:
        reading = rephrasing.read(clause)
        reading = infinitive_first(reading, leads) if reading else reading
        if reading and reading != clause and reading.split()[0] in leads:
            return reading
    return None


def _leads(skill_phrases: Collection[str]) -> frozenset[str]:
    """The words a request starts with: the lexicon's verbs and the first words of the skills' phrases."""
    return load_lexicon().verb_words() | {p.split()[0] for p in skill_phrases}


def infinitive_first(clause: str, leads: Collection[str]) -> str:
    """ "putting the green block into the bowl" (after "would you mind") as "put the green block into the
    bowl", and "nudges the plate" (after "watch as it") as "nudge the plate": a first word that is the -ing
    or -s form of a known verb is read as the verb."""
    first, _, rest = clause.partition(" ")
    if first in leads or len(first) < 4:
        return clause
    if first.endswith("ing") and len(first) >= 5:
        stem = first[:-3]
        bases: tuple[str, ...] = (stem, stem + "e", stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else "")
    elif first.endswith("s") and not first.endswith("ss"):  # "as it nudges the plate": what it does
        bases = (first[:-1], first[:-2] if first.endswith("es") else "")
        bases += (first[:-3] + "y",) if first.endswith("ies") else ()
    else:
        return clause
    for base in bases:
        if base and base in leads:
            return f"{base} {rest}".strip()
    return clause


def _parse_plain(clause: str, skill_phrases: Collection[str]) -> Intent | None:
    """A clause with no amount in it, its particle read first ("take the rubbish out" as "take out the
    rubbish"); the intent keeps the clause as written."""
    reading = _particle_first(clause, skill_phrases)
    intent = _parse_reading(reading, skill_phrases)
    if intent is None and (plain := _without_particle(reading, skill_phrases)) is not None:
        intent = _parse_reading(plain, skill_phrases)  # "clear off the table": the particle adds nothing
    return intent if intent is None or reading == clause else intent.model_copy(update={"clause": clause})


def _parse_reading(clause: str, skill_phrases: Collection[str]) -> Intent | None:
    """The home, particle, act and tabletop forms, the longer verb first."""
    grammar = _compiled()
    leads = _leads(skill_phrases)
    if clause.startswith("you ") and clause.split()[1] in leads:
        clause = clause[4:]  # "you go to the hallway", "then you close the door": the subject is the robot
    if grammar.home.match(clause):
        return Intent(action=IntentAction.HOME, clause=clause)
    going = re.match(r"^(?:go|come)\s+(?:and\s+)?(?P<rest>(?P<verb>\S+).*)$", clause)
    own = any(clause == p or clause.startswith(p + " ") for p in skill_phrases if p.split()[0] in ("go", "come"))
    if (
        not own
        and going is not None
        and going.group("verb")
        in leads
        - {
            "go",
            "come",
            "to",
            "home",
            "with",
            "along",
            "back",
            "over",
            "up",
            "down",
            "out",
            "off",
            "round",
            "around",
            "on",
            "in",
        }
    ):
        clause = going.group("rest")  # "go push the red block right": the going is not a task ("go get" may be)
    for action, pattern in grammar.particles:  # "pull the drawer open": the particle says what the verb is
        if (particle := pattern.match(clause)) is not None:
            return _intent(action, clause, particle.groupdict())
    started = _act_start(clause, skill_phrases)
    act_verb = started[0] if started is not None else None
    form_verb = grammar.verb_re.match(clause)
    if act_verb is not None and (form_verb is None or len(act_verb) > len(form_verb.group("v"))):
        # "take a look at the gauge" is a look, not a take: the longer verb phrase decides.
        return _act(clause, skill_phrases) or _form(clause, skill_phrases)
    if form_verb is not None and act_verb not in skill_phrases:
        return _form(
            clause, skill_phrases
        )  # "put the red cube": the form's verb, outside its forms, is not an act either
    return _form(clause, skill_phrases) or _act(clause, skill_phrases)


def _act_verb(clause: str, skill_phrases: Collection[str]) -> str | None:
    """The longest act verb phrase (the lexicon's actions, the manifests' phrases) the clause starts with."""
    phrases = sorted({*skill_phrases, *(p for p, _ in load_lexicon().action_phrases())}, key=len, reverse=True)
    return next((p for p in phrases if clause == p or clause.startswith(p + " ")), None)


_ACT_REST = re.compile(
    r"^(?P<x>.+?)\s+(?P<rel>to|into|onto|on to|in to|in|on|at|for|with|from|out of)\s+"
    r"(?P<y>(?:the|a|an|your|my|our)\s+.+)$"
)
"""What follows an act verb: the thing acted on, then a second phrase after a preposition."""


def find_numbers_in(word: str) -> bool:
    """Whether a word (or "all <word>") is a number ("3", "four")."""
    return word.isdigit() or bool(find_quantities(f"{word} times"))


def _modified_phrase(clause: str, skill_phrases: Collection[str]) -> tuple[str, str] | None:
    """ "set the kitchen table for four" by a skill's phrase "set the table": (the phrase, what follows its
    verb: "the kitchen table for four"), when the clause names the phrase's noun with words before it."""
    for phrase in sorted(skill_phrases, key=len, reverse=True):
        said = re.fullmatch(r"(?P<v>.+?) the (?P<n>[a-z]+)", phrase)
        if said is None:
            continue
        found = re.match(rf"^{re.escape(said['v'])}\s+(?P<rest>the\s+(?:[a-z_]+\s+){{1,2}}{said['n']}\b.*)$", clause)
        if found is not None:
            return phrase, found["rest"]
    return None


def _act_start(clause: str, skill_phrases: Collection[str]) -> tuple[str, str] | None:
    """The act verb phrase a clause starts with and what follows it: the longest phrase said outright, or a
    skill's phrase whose noun the clause names with words before it ("set the kitchen table": "set the
    table"), whichever is longer."""
    verb = _act_verb(clause, skill_phrases)
    modified = _modified_phrase(clause, skill_phrases)
    if modified is not None and (verb is None or len(modified[0]) > len(verb)):
        return modified
    return None if verb is None else (verb, clause[len(verb) :].strip())


def _act(clause: str, skill_phrases: Collection[str]) -> Intent | None:
    """The act form: "go to the kitchen", "wipe the table", "turn off the light", "read the gauge"."""
    started = _act_start(clause, skill_phrases)
    if started is None:
        return None
    verb, rest = started
    if _compiled().unsupported.search(rest):
        return None  # "next to the plate": a relation no skill makes; not guessed at ("come along with" is a verb)
    people = "|".join(_alternatives(load_lexicon().people))
    rest = re.sub(rf"^(?:{people})$|\s+(?:to|for|with|after)\s+(?:{people})$", "", rest)  # the skill's person
    if re.match(r"^(?:at|to|into|in|on|onto)\s+(?:the|a|an|your|my|our)\s", rest):
        rest = rest.split(" ", 1)[1]  # "recharge at your dock": the place is what it acts on
    direction = None
    for phrase, name in _compiled().direction_of.items():
        if rest == phrase or rest.endswith(" " + phrase):
            rest, direction = rest[: len(rest) - len(phrase)].strip(), name
            break
    rest = re.sub(r"^(?:to|towards|toward)\s+|\s+(?:to|towards|toward)(?:\s+the)?$", "", rest).strip()
    x, y, joined = rest, None, None
    if (split := _ACT_REST.match(rest)) is not None:
        x, y, joined = split.group("x"), split.group("y"), rest
    elif rest.split(" ", 1)[0] in ("the", "a", "an", "your", "my", "our", "it", "them", "all", "every", "each", "both"):
        x = rest
    elif rest and verb.split()[-1] in ("to", "into", "at", "for", "over"):
        x = rest  # "go to kitchen": no article after a verb that ends in its preposition
    elif re.match(r"^(?:all\s+)?\S+\s+[a-z]+\s+(?:of|on|in)\s", rest) and find_numbers_in(rest.split()[0]):
        x = rest  # "scan 3 levels of the shelf": a count the skill's arguments read
    elif rest:  # "scan shelf a", "patrol corridor b and the boiler room": short names, or a list of them
        parts = re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", rest)
        x = rest if all(len(part.split()) <= 3 for part in parts) else ""
        if not x:
            return None
    obj, excluding = _except(x or None)
    return Intent(
        action=IntentAction.ACT,
        clause=clause,
        verb=verb,
        object=object_phrase(obj),
        target=object_phrase(y),
        direction=direction,
        excluding=excluding,
        bare=not rest and direction is None,
        joined=joined,
    )


_PARTICLES = frozenset({"off", "up", "down", "out", "away", "over"})


def _without_particle(clause: str, skill_phrases: Collection[str]) -> str | None:
    """ "clear off the kitchen table" as "clear the kitchen table", where "clear off" is no verb phrase of the
    lexicon's or the skills' and "clear" is; None otherwise."""
    words = clause.split()
    if len(words) < 3 or words[1] not in _PARTICLES or words[0] not in _leads(skill_phrases):
        return None
    phrases = {*skill_phrases, *(p for p, _ in load_lexicon().action_phrases()), *load_lexicon().verb_words()}
    if any(p.startswith(f"{words[0]} {words[1]}") for p in phrases | {p for p, _ in load_lexicon().verb_phrases()}):
        return None
    return " ".join([words[0], *words[2:]])


def _particle_first(clause: str, skill_phrases: Collection[str]) -> str:
    """ "turn the light on" -> "turn on the light", when "turn on" is a verb phrase and "on" ends the clause."""
    words = clause.split()
    if len(words) < 3:
        return clause
    phrases = {*skill_phrases, *(p for p, _ in load_lexicon().action_phrases())}
    verb, last = words[0], words[-1]
    if f"{verb} {last}" in phrases and f"{verb} {words[1]}" not in phrases:
        return " ".join([verb, last, *words[1:-1]])
    return clause


def _form(clause: str, skill_phrases: Collection[str] = ()) -> Intent | None:
    """The intent of a clause by the tabletop's forms (pick, put, stack, push, pour, tap, open, close)."""
    grammar = _compiled()
    if grammar.home.match(clause):
        return Intent(action=IntentAction.HOME, clause=clause)
    for action, pattern in grammar.particles:
        match = pattern.match(clause)
        if match is not None:
            return _intent(action, clause, match.groupdict())
    if (stated := _goal_statement(clause)) is not None:
        return stated
    if (tower := _tower(clause)) is not None:
        return tower
    if (filled := _FILL.match(clause)) is not None:  # "fill the bowl with the cubes": put them in it
        return _intent(IntentAction.PUT, clause, {"x": filled.group("x"), "y": filled.group("y"), "rel": "in"})
    verb = grammar.verb_re.match(clause)
    if verb is None:
        return _verbless(clause)
    rest = (verb.group("rest") or "").strip()
    if grammar.unsupported.search(rest):
        return None  # "next to the plate": a relation no skill makes; not guessed at
    for action in grammar.verbs[verb.group("v")]:
        if action is IntentAction.PUSH:
            match = grammar.push.match(rest)
            if match is not None and match.group("d2") and not _same_way(match.group("d"), match.group("d2")):
                match = None  # "left forward": two ways at once is not one push
            kept, excluding = _except(rest)
            pushed = grammar.push.match(kept) if match is None and kept and excluding is not None else None
            if pushed is not None:
                # "push all the cubes forward except the blue one"
                return _intent(action, clause, {**pushed.groupdict(), "x": f"{pushed.group('x')} except {excluding}"})
        elif not rest and action is IntentAction.PUT:
            continue
        else:
            match = _FORMS[action].match(rest) if rest else None
        if match is None:
            if action is IntentAction.PUT and (put := _put_down_or_into_it(verb.group("v"), rest, clause)):
                return put
            continue
        intent = _intent(action, clause, match.groupdict())
        if intent is not None and verb.group("v") in skill_phrases:  # a manifest claims the verb ("fetch")
            return intent.model_copy(update={"verb": verb.group("v")})
        if intent is not None:
            return intent
    return None


# "build a tower of the cubes", "stack the cubes on top of each other", "pile the blocks up".
_TOWER = re.compile(
    r"^(?:(?:build|make|form|create)\s+(?:a\s+)?(?:tower|stack|pile)(?:\s+(?:of|with|from|out of|using)\s+"
    r"(?P<x>.+?))?|(?:stack|pile)\s+(?:up\s+)?(?P<y>.+?)(?:\s+up)?(?:\s+(?:on top of each other|on each other|"
    r"into (?:a|one|a single) (?:tower|stack|pile)))?"
    r"|(?:arrange|put|place|organi[sz]e|set)\s+(?P<z>.+?)\s+(?:in|into|as)\s+(?:a\s+)?(?:tower|stack|pile))$"
)
# "..., with the blue cube at the bottom", "... with the red one on top", "... with green as the base"
_TOWER_END = re.compile(
    r"^(?P<rest>.+?),?\s+with\s+(?P<who>.+?)\s+(?:(?:at|on)\s+the\s+(?P<at>bottom|base|top)|as\s+the\s+"
    r"(?P<as>bottom|base|top)|on\s+(?P<on>top))$"
)
_THEM_ALL = frozenset({"all three", "all of them", "them all", "them", "all", "the three", "the lot", "all 3"})
"""What names a tower's objects without a noun ("stack all three"): its default, every cube."""
_EVERY_CUBE = "all the cubes"
"""What "build a tower" with nothing named is built of."""


_IF_STATE = re.compile(
    r"^if\s+(?P<x>.+?)\s+(?:is|s|are|re|isn t|aren t)(?P<neg>\s+not|(?<=n t))?\s+(?:still\s+)?"
    r"(?P<state>open|opened|closed|shut|empty)$"
)
_IF_HOLDING = re.compile(
    r"^if\s+(?:you\s+(?:ve\s+got|have\s+got|have|got|re\s+holding|are\s+holding|re\s+carrying|are\s+carrying|hold)"
    r"|there\s+s|there\s+is)\s+(?:something|anything|an\s+object|stuff)"
    r"(?:\s+(?:in|on)\s+(?:your|the)\s+(?:hand|hands|gripper|fingers))?$"
)
_HAND = re.compile(r"^(?:your|the)\s+(?:hand|hands|gripper|fingers)$")
_OPPOSITE = {"open": "closed", "closed": "open", "holding": "empty", "empty": "holding"}


def _condition(clause: str) -> Condition | None:
    """ "if the drawer is closed", "if you ve got something in your hand": a condition on the world's state."""
    if _IF_HOLDING.match(clause):
        return Condition(subject=None, state="holding", clause=clause)
    found = _IF_STATE.match(clause)
    if found is None:
        return None
    state = {"opened": "open", "shut": "closed"}.get(found["state"], found["state"])
    subject: str | None = found["x"]
    if _HAND.match(found["x"]):
        if state != "empty":
            return None
        subject = None  # "if your hand is empty"
    elif state == "empty":
        return None  # "if the bin is empty": no world state here says so
    if found["neg"] is not None:
        state = _OPPOSITE[state]
    return Condition(subject=subject, state=state, clause=clause)


_PARTY = re.compile(
    r"^(?:(?:tonight|today|tomorrow|for (?:lunch|dinner|breakfast))\s+)?"
    r"(?:we\s+(?:re|are|will be|ll be)|there\s+(?:are|will be|ll be))"
    r"\s+(?P<n>\S+)(?:\s+(?:of us|people|persons|guests))?(?:\s+(?:for|at)\s+(?:lunch|dinner|breakfast|tea|supper))?"
    r"(?:\s+(?:tonight|today|tomorrow))?$"
)
"""A statement of how many people there are ("we re four for lunch", "there will be 6 of us")."""


def _party(clause: str) -> Quantity | None:
    """How many people a statement says there are, as a count, if it says so."""
    found = _PARTY.match(clause)
    value = _count_word(found["n"]) if found is not None else None
    if found is None or value is None:
        return None
    return Quantity(value=value, unit=COUNT, kind=COUNT, span=found.span("n"), text=f"{found['n']} people")


_REMARK = re.compile(
    r"^(?:sorry\s+)?(?:i|we)\s+(?!.*\b(?:want|wanna|need|like|love|please)\b)"
    r"(?:m|am|re|are|ve|have|was|were|don t|do not|d|just|think|guess|hope|really|still|know|feel)\b"
    r"|^i\s+(?:just\s+)?(?:want|wanted)\s+to\s+(?:see|know|check)\s+(?:whether|if)\b"
    r"|^(?:only\s+)?if\s+(?:that\s+|it\s+)?(?:s|is)\s+"
    r"(?:not\s+too\s+much\s+(?:trouble|bother)|ok|okay|all right|alright|fine)$"
    r"|^(?:the\s+)?[a-z]+(?:\s+[a-z]+)?\s+(?:might|may|could|must|will)\s+(?:still\s+)?be\s+[a-z]+$"
)
"""A remark after a request ("..., i m walking the site", "..., the floor might still be wet"): not asked;
never a wish ("i want the red one too" asks) and never read before a request is."""


_THERE = frozenset({"there", "over there", "in there", "out there"})


_QUESTION = re.compile(r"\b(?:what|where|which|who|why|how|is|are|do|does|can|could)\b")


def _verbless(clause: str) -> Intent | None:
    """ "red cube on the plate", "the blue block to the bowl": a placement with its verb left out.

    Only when what comes first ends in a category word the lexicon knows ("cube", "block"): "fly to the
    moon" is not a placement, and stays outside the grammar."""
    match = _FORMS[IntentAction.PUT].match(clause)
    if match is None or not match.group("x") or _QUESTION.search(match.group("x")):
        return None
    lex = load_lexicon()
    kept, _ = _except(match.group("x"))  # "all the blocks apart from the red one into the bowl"
    words = (kept or "").split()
    nouns = lex.category_words() | set(lex.categories)
    starts = {"the", "a", "an", "this", "that", "all", "every", "each", "both"} | lex.colour_words() | nouns
    last, first = words[-1].split("_")[-1], words[0].split("_")[0]  # "blue_cube on top of green_cube"
    if len(words) > 4 or last not in nouns or (words[0] not in starts and first not in lex.colour_words()):
        return None  # an object phrase ("the red cube"), not a sentence that happens to end in "cube"
    if _compiled().unsupported.search(clause):
        return None
    return _intent(IntentAction.PUT, clause, match.groupdict())


_FILL = re.compile(r"^(?:fill|load)\s+(?:up\s+)?(?P<y>.+?)\s+(?:up\s+)?with\s+(?P<x>.+)$")


_PIECE = r"(?:the\s+)?(?P<{}>[a-z_]+(?:\s+(?:cube|block|one))?)"
_ORDERED_TOWER = re.compile(
    r"^(?P<head>(?:stack|pile|build|make)\b[^,]*),\s+(?:with\s+)?"
    + _PIECE.format("bottom")
    + r"\s+(?:at|on)\s+the\s+bottom"
    r",?\s+(?:then\s+)?"
    + _PIECE.format("middle")
    + r"\s*,?\s+(?:and\s+)?(?:then\s+)?(?:with\s+)?"
    + _PIECE.format("top")
    + r"\s+(?:on\s+(?:the\s+)?top|at\s+the\s+top|last)$"
)
"""A tower of three said bottom to top: "stack all three cubes, green at the bottom, then blue, red on top"."""


def ordered_tower(text: str) -> Intent | None:
    """The tower of three a whole task asks for bottom to top, if it is one: its first and last say its bottom
    and top, so the middle is what is left."""
    found = _ORDERED_TOWER.match(text)
    if found is None or not re.search(r"\b(?:three|3)\b", found["head"]):
        return None  # of more than three, a bottom and a top leave the middle open
    tower = _tower(found["head"])
    if tower is None or tower.target is not None or not tower.tower:
        return None
    return tower.model_copy(
        update={"clause": text, "target": object_phrase(found["bottom"]), "top": object_phrase(found["top"])}
    )


def _tower(clause: str) -> Intent | None:
    """A tower of the objects named (all the cubes when none is), when the clause asks for one and names no
    base outside it; "with X at the bottom" / "with X on top" say which of them starts or ends it."""
    bottom = top = None
    end = _TOWER_END.match(clause)
    if end is not None:
        clause_rest, which = end.group("rest"), end.group("at") or end.group("as") or end.group("on")
        bottom, top = (None, end.group("who")) if which == "top" else (end.group("who"), None)
    else:
        clause_rest = clause
    match = _TOWER.match(clause_rest)
    if match is None:
        return None
    stacked = match.group("y")
    if stacked is not None and re.search(r"\s(?:on|onto|upon|atop|in|into)\s", f" {stacked} "):
        return None  # "pile the cubes up on the plate": a base is named, the stack form reads it
    named = match.group("x") or stacked or match.group("z")
    if named in _THEM_ALL:  # "stack all three", "stack them all": of the tower's default kind, cubes
        named = "all three cubes" if "three" in named or "3" in named else None
    phrase = object_phrase(named) if named is not None else _EVERY_CUBE
    if phrase is None:
        return None
    phrases, quantified = expand_phrase(phrase)
    if not quantified and len(phrases) < 2:
        return None  # "stack the red cube": one object, and no base to stack it on
    return Intent(
        action=IntentAction.STACK,
        clause=clause,
        object=phrase,
        tower=True,
        target=object_phrase(bottom) if bottom else None,
        top=object_phrase(top) if top else None,
    )


# "the red cube should be in the bowl", "make sure the drawer is open": the goal stated, not the action.
_GOAL_STATEMENT = re.compile(
    r"^(?:(?:make sure|ensure|see to it|check)\s+(?:that\s+)?)?(?P<x>.+?)\s+"
    r"(?:is|are|should be|must be|needs to be|need to be|has to be|have to be|ends up|end up|to be|should go|"
    r"must go|needs to go|need to go|has to go|have to go|go|goes)\s+"
    rf"(?:(?P<state>open|opened|closed|shut)|{_ON}\s+(?P<y>.+))$"
)


def _goal_statement(clause: str) -> Intent | None:
    """The intent a stated goal asks for (open, close, or put), or None when the clause is not one."""
    match = _GOAL_STATEMENT.match(clause)
    if match is None or _compiled().unsupported.search(clause):
        return None
    if match.group("x").split()[-1] in ("that", "which"):
        return None  # "put the cube that is on the plate in the bowl": a relative clause, not a stated goal
    state = match.group("state")
    if state is not None:
        action = IntentAction.OPEN if state.startswith("open") else IntentAction.CLOSE
        return Intent(action=action, clause=clause, object=object_phrase(match.group("x")))
    return _intent(IntentAction.PUT, clause, match.groupdict())


_INTO_IT = re.compile(r"^(?P<x>.+?)\s+(?P<rel>inside|in there|in it|on top|on there|on it)$")
_DOWN = re.compile(r"^(?P<x>.+?)(?:\s+down)?$")


def _put_down_or_into_it(verb: str, rest: str, clause: str) -> Intent | None:
    """ "put the cube inside" (into the previous object) or "drop it" / "put the cube down" (onto the table)."""
    into = _INTO_IT.match(rest)
    if into is not None:
        relation: Literal["on", "in"] = "on" if into.group("rel").startswith("on") else "in"
        return Intent(action=IntentAction.PUT, clause=clause, object=object_phrase(into.group("x")), relation=relation)
    down = _DOWN.match(rest)
    if down is not None and (verb in _compiled().put_down or rest.endswith(" down")):
        obj = object_phrase(down.group("x"))
        return Intent(action=IntentAction.PUT, clause=clause, object=obj, target="the table", relation="on")
    return None


_TOO = re.compile(rf"^(?P<head>.+?)\s+and\s+(?P<z>(?:the|a|an)\s+[^,]+?)\s+{_ALSO}$")


def ungap(clause: str) -> list[str]:
    """ "put X on Y and Z in W" as two clauses, each with the verb; "put X in Y and Z too" as the clause
    and the bare "Z" (which repeats it); other clauses unchanged."""
    too = _TOO.match(clause)
    if too is not None:
        return [*ungap(too.group("head")), too.group("z")]
    match = _compiled().gapped.match(clause)
    if match is None:
        return [clause]
    verb = match.group("v")
    return [f"{verb} {match.group('a')}", *ungap(f"{verb} {match.group('b')}")]


def other_splits(intent: Intent) -> list[Intent]:
    """A placement read with its object and target split at each other relation word, in order.

    "put the cube on the plate in the bowl" is read first as (the cube) in (the plate in the bowl); the
    planner takes the first reading whose phrases each name one object, here (the cube on the plate) in
    (the bowl). Empty for anything but a placement written with a verb.
    """
    if intent.action is not IntentAction.PUT:
        return []
    verb = _compiled().verb_re.match(intent.clause)
    rest = (verb.group("rest") or "").strip() if verb is not None else ""
    readings = []
    for at in re.finditer(rf"(?<=\s){_ON}(?=\s)", rest):
        x, y = rest[: at.start()].strip(), rest[at.end() :].strip()
        reading = _intent(IntentAction.PUT, intent.clause, {"x": x, "y": y, "rel": at.group("rel")})
        if reading is not None and (reading.object, reading.target) != (intent.object, intent.target):
            readings.append(reading)
    return readings


def _object_of(clause: str) -> str | None:
    """The object phrase of one clause, if it parses and names one."""
    intent = parse_clause(clause)
    return intent.object if intent is not None else None


def parse_task(task: str, skill_phrases: Collection[str] = ()) -> tuple[Intent, ...]:
    """Parse a task into intents; TaskNotUnderstood (listing the grammar) if any clause is outside it.

    ``skill_phrases``: the verb phrases the robot's manifests add (``language.phrases``)."""
    grammar = _compiled()
    text = reorder_clauses(grammar.prefix.sub("", normalise_task(task) + " ").strip(), _object_of)
    if (ordered := ordered_tower(text)) is not None:
        return (ordered,)
    clauses = split_clauses(text, skill_phrases)
    if not clauses:
        raise TaskNotUnderstood(task, task)
    intents: list[Intent] = []
    parts = _parts(clauses, skill_phrases)
    # "the rug sheds all the time, so please vacuum the living room": what comes before ", so" says why;
    # a clause of it that asks nothing is read as a description, not refused
    consequence = _SO.search(text)
    why = len(_parts(split_clauses(text[: consequence.start()], skill_phrases), skill_phrases)) if consequence else 0
    leads = _leads(skill_phrases)
    topic: _Topic | None = None  # what "it" means after "the bin is full, ..." or "fridge, ..."
    condition: Condition | None = None  # the "if" the next request is said under
    counted: Quantity | None = None  # how many people a statement said there are, for the next request
    described = False
    for number, clause in enumerate(parts):
        near = _CLOSENESS.sub("", clause).strip()  # "take a close-up photo of the pump": approach it first
        standoff: tuple[Quantity, ...] = ()
        if (away := _FROM_AWAY.search(near)) is not None and (standoff := tuple(find_quantities(away["amount"]))):
            near = near[: away.start()]  # "photograph the thermometer from half a metre away": from there
        close, clause = (near != clause), " ".join(near.split())
        intent = parse_clause(clause, skill_phrases)
        if (said := _condition(clause)) is not None and number + 1 < len(parts):
            condition = said  # "if the drawer is closed, open it first": the next clause is said under it
            if said.subject is not None:
                topic = _Topic(said.subject, needed=False)  # what "it" means in that clause
            continue
        if intents and _KEEPING.match(clause) and (kept := _amounts_only(clause)):
            # "follow me, keep about two metres back and give up after five minutes": more of the clause before
            intents[-1] = intents[-1].model_copy(update={"quantities": (*intents[-1].quantities, *kept)})
            continue
        if intent is None and intents and _REMARK.match(clause):
            described = True  # "..., i m walking the site": the speaker about themself, after what they asked
            continue
        if intents and (order := _order_said(clause)) is not None:
            intents[-1] = intents[-1].model_copy(update={"order": order})  # "..., going from left to right"
            continue
        if _LEAVE_BE.match(clause):
            continue  # "leave the blue one where it is": nothing to do for it
        if intents and (unit := unit_said(clause)) and not unit[0] and intents[-1].object is not None:
            last = intents[-1]  # "read the red gauge there, in bar": the unit of the clause before
            intents[-1] = last.model_copy(update={"object": f"{last.object} in {unit[1]}"})
            continue
        if intent is None and intents and (more := _more_of_act(clause, intents[-1], skill_phrases)) is not None:
            intents[-1] = more  # "patrol the control room then corridor b": one list, as "A and B"
            continue
        if intent is None and topic is not None and (there := re.search(r"\s+(?:over\s+)?there$", clause)):
            intent = parse_clause(f"{clause[: there.start()]} to {topic.phrase}", skill_phrases)  # "..., go there"
        intent = intent or _wished_request(clause, skill_phrases)
        intent = intent or _elided(clause, intents[-1] if intents else None, leads)
        if intent is None and number + 1 < len(parts):  # "grasp and lift the red block": the object is shared
            after = parse_clause(parts[number + 1], skill_phrases)
            if after is not None and after.object is not None:
                intent = parse_clause(f"{clause} {after.object}", skill_phrases)
        if intent is None and (party := _party(clause)) is not None:
            counted = party  # "we re four for lunch, lay the table": how many, for the request after it
            described = True
            continue
        if intent is None and (about := _subject(clause, leads, last=number + 1 == len(parts))) is not None:
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
            if intent.object in _THERE:  # "corridor b, go there": the place just said
                intent = intent.model_copy(update={"object": topic.phrase})
            elif (
                topic.needed
                and intent.object is not None
                and _ARTICLE.sub("", intent.object) == _ARTICLE.sub("", topic.phrase)
            ):
                pass  # "the hallway, go to the hallway": the topic, named again
            elif intent.object is None and not intent.bare and intent.action is not IntentAction.HOME:
                intent = intent.model_copy(update={"object": topic.phrase})
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
        if close and intent.object is not None:
            approach = Intent(action=IntentAction.ACT, clause=clause, verb="approach", object=intent.object)
            intents.append(approach.model_copy(update={"quantities": standoff}))
        if intents and _grasps_a_part(intents[-1]) and intent.object is None:
            # "grasp the drawer handle and open it": the skill on the drawer grasps its handle itself
            intents[-1] = intent.model_copy(update={"object": _whole_of(intents[-1].object)})
            continue
        if intents and _restates(intents[-1], intent, parts[number - 1]):
            continue  # "whats the temp on the thermometer, can you read it": the question, asked again
        if intents and (merged := merge_pick(intents[-1], intent)) is not None:
            intents[-1] = merged
        else:
            intents.append(intent)
    if described and not intents:
        raise TaskNotUnderstood(task, task)  # it only describes: nothing is asked
    return tuple(intents)


_ORDER_SAID = re.compile(
    r"^(?:(?:going|working|moving|starting|go|work|move|start|one by one|in order|in turn)\s+)?(?:from\s+)?"
    r"(?:your\s+|the\s+)?"
    r"(?P<first>left|right|nearest|closest|farthest|furthest)(?:\s+one)?(?:\s+(?:most|side))?\s+"
    r"(?:to|first|then)(?:\s+(?:your\s+|the\s+)?(?:left|right|farthest|furthest|nearest|closest))?$"
)
_ORDERS = {
    "left": "left_to_right",
    "right": "right_to_left",
    "nearest": "nearest_first",
    "closest": "nearest_first",
    "farthest": "farthest_first",
    "furthest": "farthest_first",
}
"""The order its first end names: "from the left to the right" starts at the left."""
_LEAVE_BE = re.compile(
    r"^(?:and\s+)?leave\s+(?:the|that|this|those|these|my)\s+.+?\s+"
    r"(?:where\s+(?:it|they)\s+(?:is|are|s|re)|alone|as\s+(?:it|they)\s+(?:is|are)|be|in place)$"
)


def _order_said(clause: str) -> str | None:
    """The order a clause of only an ordering asks for ("going from your left to your right"), if it is one."""
    found = _ORDER_SAID.match(clause)
    if found is None:
        return None
    return _ORDERS[found.group("first")]


_DO_AGAIN = re.compile(r"^(?:do|repeat)\s+(?:that|it|this|the same(?:\s+thing)?)(?:\s+(?P<rest>.+))?$")


def _same_way(first: str, second: str) -> bool:
    """Whether two direction phrases say the same way ("back towards you")."""
    direction_of = _compiled().direction_of
    return direction_of[first] == direction_of[second]


def _repeat_total(clause: str) -> int:
    """How many times in all a clause asks for the one before to be done ("do that twice": 2, "repeat it 3
    more times": 4, "do that again": 2); 0 when it does not ask that."""
    found = _DO_AGAIN.match(clause)
    if found is None or found.group("rest") is None:
        return 0
    rest = found.group("rest")
    if rest in ("again", "once more", "one more time", "once again"):
        return 2
    counts = [q for q in find_quantities(re.sub(r"\s*\bmore\b", "", rest)) if q.unit == COUNT]
    if len(counts) != 1 or counts[0].value != int(counts[0].value) or counts[0].value < 1:
        return 0
    said = int(counts[0].value)
    return said + 1 if re.search(r"\bmore\b", rest) else said


_SO = re.compile(r",\s+so\s+(?!that\b|as\b|far\b|much\b|many\b|long\b)(?=\S)")


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
    if means.split()[-1] in load_lexicon().parts:  # "push the handle": the purpose's means
        return [purpose]
    if parse_clause(means, skill_phrases) is None:
        return [clause]
    return [means, purpose]


def _grasps_a_part(intent: Intent) -> bool:
    """A pick of a part of something ("grasp the drawer handle")."""
    return intent.action is IntentAction.PICK and _whole_of(intent.object) is not None


def _whole_of(phrase: str | None) -> str | None:
    """ "the drawer handle" -> "the drawer" (None when the phrase names no part of something)."""
    words = (phrase or "").split()
    if len(words) < 3 or words[-1] not in load_lexicon().parts:
        return None
    return " ".join(words[:-1])


_ELIDED = re.compile(rf"^(?P<x>(?:the|a|an)\s+.+?)(?:\s+{_ALSO})?$")
_ELIDED_NAME = re.compile(r"^(?P<x>[a-z]*\d[a-z0-9_]*|[a-z]+_[a-z0-9_]+)$")
_ELIDED_PLAIN = re.compile(r"^(?P<x>[a-z]+(?: [a-z0-9]+)?)$")
"""A name with a digit or an underscore ("p7", "pump_2"): never a verb."""


def _elided(clause: str, previous: Intent | None, leads: Collection[str] = ()) -> Intent | None:
    """ "put the red cube in the bowl, then the green one": a bare object phrase repeats the previous
    clause's action on it (same destination, same direction); so does a short name after an act ("read t3
    then p7")."""
    if previous is not None and previous.direction is not None and (again := _other_way(clause, previous)):
        return again
    match = _ELIDED.match(clause)
    if match is None and previous is not None and previous.action is IntentAction.ACT:
        match = _short_name(clause, leads)  # "go to the kitchen then hallway": the act again, on it
    if match is None or previous is None or previous.object is None or previous.action is IntentAction.HOME:
        return None
    return previous.model_copy(update={"object": object_phrase(match.group("x")), "clause": clause})


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
    direction = _compiled().direction_of.get(said)
    if direction is None or said == "back":  # "push it left, then back": back where it was, or backwards?
        return None
    return previous.model_copy(update={"direction": direction, "quantities": tuple(amounts), "clause": clause})


_NEEDS_GRASP = (IntentAction.PUT, IntentAction.POUR, IntentAction.STACK)


def merge_pick(first: Intent, second: Intent) -> Intent | None:
    """ "pick the X, then put it on the Y" as one intent: the pick is the means, the placement the goal.

    Kept apart, a replan after the placement would see "pick the X" undone (the X is on the Y now, not
    in the gripper) and pick it again. None when the two clauses are not such a pair.
    """
    if first.action is not IntentAction.PICK or second.action not in _NEEDS_GRASP:
        return None
    if second.object is not None and second.object != first.object:
        return None
    return second.model_copy(update={"object": first.object, "clause": f"{first.clause}, {second.clause}"})


_CLOSENESS = re.compile(
    r"\b(?:closeup|close-up|close up|close-range|close range|tight|detail|detailed|close)"
    r"(?=\s+(?:photo|photos|picture|pictures|pic|shot|image|snapshot|view|look|inspection|reading|of)\b)"
    r"|\s+(?:from\s+)?(?:up close|very close|really close|close by|very near|up near)$|\s+from\s+(?:close|near)$"
)
"""Words that ask for a look from near by ("a close-up photo of", "read it from up close"): approach first."""


_FROM_AWAY = re.compile(r"\s+from\s+(?:about\s+|around\s+)?(?P<amount>\S+(?:\s+\S+){0,2}?)\s+away$")
"""A look from a stated distance ("from half a metre away"): approach to that distance first."""

_NOT_A_DESCRIPTION = frozenset({"to", "going", "gonna", "supposed", "meant", "next", "about", "not"})
"""What after a statement verb says what should happen ("the cube is to go in the bowl"): not described."""
_CONDITION = frozenset({"when", "if", "until", "while", "unless", "before", "after", "whether", "once", "as"})


class _Topic(NamedTuple):
    phrase: str
    needed: bool  # a wish or a bare noun phrase: the next clause must use it, or the task is not understood


_QUESTION = re.compile(r"^(?:what|whats|what s|how|which|where)\b")


def _restates(before: Intent, intent: Intent, asked: str) -> bool:
    """Whether ``intent`` ("can you read it") only asks again what the question before it asked ("whats the
    temp on the thermometer"): the same verb on "it", with nothing more said."""
    return (
        _QUESTION.match(asked) is not None
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


def _subject(clause: str, leads: Collection[str], *, last: bool) -> _Topic | None:
    """What a clause that asks for nothing is about ("the bin is full": the bin; "i d like the blue mug": the
    blue mug; "fridge", before "open it": the fridge); None when it may ask for something.

    A statement ("the bin is full", "battery s low") plans nothing, and says what a following "it" means.
    A wish ("i d like the blue mug") or a bare noun phrase ("fridge") does only before a request that acts
    on "it" ("..., could you get it", "..., open it"), never alone."""
    lexicon = load_lexicon()
    words = clause.split()
    if _CONDITION & set(words):
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
    verbs = "|".join(_alternatives(lexicon.statement_verbs))
    said = re.match(rf"^(?P<x>.+?)\s+(?:{verbs})(?:\s+(?P<rest>.*))?$", clause)
    if said is not None and len(said.group("x").split()) <= 4 and "," not in (said.group("rest") or ""):
        rest = (said.group("rest") or "").split()
        return None if rest and rest[0] in _NOT_A_DESCRIPTION else _Topic(said.group("x"), needed=False)
    if not last and len(words) <= 6 and not any(w in leads for w in words):
        return _Topic(clause, needed=True)  # "fridge", "the blue mug in the fridge": the topic of what follows
    return None
