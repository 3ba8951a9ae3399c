"""``contains``: keywords an answer must include and phrases it must not."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import attrs

from agent_eval import EvaluatorContext, Verdict, as_text
from agent_eval_contains.normalize import Normalizer
from agent_eval_contains.options import listing
from agent_eval_contains.scan import PhraseFinder

#: With at most this many keywords and forbidden phrases, grades are kept and reused.
CACHED_UP_TO = 8

#: passed, score, reason, and the keywords found, missing and forbidden ones found.
_Grade = tuple[bool, float, str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]


@attrs.frozen
class Contains:
    """Scores the fraction of keywords found; fails when one is missing or a forbidden phrase occurs."""

    name: ClassVar[str] = "contains"
    inline: ClassVar[bool] = True
    #: ``ctx`` is never read: the runner makes none for it.
    needs_context: ClassVar[bool] = False

    keywords: tuple[str, ...]
    match_all: bool = True
    forbidden: tuple[str, ...] = ()
    whole_words: bool = False
    normalize: Normalizer = attrs.Factory(Normalizer)
    keyword_keys: tuple[str, ...] = attrs.field(init=False, repr=False, eq=False)
    forbidden_keys: tuple[str, ...] = attrs.field(init=False, repr=False, eq=False)
    finder: PhraseFinder = attrs.field(init=False, repr=False, eq=False)
    #: Grades by the set of phrases found, for evaluators with few phrases (a handful of outcomes).
    grades: dict[frozenset[str], _Grade] = attrs.field(init=False, factory=dict, repr=False, eq=False)

    @keyword_keys.default
    def _keyword_keys(self) -> tuple[str, ...]:
        return tuple(self.normalize(keyword) for keyword in self.keywords)

    @forbidden_keys.default
    def _forbidden_keys(self) -> tuple[str, ...]:
        return tuple(self.normalize(phrase) for phrase in self.forbidden)

    @finder.default
    def _finder(self) -> PhraseFinder:
        # Keywords and forbidden phrases are looked for together, in one search of the text.
        return PhraseFinder.compile((*self.keyword_keys, *self.forbidden_keys), whole_words=self.whole_words)

    def __call__(self, output: Any, ctx: EvaluatorContext | None = None) -> Verdict:
        """Grade ``output`` (as text)."""
        found = self.finder.find(self.normalize(as_text(output)))
        grade = self._grade_of(found)
        passed, score, reason, hits, missing, banned = grade
        metadata = {"found": list(hits), "missing": list(missing), "forbidden": list(banned)}
        return Verdict(passed, score, reason, metadata=metadata)

    def _grade_of(self, found: set[str]) -> _Grade:
        if len(self.finder.phrases) > CACHED_UP_TO:
            return self._grade(found)
        # The same phrases found give the same grade: work it out once per outcome.
        key = frozenset(found)
        cached = self.grades.get(key)
        if cached is None:
            cached = self.grades[key] = self._grade(found)
        return cached

    def _grade(self, found: set[str] | frozenset[str]) -> _Grade:
        hits = tuple(k for k, key in zip(self.keywords, self.keyword_keys, strict=True) if key in found)
        missing = tuple(k for k, key in zip(self.keywords, self.keyword_keys, strict=True) if key not in found)
        banned = tuple(f for f, key in zip(self.forbidden, self.forbidden_keys, strict=True) if key in found)
        if not self.keywords:
            score, enough = 1.0, True
        elif self.match_all:
            score, enough = len(hits) / len(self.keywords), not missing
        else:
            score, enough = (1.0, True) if hits else (0.0, False)
        return enough and not banned, score, self._reason(hits, missing, banned, enough), hits, missing, banned

    def _reason(self, hits: Sequence[str], missing: Sequence[str], banned: Sequence[str], enough: bool) -> str:
        problems = []
        if not enough:
            problems.append(("missing: " if self.match_all else "none found: ") + listing(missing))
        if banned:
            problems.append(f"forbidden phrase{'s' if len(set(banned)) > 1 else ''} found: {listing(banned)}")
        if problems:
            return "; ".join(problems)
        if hits:
            return "found: " + listing(hits)
        return "no forbidden phrase found" if self.forbidden else "no keywords required"
