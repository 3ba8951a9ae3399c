"""Why the judge could not give a verdict: each makes the evaluation an error, never a pass."""

from __future__ import annotations

from typing import Any

from agent_eval import AgentEvalError
from agent_eval_judge.redact import redact


class JudgeError(AgentEvalError):
    """The judge gave no usable verdict; ``category`` says why in one word.

    The message is redacted when the error is made, so no key can reach a report through it.
    """

    default_category = "judge_error"

    def __init__(self, message: str, *, category: str | None = None) -> None:
        self.category = category or self.default_category
        #: Kept in the report's evaluation (``category``, and ``usage`` when tokens were spent).
        self.metadata: dict[str, Any] = {"category": self.category}
        super().__init__(redact(message))

    def copy(self) -> JudgeError:
        """A new error of this kind with this message and category, to raise in one more place (one error
        object raised in many places would collect all their tracebacks)."""
        return type(self)(str(self), category=self.category)


class JudgeConfigError(JudgeError):
    """The judge's environment variables are set but unusable."""

    default_category = "judge_config"


class JudgeRequestError(JudgeError):
    """The endpoint refused the request (bad request, key, permission, model or quota); not retried."""

    default_category = "judge_bad_request"


class JudgeUnavailable(JudgeError):
    """The endpoint gave no answer within the retries: rate limits, server errors, timeouts, lost connections."""

    default_category = "judge_unavailable"


class JudgeProtocolError(JudgeError):
    """The endpoint answered 200 with something that is not a chat completion."""

    default_category = "judge_protocol"


class JudgeAnswerError(JudgeError):
    """The judge answered, but not with a readable verdict (prose, ambiguous, truncated, refused)."""

    default_category = "judge_unreadable"
