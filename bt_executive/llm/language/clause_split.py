"""A task's text made regular and cut into clauses, before any clause is read.

``normalise_task`` lowers case, reduces punctuation to commas and tidies spoken fillers away;
``split_clauses`` cuts the result at 'then', ',', 'and <verb>' and the other breaks a speaker makes;
``ungap`` gives each half of "put X on Y and Z in W" its verb. What each clause asks is
``clause_forms``' job::

    "Pick up the red cube, then put it on the plate."
      -> "pick up the red cube" | "put it on the plate"
"""

from __future__ import annotations

import re
from collections.abc import Collection
from functools import cache

from bt_executive.llm.language.lexicon import Lexicon, alternatives, load_lexicon
from bt_executive.llm.language.lexicon_patterns import _compiled
from bt_executive.llm.language.quantities import find_quantities, is_repetition, number_words
from bt_executive.llm.language.spoken import strip_enumerators, tidy

_S = r"\s+"
"""Between the words of a phrase where the pattern takes any run of spaces."""


class _Patterns:
    """The lexicon's ``clause_split`` words as compiled patterns (the rules' shapes are here, their words there)."""

    def __init__(self, lexicon: Lexicon) -> None:
        words = lexicon.clause_split
        self.two = re.compile(
            rf"\b(?:{alternatives(words.two_homophones)})\s+(?=(?:{alternatives(words.counted_units)})\b)"
        )
        self.red = re.compile(rf"\b({alternatives(words.red_articles)})\s+read\b(?=\s+[a-z])")
        self.rate = re.compile(
            rf"\b({alternatives(words.rate_units)})\s+(?:{alternatives(words.rate_joiners)})\s+"
            rf"({alternatives(words.rate_times)})\b"
        )
        self.till = re.compile(
            rf"\b({alternatives(words.till_verbs)})\s+(?:{alternatives(words.till_words)})\s+(?=the\b)"
        )
        self.up_close = re.compile(rf"\b({alternatives(words.close_verbs)})\s+up\s+close\s+to\b")
        self.opening_dash = re.compile(rf"^(?:{alternatives(words.dash_openers)})\s*[-–—]+\s*")
        self.rest_of = re.compile(rf"\bthe rest of (?:{alternatives(words.rest_determiners, after=' ')})?")
        self.the_rest = re.compile(rf"\bthe rest\b(?! (?:{alternatives(words.rest_nouns)}))")
        self.going = re.compile(rf"\b(?:{alternatives(words.going_verbs)})\s+and\s+(?=(\w+))")
        repeated = rf"(?:{alternatives(words.repeat_verbs)}) (?:{alternatives(words.repeat_objects)})"
        self.repeat = re.compile(rf",\s*(?:and\s+)?(?:then\s+)?(?={repeated}\b)")
        self.again = re.compile(rf"\b({repeated}) (?:{alternatives(words.again)})\b")
        self.describing = re.compile(
            rf",\s+(?=(?:{alternatives(words.describing_subjects)})\s+(?:{alternatives(words.describing_verbs)})\b)"
        )
        report = alternatives(words.report_nouns)
        self.told = re.compile(
            rf"(?:,|\s+and)\s+(?=(?:{alternatives(words.telling_verbs)})\s+(?:{alternatives(words.told)})\s+what\b"
            rf"|(?:{alternatives(words.report_verbs)})\s+(?:back\s+)?(?:the\s+)?(?:{report})\b)"
        )
        not_described = alternatives(lexicon.clause_patterns.not_described, after=r"\b")
        self.statement = re.compile(
            rf",\s+(?=(?:{alternatives(words.statement_owners, after=_S)})?[a-z]+(?:\s+[a-z]+)?\s+"
            rf"(?:{alternatives(words.statement_verbs)})\s+(?!{not_described})[a-z]+$)"
        )
        self.placement = re.compile(
            rf",\s+(?=(?:{alternatives(words.placement_articles, after=_S)})?[a-z_]+(?:\s+[a-z_]+)?\s+"
            rf"(?:{alternatives(words.placement_relations)})\s)"
        )
        owners = alternatives(words.order_owners, after=" ")
        firsts = alternatives(lexicon.task_grammar.orders)  # "..., nearest first", "..., largest ones first"
        self.order = re.compile(
            rf",\s+(?=(?:{alternatives(words.order_starts)}|from (?:{owners})?(?:left|right)"
            rf"|(?:left|right) to (?:right|left)|(?:{firsts})(?:\s+ones?)?\s+first)\b)"
        )
        self.also = rf"(?:{alternatives(words.also)})"
        allowances = alternatives(words.remark_allowances, space=_S)
        self.remark = re.compile(
            rf"^(?:sorry\s+)?(?:{alternatives(words.remark_speakers)})\s+"
            rf"(?!.*\b(?:{alternatives(words.remark_wishes)})\b)(?:{alternatives(words.remark_verbs)})\b"
            rf"|^i\s+(?:just\s+)?(?:{alternatives(words.remark_wants)})\s+to\s+(?:{alternatives(words.remark_checks)})"
            rf"\s+(?:{alternatives(words.remark_ifs)})\b"
            rf"|^(?:only\s+)?if\s+(?:{alternatives(words.remark_subjects, after=_S)})?(?:s|is)\s+(?:{allowances})$"
            rf"|^(?:the\s+)?[a-z]+(?:\s+[a-z]+)?\s+(?:{alternatives(words.remark_modals)})\s+(?:still\s+)?be\s+[a-z]+$"
        )


@cache
def _patterns() -> _Patterns:
    return _Patterns(load_lexicon())


def also() -> str:
    """Words that end a clause repeating an earlier one ("... and the blue cube too"), as a group."""
    return _patterns().also


def is_remark(clause: str) -> bool:
    """A remark after a request ("..., i m walking the site", "..., the floor might still be wet"): not asked;
    never a wish ("i want the red one too" asks) and never read before a request is."""
    return _patterns().remark.match(clause) is not None


_AXES = {"+x": "forward", "-x": "back", "+y": "left", "-y": "right"}
_AXIS = re.compile(
    r"(?:\b(?:in|along|towards|toward|to)\s+)?(?:the\s+)?(?<![\w+-])(?P<sign>[+-])\s?(?P<axis>[xy])\b"
    r"(?:\s+(?:direction|axis))?"
)
"""A way said as an axis of the robot's frame and its sign ("in +x", "along -y"), with what frames it."""


_SAME_AMOUNT = re.compile(r"\bthe same (?=\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|half)\b)")


def normalise_task(task: str, skill_phrases: Collection[str] = ()) -> str:
    """Lower case, one space between words, clause punctuation reduced to commas, no final stop; spoken
    fillers, self-corrections and list numbers tidied away (``spoken``). ``skill_phrases``: the manifests' verb
    phrases, whose first words may head a list too ("patrol: a -> b -> c")."""
    patterns = _patterns()
    text = strip_enumerators(_verb_heading(task.lower(), skill_phrases)).lower().replace("\u2019", "'")
    text = re.sub(r"(?<![a-z])w/\s*", "with ", text)  # "undock w/ 80 cm clearance"
    # dictation's homophones of "two" before a unit: "tap it too times", "wait for to seconds"
    text = patterns.two.sub("two ", text)
    # "a close-up shot of", "a close up of": a near look, one word, so "close up" is not read as a verb;
    # "a close-up" alone is a photograph's name
    text = re.sub(r"\bclose[- ]?ups?\b(?=\s+(?:of|from)\b)", "closeup photo", text)
    text = re.sub(r"\bclose[- ]?up\b(?=\s+[a-z]+\s+of\b)", "closeup", text)
    text = re.sub(r"(?<![\d.])\b2\s+(?=the\b)", "to ", text)  # texting's "head over 2 the living room"
    # an axis of the robot's frame (REP 103: x forward, y left), as a technician says a way: "80 mm in +x"
    text = _AXIS.sub(lambda m: _AXES[m["sign"] + m["axis"]], text)
    # "follow me during ten minutes": a time said with "during" is how long
    text = re.sub(r"\bduring (?=(?:\S+ ){0,2}(?:seconds?|secs?|minutes?|mins?|hours?|hrs?)\b)", "for ", text)
    text = patterns.red.sub(r"\1 red", text)  # dictation's "the read gauge": red
    # "0.3 metres a second": a rate
    text = patterns.rate.sub(r"\1 per \2", text)
    # "go till the kitchen" (till: to), "drive up close to g1" (up to it)
    text = patterns.till.sub(r"\1 to ", text)
    text = patterns.up_close.sub(r"\1 up to", text)
    # a dash is a clause break only before a correction or a statement, or after an opening word ("quick - ");
    # elsewhere it may join a list to what it explains ("both doors - first the front door, ...")
    text = patterns.opening_dash.sub("", text)
    grammar = _compiled()
    text = grammar.dash_break.sub(", ", text)
    text = re.sub(r"\b([a-z][a-z_]*)\s*=\s*(\d+(?:\.\d+)?)\b", r"\2 \1", text)  # "loops=3" as "3 loops"
    text = re.sub(r",?\s*\b([a-z][a-z_]*)\s*=\s*([a-z][a-z0-9_]*)\b", r" with the \2 \1", text)  # "code=barcode"
    text = re.sub(r"[;:!?]", ",", text)
    text = re.sub(r"\.(?=\s|$)", ",", text)  # a full stop ends a clause; "0.5" keeps its dot
    text = re.sub(r"[\"'()\[\]]", " ", text)
    text = re.sub(r"\s+", " ", text).strip(" ,")
    text = re.sub(r"\s*,(?:\s*,)*\s*", ", ", text)
    text = re.sub(r"\bx(\d+)\b", r"\1 times", text.replace(" + ", " and "))  # "patrol a + b x3"
    # "the rest of the cubes" names objects, it does not "rest" them (a placing verb); "the rest position" stays
    text = patterns.rest_of.sub("the remaining ", text)
    text = re.sub(r"\ban? ([a-z]+?)s? and a half\b", r"one and a half \1s", text)  # "a metre and a half"
    text = re.sub(r"\ba couple of\b", "two", text)  # "a couple of centimetres", "a couple of taps"
    # radio talk's "i need eyes on the boiler gauge": a wish for it, not eyes put on it
    text = re.sub(r"\b(?:(?:i|we) )?(?:need|want|would like|d like) eyes on\b", "i d like", text)
    text = _SAME_AMOUNT.sub("", text)  # "push it back by the same 5 cm": the amount said again
    text = patterns.the_rest.sub("the others", text)
    spellings = load_lexicon().spellings  # "pls", "whats": whole words only (not "u" in "u_turn")
    text = re.sub(r"(?<![a-z0-9_])[a-z]+(?![a-z0-9_])", lambda w: spellings.get(w.group(0), w.group(0)), text)
    return tidy(text)


_HEADING = re.compile(r"^\s*(?P<head>[a-z][a-z0-9 ]*?)(?:\s+for\s+(?:me|us))?\s*:\s+(?=\S)")


def _verb_heading(text: str, skill_phrases: Collection[str]) -> str:
    """ "patrol: a -> b -> c", "do a round for me: kitchen, hallway": a verb before a colon asks for the list after
    it (a one-word verb, or a whole verb phrase, "of" put back where the phrase ends in it); so does a heading
    that ends in what one phrase does ("night round: ...", by "do a round of")."""
    head = _HEADING.match(text)
    if head is None:
        return text
    said, rest = head["head"], text[head.end() :]
    phrases = {*skill_phrases, *(p for p, _ in load_lexicon().action_phrases())}
    if f"{said} of" in phrases:
        return f"{said} of {rest}"
    one_word = " " not in said and said in _compiled().verb_starts | {p.split()[0] for p in skill_phrases}
    if said in phrases or one_word:
        return f"{said} {rest}"
    # "night round: pump house and boiler room": a heading that names what a phrase does ("do a round of"), over
    # a list of things (no verb starts it)
    noun = said.split()[-1]
    naming = sorted(p for p in phrases if re.fullmatch(rf"\S+ (?:a|an) {re.escape(noun)} of", p))
    if len(naming) == 1 and rest.split()[0] not in _compiled().verb_starts:
        return f"{naming[0]} {rest}"
    # "do 10 patrol rounds: a, b": a count of rounds of the list ("do 10 patrol rounds of a, b")
    if _counts_rounds(said) and rest.split()[0] not in _compiled().verb_starts:
        return f"{said} of {rest}"
    return text


def _counts_rounds(heading: str) -> bool:
    """A heading that counts rounds of what follows ("do 10 patrol rounds", "do three loops"): "do", a number
    (digits, or a number word of the lexicon), at most one more word, and a plural."""
    words = heading.split()
    if len(words) not in (3, 4) or words[0] != "do" or not all(re.fullmatch(r"[a-z]+", w) for w in words[2:]):
        return False
    if not words[-1].endswith("s"):
        return False
    return words[1].isdigit() or words[1] in number_words()


_EACH_ITS_OWN = re.compile(
    r"(?P<a>\b(?:the )?[a-z_]+(?: [a-z_]+)? on (?!the\b|a\b|an\b|top\b|it\b)[a-z]+) and "
    r"(?P<b>(?:the )?[a-z_]+(?: [a-z_]+)? on (?!the\b|a\b|an\b|top\b|it\b)[a-z]+)(?=$|,)"
)
"""Two objects, each with a one-word setting said after "on" ("the kitchen on eco and the hallway on max")."""

_NOT_A_THING = "it|that|this|them|these|those|s|is|are|re|was|be|been|so|later|right|and|or|then|from"
"""Words a terse goal's noun ("light on", "front door open") never starts or holds: a pronoun, a copula, an
adverb of "and so on", "later on"."""


def split_clauses(task: str, skill_phrases: Collection[str] = ()) -> list[str]:
    """The clauses of a normalised task, split at 'then', ',', 'and then' and 'and <verb>'."""
    grammar, patterns = _compiled(), _patterns()
    leads = frozenset(p.split()[0] for p in skill_phrases)
    separator = grammar.separator_with(leads)
    verbs = grammar.lexicon.verb_words() | leads
    # "go and recharge", "come and see": the going is how, not a task of its own
    task = patterns.going.sub(lambda m: "" if m.group(1) in verbs else m.group(0), task)
    # "taking the mug off the table and dropping it in the bin": each -ing verb after the first is a verb too
    task = re.sub(r"\b(and |then |, )(\w+ing)\b", lambda m: m.group(1) + infinitive_first(m.group(2), verbs), task)
    # "you put the cube inside and after that you close the drawer": a request said to "you" is a request
    alternatives = "|".join(sorted(re.escape(w) for w in verbs))
    # "tap it, do that twice", "..., then do it again": a repetition is a clause of its own ("again" survives)
    task = patterns.repeat.sub(", then ", task)
    task = patterns.again.sub(r"\1 once more", task)
    # "in the kitchen, wipe the table": a place said first is part of the request after it (``place_last``)
    lexicon = grammar.lexicon
    places = "|".join(sorted((re.escape(r) for r in lexicon.place_relations), key=len, reverse=True))
    owners = "|".join(sorted(re.escape(d) for d in lexicon.determiners))
    task = re.sub(
        rf"(^|,\s|\bthen\s)((?:{places}) (?:{owners}) [a-z_]+(?: [a-z_]+){{0,2}}),\s+(?=(?:{alternatives})\b)",
        r"\1\2 ",
        task,
    )
    # "open drawer -> wait 5 s -> close drawer": an arrow before a verb is "then"
    task = re.sub(rf"\s*(?:->|=>|-->|→)\s*(?=(?:{alternatives})\b)", ", then ", task)
    # "patrol kitchen -> hallway -> living room": a chain of arrows is a list ("red cube -> plate" is a placement)
    task = re.sub(r"[^,]*(?:(?:->|=>|-->|→)[^,]*){2,}", lambda m: re.sub(r"\s*(?:->|=>|-->|→)\s*", ", ", m[0]), task)
    modal = r"(?:(?:can|could|may|might|should|will|ll|must|need to|have to)\s+)?"  # "..., you can open it"
    task = re.sub(rf"(^|,\s|\band\s|\bthen\s|\bafter that\s)you\s+{modal}(?=(?:{alternatives})\b)", r"\1", task)
    # "close that drawer, it s sticking out": what follows describes, it is a clause of its own
    task = patterns.describing.sub(" then ", task)
    # "..., the floor might still be wet", "..., only if that s not too much trouble": a remark is a clause of its own
    task = re.sub(r",\s+(?=[^,]+$)", lambda m: ", then " if is_remark(task[m.end() :]) else m.group(), task)
    task = grammar.and_nothing.sub(", then ", task)
    # "vacuum the kitchen on eco and the hallway on max": each place with its own setting, one after the other
    task = _EACH_ITS_OWN.sub(r"\g<a>, then \g<b>", task)
    # "light on, front door open", "lamp off and blinds shut": a terse goal after a comma or "and" is a clause
    word = rf"(?!(?:{_NOT_A_THING})\b)[a-z]+"
    goal = rf"(?:the )?(?!(?:{alternatives})\b){word}(?: {word}){{0,2}} (?:open|opened|closed|shut|on|off)"
    task = re.sub(rf"(?:,|\s+and)\s+(?={goal}\s*(?:,|$|\band\b|\bthen\b))", ", then ", task)
    # "read the thermometer and tell me what it says": being told is a clause of its own (lexicon: empty_clauses)
    task = patterns.told.sub(", then ", task)
    # "go charge, battery s low", "..., the floor is wet": a statement about a thing is a clause of its own
    task = patterns.statement.sub(" then ", task)
    task = grammar.statement_after.sub(", then ", task)  # "wipe the table, the kids got jam everywhere"
    # "green cube into the bowl, red cube onto the plate, leave the blue one": each placement is a clause
    task = patterns.placement.sub(", then ", task)
    task = re.sub(r",\s+(?=(?:and\s+)?leave\s)", ", then ", task)
    # "tap every cube, going from your left to your right": the order is a clause of its own
    task = patterns.order.sub(", then ", task)
    # "patrol hallway then kitchen, 5 loops": an amount after a comma is more of the clause before
    task = re.sub(r",\s+(?=\d+(?:\.\d+)?\s*[a-z]+\s*(?:,|$))", " then ", task)
    parts = separator.split(task) if task else []
    clauses = []
    for part in parts:
        part = grammar.adverbs.sub("", part)  # "set it gently onto the plate"
        part = grammar.aside.sub("", part)  # "..., because that s where the toys live": why, not what
        # a space before: a clause that is all politeness ("if you don t mind") goes whole, not its last word
        clause = grammar.suffix.sub("", " " + grammar.prefix.sub("", part.strip() + " ").strip()).strip(" ,")
        if clause:
            clauses.append(clause)
    return clauses


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


def place_last(clause: str, leads: Collection[str]) -> str:
    """ "in the living room, make the light on" as "make the light on in the living room": a place said before
    the request's verb (a ``place_relations`` word, then a phrase with its determiner, then a known verb) is
    said after the request, where the grammar reads where its object is. The clause unchanged otherwise."""
    words = clause.replace(",", " , ").split()
    lexicon = load_lexicon()
    relations = sorted((r.split() for r in lexicon.place_relations), key=len, reverse=True)
    relation = next((r for r in relations if words[: len(r)] == r), None)
    if relation is None or len(words) <= len(relation) or words[len(relation)] not in lexicon.determiners:
        return clause
    start = len(relation) + 1
    for at in range(start + 1, min(start + 4, len(words))):
        if words[at] in leads or (words[at] == "," and at + 1 < len(words) and words[at + 1] in leads):
            verb_at = at + 1 if words[at] == "," else at
            place = " ".join(w for w in words[:at] if w != ",")
            return f"{' '.join(words[verb_at:])} {place}"
        if words[at] == ",":
            return clause
    return clause


@cache
def _too() -> re.Pattern[str]:
    return re.compile(rf"^(?P<head>.+?)\s+and\s+(?P<z>(?:the|a|an)\s+[^,]+?)\s+{also()}$")


def ungap(clause: str) -> list[str]:
    """ "put X on Y and Z in W" as two clauses, each with the verb; "put X in Y and Z too" as the clause
    and the bare "Z" (which repeats it); "tap X twice and Y once" as "tap X twice" and the bare "Y once" (a
    count said after the first object is that object's alone); other clauses unchanged."""
    too = _too().match(clause)
    if too is not None:
        return [*ungap(too.group("head")), too.group("z")]
    if (counted := _count_gap(clause)) is not None:
        return [counted[0], *ungap(counted[1])]
    match = _compiled().gapped.match(clause)
    if match is None:
        return [clause]
    verb = match.group("v")
    return [f"{verb} {match.group('a')}", *ungap(f"{verb} {match.group('b')}")]


def _count_gap(clause: str) -> tuple[str, str] | None:
    """ "tap the red cube twice and the blue one": (the clause up to its count, what follows the "and"),
    when the clause starts with a verb and what follows names no verb of its own; None otherwise."""
    grammar = _compiled()
    starts = grammar.verb_starts
    if clause.split(" ", 1)[0] not in starts:
        return None
    for amount in find_quantities(clause):
        if not is_repetition(amount):
            continue
        after = re.match(r"\s*,?\s+and\s+(?P<rest>\S.*)$", clause[amount.span[1] :])
        if after is not None and after["rest"].split()[0] not in starts:
            return clause[: amount.span[1]], after["rest"]
    return None
