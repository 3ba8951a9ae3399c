"""Reading the judge's text as a verdict, failing closed: anything unclear is an error, never a pass.

Accepted: the JSON object alone, or one fenced JSON block (a ``<think>`` block
before it is dropped; a trailing comma is forgiven). Everything else raises
:class:`Unreadable` with a one-line reason: prose, several JSON objects,
repeated keys, a missing or non-boolean ``pass``, a score outside 0..1.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import attrs

_THINK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.IGNORECASE | re.DOTALL)
_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_SHOWN = 160


class Unreadable(ValueError):
    """The judge's text is not a readable verdict."""


@attrs.frozen
class JudgeAnswer:
    """A verdict read from the judge: pass, a 0..1 score and the judge's reason."""

    passed: bool
    score: float
    reason: str
    #: False when the judge gave no score and it was derived from ``pass`` (1.0 or 0.0).
    score_given: bool = True

    def to_dict(self) -> dict[str, Any]:
        """The answer as stored in the cache."""
        return {"reason": self.reason, "pass": self.passed, "score": self.score, "score_given": self.score_given}

    @classmethod
    def from_dict(cls, data: Any) -> JudgeAnswer:
        """Load :meth:`to_dict`'s output; raise Unreadable when it is not that shape."""
        if not isinstance(data, dict) or not isinstance(data.get("score_given"), bool):
            raise Unreadable("not a stored answer")
        answer = read_verdict(data)
        given = data["score_given"]
        return answer if answer.score_given == given else attrs.evolve(answer, score_given=given)


def parse_answer(text: str) -> JudgeAnswer:
    """Read the judge's text as ``{"reason", "pass", "score"}``; raise Unreadable otherwise."""
    body = _THINK.sub("", text).strip()
    if not body:
        raise Unreadable("the judge's answer is empty")
    return read_verdict(_one_object(body))


def _one_object(body: str) -> Any:
    whole = _loads(body)
    if whole is not _MISSING:
        return whole
    fences = _FENCE.findall(body)
    if len(fences) > 1:
        raise Unreadable(f"ambiguous: the judge's answer has {len(fences)} fenced blocks: {shown(body)}")
    if len(fences) == 1:
        outside = _FENCE.sub(" ", body)
        if _count_objects(outside):
            raise Unreadable(
                f"ambiguous: the judge's answer has JSON inside and outside its fenced block: {shown(body)}"
            )
        inside = _loads(fences[0].strip())
        if inside is _MISSING:
            raise Unreadable(f"the judge's fenced block is not valid JSON: {shown(fences[0])}")
        return inside
    count = _count_objects(body)
    if count > 1:
        raise Unreadable(f"ambiguous: the judge's answer holds {count} JSON objects: {shown(body)}")
    if count == 1:
        raise Unreadable(
            f"the judge's answer has text around its JSON object; expected the object alone: {shown(body)}"
        )
    raise Unreadable(f"the judge's answer is not JSON: {shown(body)}")


_MISSING: Any = object()


def _loads(text: str) -> Any:
    for candidate in (text, _TRAILING_COMMA.sub(r"\1", text)):
        try:
            return _STRICT.decode(candidate)
        except _Repeated as repeated:
            raise Unreadable(f"ambiguous: the judge's JSON gives {repeated.key!r} more than once") from None
        except ValueError:
            continue
    return _MISSING


class _Repeated(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _Repeated(key)
        result[key] = value
    return result


# Made once (json.loads with a hook builds a decoder on every call); decoding keeps no state between calls.
_STRICT = json.JSONDecoder(object_pairs_hook=_no_repeats)
_PLAIN = json.JSONDecoder()


def _count_objects(text: str) -> int:
    """How many JSON objects (parsed, not just braces) appear one after another in ``text``."""
    decoder = _PLAIN
    count = 0
    position = text.find("{")
    while position != -1:
        try:
            _, end = decoder.raw_decode(text, position)
        except ValueError:
            position = text.find("{", position + 1)
            continue
        count += 1
        position = text.find("{", end)
    return count


def read_verdict(data: Any) -> JudgeAnswer:
    """Check a parsed object's fields: ``pass`` a bool, ``score`` a number in 0..1, ``reason`` text."""
    if not isinstance(data, dict):
        raise Unreadable(f"the judge's JSON is a {_kind(data)}, not an object with 'pass', 'score' and 'reason'")
    if "pass" not in data:
        raise Unreadable(f"the judge's JSON has no 'pass': {shown(json.dumps(data))}")
    passed = data["pass"]
    if not isinstance(passed, bool):
        raise Unreadable(f"the judge's 'pass' is {shown(json.dumps(passed), 40)}, not true or false")
    reason = data.get("reason", "")
    if reason is None:
        reason = ""
    if not isinstance(reason, str):
        raise Unreadable(f"the judge's 'reason' is a {_kind(reason)}, not text")
    score = data.get("score")
    if score is None:
        return JudgeAnswer(passed, 1.0 if passed else 0.0, reason.strip(), score_given=False)
    if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
        raise Unreadable(f"the judge's 'score' is {shown(json.dumps(score), 40)}, not a number from 0 to 1")
    if not 0 <= score <= 1:
        raise Unreadable(f"the judge's 'score' is {score!r}, outside 0..1")
    return JudgeAnswer(passed, float(score), reason.strip())


def _kind(value: Any) -> str:
    names = {list: "list", str: "string", bool: "boolean", int: "number", float: "number", dict: "object"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def shown(text: str, limit: int = _SHOWN) -> str:
    """``text`` on one line, cut to ``limit`` characters, quoted."""
    line = " ".join(text.split())
    if len(line) > limit:
        line = line[: limit - 1] + "…"
    return repr(line)
