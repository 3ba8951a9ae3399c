"""What one ``similar`` evaluation does: embed the answer and the reference, compare, decide."""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent_eval import EvaluatorContext, Verdict, as_text
from agent_eval_judge.errors import JudgeProtocolError
from agent_eval_judge.options import NO_REFERENCE
from agent_eval_judge.prompt import clip

if TYPE_CHECKING:
    from agent_eval_judge.options import SimilarOptions
    from agent_eval_judge.session import Session


async def measure(options: SimilarOptions, session: Session, output: Any, ctx: EvaluatorContext | None) -> Verdict:
    """Grade ``output`` against the reference as ``options`` say; raise Skip when no endpoint is configured."""
    reference = reference_of(options, ctx)
    text = as_text(output)
    if not text.strip():
        return Verdict(False, 0.0, "empty answer: nothing to compare (no embedding was asked for)")
    embeddings = session.embeddings()
    limit = session.settings.max_chars
    (answer, answer_cut), (given, given_cut) = clip(text, limit), clip(reference, limit)
    fetched = await embeddings.vectors([given, answer])
    cosine = cosine_similarity(*fetched.vectors, where=embeddings.endpoint.describe())
    score = min(1.0, max(0.0, cosine))
    passed = score >= options.threshold
    side = "at or above" if passed else "below"
    clamped = f" (score {score:g})" if score != cosine else ""
    shown = shown_cosine(cosine, options.threshold, passed=passed)
    reason = f"cosine similarity {shown} to the reference{clamped}, {side} the threshold {options.threshold:g}"
    usage = {**fetched.usage, "requests": fetched.usage.get("requests", 0)}
    if fetched.cache_hits:
        usage["cache_hits"] = fetched.cache_hits
    metadata: dict[str, Any] = {
        "model": embeddings.endpoint.model,
        "cosine": round(cosine, 6),
        "threshold": options.threshold,
        "cached": not usage["requests"] and fetched.cache_hits == 2,
        "usage": usage,
    }
    if answer_cut or given_cut:
        metadata["truncated_for_embedding"] = True
    return Verdict(passed, score, reason, metadata=metadata)


def reference_of(options: SimilarOptions, ctx: EvaluatorContext | None) -> str:
    """The text to compare with: the option's, else the case's expected answer; ValueError when there is none."""
    if options.reference is not None:
        return options.reference
    expected = ctx.expected if ctx is not None else None
    if expected is None:
        raise ValueError(NO_REFERENCE)
    reference = as_text(expected)
    if not reference.strip():
        raise ValueError("the case's expected answer is empty: there is nothing to compare with")
    return reference


def shown_cosine(cosine: float, threshold: float, *, passed: bool) -> str:
    """``cosine`` to 3 places, or to as many more as it takes not to contradict the verdict (0.7996 is not 0.800)."""
    for places in range(3, 10):
        shown = f"{cosine:.{places}f}"
        if (max(0.0, float(shown)) >= threshold) == passed:  # the score is clamped at 0, as here
            return shown
    return repr(cosine)


def cosine_similarity(first: Sequence[float], second: Sequence[float], *, where: str) -> float:
    """The cosine of the angle between two vectors, from -1 to 1; JudgeProtocolError when it is undefined."""
    if len(first) != len(second):
        raise JudgeProtocolError(f"{where}: the vectors differ in length ({len(first)} and {len(second)})")
    dot = math.fsum(map(operator.mul, first, second))
    norms = math.sqrt(math.fsum(map(operator.mul, first, first))) * math.sqrt(
        math.fsum(map(operator.mul, second, second))
    )
    if not norms:
        raise JudgeProtocolError(f"{where}: a vector is all zeros, so no similarity can be measured")
    cosine = dot / norms
    if not math.isfinite(cosine):  # min() and max() would make NaN a 1
        raise JudgeProtocolError(f"{where}: the vectors' numbers are too large for a similarity to be measured")
    return max(-1.0, min(1.0, cosine))
