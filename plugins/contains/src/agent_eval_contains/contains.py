"""``contains``: keywords an answer must include and phrases it must not."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import attrs

from agent_eval import EvaluatorContext, Verdict, as_text
from agent_eval_contains.normalize import Normalizer
from agent_eval_contains.options import flag, listing, phrases
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


def contains(
    keywords: str | Sequence[str],
    *,
    match_all: bool = True,
    ignore_case: bool = True,
    forbidden: str | Sequence[str] = (),
    whole_words: bool = False,
    collapse_whitespace: bool = False,
    casefold: bool = False,
) -> Contains:
    """Passes when the output contains the keywords (all, or any) and none of the forbidden phrases.

    The score is the fraction of ``keywords`` found (partial credit); with
    ``match_all=False`` it is 1 when any is found, else 0. No keywords score 1.
    A string is one keyword. Matching ignores case unless ``ignore_case=False``;
    ``casefold`` compares case Unicode-wise ("STRASSE" finds "straße");
    ``whole_words`` does not find "cat" inside "concatenate";
    ``collapse_whitespace`` treats any run of whitespace as one space. Forbidden
    phrases are matched with the same options.
    """
    ignore_case = flag("ignore_case", ignore_case)
    if flag("casefold", casefold) and not ignore_case:
        raise ValueError("casefold=True needs ignore_case=True (case folding is a way of ignoring case)")
    return Contains(
        keywords=phrases("keywords", keywords),
        match_all=flag("match_all", match_all),
        forbidden=phrases("forbidden", forbidden),
        whole_words=flag("whole_words", whole_words),
        normalize=Normalizer(ignore_case, casefold, flag("collapse_whitespace", collapse_whitespace)),
    )
