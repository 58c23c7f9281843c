"""The rewrite grammar: valid GBNF, and every sentence it allows is one the task grammar parses.

``rewrite`` mode holds a local model's reply to this language, and the grammar
planner plans the reply; a sentence the language allows but the task grammar
cannot parse would be a refusal the model could not avoid.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from bt_executive.llm.eval.eval_robots import EvalRobot, load_robot
from bt_executive.llm.language.task_grammar import parse_task
from bt_executive.llm.model.rewrite_grammar import Chars, Focus, Ref, rewrite_grammar, task_focus
from bt_executive.skills.world_state import WorldState

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
SAMPLES = 400


@pytest.fixture(scope="module", params=["tabletop", "home"])
def robot(request: pytest.FixtureRequest) -> EvalRobot:
    """An eval robot: its skills and its frozen world."""
    tuned = GOLDEN / "planner_tasks.yaml" if request.param == "tabletop" else None
    return load_robot(GOLDEN / "robots" / request.param, tuned=tuned)


_RULE = re.compile(r"^([a-z][a-z0-9-]*) ::= (.+)$")
_SYMBOL = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|\[([^\]]+)\]|([a-z][a-z0-9-]*))')


def read_gbnf(text: str) -> dict[str, tuple[tuple[object, ...], ...]]:
    """A checker for the GBNF subset the builder writes: rules of alternatives of literals, classes and refs."""
    rules: dict[str, tuple[tuple[object, ...], ...]] = {}
    for line in text.strip().splitlines():
        match = _RULE.match(line)
        assert match, f"not a rule: {line!r}"
        alternatives = []
        for part in match.group(2).split(" | "):
            symbols: list[object] = []
            rest = part
            while rest.strip():
                symbol = _SYMBOL.match(rest)
                assert symbol, f"bad symbol in {line!r} at {rest!r}"
                literal, chars, ref = symbol.groups()
                if literal is not None:
                    symbols.append(literal.encode().decode("unicode_escape"))
                else:
                    symbols.append(Chars(chars) if chars is not None else Ref(ref))
                rest = rest[symbol.end() :]
            alternatives.append(tuple(symbols))
        rules[match.group(1)] = tuple(alternatives)
    return rules


def test_the_gbnf_text_reads_back_as_the_grammar_with_every_rule_defined(robot: EvalRobot) -> None:
    grammar = rewrite_grammar(robot.registry, robot.world)
    rules = read_gbnf(grammar.gbnf())
    referenced = {s.name for alternatives in rules.values() for a in alternatives for s in a if isinstance(s, Ref)}
    assert next(iter(rules)) == "root"
    assert referenced <= set(rules)
    assert rules == grammar.rules


def test_every_sampled_rewrite_parses_with_the_task_grammar(robot: EvalRobot) -> None:
    grammar = rewrite_grammar(robot.registry, robot.world)
    phrases = {p for manifest in robot.registry for p in manifest.language.phrases}
    rng = random.Random(20)
    for _ in range(SAMPLES):
        parse_task(grammar.sample(rng), phrases)  # raises TaskNotUnderstood naming the clause


def _tabletop() -> EvalRobot:
    return load_robot(GOLDEN / "robots" / "tabletop", tuned=GOLDEN / "planner_tasks.yaml")


def test_a_narrowed_grammar_names_only_what_the_task_names() -> None:
    tabletop = _tabletop()
    focus = task_focus("shove the crimson block leftwards", tabletop.world, tabletop.registry)
    grammar = rewrite_grammar(tabletop.registry, tabletop.world, focus=focus)
    assert (grammar.phrases("object"), grammar.phrases("direction")) == (("the red cube",), ("left",))


def test_an_object_phrase_that_names_several_objects_is_left_out() -> None:
    tabletop = _tabletop()  # three cubes: "the cube" would be refused as ambiguous
    assert "the cube" not in rewrite_grammar(tabletop.registry, tabletop.world).phrases("object")


def test_a_world_with_no_objects_still_gives_a_valid_grammar(robot: EvalRobot) -> None:
    grammar = rewrite_grammar(robot.registry, WorldState(), focus=Focus(amounts=()))
    assert all(read_gbnf(grammar.gbnf()).values())


def test_a_narrowed_grammar_keeps_the_plain_verb_the_tasks_own_and_as_many_commands_as_it_asks() -> None:
    tabletop = _tabletop()

    def narrowed(task: str) -> dict[str, tuple[tuple[object, ...], ...]]:
        focus = task_focus(task, tabletop.world, tabletop.registry)
        return read_gbnf(rewrite_grammar(tabletop.registry, tabletop.world, focus=focus).gbnf())

    one = narrowed("shove the crimson block leftwards")
    assert set(one["push-verb"]) == {("push",), ("shove",)}  # not "nudge", "bump", "move", ...
    assert one["root"] == ((Ref("clause"),),)  # one clause asked: one command
    two = narrowed("shove the crimson block leftwards and after that poke the blue one")
    assert len(two["root"]) == 2
    assert set(two["tap-verb"]) == {("tap",), ("poke",)}
    # "go home" only where the task says so: an arm sent home unasked is not the task's
    assert ("go home",) not in two["clause"]
    assert ("go home",) in narrowed("poke the blue one, then park the arm")["clause"]


@pytest.mark.parametrize(
    ("name", "task"),
    [
        ("home", "kitchen floor filthy vac it pls"),
        ("inspection", "need eyes on the boiler room, send me a pic"),
        ("inspection", "Night round: pump house and boiler room, 20 loops"),
        ("tabletop", "tap red twice and blue once, then go home"),
    ],
)
def test_every_sampled_rewrite_of_a_narrowed_grammar_parses(name: str, task: str) -> None:
    robot = load_robot(GOLDEN / "robots" / name, tuned=GOLDEN / "planner_tasks.yaml" if name == "tabletop" else None)
    grammar = rewrite_grammar(robot.registry, robot.world, focus=task_focus(task, robot.world, robot.registry))
    assert grammar.says_anything
    phrases = {p for manifest in robot.registry for p in manifest.language.phrases}
    rng = random.Random(21)
    for _ in range(SAMPLES // 4):
        parse_task(grammar.sample(rng), phrases)
