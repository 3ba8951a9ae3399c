"""The exact_match evaluator for agent-eval: compare an answer with a reference answer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_eval_exact.factories import exact_match

if TYPE_CHECKING:
    from agent_eval_exact.exact import ExactMatch

__all__ = ["ExactMatch", "exact_match"]


def __getattr__(name: str) -> Any:
    # The evaluator class loads on first use: listing evaluators imports only the factory.
    if name != "ExactMatch":
        raise AttributeError(f"module 'agent_eval_exact' has no attribute {name!r}")
    from agent_eval_exact.exact import ExactMatch

    return ExactMatch
