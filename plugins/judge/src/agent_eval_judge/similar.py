"""``similar``: the answer means what the reference means, by the cosine similarity of their embeddings.

This module is imported with the plugin (``agent-eval list-evaluators``), so it
imports nothing heavy: the options are checked by :mod:`agent_eval_judge.options`
when an evaluator is made, and the measuring (:mod:`agent_eval_judge.similarity`)
is imported at the first evaluation.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from agent_eval_judge.evaluator import SessionHolder

if TYPE_CHECKING:
    from agent_eval import Case, EvaluatorContext, Verdict
    from agent_eval_judge.options import SimilarOptions
    from agent_eval_judge.session import Session


def similar(reference: str | None = None, *, threshold: float = 0.8) -> Similar:
    """Passes when the answer's embedding is close to the reference's (cosine similarity of at least threshold).

    :param reference: the text the answer should mean; the case's ``expected`` when left out.
    :param threshold: the least cosine similarity that passes, from 0 to 1; the score is the cosine (0 at least).
    """
    from agent_eval_judge.options import SimilarOptions

    return Similar(SimilarOptions(reference, threshold=threshold))


class Similar(SessionHolder):
    """The evaluator ``similar`` returns; ``await it.aclose()`` when using it outside a run."""

    name = "similar"

    def __init__(self, options: SimilarOptions) -> None:
        super().__init__()
        self.options = options

    def __repr__(self) -> str:
        reference = self.options.reference
        shown = ""
        if reference is not None:
            from agent_eval import shorten

            shown = repr(shorten(reference, 60)) + ", "
        return f"similar({shown}threshold={self.options.threshold:g})"

    def check_case(self, case: Case) -> None:
        """Refuse a case with nothing to compare with: no reference here, and no expected answer in the case."""
        if self.options.reference is None and case.expected is None:
            from agent_eval_judge.options import NO_REFERENCE

            raise ValueError(NO_REFERENCE)

    async def __call__(self, output: Any, ctx: EvaluatorContext | None = None) -> Verdict:
        """Compare ``output`` with the reference by their embeddings; raise JudgeError when they cannot be had."""
        return await _measure_function()(self.options, self._session(), output, ctx)


@functools.cache
def _measure_function() -> Callable[[SimilarOptions, Session, Any, EvaluatorContext | None], Awaitable[Verdict]]:
    # Imported on the first evaluation, not with the plugin (list-evaluators stays light), and then only once.
    from agent_eval_judge.similarity import measure

    return measure
