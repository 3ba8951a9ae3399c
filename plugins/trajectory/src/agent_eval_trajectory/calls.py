"""``tool_called`` and ``tool_not_called``: whether, and how often, one tool was called."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import attrs

from agent_eval import Verdict
from agent_eval_trajectory.show import NOT_JSON, show_arguments, show_call, show_name, times

if TYPE_CHECKING:
    from agent_eval import ToolCall
    from agent_eval_trajectory.context import RunContext

#: How ``tool_called``'s reason words each ``args_match``.
_RULE_WORDS = {"superset": "at least", "exact": "exactly", "subset": "only arguments within"}
#: Names of other tools a failing ``tool_called`` lists.
NAMES_LISTED = 5


@attrs.frozen
class ToolCalled:
    """Counts the calls of one tool whose arguments match; passes when the count is within bounds.

    The score is 1 within bounds; with too few calls, the calls counted over the least wanted;
    with too many, the most allowed over the calls counted.
    """

    name: ClassVar[str] = "tool_called"
    inline: ClassVar[bool] = True

    tool: str
    args: Mapping[str, Any] | None = None
    args_match: str = "superset"
    least: int = 1
    most: int | None = None

    def __call__(self, output: Any, ctx: RunContext) -> Verdict:
        """Count the matching calls in ``ctx.tool_calls``."""
        from agent_eval_trajectory.arguments import agrees, items_of

        wanted = None if self.args is None else items_of(self.args)
        named = [call for call in ctx.tool_calls if call.name == self.tool]
        unlike = [call for call in named if not agrees(items_of(call.arguments), wanted, self.args_match)]
        count = len(named) - len(unlike)
        if count < self.least:
            score = count / self.least
        elif self.most is not None and count > self.most:
            score = self.most / count
        else:
            return Verdict(True, 1.0, f"{self._target()} called {times(count)}", metadata={"count": count})
        reason = self._shortfall(count, unlike, ctx.tool_calls) if count < self.least else self._counted(count)
        return Verdict(False, score, reason, metadata={"count": count})

    def _target(self) -> str:
        if self.args is None:
            return show_name(self.tool)
        return f"{show_name(self.tool)} with {_RULE_WORDS[self.args_match]} {show_arguments(self.args)}"

    def _wanted(self) -> str:
        if self.least == self.most:
            return "never" if self.least == 0 else f"exactly {times(self.least)}"
        if self.most is None:
            return "at least once" if self.least == 1 else f"at least {times(self.least)}"
        if self.least == 0:
            return f"at most {times(self.most)}"
        return f"{self.least} to {self.most} times"

    def _counted(self, count: int) -> str:
        return f"{self._target()} called {times(count)}, expected {self._wanted()}"

    def _shortfall(self, count: int, unlike: Sequence[ToolCall], made: Sequence[ToolCall]) -> str:
        said = f"{self._target()} was not called" if count == 0 else self._counted(count)
        if unlike:
            first = unlike[0]
            how = NOT_JSON if isinstance(first.arguments, str) else "other arguments"
            more = f" (and {len(unlike) - 1} more)" if len(unlike) > 1 else ""
            return f"{said}; {show_name(self.tool)} was called with {how}: {show_arguments(first.arguments)}{more}"
        if count:
            return said
        if not made:
            return f"{said}; no tool was called"
        others = list(dict.fromkeys(call.name for call in made))
        listed = ", ".join(show_name(name) for name in others[:NAMES_LISTED])
        more = f" and {len(others) - NAMES_LISTED} more" if len(others) > NAMES_LISTED else ""
        return f"{said}; tools called: {listed}{more}"


@attrs.frozen
class ToolNotCalled:
    """Passes when no call of the tool was made (a call that raised was made too)."""

    name: ClassVar[str] = "tool_not_called"
    inline: ClassVar[bool] = True

    tool: str

    def __call__(self, output: Any, ctx: RunContext) -> Verdict:
        """Look for the tool in ``ctx.tool_calls``."""
        named = [call for call in ctx.tool_calls if call.name == self.tool]
        if not named:
            return Verdict(True, 1.0, f"{show_name(self.tool)} was not called", metadata={"count": 0})
        first = show_call(named[0].name, named[0].arguments)
        which = "" if len(named) == 1 else ", first"
        reason = f"{show_name(self.tool)} was called {times(len(named))}{which}: {first}"
        return Verdict(False, 0.0, reason, metadata={"count": len(named)})
