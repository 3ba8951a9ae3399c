"""agent-eval: grade the answers of LLM agents against criteria, fast and offline."""

from __future__ import annotations

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
from agent_eval.model import (
    AgentContext,
    Case,
    EvalReport,
    EvalResult,
    Evaluation,
    EvaluatorContext,
    Verdict,
)
from agent_eval.text import as_text, resolve_path

if TYPE_CHECKING:
    from agent_eval.runner import EvalSuite

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


def __getattr__(name: str) -> Any:
    # The runner pulls in asyncio; commands that never run a suite should not pay for it.
    if name == "EvalSuite":
        from agent_eval.runner import EvalSuite

        return EvalSuite
    raise AttributeError(f"module 'agent_eval' has no attribute {name!r}")
