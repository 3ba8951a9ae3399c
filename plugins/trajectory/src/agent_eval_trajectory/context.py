"""What these evaluators read from their ``ctx``: ``agent_eval.EvaluatorContext`` carries all of it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from agent_eval import ToolCall, Usage


class RunContext(Protocol):
    """The agent's run on one case, as an evaluator sees it."""

    @property
    def tool_calls(self) -> Sequence[ToolCall]:
        """The calls the agent made, in the order made."""

    @property
    def usage(self) -> Usage | None:
        """The agent's tokens, or None when it reported none."""

    @property
    def cost_usd(self) -> float | None:
        """What the agent's run cost, or None when it reported nothing."""

    @property
    def duration_ms(self) -> float:
        """How long the agent took on the case, in milliseconds."""
