"""The clause forms: one clause of a task read into an intent, or None when no form matches it.

The tabletop's closed forms (pick, put, stack, push, pour, tap, open, close, home, towers, stated goals,
verbless placements) and the act form (a verb phrase from the lexicon's actions or a manifest's
``language.phrases``, then what it acts on, where, which way). Amounts are read apart from the phrases
(``quantities``), counted nouns ("take three photos of") and owned nouns ("scan its barcode") are
rephrased to the skills' phrases first. How clauses combine into a task is ``task_grammar``'s job::

    "push the red cube 10 cm to the left" -> PUSH(the red cube, left, 10 cm)
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Literal

from bt_executive.llm.language.clause_split import _ALSO, infinitive_first
from bt_executive.llm.language.intents import Intent, IntentAction
from bt_executive.llm.language.lexicon import load_lexicon
from bt_executive.llm.language.lexicon_patterns import _ON, _alternatives, _compiled
from bt_executive.llm.language.noun_phrases import expand_phrase
from bt_executive.llm.language.quantities import COUNT, Quantity, find_quantities

_ARTICLE = re.compile(r"^(?:the|a|an|that|this)\s+")
_PRONOUN = frozenset({"it", "that", "this", "them", "one", "those", "these", "both of them", "all of them", "top"})
"""Words that stand for an object named before ("top": "then put the green one on top")."""
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
    if (recounted := _counted_rephrasing(clause, skill_phrases)) is not None:
        return recounted
    amounts = find_quantities(clause)
    if not amounts and (counted := _FOR_COUNT.search(clause)) is not None and (n := _count_word(counted["n"])):
        # "set the table for four": a count said with no noun after it, for a skill's count parameter
        amounts = [Quantity(value=n, unit=COUNT, kind=COUNT, span=counted.span("n"), text=counted["n"])]
    if amounts:  # "push the red cube 10 cm to the left": the amount is read apart from the phrases
        amounts, bare = _named_amounts(clause, amounts)
        bare = _without_amount_frames(bare, amounts)
        bare = re.sub(r"\s+,\s*", " ", bare)  # "hoover the hallway twice, on eco": the comma was the amount's
        bare = re.sub(r"\s+(?:by|for|at)(?=\s+(?:to|towards|toward|$))|\s+(?:by|for|at)$", "", " ".join(bare.split()))
        bare = _compiled().suffix.sub("", bare.strip(" ,")).strip(" ,")  # "drive to the room please, 0.2 m/s"
        intent = _parse_clause(bare, skill_phrases)
        return None if intent is None else intent.model_copy(update={"clause": clause, "quantities": tuple(amounts)})
    return _parse_clause(clause, skill_phrases)


def _counted_rephrasing(clause: str, skill_phrases: Collection[str]) -> Intent | None:
    """A rephrasing that says its amount in other words ("do three loops of corridor b", "give it two taps"),
    read with the amount in it: amounts are otherwise read apart before any rephrasing, which would leave
    "do loops of corridor b". None when no rephrasing's reading says an amount."""
    reading = rephrased(clause, skill_phrases)
    if reading is None or not find_quantities(reading) or find_quantities(reading) == find_quantities(clause):
        return None
    amounts = find_quantities(reading)
    named, bare = _named_amounts(reading, amounts)
    intent = _parse_plain(_without_amount_frames(bare, named).strip(" ,"), skill_phrases)
    return None if intent is None else intent.model_copy(update={"clause": clause, "quantities": tuple(named)})


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


_QUESTION = re.compile(r"\b(?:what|where|which|who|why|how|is|are|do|does|can|could)\b")


def _verbless(clause: str) -> Intent | None:
    """ "red cube on the plate", "the blue block to the bowl", "red on top of green": a placement with its verb
    left out.

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
    named = last in nouns or (len(words) == 1 and last in lex.colour_words())  # "red on top of green"
    if len(words) > 4 or not named or (words[0] not in starts and first not in lex.colour_words()):
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


def _same_way(first: str, second: str) -> bool:
    """Whether two direction phrases say the same way ("back towards you")."""
    direction_of = _compiled().direction_of
    return direction_of[first] == direction_of[second]
