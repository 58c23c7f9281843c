"""Typos: a misspelt word becomes the one vocabulary word clearly meant, and is left alone otherwise."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rapidfuzz.distance import OSA

from bt_executive.llm.language.typos import correct

COLOURS = ("red", "blue", "green", "grey", "pink", "white", "yellow", "black")
CATEGORIES = ("cube", "plate", "bowl", "cupboard", "drawer")
PROTECTED = COLOURS + CATEGORIES
VOCABULARY = (
    "the",
    "a",
    "on",
    "in",
    "put",
    "pick",
    "place",
    "push",
    "up",
    "it",
    "ink",
    "box",
    "bag",
    "open",
    "wave",
    "twice",
    *PROTECTED,
)


def fixed(text: str) -> str:
    return " ".join(correct(text.split(), VOCABULARY, protected=PROTECTED).words)


def test_a_misspelt_word_is_corrected_with_a_note() -> None:
    correction = correct(["teh", "red", "cube"], VOCABULARY, protected=PROTECTED)
    assert (correction.words, correction.notes) == (("the", "red", "cube"), ('"teh" -> "the"',))


def test_every_typo_in_a_task_is_corrected() -> None:
    assert fixed("put teh red cueb on the plate") == "put the red cube on the plate"


def test_a_known_word_is_kept() -> None:
    assert correct(["pick"], VOCABULARY, protected=PROTECTED).notes == ()


def test_swapped_letters_in_a_colour_are_corrected() -> None:
    assert fixed("bleu grene") == "blue green"


def test_a_doubled_or_missing_letter_in_a_protected_word_is_corrected() -> None:
    assert fixed("redd platee blu") == "red plate blue"


def test_a_word_two_candidates_fit_equally_is_left_alone() -> None:
    assert correct(["carf"], ["cart", "card"]).words == ("carf",)  # f is next to both t and d


def test_numbers_and_words_with_digits_are_never_touched() -> None:
    assert fixed("put 2 cubes 10cm on teh plate2") == "put 2 cubes 10cm on the plate2"


def test_a_colour_is_never_changed_into_another_colour() -> None:
    assert fixed("pink grey red") == "pink grey red"


def test_a_protected_word_missing_from_the_vocabulary_is_still_kept() -> None:
    assert correct(["pink"], ["pick", "ink"], protected=["pink"]).words == ("pink",)


def test_an_english_word_next_to_a_colour_is_not_made_that_colour() -> None:
    assert fixed("read the gauge") == "read the gauge"  # one extra letter, not a doubled one


def test_a_typo_close_to_two_colours_is_left_alone() -> None:
    assert fixed("gren") == "gren"  # "green" or "grey"


def test_a_substituted_letter_never_makes_a_protected_word() -> None:
    assert fixed("cupe") == "cupe"  # "cube"? "cup"? a wrong object costs more than a refusal


def test_a_typo_near_a_protected_word_is_not_corrected_into_an_ordinary_word() -> None:
    # "pinc" is one edit from "pink" (a substitution, so not taken) and two from "pick": guessing either is unsafe.
    assert fixed("pinc") == "pinc"


def test_a_typo_also_close_to_a_protected_word_is_not_corrected_even_when_an_ordinary_word_is_closer() -> None:
    # One slip from "clipboard" (o for i), two edits from the category "cupboard": it may name the cupboard.
    assert (
        correct(["clopboard"], ["clipboard"]).words,
        correct(["clopboard"], ["clipboard"], protected=["cupboard"]).words,
    ) == (
        ("clipboard",),
        ("clopboard",),
    )


def test_a_neighbouring_key_does_not_make_a_protected_word() -> None:
    # "ref" is "red" with f for d, but a colour chooses the object: only swaps, gaps and doubles make one.
    assert (correct(["ref"], ["red"]).words, correct(["ref"], ["red"], protected=["red"]).words) == (
        ("red",),
        ("ref",),
    )


def test_the_case_the_user_typed_is_kept() -> None:
    assert fixed("Teh red cube") == "The red cube"


def test_a_long_word_may_take_two_edits() -> None:
    assert correct(["manpulaton"], ["manipulation", "population"]).words == ("manipulation",)


def test_two_edits_never_make_a_protected_word() -> None:
    assert correct(["manpulaton"], [], protected=["manipulation"]).words == ("manpulaton",)


def test_two_edits_never_change_the_first_letter() -> None:
    assert correct(["nanpulation"], ["manipulation"]).words == ("nanpulation",)


def test_a_short_word_is_corrected_one_slip_away_and_kept_two_edits_away() -> None:
    assert correct(["hte", "het"], ["the"]).words == ("the", "het")


def test_a_neighbouring_key_hit_instead_is_corrected() -> None:
    assert fixed("picj up teh cube") == "pick up the cube"  # j is next to k


def test_a_far_key_hit_instead_is_left_alone() -> None:
    assert fixed("pics up the cube") == "pics up the cube"  # s is nowhere near k


@pytest.mark.parametrize("word", ["ball", "shelf", "pen", "stove", "keys"])
def test_real_words_one_edit_from_a_vocabulary_word_are_left_alone(word: str) -> None:
    vocabulary = ["all", "shell", "open", "shove", "key"]
    assert correct([word], vocabulary).words == (word,)


def test_the_first_letter_is_never_changed_unless_swapped_with_the_second() -> None:
    assert correct(["oick", "ick", "ipck"], ["pick"]).words == ("oick", "ick", "pick")  # o is next to p


def test_a_plural_is_not_a_typo_of_its_singular() -> None:
    assert correct(["pushes", "waves"], ["push", "wave"]).words == ("pushes", "waves")


def test_the_keyboard_layout_decides_which_keys_are_neighbours() -> None:
    azerty = ("azertyuiop", "qsdfghjklm", "wxcvbn")
    assert (correct(["pmace"], ["place"]).words, correct(["pmace"], ["place"], keyboard=azerty).words) == (
        ("pmace",),
        ("place",),
    )


@given(word=st.sampled_from(PROTECTED), others=st.lists(st.sampled_from(VOCABULARY), max_size=5))
def test_protected_words_always_pass_through_unchanged(word: str, others: list[str]) -> None:
    words = [*others, word]
    assert correct(words, VOCABULARY, protected=PROTECTED).words == tuple(words)


@given(
    word=st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=8).filter(
        lambda w: any(c.isdigit() for c in w)
    )
)
def test_a_word_with_a_digit_is_never_corrected(word: str) -> None:
    assert correct([word], VOCABULARY, protected=PROTECTED).words == (word,)


@given(words=st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=9), max_size=6))
def test_a_correction_keeps_every_word_in_place_and_notes_each_change(words: list[str]) -> None:
    correction = correct(words, VOCABULARY, protected=PROTECTED)
    changed = [w for w, c in zip(words, correction.words, strict=True) if w != c]
    assert len(correction.notes) == len(changed)


@given(words=st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=9), max_size=6))
def test_a_corrected_word_is_always_a_vocabulary_word(words: list[str]) -> None:
    correction = correct(words, VOCABULARY, protected=PROTECTED)
    assert all(c in VOCABULARY for w, c in zip(words, correction.words, strict=True) if w != c)


@given(typo=st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=7))
def test_a_typo_becomes_a_colour_only_when_no_other_colour_is_one_edit_away(typo: str) -> None:
    result = correct([typo], VOCABULARY, protected=PROTECTED).words[0]
    if result != typo and result in COLOURS:
        assert all(OSA.distance(typo, other) > 1 for other in COLOURS if other != result)
