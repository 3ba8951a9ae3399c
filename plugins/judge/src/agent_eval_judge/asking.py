"""One question put to the judge, its answer read, and one second chance when the answer is unusable.

An answer that cannot be read (prose, a fenced block around the wrong thing, two objects, an empty
reply) is asked for once more in a follow-up turn: the judge's own answer, then what was wrong with
it and the exact shape wanted. An answer cut off at its token budget (``finish_reason: length``) is
asked again with twice the budget, at most :data:`REPAIR_MAX_TOKENS`. One second chance, never a
loop: a second unusable answer is an error naming both problems, never a pass. Refusals are not asked
again (the same question is refused again). ``AGENT_EVAL_JUDGE_REPAIR=0`` turns the second chance off.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from agent_eval import AgentContext, as_text, callable_name, invoke
from agent_eval_judge.answer import JudgeAnswer, Unreadable, parse_answer, shown
from agent_eval_judge.errors import JudgeAnswerError, JudgeError
from agent_eval_judge.prompt import repair_messages, repair_prompt
from agent_eval_judge.usage import summed

if TYPE_CHECKING:
    from agent_eval_judge.config import Endpoint, Settings
    from agent_eval_judge.transport import Completion, Requester

#: A cut-off answer is asked again with twice the budget, but never with more tokens than this.
REPAIR_MAX_TOKENS = 8192
#: Answers longer than this (in characters) are read in a worker thread: a verdict is a few hundred.
PARSE_IN_THREAD = 16 * 1024

_REPAIRABLE = frozenset({"judge_unreadable", "judge_empty", "judge_truncated"})
_TOKENS_HINT = "raise AGENT_EVAL_JUDGE_MAX_TOKENS"

Scrub = Callable[[str], str]


class Unusable(Exception):
    """Why one answer gives no verdict: the problem (told to the judge when it is asked again), its category."""

    def __init__(self, problem: str, category: str = "judge_unreadable", *, quoted: str | None = None) -> None:
        self.problem = problem
        self.category = category
        #: The judge's text the problem is about, quoted on one short line (kept out of the follow-up).
        self.quoted = quoted
        super().__init__(self.described + ("; " + _TOKENS_HINT if category == "judge_truncated" else ""))

    @property
    def described(self) -> str:
        """The problem with the text it is about."""
        return self.problem if self.quoted is None else f"{self.problem}: {self.quoted}"


@attrs.frozen
class Answered:
    """A verdict read from the judge, the completions it took, and the first answer's problem if repaired."""

    answer: JudgeAnswer
    completions: Sequence[Completion] = ()
    #: What was wrong with the first answer, when a second chance gave the verdict.
    repaired: str | None = None

    @property
    def usage(self) -> dict[str, int]:
        """Token counts of every completion, summed (keys some completion reported)."""
        return summed(completion.usage for completion in self.completions)

    @property
    def requests(self) -> int:
        """HTTP requests made, retries and second chances included."""
        return _requests(self.completions)

    @property
    def usage_complete(self) -> bool:
        """False when some completion came without token counts."""
        return all(completion.usage for completion in self.completions)

    @property
    def output_mode(self) -> str | None:
        """The output mode of the completion that gave the verdict."""
        return self.completions[-1].output_mode if self.completions else None


def larger_budget(max_tokens: int) -> int | None:
    """A cut-off answer's second budget: twice ``max_tokens``, at most REPAIR_MAX_TOKENS; None if not larger."""
    larger = min(2 * max_tokens, max(REPAIR_MAX_TOKENS, max_tokens))
    return larger if larger > max_tokens else None


async def ask_endpoint(
    requester: Requester, endpoint: Endpoint, messages: list[dict[str, str]], settings: Settings, scrub: Scrub
) -> Answered:
    """The endpoint's verdict on ``messages``; a JudgeError (with the tokens spent) when there is none."""
    spent: list[Completion] = []
    try:
        return await _from_endpoint(requester, endpoint, messages, settings, scrub, spent)
    except Unusable as unusable:
        error: JudgeError = JudgeAnswerError(f"{endpoint.describe()}: {unusable}", category=unusable.category)
    except JudgeError as failed:  # a second chance the endpoint would not answer
        error = failed
    if spent:
        # the endpoint was paid for answers the judge could not use: the report still counts them
        usage = summed(completion.usage for completion in spent)
        error.metadata.update(model=endpoint.model, usage={**usage, "requests": _requests(spent)})
    raise error


def _requests(completions: Sequence[Completion]) -> int:
    return sum(completion.requests for completion in completions)


async def _from_endpoint(
    requester: Requester,
    endpoint: Endpoint,
    messages: list[dict[str, str]],
    settings: Settings,
    scrub: Scrub,
    spent: list[Completion],
) -> Answered:
    completion = await requester.complete(endpoint, messages)
    spent.append(completion)
    try:
        return Answered(await read_completion(completion, settings.max_tokens, scrub), tuple(spent))
    except Unusable as first:
        if not settings.repair or first.category not in _REPAIRABLE:
            raise
        budget = settings.max_tokens
        if first.category == "judge_truncated":
            larger = larger_budget(budget)
            if larger is None:
                raise
            again, budget, how = messages, larger, f" with {larger} tokens"
        else:
            again, how = repair_messages(messages, completion.content or "", first.problem), ""
        second = await requester.complete(endpoint, again, max_tokens=budget)
        spent.append(second)
        try:
            answer = await read_completion(second, budget, scrub)
        except Unusable as later:
            raise _both(first, later, how) from None
        return Answered(answer, tuple(spent), repaired=first.described)


def _both(first: Unusable, later: Unusable, how: str = "") -> Unusable:
    return Unusable(f"{first.described}; asked once more{how}, {later.problem}", later.category, quoted=later.quoted)


async def ask_agent(
    agent: Callable[..., Any], prompt: str, ctx: AgentContext, settings: Settings, scrub: Scrub
) -> Answered:
    """A judge agent's verdict on ``prompt``; a JudgeAnswerError when its text gives none (after a second chance)."""
    where = f"judge agent {callable_name(agent)}"
    try:
        text = as_text(await invoke(agent, prompt, ctx))
        try:
            return Answered(await read_text(text, scrub))
        except Unusable as first:
            if not settings.repair or first.category not in _REPAIRABLE:
                raise
            again = as_text(await invoke(agent, repair_prompt(prompt, text, first.problem), ctx))
            try:
                answer = await read_text(again, scrub)
            except Unusable as later:
                raise _both(first, later) from None
            return Answered(answer, repaired=first.described)
    except Unusable as unusable:
        raise JudgeAnswerError(f"{where}: {unusable}", category=unusable.category) from None


async def read_completion(completion: Completion, max_tokens: int, scrub: Scrub) -> JudgeAnswer:
    """The verdict in a completion; Unusable for a refusal, a cut-off, an empty or unreadable answer."""
    if completion.refusal:
        raise Unusable("the judge refused", "judge_refused", quoted=shown(completion.refusal))
    if completion.finish_reason == "content_filter":
        raise Unusable("the endpoint's content filter stopped the answer", "judge_refused")
    if completion.finish_reason == "length":
        raise Unusable(
            f"the judge's answer was cut off at {max_tokens} tokens (finish_reason 'length')", "judge_truncated"
        )
    return await read_text(completion.content or "", scrub)


async def read_text(text: str, scrub: Scrub) -> JudgeAnswer:
    """The verdict in the judge's text; Unusable when it is empty or cannot be read."""
    if not text.strip():
        raise Unusable("the judge's answer is empty", "judge_empty")
    try:
        # Reading is linear, but a hostile endpoint's megabyte would still hold the event loop for a while.
        answer = await asyncio.to_thread(parse_answer, text) if len(text) > PARSE_IN_THREAD else parse_answer(text)
    except Unreadable as error:
        raise Unusable(error.problem, quoted=error.quoted) from None
    # The judge never sees the key, but a proxy in between could echo it back in the reason.
    reason = scrub(answer.reason)
    return answer if reason == answer.reason else attrs.evolve(answer, reason=reason)
