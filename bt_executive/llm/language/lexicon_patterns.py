"""The lexicon compiled into the regular expressions every part of the task grammar runs.

``config/lexicon.yaml`` holds the words (verb synonyms, directions, fillers, asides); ``_Compiled``
turns them into patterns once per lexicon, so that normalising, splitting and reading a clause all match
the same words. Of the grammar it holds only what the patterns need: their shapes, the relation group
(``on_relation``, its words the lexicon's ``clause_patterns.relations``) and the order in which one verb's
intents are tried (``_ORDER``).
"""

from __future__ import annotations

import functools
import re
from functools import cache

from bt_executive.llm.language.intents import IntentAction
from bt_executive.llm.language.lexicon import Lexicon, alternatives, load_lexicon


@cache
def on_relation() -> str:
    """A placement's relation word as the group ``rel`` ("on top of", "into"; ``clause_patterns.relations``)."""
    return rf"(?P<rel>{alternatives(load_lexicon().clause_patterns.relations)})"


# Intents tried in this order when one verb means several ("move the cube left" is a push).
_ORDER = (IntentAction.PUSH, IntentAction.STACK, IntentAction.PUT, IntentAction.POUR, IntentAction.PICK)


class _Compiled:
    """The lexicon turned into the regular expressions the grammar runs (built once per lexicon)."""

    def __init__(self, lex: Lexicon) -> None:
        words = lex.clause_patterns
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
        ways = "|".join(re.escape(p) for p, _ in directions)
        vague = "|".join(_alternatives(lex.vague_amounts))
        self.push = re.compile(
            rf"^(?P<x>.+?)\s+(?:(?:{vague})\s+)?"
            rf"(?:(?:{alternatives(words.towards)})\s+(?:the\s+)?)?(?P<d>{ways})(?:\s+(?P<d2>{ways}))?"
            rf"(?:\s+(?:{vague}))?$"
        )
        self.lexicon = lex
        self.put_down = frozenset(lex.put_down_verbs)
        relations = "|".join(_alternatives(lex.unsupported_relations))
        self.unsupported = re.compile(rf"(?:^|\s)(?:{relations})(?:\s|$)")
        # "put the red cube in the bowl and the blue cube on the plate": the verb serves both halves.
        self.gapped = re.compile(
            r"^(?P<v>"
            + "|".join(re.escape(p) for p in self.verbs)
            + r")\s+(?P<a>.+?\s+"
            + rf"(?P<rel>{alternatives(words.relations)})"
            + r"\s+.+?)(?:\s*,\s*(?:and\s+)?|\s+and\s+)"
            rf"(?P<b>(?:{alternatives(words.gapped_articles)})\s+.+?\s+(?:{alternatives(words.gapped_relations)})\s+.+)$"
        )
        # "look, the robot will ..." drops its "look"; "look at the gauge" keeps it: no prefix before "at"
        self.prefix = re.compile(r"^(?:(?:" + "|".join(_alternatives(lex.filler_prefixes)) + r")(?:\s*,)?\s+(?!at\b))+")
        self.suffix = re.compile(r"(?:[\s,]+(?:" + "|".join(_alternatives(lex.filler_suffixes)) + r"))+$")
        # "like a drum" is an aside, "i d like a photo" a wish: no aside right after a wishing word
        not_after = "".join(rf"(?<!\b{w})" for w in words.wishing_words)  # a look-behind has one width
        self.aside = re.compile(rf"(?:^|{not_after}\s)(?:" + "|".join(_alternatives(lex.asides)) + r")(?:\s.*)?$")
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
    def statement_verb(self) -> str:
        """A statement's verb, after its subject: a ``statement_verbs`` word, maybe after a ``statement_adverbs``
        one ("keeps", "only has"). Pronoun subjects take any -s or -ed verb too ("it only swings inwards")."""
        adverbs = "|".join(_alternatives(self.lexicon.statement_adverbs))
        verbs = "|".join(_alternatives(self.lexicon.statement_verbs))
        return rf"(?:(?:{adverbs})\s+)?(?:{verbs})"

    @functools.cached_property
    def statement_after(self) -> re.Pattern[str]:
        """A comma before a statement that follows a request ("close the drawer, the camera cable keeps catching
        on it", "..., it only swings inwards", "..., bub s asleep"): the statement is a clause of its own."""
        adverbs = "|".join(_alternatives(self.lexicon.statement_adverbs))
        words = self.lexicon.clause_patterns
        indefinite = set(words.indefinite_determiners)
        owned = "|".join(_alternatives([d for d in self.lexicon.determiners if d not in indefinite]))
        said = (
            rf"(?:{owned})\s+[a-z]+(?:\s+[a-z]+){{0,2}}\s+{self.statement_verb}"
            rf"|(?:{alternatives(words.pronoun_subjects)})\s+(?:(?:{adverbs})\s+)?"
            rf"(?:{self.statement_verb}|[a-z]{{2,}}(?:s|ed))"
            rf"|[a-z]+(?:\s+[a-z]+)?\s+(?:{alternatives(words.be_forms)})"
        )
        not_described = alternatives(words.not_described, after=r"\b")
        return re.compile(rf",\s+(?=(?:{said})\s+(?!{not_described})[a-z])")

    @functools.cached_property
    def statement(self) -> re.Pattern[str]:
        """A whole statement: its subject (``x``), its verb, and the rest ("the bin is full", "it only has three")."""
        adverbs = "|".join(_alternatives(self.lexicon.statement_adverbs))
        return re.compile(
            rf"^(?:(?P<x>.+?)\s+{self.statement_verb}"
            rf"|(?P<p>{alternatives(self.lexicon.clause_patterns.pronoun_subjects)})\s+(?:(?:{adverbs})\s+)?[a-z]{{2,}}(?:s|ed))(?:\s+(?P<rest>.*))?$"
        )

    @functools.cached_property
    def dash_break(self) -> re.Pattern[str]:
        """A dash before a correction, a statement or a verb: a clause break ("follow me - stay 2 m back")."""
        said = [*self.lexicon.clause_patterns.dash_breaks, *self.verb_starts]
        breaks = "|".join(sorted(re.escape(w) for w in said))
        return re.compile(rf"\s*(?:\s[-–]+|—+)\s*(?=(?:{breaks})\b)")

    @functools.lru_cache(maxsize=16)  # noqa: B019 - one _Compiled per lexicon, and few skill sets
    def separator_with(self, skill_verbs: frozenset[str]) -> re.Pattern[str]:
        """Where a task splits into clauses: 'then', ',' or 'and' before a verb (the lexicon's, and the first
        words of the robot's skill phrases: "..., wait 5 seconds, then ..."). "the red, green and blue cubes"
        is one list."""
        # The verb of an unsafe word's safe idiom starts a clause too: "the red mug is chipped, throw it out".
        idioms = {p.split()[0] for p in self.lexicon.unsafe_idioms if re.fullmatch(r"[a-z]+", p.split()[0])}
        verbs = "|".join(sorted(re.escape(w) for w in self.lexicon.verb_words() | skill_verbs | idioms))
        # A comma before politeness starts a clause ("..., please open it"), but not one before an article or
        # a pronoun that politeness may start with ("the robot will", "it will"): "..., the blue one on the plate".
        fillers = {w.split()[0] for w in self.lexicon.filler_prefixes} - set(self.lexicon.determiners)
        fillers -= set(self.lexicon.clause_patterns.not_leads)
        leads = "|".join(sorted({re.escape(w) for w in fillers} | set(verbs.split("|"))))
        space = r"\s+"
        afterwards = alternatives(
            self.lexicon.clause_patterns.afterwards, before=rf"{space}(?:and{space})?", after=space, space=space
        )
        # "..., maybe give it a wipe": an adverb before a verb starts a clause as politeness does
        adverbs = "|".join(_alternatives(self.lexicon.adverbs))
        return re.compile(
            rf"\s*(?:,\s*(?:and\s+)?(?:then\s+)?(?=(?:{leads})\b|(?:{adverbs})\s+(?:{verbs})\b)"
            rf"|\s+and\s+then\s+|\s+then\s+"
            rf"|{afterwards}|\s+and\s+(?:after\s+)?(?=(?:{verbs})\b)"
            rf"|,?\s+but\s+(?=(?:{verbs})\b))\s*"
        )


def _alternatives(phrases: list[str]) -> list[str]:
    return [re.escape(p) for p in sorted(phrases, key=len, reverse=True)] or ["(?!)"]


@cache
def _compiled() -> _Compiled:
    return _Compiled(load_lexicon())
