"""The one-pass phrase finder agrees with a naive search, one phrase at a time."""

from __future__ import annotations

import random
import re

import pytest

from agent_eval_contains import contains
from agent_eval_contains.scan import PhraseFinder

_WORD = re.compile(r"\w")


def is_word(char: str) -> bool:
    return _WORD.match(char) is not None


def naive_find(phrases: list[str], text: str, whole_words: bool = False) -> set[str]:
    """Every phrase that occurs in text, searched one by one at every position."""
    found = set()
    for phrase in phrases:
        start = text.find(phrase)
        while start != -1:
            end = start + len(phrase)
            starts_clean = not is_word(phrase[0]) or start == 0 or not is_word(text[start - 1])
            ends_clean = not is_word(phrase[-1]) or end == len(text) or not is_word(text[end])
            if not whole_words or (starts_clean and ends_clean):
                found.add(phrase)
                break
            start = text.find(phrase, start + 1)
    return found


def random_phrases(rng: random.Random, alphabet: str, count: int, longest: int) -> list[str]:
    return ["".join(rng.choices(alphabet, k=rng.randint(1, longest))) for _ in range(count)]


ALPHABETS = ["ab", "ab -", "aé_ .", "xyz1+"]


@pytest.mark.parametrize("whole_words", [False, True])
@pytest.mark.parametrize("budget", [1, 1 << 22], ids=["small-windows", "one-window"])
@pytest.mark.parametrize("max_passes", [0, 64], ids=["one-pattern", "pass-per-first-character"])
@pytest.mark.parametrize("direct_limit", [0, 8], ids=["patterns", "substring-search-when-few"])
@pytest.mark.parametrize("alphabet", ALPHABETS)
def test_finder_agrees_with_naive_search(
    alphabet: str, direct_limit: int, max_passes: int, budget: int, whole_words: bool
) -> None:
    rng = random.Random(f"{alphabet}{max_passes}{budget}{whole_words}{direct_limit}")
    for _ in range(300):
        phrases = random_phrases(rng, alphabet, rng.randint(1, 12), 5)
        text = "".join(rng.choices(alphabet, k=rng.randint(0, 60)))
        finder = PhraseFinder.compile(
            phrases, whole_words=whole_words, max_passes=max_passes, capture_budget=budget, direct_limit=direct_limit
        )
        assert finder.find(text) == naive_find(phrases, text, whole_words), (phrases, text)


@pytest.mark.parametrize("whole_words", [False, True])
def test_finder_agrees_with_naive_search_over_a_large_alphabet(whole_words: bool) -> None:
    # Hundreds of distinct first characters: the finder must split its alternatives, not scan them in a line.
    rng = random.Random(7)
    alphabet = "".join(chr(0x4E00 + i) for i in range(300)) + " ab"
    phrases = random_phrases(rng, alphabet, 600, 3)
    text = "".join(rng.choices(alphabet, k=20_000))
    finder = PhraseFinder.compile(phrases, whole_words=whole_words)
    assert finder.find(text) == naive_find(phrases, text, whole_words)


def test_prefixes_of_a_longer_match_are_found() -> None:
    finder = PhraseFinder.compile(["cat", "category", "cate", "at"])
    assert finder.find("category") == {"cat", "category", "cate", "at"}


def test_overlapping_phrases_are_each_found() -> None:
    finder = PhraseFinder.compile(["abc", "bcd", "cde"])
    assert finder.find("abcde") == {"abc", "bcd", "cde"}


def test_a_phrase_inside_another_match_is_found() -> None:
    finder = PhraseFinder.compile(["warranty", "ant", "rr"])
    assert finder.find("warranty") == {"warranty", "ant", "rr"}


def test_whole_words_keeps_a_shorter_phrase_when_the_longer_one_runs_into_a_word() -> None:
    finder = PhraseFinder.compile(["new", "new york", "new yorker"], whole_words=True)
    assert finder.find("a new yorker") == {"new", "new yorker"}
    assert finder.find("new yorkers") == {"new"}


def test_a_long_chain_of_prefixes_compiles_and_is_found() -> None:
    # Each phrase a prefix of the next nests the pattern deeper than the regex parser's recursion allows.
    phrases = ["a" * n for n in range(1, 1200)]
    finder = PhraseFinder.compile(phrases)
    assert finder.find("b" + "a" * 700 + "b") == set(phrases[:700])


def test_a_long_phrase_matching_everywhere_is_searched_in_windows() -> None:
    # Every position of the text starts a 2,000-character match; held at once they would take gigabytes.
    finder = PhraseFinder.compile(["a" * 2_000, "b"])
    assert finder.window < 10_000
    assert finder.find("a" * 60_000) == {"a" * 2_000}


def test_regex_metacharacters_are_literal() -> None:
    finder = PhraseFinder.compile([".*", "a|b", "(x)", "\\d", "[", "$"])
    assert finder.find("a|b costs $5 (x)") == {"a|b", "(x)", "$"}


def test_empty_text_finds_nothing() -> None:
    assert PhraseFinder.compile(["a"]).find("") == set()


def test_no_phrases_find_nothing() -> None:
    assert PhraseFinder.compile([]).find("anything") == set()


def reference_contains(keywords: list[str], text: str, *, casefold: bool, collapse: bool, whole: bool) -> list[str]:
    """The spec of the options, one keyword at a time: normalise both sides, then search."""

    def normal(value: str) -> str:
        value = value.casefold() if casefold else value.lower()
        return re.sub(r"\s+", " ", value) if collapse else value

    normalised = normal(text)
    return [k for k in keywords if normal(k) in naive_find([normal(k)], normalised, whole)]


@pytest.mark.parametrize("casefold", [False, True])
@pytest.mark.parametrize("collapse", [False, True])
@pytest.mark.parametrize("whole", [False, True])
def test_contains_agrees_with_the_reference_for_every_option(casefold: bool, collapse: bool, whole: bool) -> None:
    rng = random.Random(f"{casefold}{collapse}{whole}")
    alphabet = "aAßS \n\tİi-"
    for _ in range(300):
        keywords = random_phrases(rng, alphabet, rng.randint(1, 6), 4)
        text = "".join(rng.choices(alphabet, k=rng.randint(0, 30)))
        evaluator = contains(keywords, casefold=casefold, collapse_whitespace=collapse, whole_words=whole)
        verdict = evaluator(text)
        expected = reference_contains(keywords, text, casefold=casefold, collapse=collapse, whole=whole)
        assert verdict.metadata["found"] == expected, (keywords, text)
