"""``llm_judge``: grade an answer against a natural-language criterion with an LLM, or with a judge agent.

This module is what ``agent-eval list-evaluators`` imports, so it imports
nothing heavy: the options are checked by :mod:`agent_eval_judge.options` when
a judge is made, and the judging itself (:mod:`agent_eval_judge.judging`) is
imported at the first evaluation.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_eval import EvaluatorContext, Verdict
    from agent_eval_judge.options import JudgeOptions
    from agent_eval_judge.session import Session


def llm_judge(
    criteria: str,
    *,
    judge_agent: Callable[..., Any] | str | None = None,
    model: str | None = None,
    include_input: bool = True,
    include_expected: bool = True,
    samples: int = 1,
    cache: bool = True,
    include_trajectory: bool = False,
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
    :param include_trajectory: show the judge the agent's tool calls (name, arguments, result or error, in
        order), fenced as data, so that the criterion may be about what the agent did.
    """
    from agent_eval_judge.options import JudgeOptions

    options = JudgeOptions(
        criteria,
        judge_agent=judge_agent,
        model=model,
        include_input=include_input,
        include_expected=include_expected,
        samples=samples,
        cache=cache,
        include_trajectory=include_trajectory,
    )
    return LLMJudge(options)


class SessionHolder:
    """An evaluator that uses the run's session (HTTP client, caches); ``await it.aclose()`` outside a run."""

    def __init__(self) -> None:
        #: The runs' sessions this evaluator holds (released by :meth:`aclose`).
        self.sessions: list[Session] = []

    def _session(self) -> Session:
        """The running loop's session, held by this evaluator from its first evaluation there until :meth:`aclose`."""
        held = self.sessions
        # The session used last is the running loop's, unless it was closed since or this is another loop.
        if held and held[-1].is_current():
            return held[-1]
        from agent_eval_judge.session import session_for

        session = session_for(self)
        if not any(session is other for other in held):
            held.append(session)
        return session

    async def aclose(self) -> None:
        """Release this evaluator's hold on the run's session: caches and HTTP client, closed once nobody holds it."""
        sessions, self.sessions = self.sessions, []
        if sessions:
            from agent_eval_judge.session import release

            await release(self, sessions)


class LLMJudge(SessionHolder):
    """The evaluator ``llm_judge`` returns; ``await judge.aclose()`` when using it outside a run."""

    name = "llm_judge"

    def __init__(self, options: JudgeOptions) -> None:
        super().__init__()
        self.options = options

    def __repr__(self) -> str:
        from agent_eval import shorten

        criteria = shorten(self.options.criteria, 60)
        extra = f", samples={self.options.samples}" if self.options.samples != 1 else ""
        if self.options.include_trajectory:
            extra += ", include_trajectory=True"
        return f"llm_judge({criteria!r}{extra})"

    async def __call__(self, output: Any, ctx: EvaluatorContext | None = None) -> Verdict:
        """Ask the judge whether ``output`` meets the criterion; raise JudgeError when it cannot tell."""
        return await _judge_function()(self.options, self._session(), output, ctx)


@functools.cache
def _judge_function() -> Callable[[JudgeOptions, Session, Any, EvaluatorContext | None], Awaitable[Verdict]]:
    # Imported on the first evaluation, not with the plugin (list-evaluators stays light), and then only once.
    from agent_eval_judge.judging import judge

    return judge
