"""``matches``: a regular expression the answer must contain a match for."""

from __future__ import annotations

import re
from typing import Any, ClassVar

import attrs

from agent_eval import EvaluatorContext, Verdict, as_text
from agent_eval_contains.options import quote


@attrs.frozen
class Matches:
    """Passes when ``re.search`` finds the pattern in the output."""

    name: ClassVar[str] = "matches"
    inline: ClassVar[bool] = True
    #: ``ctx`` is never read: the runner makes none for it.
    needs_context: ClassVar[bool] = False

    pattern: str
    ignore_case: bool = False
    regex: re.Pattern[str] = attrs.field(init=False, repr=False, eq=False)

    @regex.default
    def _compile(self) -> re.Pattern[str]:
        try:
            return re.compile(self.pattern, re.IGNORECASE if self.ignore_case else 0)
        except re.error as error:
            raise ValueError(f"invalid regular expression {show_pattern(self.pattern)}: {error}") from None

    def __call__(self, output: Any, ctx: EvaluatorContext | None = None) -> Verdict:
        """Search ``output`` (as text) for the pattern."""
        found = self.regex.search(as_text(output))
        if found is None:
            return Verdict(False, 0.0, f"no match for {show_pattern(self.pattern)}")
        return Verdict(True, 1.0, f"{show_pattern(self.pattern)} matched {quote(found.group(0))}")


def show_pattern(pattern: str) -> str:
    """The pattern between single quotes as written, or as ``repr`` shows it when it needs escaping."""
    if len(pattern) > 60:  # cut as written: whitespace in a pattern is part of it
        pattern = pattern[:59] + "…"
    if pattern.isprintable() and "'" not in pattern:
        return f"'{pattern}'"
    return repr(pattern)
