"""JSON read strictly: a key given twice in one object is an error, not "the last one wins".

Both the HTTP body of an answer and the judge's verdict inside it are read this way: a body with
two ``"choices"``, or a verdict with two ``"pass"``, could say two things, and the reader must not
pick one.
"""

from __future__ import annotations

import json
from typing import Any


class RepeatedKey(ValueError):
    """An object gives the same key more than once."""

    def __init__(self, key: str) -> None:
        super().__init__(f"the key {key!r} is given more than once")
        self.key = key


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise RepeatedKey(key)
        result[key] = value
    return result


# Made once (json.loads with a hook builds a decoder on every call); decoding keeps no state between calls.
_STRICT = json.JSONDecoder(object_pairs_hook=_no_repeats)


def loads(text: str | bytes) -> Any:
    """``text`` (bytes are read as UTF-8) as JSON; RepeatedKey for a repeated key, ValueError otherwise.

    Nesting too deep for the parser is a ValueError too, not a RecursionError.
    """
    try:
        return _STRICT.decode(text.decode("utf-8") if isinstance(text, bytes) else text)
    except RecursionError:
        raise ValueError("the JSON is nested too deeply") from None
