"""Keyword and regular-expression evaluators for agent-eval: ``contains`` and ``matches``."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from agent_eval_contains.factories import contains, matches

if TYPE_CHECKING:
    from agent_eval_contains.keywords import Contains
    from agent_eval_contains.regex import Matches
    from agent_eval_contains.scan import PhraseFinder

__all__ = ["Contains", "Matches", "PhraseFinder", "contains", "matches"]

_LAZY = {
    "Contains": "agent_eval_contains.keywords",
    "Matches": "agent_eval_contains.regex",
    "PhraseFinder": "agent_eval_contains.scan",
}


def __getattr__(name: str) -> Any:
    # The evaluator classes load on first use: listing evaluators imports only the factories.
    if name not in _LAZY:
        raise AttributeError(f"module 'agent_eval_contains' has no attribute {name!r}")
    return getattr(importlib.import_module(_LAZY[name]), name)
