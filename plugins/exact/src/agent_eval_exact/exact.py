"""``exact_match``: the answer equals a reference answer."""

from __future__ import annotations

import json
from typing import Any, ClassVar

import attrs

from agent_eval import Case, EvaluatorContext, Verdict, as_text
from agent_eval_exact.difference import describe_text_difference, show, text_difference, value_difference

NO_EXPECTED = "needs an expected answer: give one (exact_match: \"4\") or give the case an 'expected'"


@attrs.frozen
class ExactMatch:
    """Passes when the output equals the expected answer (from the factory, else from the case)."""

    name: ClassVar[str] = "exact_match"
    inline: ClassVar[bool] = True

    expected: Any = None
    ignore_case: bool = False
    strip: bool = True

    @property
    def needs_context(self) -> bool:
        """Only the case's expected answer is read from ``ctx``, when none was given here."""
        return self.expected is None

    def check_case(self, case: Case) -> None:
        """Reject a case this evaluator cannot grade: no expected answer here nor in the case."""
        if self.expected is None and case.expected is None:
            raise ValueError(NO_EXPECTED)

    def __call__(self, output: Any, ctx: EvaluatorContext | None = None) -> Verdict:
        """Compare ``output`` with the expected answer."""
        expected = self.expected if self.expected is not None else getattr(ctx, "expected", None)
        if expected is None:
            raise ValueError(NO_EXPECTED)
        if isinstance(expected, dict | list | tuple) and _is_text(output):
            return _compare_json(expected, as_text(output))
        if _is_text(output) or _is_text(expected):
            return self._compare_text(as_text(expected), as_text(output))
        difference = value_difference(expected, output)
        return Verdict(difference is None, 1.0 if difference is None else 0.0, difference or "exact match")

    def _compare_text(self, expected: str, got: str) -> Verdict:
        if self.strip:
            expected, got = expected.strip(), got.strip()
        index = text_difference(expected, got, ignore_case=self.ignore_case)
        if index is None:
            return Verdict(True, 1.0, "exact match")
        return Verdict(False, 0.0, describe_text_difference(expected, got, index))


def _compare_json(expected: Any, text: str) -> Verdict:
    """A structured expected value against a text answer: the text is read as JSON and the values compared.

    So spacing and key order do not matter (``'{"b":2,"a":1}'`` equals ``{"a": 1, "b": 2}``).
    """
    try:
        got = json.loads(text)
    except json.JSONDecodeError as error:
        problem = f"{error.msg} at line {error.lineno} column {error.colno}"
        return Verdict(False, 0.0, f"expected the JSON value {show(expected)}; the output is not JSON ({problem})")
    except (ValueError, RecursionError):  # an integer too long to convert, or nesting too deep to parse
        return Verdict(False, 0.0, f"expected the JSON value {show(expected)}; the output cannot be read as JSON")
    difference = value_difference(expected, got)
    if difference is None:
        return Verdict(True, 1.0, "equal as JSON values")
    return Verdict(False, 0.0, f"{difference} (compared as JSON values)")


def _is_text(value: Any) -> bool:
    # None is no answer at all, which as text is "".
    return value is None or isinstance(value, str | bytes | bytearray)
