"""agent-eval: grade the answers of LLM agents against criteria, fast and offline."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from agent_eval._version import __version__
from agent_eval.errors import (
    AgentEvalError,
    AgentReferenceError,
    AmbiguousEvaluator,
    EvaluatorNotFound,
    PluginLoadError,
    Skip,
    SuiteError,
)
from agent_eval.hookspecs import hookimpl, hookspec

if TYPE_CHECKING:
    from agent_eval.model import (
        AgentContext,
        Case,
        EvalReport,
        EvalResult,
        Evaluation,
        EvaluatorContext,
        Verdict,
    )
    from agent_eval.runner import EvalSuite
    from agent_eval.text import as_text, resolve_path

__all__ = [
    "AgentContext",
    "AgentEvalError",
    "AgentReferenceError",
    "AmbiguousEvaluator",
    "Case",
    "EvalReport",
    "EvalResult",
    "EvalSuite",
    "Evaluation",
    "EvaluatorContext",
    "EvaluatorNotFound",
    "PluginLoadError",
    "Skip",
    "SuiteError",
    "Verdict",
    "__version__",
    "as_text",
    "hookimpl",
    "hookspec",
    "resolve_path",
]

# Names imported on first use: a command that only lists plugins should not pay for the records,
# the runner (asyncio) or the text helpers.
_LAZY = {
    "AgentContext": "agent_eval.model",
    "Case": "agent_eval.model",
    "EvalReport": "agent_eval.model",
    "EvalResult": "agent_eval.model",
    "Evaluation": "agent_eval.model",
    "EvaluatorContext": "agent_eval.model",
    "Verdict": "agent_eval.model",
    "EvalSuite": "agent_eval.runner",
    "as_text": "agent_eval.text",
    "resolve_path": "agent_eval.text",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'agent_eval' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
