"""What one ``llm_judge`` evaluation does: build the question, ask (cache, endpoint or agent), decide."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from agent_eval import AgentContext, EvaluatorContext, Verdict, as_text, callable_name
from agent_eval_judge.answer import JudgeAnswer
from agent_eval_judge.asking import ask_agent, ask_endpoint
from agent_eval_judge.cache import KeyMaker
from agent_eval_judge.config import Endpoint, Settings
from agent_eval_judge.errors import JudgeAnswerError
from agent_eval_judge.prompt import NONCE_PLACEHOLDER, PROMPT_VERSION, SYSTEM_PROMPT, Question, clip, new_nonce
from agent_eval_judge.trajectory import render_trajectory
from agent_eval_judge.usage import summed

if TYPE_CHECKING:
    from agent_eval_judge.options import JudgeOptions
    from agent_eval_judge.session import Session


@attrs.frozen
class Sample:
    """One judge call's verdict and what it cost."""

    answer: JudgeAnswer
    cached: bool = False
    usage: Mapping[str, int] = attrs.Factory(dict)
    requests: int = 0
    output_mode: str | None = None
    usage_complete: bool = True
    #: What was wrong with the judge's first answer, when asking again gave this verdict.
    repaired: str | None = None


async def judge(options: JudgeOptions, session: Session, output: Any, ctx: EvaluatorContext | None) -> Verdict:
    """Grade ``output`` as ``options`` say, in the run's ``session``; raise Skip when no judge is configured."""
    text = as_text(output)
    if not text.strip():
        # An empty answer meets no criterion, and some judges pass anything: do not ask.
        return Verdict(False, 0.0, "empty answer: nothing to judge (the judge was not called)")
    endpoint = None if options.judge_agent is not None else session.endpoint(options.model)
    question, clipped = build_question(options, text, ctx, session.settings.max_chars)
    samples = await _gather(options, question, ctx, endpoint, session)
    metadata = _metadata(options, samples, endpoint)
    if options.include_trajectory:
        metadata["trajectory"] = len(ctx.tool_calls) if ctx is not None else 0
    if clipped:
        metadata["truncated_for_judge"] = True
    return decide(samples, metadata)


def build_question(
    options: JudgeOptions, answer: str, ctx: EvaluatorContext | None, limit: int
) -> tuple[Question, bool]:
    """The question for the judge, with every part cut to ``limit`` characters; True when something was cut."""
    answer, clipped = clip(answer, limit)
    given_input = given_expected = None
    if ctx is not None and options.include_input and ctx.input is not None:
        given_input, cut = clip(as_text(ctx.input), limit)
        clipped = clipped or cut
    if ctx is not None and options.include_expected and ctx.expected is not None:
        given_expected, cut = clip(as_text(ctx.expected), limit)
        clipped = clipped or cut
    trajectory = None
    if options.include_trajectory:
        trajectory, cut = render_trajectory(ctx.tool_calls if ctx is not None else (), limit)
        clipped = clipped or cut
    return Question(options.criteria, answer, given_input, given_expected, trajectory=trajectory), clipped


async def _gather(
    options: JudgeOptions,
    question: Question,
    ctx: EvaluatorContext | None,
    endpoint: Endpoint | None,
    session: Session,
) -> list[Sample]:
    attempt = ctx.attempt if ctx is not None else 0
    if options.samples == 1:
        if endpoint is None:
            return [await _ask_agent(options, question, ctx, session)]
        return [await _ask_endpoint(options, question, (0, attempt), endpoint, session)]

    def one(index: int) -> Any:
        if endpoint is None:
            return _ask_agent(options, question, ctx, session)
        return _ask_endpoint(options, question, (index, attempt), endpoint, session)

    outcomes = await asyncio.gather(*(one(index) for index in range(options.samples)), return_exceptions=True)
    samples: list[Sample] = []
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            raise outcome
        samples.append(outcome)
    return samples


async def _ask_endpoint(
    options: JudgeOptions, question: Question, draw: tuple[int, int], endpoint: Endpoint, session: Session
) -> Sample:
    """One sample from the endpoint (or the cache); ``draw`` is (sample index, attempt of the case)."""
    settings = session.settings
    store = session.verdicts if options.cache else None
    key = None
    if store is not None:
        key = cache_key(session, question, draw, endpoint)
        hit = store.get(key)
        if hit is not None:
            answer, facts = hit
            mode = facts.get("output_mode")
            return Sample(answer, cached=True, output_mode=mode if isinstance(mode, str) else None)
    answered = await ask_endpoint(session.requester, endpoint, question.messages(new_nonce()), settings, session.redact)
    if store is not None and key is not None:
        store.put(key, answered.answer, {"model": endpoint.model, "output_mode": answered.output_mode})
    return Sample(
        answered.answer,
        False,
        answered.usage,
        answered.requests,
        answered.output_mode,
        usage_complete=answered.usage_complete,
        repaired=answered.repaired,
    )


async def _ask_agent(
    options: JudgeOptions, question: Question, ctx: EvaluatorContext | None, session: Session
) -> Sample:
    assert options.judge_agent is not None
    agent_ctx = ctx.agent_ctx if ctx is not None else AgentContext()
    prompt = question.single_prompt(new_nonce())
    answered = await ask_agent(options.judge_agent, prompt, agent_ctx, session.settings, session.redact)
    return Sample(answered.answer, repaired=answered.repaired)


def fixed_key_parts(endpoint: Endpoint, settings: Settings, system: str = SYSTEM_PROMPT) -> dict[str, Any]:
    """What every cached verdict of an (endpoint, model, instructions) depends on: hashed once per run.

    The output mode is left out: it changes the wire format, not the question,
    and an endpoint that needs a step down would otherwise miss on every fresh run.
    """
    return {
        "endpoint": endpoint.identity,
        "model": endpoint.model,
        "params": {"temperature": 0, "max_tokens": settings.max_tokens},
        "prompt_version": PROMPT_VERSION,
        "system": system,
    }


def cache_key(session: Session, question: Question, draw: tuple[int, int], endpoint: Endpoint) -> str:
    """The cache key of one sample: the fixed parts, the user message, the sample index and the attempt.

    The per-call marker code is replaced by a fixed placeholder, or no run could ever hit the cache.
    The first attempt of a case adds nothing for its attempt, so caches written before repeats
    existed (and runs that do not repeat) keep their keys; a later attempt is a question of its own,
    so a repeat is asked again rather than copied from the first.
    """
    # The instructions differ with the trajectory shown (and the trajectory is in the user message).
    system = question.system_prompt
    fixed = (endpoint.identity, endpoint.model, system is not SYSTEM_PROMPT)
    maker = session.key_makers.get(fixed)
    if maker is None:
        maker = session.key_makers[fixed] = KeyMaker(fixed_key_parts(endpoint, session.settings, system))
    index, attempt = draw
    user = question.user_message(NONCE_PLACEHOLDER)
    if attempt:
        return maker.key(user, str(index), f"attempt {attempt}")
    return maker.key(user, str(index))


def _metadata(options: JudgeOptions, samples: list[Sample], endpoint: Endpoint | None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"cached": all(sample.cached for sample in samples)}
    repaired = [sample.repaired for sample in samples if sample.repaired is not None]
    if repaired:
        # the verdict came from a second chance: the first answer's problem is worth a look
        metadata["repaired"] = True
        metadata["first_error"] = repaired[0]
        if len(samples) > 1:
            metadata["repaired_samples"] = len(repaired)
    if endpoint is None:
        metadata["judge_agent"] = callable_name(options.judge_agent)
        return metadata
    metadata["model"] = endpoint.model
    mode = next((sample.output_mode for sample in samples if sample.output_mode), None)
    if mode is not None:
        metadata["output_mode"] = mode
    metadata["usage"] = sum_usage(samples)
    if any(not sample.cached and not sample.usage_complete for sample in samples):
        metadata["usage_complete"] = False
    return metadata


def sum_usage(samples: list[Sample]) -> dict[str, int]:
    """Token counts the endpoint reported, summed; ``requests`` made; ``cache_hits`` when any."""
    usage = summed(sample.usage for sample in samples)
    usage["requests"] = sum(sample.requests for sample in samples)
    hits = sum(sample.cached for sample in samples)
    if hits:
        usage["cache_hits"] = hits
    return usage


def decide(samples: list[Sample], metadata: dict[str, Any]) -> Verdict:
    """One verdict from the samples: the majority passes or fails, the score is the mean; a tie is an error."""
    answers = [sample.answer for sample in samples]
    if any(not answer.score_given for answer in answers):
        metadata["score_derived"] = True
    # A pass with a low score (or a fail with a high one) stands as the judge said, but is worth a look.
    if any(answer.passed != (answer.score >= 0.5) for answer in answers):
        metadata["inconsistent"] = True
    if len(answers) == 1:
        only = answers[0]
        return Verdict(only.passed, only.score, only.reason or "(the judge gave no reason)", metadata=metadata)
    count = len(answers)
    passes = sum(answer.passed for answer in answers)
    if passes * 2 == count:
        raise JudgeAnswerError(
            f"the judge is split: {passes} of {count} samples passed and {count - passes} failed; "
            "use an odd number of samples",
            category="judge_uncertain",
        )
    passed = passes * 2 > count
    agreement = max(passes, count - passes) / count
    metadata["samples"] = count
    metadata["agreement"] = round(agreement, 4)
    score = sum(answer.score for answer in answers) / count
    majority = next(answer for answer in answers if answer.passed == passed)
    reason = f"{passes}/{count} samples passed (agreement {agreement:.2f}): {majority.reason or 'no reason given'}"
    return Verdict(passed, score, reason, metadata=metadata)
