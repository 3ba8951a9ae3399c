"""agent-eval: grade the answers of LLM agents against criteria, fast and offline."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from agent_eval._errors import (
    AgentEvalError,
    AgentReferenceError,
    AmbiguousEvaluator,
    CommandError,
    EvaluatorNotFound,
    FileReadError,
    PluginLoadError,
    Skip,
    SuiteError,
)
from agent_eval._version import __version__
from agent_eval.hookspecs import hookimpl, hookspec

if TYPE_CHECKING:
    from agent_eval._agent_run import AgentRun, ToolCall, Usage
    from agent_eval._asserts import assert_passes
    from agent_eval._calling import callable_name, invoke
    from agent_eval._combinators import all_of, any_of, not_
    from agent_eval._execution import Executor, RunPlan, RunSettings
    from agent_eval._files import read_text_file
    from agent_eval._model import (
        AgentContext,
        Case,
        EvalReport,
        EvalResult,
        Evaluation,
        EvaluatorContext,
        Verdict,
    )
    from agent_eval._paths import resolve_path
    from agent_eval._plugins import get_registry, registry_of
    from agent_eval._recording import record_tool_call, tool
    from agent_eval._references import load_agent
    from agent_eval._runner import EvalSuite
    from agent_eval._runs import RunNotFound, load_run
    from agent_eval._suite import SuiteFile, load_suite
    from agent_eval._text import as_text, describe_error, short_repr, shorten

__all__ = [
    "AgentContext",
    "AgentEvalError",
    "AgentReferenceError",
    "AgentRun",
    "AmbiguousEvaluator",
    "Case",
    "CommandError",
    "EvalReport",
    "EvalResult",
    "EvalSuite",
    "Evaluation",
    "EvaluatorContext",
    "EvaluatorNotFound",
    "Executor",
    "FileReadError",
    "PluginLoadError",
    "RunNotFound",
    "RunPlan",
    "RunSettings",
    "Skip",
    "SuiteError",
    "SuiteFile",
    "ToolCall",
    "Usage",
    "Verdict",
    "__version__",
    "all_of",
    "any_of",
    "as_text",
    "assert_passes",
    "callable_name",
    "describe_error",
    "get_registry",
    "hookimpl",
    "hookspec",
    "invoke",
    "load_agent",
    "load_run",
    "load_suite",
    "not_",
    "read_text_file",
    "record_tool_call",
    "registry_of",
    "resolve_path",
    "short_repr",
    "shorten",
    "tool",
]

# Names imported on first use: a command that only lists plugins should not pay for the records,
# the runner (asyncio) or the text helpers.
_LAZY = {
    "AgentContext": "agent_eval._model",
    "Case": "agent_eval._model",
    "EvalReport": "agent_eval._model",
    "EvalResult": "agent_eval._model",
    "Evaluation": "agent_eval._model",
    "EvaluatorContext": "agent_eval._model",
    "Verdict": "agent_eval._model",
    "EvalSuite": "agent_eval._runner",
    "as_text": "agent_eval._text",
    "assert_passes": "agent_eval._asserts",
    "resolve_path": "agent_eval._paths",
    "describe_error": "agent_eval._text",
    "short_repr": "agent_eval._text",
    "shorten": "agent_eval._text",
    "AgentRun": "agent_eval._agent_run",
    "ToolCall": "agent_eval._agent_run",
    "Usage": "agent_eval._agent_run",
    "callable_name": "agent_eval._calling",
    "Executor": "agent_eval._execution",
    "RunPlan": "agent_eval._execution",
    "RunSettings": "agent_eval._execution",
    "invoke": "agent_eval._calling",
    "all_of": "agent_eval._combinators",
    "any_of": "agent_eval._combinators",
    "not_": "agent_eval._combinators",
    "get_registry": "agent_eval._plugins",
    "registry_of": "agent_eval._plugins",
    "load_agent": "agent_eval._references",
    "load_suite": "agent_eval._suite",
    "load_run": "agent_eval._runs",
    "RunNotFound": "agent_eval._runs",
    "record_tool_call": "agent_eval._recording",
    "tool": "agent_eval._recording",
    "read_text_file": "agent_eval._files",
    "SuiteFile": "agent_eval._suite",
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
