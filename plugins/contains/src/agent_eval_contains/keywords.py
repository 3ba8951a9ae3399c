"""``contains``: keywords an answer must include and phrases it must not."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import attrs

from agent_eval import EvaluatorContext, Verdict, as_text
from agent_eval_contains.normalize import Normalizer
from agent_eval_contains.options import listing
from agent_eval_contains.scan import PhraseFinder


@attrs.frozen
class Contains:
    """Scores the fraction of keywords found; fails when one is missing or a forbidden phrase occurs."""

    name: ClassVar[str] = "contains"
    inline: ClassVar[bool] = True

    keywords: tuple[str, ...]
    match_all: bool = True
    forbidden: tuple[str, ...] = ()
    whole_words: bool = False
    normalize: Normalizer = attrs.Factory(Normalizer)
    keyword_keys: tuple[str, ...] = attrs.field(init=False, repr=False, eq=False)
    forbidden_keys: tuple[str, ...] = attrs.field(init=False, repr=False, eq=False)
    finder: PhraseFinder = attrs.field(init=False, repr=False, eq=False)

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
        hits = [k for k, key in zip(self.keywords, self.keyword_keys, strict=True) if key in found]
        missing = [k for k, key in zip(self.keywords, self.keyword_keys, strict=True) if key not in found]
        banned = [f for f, key in zip(self.forbidden, self.forbidden_keys, strict=True) if key in found]
        if not self.keywords:
            score, enough = 1.0, True
        elif self.match_all:
            score, enough = len(hits) / len(self.keywords), not missing
        else:
            score, enough = (1.0, True) if hits else (0.0, False)
        return Verdict(
            enough and not banned,
            score,
            self._reason(hits, missing, banned, enough),
            metadata={"found": hits, "missing": missing, "forbidden": banned},
        )

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
