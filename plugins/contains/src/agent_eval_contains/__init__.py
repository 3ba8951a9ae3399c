"""Keyword and regular-expression evaluators for agent-eval: ``contains`` and ``matches``."""

from __future__ import annotations

from agent_eval_contains.contains import Contains, contains
from agent_eval_contains.matches import Matches, matches
from agent_eval_contains.scan import PhraseFinder

__all__ = ["Contains", "Matches", "PhraseFinder", "contains", "matches"]
