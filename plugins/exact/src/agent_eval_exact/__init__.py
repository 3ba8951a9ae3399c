"""The exact_match evaluator for agent-eval: compare an answer with a reference answer."""

from __future__ import annotations

from agent_eval_exact.exact import ExactMatch, exact_match

__all__ = ["ExactMatch", "exact_match"]
