"""agent-eval-judge: ``llm_judge``, which grades answers against a criterion with an LLM, and ``similar``.

Importing this package is cheap: the judging machinery loads on first use, and
the HTTP client (aiohttp) only when a judge is about to send its first request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_eval_judge._version import __version__
from agent_eval_judge.evaluator import LLMJudge, llm_judge
from agent_eval_judge.similar import Similar, similar

if TYPE_CHECKING:
    from agent_eval_judge.errors import (
        JudgeAnswerError,
        JudgeConfigError,
        JudgeError,
        JudgeProtocolError,
        JudgeRequestError,
        JudgeUnavailable,
    )
    from agent_eval_judge.options import JudgeOptions

__all__ = [
    "JudgeAnswerError",
    "JudgeConfigError",
    "JudgeError",
    "JudgeOptions",
    "JudgeProtocolError",
    "JudgeRequestError",
    "JudgeUnavailable",
    "LLMJudge",
    "Similar",
    "__version__",
    "llm_judge",
    "similar",
]

_ERRORS = frozenset(name for name in __all__ if name.startswith("Judge") and name != "JudgeOptions")


def __getattr__(name: str) -> Any:
    if name in _ERRORS:
        from agent_eval_judge import errors

        return getattr(errors, name)
    if name == "JudgeOptions":
        from agent_eval_judge.options import JudgeOptions

        return JudgeOptions
    raise AttributeError(f"module 'agent_eval_judge' has no attribute {name!r}")
