"""The valid_json evaluator for agent-eval: JSON parsing and JSON Schema validation."""

from __future__ import annotations

from agent_eval_json.valid_json import ValidJson, valid_json

__all__ = ["ValidJson", "valid_json"]
