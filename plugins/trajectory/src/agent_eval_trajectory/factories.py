"""The factories: they check their options and build the evaluators, and are light to import.

Each evaluator's module is imported when its factory is called, and the pairing code when
``trajectory_match`` first evaluates, so ``agent-eval list-evaluators`` pays for neither. A
mistake in an option is a ValueError or TypeError here, so a suite file reports it with its file
and line before any agent runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from agent_eval_trajectory.options import (
    ARGUMENT_RULES,
    CALL_ARGUMENT_RULES,
    MODES,
    amount,
    arguments,
    choice,
    expected_calls,
    tool_name,
    whole,
)

if TYPE_CHECKING:
    from agent_eval import ToolCall
    from agent_eval_trajectory.budgets import MaxCost, MaxLatency, MaxSteps, MaxTokens
    from agent_eval_trajectory.calls import ToolCalled, ToolNotCalled
    from agent_eval_trajectory.trajectory import TrajectoryMatch

_CALLS = "how many calls"


def tool_called(
    name: str,
    *,
    args: Mapping[str, Any] | None = None,
    args_match: str = "superset",
    times: int | None = None,
    min_times: int = 1,
    max_times: int | None = None,
) -> ToolCalled:
    """Passes when the tool `name` was called with arguments matching `args`: at least once, or as often as asked.

    Only calls whose arguments match ``args`` count: by default (``args_match="superset"``) a call
    needs at least the arguments given, with equal values; ``exact`` wants no others, ``subset``
    no argument outside them. Without ``args`` every call of the tool counts. ``times`` asks for
    exactly that many calls and excludes ``min_times`` and ``max_times``, which bound the count
    otherwise. The score is 1 within bounds, else the calls counted over ``min_times`` (too few)
    or ``max_times`` over the calls counted (too many).
    """
    from agent_eval_trajectory.calls import ToolCalled

    tool = tool_name("name", name)
    wanted = arguments("args", args)
    rule = choice("args_match", args_match, CALL_ARGUMENT_RULES, hint=_ignore_hint(args_match))
    if wanted is None and rule != "superset":
        raise ValueError(f"args_match={rule!r} compares with args: give args (args: {{}} for a call without arguments)")
    least, most = _counts(times, min_times, max_times)
    return ToolCalled(tool, wanted, rule, least, most)


def _ignore_hint(value: object) -> str:
    return " (leave args out to accept any arguments)" if value == "ignore" else ""


def _counts(times: object, min_times: object, max_times: object) -> tuple[int, int | None]:
    if times is not None:
        if min_times != 1 or max_times is not None:
            raise ValueError(
                f"times={times!r} asks for exactly that many calls: give either times or min_times/max_times"
            )
        exactly = whole("times", times, _CALLS)
        return exactly, exactly
    least = whole("min_times", min_times, _CALLS)
    if max_times is None:
        if least == 0:
            raise ValueError("min_times=0 without max_times always passes: give max_times, or use tool_not_called")
        return least, None
    most = whole("max_times", max_times, _CALLS)
    if most < least:
        raise ValueError(f"max_times={most} is less than min_times={least}: no count can pass")
    return least, most


def tool_not_called(name: str) -> ToolNotCalled:
    """Passes when the tool `name` was never called (a call that raised counts as called)."""
    from agent_eval_trajectory.calls import ToolNotCalled

    return ToolNotCalled(tool_name("name", name))


def trajectory_match(
    expected: Sequence[Mapping[str, Any] | str | ToolCall],
    *,
    mode: str = "strict",
    args: str = "exact",
) -> TrajectoryMatch:
    """Scores the tool calls made against the `expected` calls; passes when the score is 1.

    ``expected`` is a list of ``{name, args}``. ``mode``: ``strict`` (the same calls in the same
    order), ``unordered`` (the same calls in any order), ``subset`` (every call made was
    expected), ``superset`` (every expected call was made). ``args``: how a call's arguments are
    compared with an expected call's: ``exact``, ``ignore``, ``subset`` (no argument beyond the
    expected ones) or ``superset`` (at least the expected ones). Calls are paired optimally.
    """
    from agent_eval_trajectory.trajectory import TrajectoryMatch

    calls = expected_calls(expected)
    chosen = choice("mode", mode, MODES)
    hint = " (how each call's arguments are compared; the arguments go in each expected call)"
    rule = choice("args", args, ARGUMENT_RULES, kind="args rule", hint=hint if isinstance(args, Mapping) else "")
    return TrajectoryMatch(calls, chosen, rule)


def max_steps(n: int) -> MaxSteps:
    """Passes when the agent made at most `n` tool calls."""
    from agent_eval_trajectory.budgets import MaxSteps

    return MaxSteps(whole("n", n, "the most tool calls allowed"))


def max_latency(seconds: float) -> MaxLatency:
    """Passes when the agent took at most `seconds` on the case."""
    from agent_eval_trajectory.budgets import MaxLatency

    return MaxLatency(amount("seconds", seconds, "the agent's time allowed, in seconds", positive=True))


def max_tokens(n: int) -> MaxTokens:
    """Passes when the agent used at most `n` tokens (input plus output); skipped when it reported none."""
    from agent_eval_trajectory.budgets import MaxTokens

    return MaxTokens(whole("n", n, "the most tokens allowed, input plus output"))


def max_cost(usd: float) -> MaxCost:
    """Passes when the agent's run cost at most `usd` US dollars; skipped when it reported no cost."""
    from agent_eval_trajectory.budgets import MaxCost

    return MaxCost(amount("usd", usd, "the most US dollars allowed"))
