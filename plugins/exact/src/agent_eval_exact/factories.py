"""The factory ``exact_match``: light to import, for listing and registering.

The evaluator (and agent-eval's records) is imported when the factory is called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_eval_exact.exact import ExactMatch


def exact_match(expected: Any = None, *, ignore_case: bool = False, strip: bool = True) -> ExactMatch:
    """Passes when the output equals `expected` (default: the case's expected answer).

    Text is compared after stripping surrounding whitespace (``strip=False``
    keeps it), case-sensitively unless ``ignore_case=True`` (Unicode case
    folding). A non-text expected value such as ``4`` is compared as text with
    a text output; when both are structured (dicts, lists, numbers) the values
    themselves are compared, and a dict or list expected value is compared with
    a text output read as JSON (spacing and key order do not matter). The
    reason shows where the two first differ.
    """
    from agent_eval_exact.exact import ExactMatch

    for option, value in (("ignore_case", ignore_case), ("strip", strip)):
        if not isinstance(value, bool):
            raise TypeError(f"{option} must be true or false, got {value!r}")
    return ExactMatch(expected, ignore_case, strip)
