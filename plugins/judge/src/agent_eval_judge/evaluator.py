"""``llm_judge``: grade an answer against a natural-language criterion with an LLM, or with a judge agent.

This module is what ``agent-eval list-evaluators`` imports, so it imports
nothing heavy: the judging itself lives in :mod:`agent_eval_judge.judging`.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_eval import EvaluatorContext, Verdict
    from agent_eval_judge.session import Session

_MAX_SAMPLES = 100


def llm_judge(
    criteria: str,
    *,
    judge_agent: Callable[..., Any] | str | None = None,
    model: str | None = None,
    include_input: bool = True,
    include_expected: bool = True,
    samples: int = 1,
    cache: bool = True,
) -> LLMJudge:
    """Grades the answer against a natural-language criterion with an LLM judge (or a judge agent).

    :param criteria: what a passing answer does, e.g. "explains async/await with a code example".
    :param judge_agent: an agent ``(prompt)`` or ``(prompt, ctx)``, sync or async (or ``"module:attr"``),
        asked instead of the HTTP endpoint; its text is read like a model's answer.
    :param model: the judge model, instead of ``AGENT_EVAL_JUDGE_MODEL``.
    :param include_input: show the judge the case's input.
    :param include_expected: show the judge the case's expected answer, when it has one.
    :param samples: ask this many times; the majority decides, the score is the mean.
    :param cache: reuse stored verdicts for unchanged questions (also ``AGENT_EVAL_JUDGE_CACHE=0``).
    """
    return LLMJudge(
        criteria,
        judge_agent=judge_agent,
        model=model,
        include_input=include_input,
        include_expected=include_expected,
        samples=samples,
        cache=cache,
    )


class LLMJudge:
    """The evaluator ``llm_judge`` returns; ``await judge.aclose()`` when using it outside a run."""

    name = "llm_judge"

    def __init__(
        self,
        criteria: str,
        *,
        judge_agent: Callable[..., Any] | str | None = None,
        model: str | None = None,
        include_input: bool = True,
        include_expected: bool = True,
        samples: int = 1,
        cache: bool = True,
    ) -> None:
        if not isinstance(criteria, str) or not criteria.strip():
            raise ValueError(f"criteria must be a non-empty string saying what a passing answer does, got {criteria!r}")
        if model is not None and (not isinstance(model, str) or not model.strip()):
            raise ValueError(f"model must be a model name such as 'llama3.1:8b', got {model!r}")
        for flag, value in (("include_input", include_input), ("include_expected", include_expected), ("cache", cache)):
            if not isinstance(value, bool):
                raise TypeError(f"{flag} must be true or false, got {value!r}")
        if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= _MAX_SAMPLES:
            raise ValueError(f"samples must be a whole number from 1 to {_MAX_SAMPLES}, got {samples!r}")
        self.criteria = criteria
        self.judge_agent = _judge_agent(judge_agent)
        self.model = model.strip() if model else None
        self.include_input = include_input
        self.include_expected = include_expected
        self.samples = samples
        self.cache = cache
        #: The runs' sessions this evaluator holds (released by :meth:`aclose`).
        self.sessions: list[Session] = []

    def __repr__(self) -> str:
        criteria = " ".join(self.criteria.split())
        if len(criteria) > 60:
            criteria = criteria[:59] + "…"
        extra = f", samples={self.samples}" if self.samples != 1 else ""
        return f"llm_judge({criteria!r}{extra})"

    async def __call__(self, output: Any, ctx: EvaluatorContext | None = None) -> Verdict:
        """Ask the judge whether ``output`` meets the criterion; raise JudgeError when it cannot tell."""
        return await _judge_function()(self, output, ctx)

    async def aclose(self) -> None:
        """Release this evaluator's hold on the run's session: cache and HTTP client, closed once nobody holds it."""
        sessions, self.sessions = self.sessions, []
        if sessions:
            from agent_eval_judge.session import release

            await release(self, sessions)


@functools.cache
def _judge_function() -> Callable[[LLMJudge, Any, EvaluatorContext | None], Awaitable[Verdict]]:
    # Imported on the first evaluation, not with the plugin (list-evaluators stays light), and then only once.
    from agent_eval_judge.judging import judge

    return judge


def _judge_agent(value: Callable[..., Any] | str | None) -> Callable[..., Any] | None:
    if value is None or callable(value):
        return value
    if isinstance(value, str):
        from agent_eval import AgentEvalError, load_agent

        try:
            return load_agent(value, origin="llm_judge(judge_agent=...)")
        except AgentEvalError as error:
            raise ValueError(str(error)) from None
    raise TypeError(f"judge_agent must be an agent callable or 'module:attr', got {value!r}")
