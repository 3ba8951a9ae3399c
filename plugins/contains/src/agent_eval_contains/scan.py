"""Finding many phrases in a text at once, with a trie-shaped regular expression.

A trie of the phrases becomes a regular expression in which each branch point is
an alternation, so the engine follows one path per position instead of trying
every phrase. The pattern is a lookahead (or consumes a single character), so
every position is tried and overlapping phrases are all found. At each position
the engine prefers going deeper, so it reports the longest phrase starting
there; shorter phrases starting at the same position are its prefixes and are
recovered from it afterwards.

The work does not grow with the number of phrases: when they start with at most
``MAX_PASSES`` distinct characters, each first character gets its own pattern,
which the engine finds by a fast literal scan (for English keywords that is about
twice as fast as one pattern holding them all); otherwise one pattern holds them all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

import attrs

#: At most this many distinct first characters get a pattern of their own, which the
#: engine finds with a fast literal scan; with more, one pattern holds every phrase.
MAX_PASSES = 64
#: A trie node with more branches than this is split by character class, so that a
#: position is rejected after a few class tests instead of one test per branch.
WIDE = 32
FAN = 4
#: Roughly how many characters of matches one search may hold at once: a text is searched in
#: overlapping windows so that a long phrase matching at every position cannot exhaust memory.
CAPTURE_BUDGET = 1 << 22
#: Up to this many phrases (and no whole-word rule), each is looked for with ``in``: for the few
#: keywords of a typical case, C's substring search costs less than running any pattern.
DIRECT_LIMIT = 8

_END = ""
_WORD = re.compile(r"\w")
_NON_WORD = re.compile(r"\W")

Trie = dict[str, "Trie"]


def is_word(char: str) -> bool:
    """True for the characters ``\\w`` matches (letters, digits, underscore, in any script)."""
    return _WORD.match(char) is not None


@attrs.frozen
class PhraseFinder:
    """A compiled set of phrases; :meth:`find` returns those that occur in a text."""

    phrases: frozenset[str]
    whole_words: bool
    #: (prefix, pattern): each match of ``pattern`` is the longest phrase at a position, minus ``prefix``.
    patterns: tuple[tuple[str, re.Pattern[str]], ...] = attrs.field(repr=False, eq=False)
    lengths: tuple[int, ...] = attrs.field(repr=False, eq=False)
    window: int = attrs.field(repr=False, eq=False)
    #: Few phrases and no word boundaries: C's substring search beats any pattern.
    direct: bool = attrs.field(default=False, repr=False, eq=False)

    @classmethod
    def compile(
        cls,
        phrases: Iterable[str],
        *,
        whole_words: bool = False,
        max_passes: int = MAX_PASSES,
        capture_budget: int = CAPTURE_BUDGET,
        direct_limit: int = DIRECT_LIMIT,
    ) -> PhraseFinder:
        """Compile ``phrases`` (non-empty strings, compared exactly) for searching."""
        unique = sorted(set(phrases))
        if "" in unique:
            raise ValueError("phrases must not be empty strings")
        builder = _Builder(whole_words)
        firsts = sorted({phrase[0] for phrase in unique})
        if len(firsts) <= max_passes:
            patterns = [p for first in firsts for p in builder.compile([s for s in unique if s[0] == first], True)]
        else:
            patterns = builder.compile(unique, False)
        lengths = tuple(sorted({len(phrase) for phrase in unique})) or (1,)
        window = max(2 * lengths[-1], capture_budget // lengths[-1])
        direct = not whole_words and len(unique) <= direct_limit
        return cls(frozenset(unique), whole_words, tuple(patterns), lengths, window, direct)

    def find(self, text: str) -> set[str]:
        """The phrases that occur in ``text`` (with whole_words: not inside a longer word)."""
        if self.direct:
            return {phrase for phrase in self.phrases if phrase in text}
        found: set[str] = set()
        for start, end in self._windows(text) if self.patterns else ():
            longest: set[str] = set()
            for prefix, pattern in self.patterns:
                matches = set(pattern.findall(text, start, end))
                longest |= {prefix + rest for rest in matches} if prefix else matches
            found.update(phrase for match in longest - found for phrase in self._prefixes(match))
            if len(found) == len(self.phrases):
                break  # the rest of the text cannot add anything
        return found

    def _windows(self, text: str) -> Iterator[tuple[int, int]]:
        """Spans of ``text`` that overlap by a phrase's length, so each occurrence lies wholly in one."""
        start = 0
        while True:
            end = start + self.window
            if end < len(text) and self.whole_words:
                # The engine sees the end of a window as the end of the text; ending a window just
                # before a non-word character keeps "no word character follows" as true as in the text.
                boundary = _NON_WORD.search(text, end)
                end = boundary.start() if boundary else len(text)
            if end >= len(text):
                yield start, len(text)
                return
            yield start, end
            start = end - (self.lengths[-1] - 1)

    def _prefixes(self, match: str) -> Iterable[str]:
        """``match`` and every phrase that is a prefix of it and may end where it ends."""
        for length in self.lengths:
            if length > len(match):
                break
            candidate = match[:length]
            if candidate in self.phrases and (length == len(match) or self._ends_cleanly(match, length)):
                yield candidate

    def _ends_cleanly(self, match: str, length: int) -> bool:
        return not (self.whole_words and is_word(match[length - 1]) and is_word(match[length]))


class _Builder:
    """Turns sorted phrases into compiled patterns."""

    def __init__(self, whole_words: bool) -> None:
        self.whole_words = whole_words

    def compile(self, phrases: Sequence[str], per_first: bool) -> list[tuple[str, re.Pattern[str]]]:
        """Patterns for ``phrases``; halved until the regex parser's recursion limit allows them."""
        try:
            return [self._pattern(phrases, per_first)]
        except RecursionError:
            # Each level of nesting needs a branch point, so fewer phrases nest less deeply.
            if len(phrases) < 2:
                raise
            middle = len(phrases) // 2
            return self.compile(phrases[:middle], per_first) + self.compile(phrases[middle:], per_first)

    def _pattern(self, phrases: Sequence[str], per_first: bool) -> tuple[str, re.Pattern[str]]:
        trie = _trie(phrases)
        if not per_first:
            # A class test of every first character rejects most positions before the branches are tried.
            firsts = "".join(re.escape(char) for char in sorted(trie))
            return "", re.compile(f"(?=[{firsts}])(?=({self._node(trie, '', root=True)}))")
        ((first, node),) = trie.items()
        # Consuming only the first character keeps every later position open to the next search,
        # and a literal first character lets the engine scan for it quickly.
        regex = re.escape(first) + self._starts_cleanly(first) + f"(?=({self._node(node, first)}))"
        return first, re.compile(regex)

    def _node(self, node: Trie, last: str, *, root: bool = False) -> str:
        """The regex for the longest continuation from ``node`` that completes a phrase."""
        branches = [(char, self._edge(char, child, root)) for char, child in sorted(node.items()) if char != _END]
        alternatives = self._dispatch(branches)
        if _END in node:
            alternatives.append(self._ends_here(last))
        if len(alternatives) == 1:
            return alternatives[0]
        return "(?:" + "|".join(alternatives) + ")"

    def _edge(self, char: str, child: Trie, root: bool) -> str:
        label = char
        while len(child) == 1 and _END not in child:
            ((next_char, child),) = child.items()
            label += next_char
        head = re.escape(label[0]) + (self._starts_cleanly(label[0]) if root else "")
        return head + re.escape(label[1:]) + self._node(child, label[-1])

    def _dispatch(self, branches: list[tuple[str, str]]) -> list[str]:
        if len(branches) <= WIDE:
            return [regex for _, regex in branches]
        return self._split(branches)

    def _split(self, branches: list[tuple[str, str]]) -> list[str]:
        if len(branches) <= FAN:
            return [regex for _, regex in branches]
        size = -(-len(branches) // FAN)
        groups = [branches[start : start + size] for start in range(0, len(branches), size)]
        return [f"(?=[{''.join(re.escape(c) for c, _ in g)}])(?:{'|'.join(self._split(g))})" for g in groups]

    def _starts_cleanly(self, first: str) -> str:
        """Checked just after the first character: no word character before a phrase that starts with one."""
        # After the character rather than before it, so that each branch still begins with a literal,
        # which the engine tests before entering the branch.
        return r"(?<!\w.)" if self.whole_words and is_word(first) else ""

    def _ends_here(self, last: str) -> str:
        return r"(?!\w)" if self.whole_words and is_word(last) else ""


def _trie(phrases: Iterable[str]) -> Trie:
    root: Trie = {}
    for phrase in phrases:
        node = root
        for char in phrase:
            node = node.setdefault(char, {})
        node[_END] = {}
    return root
