"""Reading the judge's text as a verdict, failing closed: anything unclear is an error, never a pass.

Accepted: the JSON object alone, or one fenced JSON block (a ``<think>`` block
before it is dropped; a trailing comma is forgiven). Everything else raises
:class:`Unreadable` with a one-line reason: prose, several JSON objects,
repeated keys, a missing or non-boolean ``pass``, a score outside 0..1.

An answer comes from an endpoint that may be hostile, so reading it takes time
in proportion to its length, whatever it holds: each step is one pass, and no
step starts over from every brace or tag it meets.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import attrs

from agent_eval_judge import strict_json

_THINK_OPEN = re.compile(r"<(think|thinking|reasoning)>", re.IGNORECASE)
_THINK_CLOSE = {name: re.compile(f"</{name}>", re.IGNORECASE) for name in ("think", "thinking", "reasoning")}
_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
#: What starts like a JSON object: outside a fenced block, that makes the answer ambiguous.
_OBJECT_START = re.compile(r"\{\s*[\"}]")
_STRUCTURE = re.compile(r'[{}"]')
_STRING_END = re.compile(r'["\\]')
#: Past this length an unreadable answer's JSON objects are not counted: only its error message would change.
_COUNT_LIMIT = 256 * 1024
_SHOWN = 160


class Unreadable(ValueError):
    """The judge's text is not a readable verdict.

    ``problem`` says what is wrong in a few words; the message adds the judge's text it is about,
    quoted, when there is one.
    """

    def __init__(self, problem: str, quoted: str | None = None) -> None:
        super().__init__(problem if quoted is None else f"{problem}: {quoted}")
        self.problem = problem
        self.quoted = quoted


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
    body = without_thinking(text).strip()
    if not body:
        raise Unreadable("the judge's answer is empty")
    return read_verdict(_one_object(body))


def without_thinking(text: str) -> str:
    """``text`` without its ``<think>…</think>`` (``thinking``, ``reasoning``) blocks.

    A tag that is never closed stays as it is, and so do later tags of its name: each closing tag
    is looked for once, so a run of unclosed tags costs one pass, not one pass per tag.
    """
    kept: list[str] = []
    position = 0
    unclosed: set[str] = set()
    search = position
    while (opening := _THINK_OPEN.search(text, search)) is not None:
        name = opening.group(1).lower()
        closing = None if name in unclosed else _THINK_CLOSE[name].search(text, opening.end())
        if closing is None:
            unclosed.add(name)
            if len(unclosed) == len(_THINK_CLOSE):
                break
            search = opening.end()
            continue
        kept.append(text[position : opening.start()])
        position = search = closing.end()
    if not kept:
        return text
    kept.append(text[position:])
    return "".join(kept)


def _one_object(body: str) -> Any:
    whole = _loads(body)
    if whole is not _MISSING:
        return whole
    fences = _FENCE.findall(body)
    if len(fences) > 1:
        raise Unreadable(f"ambiguous: the judge's answer has {len(fences)} fenced blocks", shown(body))
    if len(fences) == 1:
        outside = _FENCE.sub(" ", body)
        # Fail closed: anything outside that starts like an object, parseable or not, may be a verdict too.
        if _OBJECT_START.search(outside):
            raise Unreadable("ambiguous: the judge's answer has JSON inside and outside its fenced block", shown(body))
        inside = _loads(fences[0].strip())
        if inside is _MISSING:
            raise Unreadable("the judge's fenced block is not valid JSON", shown(fences[0]))
        return inside
    if len(body) > _COUNT_LIMIT:
        raise Unreadable(f"the judge's answer is not a JSON object alone ({len(body)} characters)", shown(body))
    count = _count_objects(body)
    if count > 1:
        raise Unreadable(f"ambiguous: the judge's answer holds {count} JSON objects", shown(body))
    if count == 1:
        raise Unreadable("the judge's answer has text around its JSON object; expected the object alone", shown(body))
    raise Unreadable("the judge's answer is not JSON", shown(body))


_MISSING: Any = object()


def _loads(text: str) -> Any:
    for candidate in (text, _TRAILING_COMMA.sub(r"\1", text)):
        try:
            return strict_json.loads(candidate)
        except strict_json.RepeatedKey as repeated:
            raise Unreadable(f"ambiguous: the judge's JSON gives {repeated.key!r} more than once") from None
        except ValueError:
            continue
    return _MISSING


_PLAIN = json.JSONDecoder()


def _count_objects(text: str) -> int:
    """How many JSON objects stand on their own in ``text``: the outermost balanced ``{…}`` that parse.

    One pass finds the spans (skipping strings inside braces whole), then each outermost span is
    parsed once; spans do not overlap, so the whole costs time in proportion to the text.
    """
    count = 0
    for start, end in _outermost_spans(text):
        try:
            count += isinstance(_PLAIN.decode(text[start:end]), dict)
        except (ValueError, RecursionError):
            continue
    return count


def _outermost_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each balanced ``{…}`` that no other balanced ``{…}`` holds, in order."""
    opened: list[int] = []
    spans: list[tuple[int, int]] = []
    position = text.find("{")
    while position != -1:
        match = _STRUCTURE.search(text, position)
        if match is None:
            break
        at, char = match.start(), match.group()
        if char == "{":
            opened.append(at)
        elif char == "}":
            start = opened.pop()
            while spans and spans[-1][0] > start:
                spans.pop()  # held by the span that just closed
            spans.append((start, at + 1))
        else:
            at = _string_end(text, at + 1)
            if at == -1:
                break
        # Between spans, prose quotes and braces mean nothing: go straight to the next opening brace.
        position = at + 1 if opened else text.find("{", at + 1)
    return spans


def _string_end(text: str, position: int) -> int:
    """Where the JSON string whose content starts at ``position`` ends (its closing quote), or -1."""
    while (match := _STRING_END.search(text, position)) is not None:
        if match.group() == '"':
            return match.start()
        position = match.start() + 2  # a backslash and the character it escapes
    return -1


def read_verdict(data: Any) -> JudgeAnswer:
    """Check a parsed object's fields: ``pass`` a bool, ``score`` a number in 0..1, ``reason`` text."""
    if not isinstance(data, dict):
        raise Unreadable(f"the judge's JSON is a {_kind(data)}, not an object with 'pass', 'score' and 'reason'")
    if "pass" not in data:
        raise Unreadable("the judge's JSON has no 'pass'", shown(json.dumps(data)))
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
    line = " ".join(text[: limit * 8].split())
    if len(line) > limit or len(text) > limit * 8:
        line = line[: limit - 1] + "…"
    return repr(line)
