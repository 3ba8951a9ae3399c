"""Budgets on an agent's run: ``max_steps``, ``max_latency``, ``max_tokens``, ``max_cost``.

Each passes when the amount used is at most the limit. Its score is 1 then, and the limit over
the amount used when over it (twice the budget scores 0.5; a limit of 0 exceeded scores 0).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, ClassVar

import attrs

from agent_eval import Skip, Verdict
from agent_eval_trajectory.show import calls

if TYPE_CHECKING:
    from agent_eval_trajectory.context import RunContext

NO_USAGE = (
    "the agent reported no token usage: return an agent_eval.AgentRun with usage=Usage(input_tokens, output_tokens)"
)
NO_COST = "the agent reported no cost: return an agent_eval.AgentRun with cost_usd set"


def within(used: float, limit: float, used_text: str, limit_text: str) -> Verdict:
    """The verdict of a budget: ``used`` against ``limit``, both also as words."""
    if used <= limit:
        return Verdict(True, 1.0, f"{used_text}, at most {limit_text} allowed")
    return Verdict(False, limit / used, f"{used_text}, more than the {limit_text} allowed")


@attrs.frozen
class MaxSteps:
    """Passes when the agent made at most ``limit`` tool calls."""

    name: ClassVar[str] = "max_steps"
    inline: ClassVar[bool] = True

    limit: int

    def __call__(self, output: Any, ctx: RunContext) -> Verdict:
        """Count ``ctx.tool_calls``."""
        steps = len(ctx.tool_calls)
        return within(steps, self.limit, calls(steps), str(self.limit))


@attrs.frozen
class MaxLatency:
    """Passes when the agent took at most ``limit`` seconds on the case."""

    name: ClassVar[str] = "max_latency"
    inline: ClassVar[bool] = True

    limit: float

    def __call__(self, output: Any, ctx: RunContext) -> Verdict:
        """Compare ``ctx.duration_ms`` with the limit."""
        took = ctx.duration_ms / 1000
        return within(took, self.limit, f"took {seconds(took)}", seconds(self.limit))


@attrs.frozen
class MaxTokens:
    """Passes when the agent used at most ``limit`` tokens, input and output together."""

    name: ClassVar[str] = "max_tokens"
    inline: ClassVar[bool] = True

    limit: int

    def __call__(self, output: Any, ctx: RunContext) -> Verdict:
        """Add up ``ctx.usage``; skipped when the agent reported none."""
        usage = ctx.usage
        if usage is None:
            raise Skip(NO_USAGE)
        used = usage.input_tokens + usage.output_tokens
        spent = f"{used:,} tokens ({usage.input_tokens:,} in, {usage.output_tokens:,} out)"
        return within(used, self.limit, spent, f"{self.limit:,}")


@attrs.frozen
class MaxCost:
    """Passes when the agent's run cost at most ``limit`` US dollars."""

    name: ClassVar[str] = "max_cost"
    inline: ClassVar[bool] = True

    limit: float

    def __call__(self, output: Any, ctx: RunContext) -> Verdict:
        """Compare ``ctx.cost_usd`` with the limit; skipped when the agent reported no cost."""
        cost = ctx.cost_usd
        if cost is None:
            raise Skip(NO_COST)
        if not math.isfinite(cost):
            raise ValueError(f"the agent reported a cost of {cost!r} USD, which is not a finite number")
        return within(cost, self.limit, f"cost {dollars(cost)}", dollars(self.limit))


def seconds(value: float) -> str:
    """``2.35 s``, ``120 s``, ``12.5 ms``."""
    if value < 1:
        return f"{value * 1000:.3g} ms"
    return f"{value:.3g} s" if value < 100 else f"{value:,.0f} s"


def dollars(value: float) -> str:
    """``$0.0123``, ``$1.5``, ``$0``: up to six decimals, no trailing zeros."""
    if 0 < value < 0.000001:
        return f"${value:.2g}"
    return "$" + f"{value:,.6f}".rstrip("0").rstrip(".")
