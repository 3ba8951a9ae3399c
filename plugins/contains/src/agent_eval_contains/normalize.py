"""How a text and the phrases searched in it are made comparable."""

from __future__ import annotations

import re

import attrs

_WHITESPACE = re.compile(r"\s+")


@attrs.frozen
class Normalizer:
    """Lower-cases (or case-folds) and collapses whitespace, as the evaluator's options say."""

    ignore_case: bool = True
    casefold: bool = False
    collapse_whitespace: bool = False

    def __call__(self, text: str) -> str:
        """``text`` in the form phrases are compared in."""
        if self.ignore_case:
            text = text.casefold() if self.casefold else text.lower()
        if self.collapse_whitespace:
            text = _WHITESPACE.sub(" ", text)
        return text
