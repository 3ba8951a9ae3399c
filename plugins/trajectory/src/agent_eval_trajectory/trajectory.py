"""``trajectory_match``: the calls made against a list of calls expected."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import attrs

from agent_eval import Verdict
from agent_eval_trajectory.options import Expected
from agent_eval_trajectory.show import NOT_JSON, show_arguments, show_call, show_name

if TYPE_CHECKING:
    from agent_eval import ToolCall
    from agent_eval_trajectory.compare import Comparison
    from agent_eval_trajectory.context import RunContext


@attrs.frozen
class TrajectoryMatch:
    """Scores the calls made against the calls expected; passes when the score is 1."""

    name: ClassVar[str] = "trajectory_match"
    inline: ClassVar[bool] = True

    expected: tuple[Expected, ...]
    mode: str = "strict"
    args: str = "exact"

    def __call__(self, output: Any, ctx: RunContext) -> Verdict:
        """Pair the calls in ``ctx.tool_calls`` with the expected ones and grade the pairing."""
        # The pairing code loads on the first evaluation: building evaluators for a suite stays cheap.
        from agent_eval_trajectory.compare import compare

        made = tuple(ctx.tool_calls)
        comparison = compare(made, self.expected, self.mode, self.args)
        matched, out_of = len(comparison.pairs), self._denominator(len(made))
        passed = matched == out_of
        score = 1.0 if out_of == 0 else matched / out_of
        problems = [] if passed else Explainer(made, self.expected, comparison).problems(self.mode)
        reason = "; ".join([*problems, self._summary(matched, len(made))])
        metadata = {"matched": matched, "expected": len(self.expected), "made": len(made)}
        return Verdict(passed, score, reason, metadata=metadata)

    def _denominator(self, made: int) -> int:
        if self.mode == "subset":
            return made
        if self.mode == "superset":
            return len(self.expected)
        return max(made, len(self.expected))

    def _summary(self, matched: int, made: int) -> str:
        expected = len(self.expected)
        if not expected and not made:
            return "no calls expected and none made"
        if self.mode == "subset":
            return f"{matched} of {_calls(made)} made {'was' if made == 1 else 'were'} expected"
        of_expected = f"{matched} of {_calls(expected, 'expected ')}"
        if self.mode == "superset":
            return f"{of_expected} made"
        how = "in order" if self.mode == "strict" else "matched"
        return f"{of_expected} {how} ({made} made)"


def _calls(count: int, kind: str = "") -> str:
    return f"{count} {kind}call" if count == 1 else f"{count} {kind}calls"


@attrs.frozen
class Explainer:
    """Words for what went wrong in a comparison: the first call of each kind of problem."""

    made: Sequence[ToolCall]
    expected: Sequence[Expected]
    comparison: Comparison

    def problems(self, mode: str) -> list[str]:
        """The problems that count against ``mode``'s score, each with how many more like it."""
        found = []
        if mode != "subset" and self.comparison.missing:
            found.append(self.missing())
        if mode == "strict" and self.comparison.out_of_order:
            found.append(self.out_of_order())
        if mode != "superset" and self.comparison.extra:
            found.append(self.extra())
        return found

    def missing(self) -> str:
        """``missing call 2 of 3: search({"q": "kettle"})``, with a call of that tool made instead."""
        first, *rest = self.comparison.missing
        call = self.expected[first]
        text = f"missing call {first + 1} of {len(self.expected)}: {show_call(call.name, call.args)}"
        instead = next((self.made[i] for i in self.comparison.extra if self.made[i].name == call.name), None)
        if instead is not None:
            how = NOT_JSON if isinstance(instead.arguments, str) else "other arguments"
            text += f" ({show_name(call.name)} was called with {how}: {show_arguments(instead.arguments)})"
        return text + _more(rest, "missing")

    def out_of_order(self) -> str:
        """``out of order: expected lookup before search``."""
        (i, j), *rest = self.comparison.out_of_order
        crossed = [(abs(j2 - j), j2) for i2, j2 in self.comparison.pairs if (j2 < j) == (i2 > i)]
        this = self._expected(j)
        if not crossed:  # cannot happen: a pair crossing none would have lengthened the subsequence
            return f"out of order: {this}" + _more(rest, "out of order")
        _, other = min(crossed)
        first, then = (self._expected(other), this) if other < j else (this, self._expected(other))
        return f"out of order: expected {first} before {then}" + _more(rest, "out of order")

    def extra(self) -> str:
        """``extra call: delete_user({"id": 7})``."""
        first, *rest = self.comparison.extra
        call = self.made[first]
        return f"extra call: {show_call(call.name, call.arguments)}" + _more(rest, "extra")

    def _expected(self, j: int) -> str:
        call = self.expected[j]
        return show_call(call.name, call.args)


def _more(rest: Sequence[int] | Sequence[tuple[int, int]], kind: str) -> str:
    return f" (and {len(rest)} more {kind})" if rest else ""
