"""A small plugin used by the core's tests, registered directly (no entry point needed)."""

from __future__ import annotations

import re
from typing import Any

import attrs

from agent_eval import Case, Verdict, hookimpl


@attrs.frozen
class _Has:
    words: tuple[str, ...]
    inline = True

    def __call__(self, output: Any) -> Verdict:
        missing = [word for word in self.words if word not in str(output)]
        score = 1 - len(missing) / len(self.words) if self.words else 1.0
        return Verdict(not missing, score, f"missing: {missing}" if missing else None)


def has(words: Any, *, strict: bool = True) -> _Has:
    """Passes when every word occurs in the output."""
    if isinstance(words, str):
        words = [words]
    if not isinstance(words, list | tuple) or not all(isinstance(w, str) for w in words):
        raise ValueError(f"words must be a string or a list of strings, got {words!r}")
    return _Has(tuple(words))


@attrs.frozen
class _Same:
    expected: Any = None
    name = "same"

    def __call__(self, output: Any, ctx: Any) -> bool:
        wanted = self.expected if self.expected is not None else ctx.expected
        return str(output) == str(wanted)

    def check_case(self, case: Case) -> None:
        if self.expected is None and case.expected is None:
            raise ValueError("no expected answer; give `expected:` in the case or an argument")


def same(expected: Any = None) -> _Same:
    """Passes when the output equals the expected answer."""
    return _Same(expected)


def pattern(regex: str) -> Any:
    """Passes when the regular expression is found."""
    try:
        compiled = re.compile(regex)
    except re.error as error:
        raise ValueError(f"invalid regular expression {regex!r}: {error}") from None
    return lambda output: compiled.search(str(output)) is not None


@hookimpl
def register_evaluators(register: Any) -> None:
    register(has)
    register(same)
    register(pattern, name="pattern_found")
