"""The valid_json evaluator for agent-eval: JSON parsing and JSON Schema validation."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_eval_json.factories import valid_json

if TYPE_CHECKING:
    from agent_eval_json.evaluator import ValidJson

__all__ = ["ValidJson", "valid_json"]


def __getattr__(name: str) -> Any:
    # The evaluator class loads on first use: listing evaluators imports only the factory.
    if name != "ValidJson":
        raise AttributeError(f"module 'agent_eval_json' has no attribute {name!r}")
    from agent_eval_json.evaluator import ValidJson

    return ValidJson
