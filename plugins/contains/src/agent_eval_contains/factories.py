"""The factories ``contains`` and ``matches``: light to import, for listing and registering.

The evaluators themselves (and agent-eval's records) are imported when a factory is called, so
``agent-eval list-evaluators`` does not pay for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent_eval import short_repr
from agent_eval_contains.options import flag, phrases

if TYPE_CHECKING:
    from agent_eval_contains.keywords import Contains
    from agent_eval_contains.regex import Matches


def contains(
    keywords: str | Sequence[str],
    *,
    match_all: bool = True,
    ignore_case: bool = True,
    forbidden: str | Sequence[str] = (),
    whole_words: bool = False,
    collapse_whitespace: bool = False,
    casefold: bool = False,
) -> Contains:
    """Passes when the output contains the keywords (all, or any) and none of the forbidden phrases.

    The score is the fraction of ``keywords`` found (partial credit); with
    ``match_all=False`` it is 1 when any is found, else 0. No keywords score 1.
    A string is one keyword. Matching ignores case unless ``ignore_case=False``;
    ``casefold`` compares case Unicode-wise ("STRASSE" finds "straße");
    ``whole_words`` does not find "cat" inside "concatenate";
    ``collapse_whitespace`` treats any run of whitespace as one space. Forbidden
    phrases are matched with the same options.
    """
    from agent_eval_contains.keywords import Contains
    from agent_eval_contains.normalize import Normalizer

    ignore_case = flag("ignore_case", ignore_case)
    if flag("casefold", casefold) and not ignore_case:
        raise ValueError("casefold=True needs ignore_case=True (case folding is a way of ignoring case)")
    return Contains(
        keywords=phrases("keywords", keywords),
        match_all=flag("match_all", match_all),
        forbidden=phrases("forbidden", forbidden),
        whole_words=flag("whole_words", whole_words),
        normalize=Normalizer(ignore_case, casefold, flag("collapse_whitespace", collapse_whitespace)),
    )


def matches(pattern: str, *, ignore_case: bool = False) -> Matches:
    """Passes when the regular expression `pattern` matches somewhere in the output.

    The search is ``re.search``: anywhere in the text, ``^`` and ``$`` at its
    ends unless the pattern sets ``(?m)``. An invalid pattern is reported when
    the suite is loaded, before the agent runs.
    """
    from agent_eval_contains.regex import Matches

    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a string, got {short_repr(pattern, 80)}")
    if not pattern:
        raise ValueError("pattern must not be empty (an empty pattern matches every output)")
    return Matches(pattern, flag("ignore_case", ignore_case))
