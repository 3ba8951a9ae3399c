"""Text for people: an output as text, values and errors in one bounded line, nothing that drives a terminal.

Every report, message and reason that shows a value it did not make goes through these helpers, so a
value of any type (or one whose ``repr`` raises) comes out as a bounded line of text, and a control
character (ESC, BEL, an OSC title or link, NUL, a bidirectional override, a lone surrogate) comes out
as an escape such as ``\\x1b`` that a terminal, a browser or a Markdown renderer shows as it is.
"""

from __future__ import annotations

import os
import re
from typing import Any

#: What ends a shortened text.
ELLIPSIS = "…"

#: Longest text a human-facing report shows of one value (an answer, an input, a reason); the JSON
#: report, the JSON Lines stream and the history keep the whole text.
DISPLAY_LIMIT = 20_000

# Besides the C0 and C1 controls and DEL: the bidirectional controls (they reorder what is shown), the
# line and paragraph separators, lone surrogates (UTF-8 cannot hold them) and two non-characters XML refuses.
_OTHERS = "\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff"
_CONTROLS = re.compile(f"[\x00-\x1f{_OTHERS}]")
#: The same but for a text shown on lines of its own: newlines and tabs stay.
_CONTROLS_BUT_LINES = re.compile(f"[\x00-\x08\x0b-\x1f{_OTHERS}]")
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def as_text(output: Any) -> str:
    """The agent's output as text: strings as they are, bytes decoded, dicts and lists as JSON."""
    if isinstance(output, str):
        return output
    if output is None:
        return ""
    if isinstance(output, bytes | bytearray):
        return bytes(output).decode("utf-8", errors="replace")
    if isinstance(output, dict | list | tuple):
        import json

        try:
            return json.dumps(output, ensure_ascii=False)
        except (TypeError, ValueError):
            return str(output)
    return str(output)


def shorten(text: str | None, limit: int = 80) -> str:
    """``text`` on one line (runs of whitespace become one space), at most ``limit`` characters."""
    if not text:
        return ""
    line = " ".join(str(text).split())
    return cut(line, limit)


def cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, the last being ``…`` when something was cut."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + ELLIPSIS


def short_repr(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters; a broken ``__repr__`` gives ``<Type object>``."""
    try:
        text = repr(value)
    except Exception:  # a broken __repr__ must not break the report
        text = int_text(value) if isinstance(value, int) else f"<{type(value).__name__} object>"
    return cut(text, limit)


def describe_error(error: BaseException) -> str:
    """``Type: message`` on one line."""
    try:
        text = " ".join(str(error).split())
    except Exception:  # an exception whose __str__ raises is still an error to report
        text = ""
    name = type(error).__name__
    return f"{name}: {text}" if text else name


def kind_of(value: Any) -> str:
    """What ``value`` is, in words, for messages: ``a string ('x')``, ``a list``, ``nothing (null)``."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, int | float):
        return f"a number ({short_repr(value, 40)})"
    if isinstance(value, str):
        return f"a string ({short_repr(value, 40)})"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def visible(text: str, *, lines: bool = False) -> str:
    """``text`` with every control character shown as an escape (``\\x1b``, ``\\u202e``, ``\\n``).

    With ``lines``, newlines and tabs stay, for a text shown on lines of its own. A text with nothing
    to escape is returned as it is, at the cost of one ``str.isprintable``.
    """
    if text.isprintable():
        return text
    return (_CONTROLS_BUT_LINES if lines else _CONTROLS).sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def text_of(value: Any) -> str:
    """Any value as text, never raising: strings as they are, None as nothing, the rest by ``str``."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if type(value) is int:
        return int_text(value)
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", errors="replace")
    try:
        return str(value)
    except Exception:  # a broken __str__ (or a value too deep to print) still has a name
        return short_repr(value, DISPLAY_LIMIT)


def cell(value: Any, limit: int | None = None) -> str:
    """One line for a table cell or a message: ``value`` as text, controls and newlines escaped, cut to ``limit``."""
    text = text_of(value)
    if limit is None:
        return visible(text)
    # one more character than fits, so that cut() marks what was left out
    return cut(visible(text[: limit + 1]), limit)


def block(value: Any, limit: int = DISPLAY_LIMIT) -> str:
    """Several lines for a text shown whole (an answer, a reason under -v): controls escaped, capped."""
    if type(value) is str and len(value) <= limit and value.isprintable():
        return value  # most texts: nothing to cut or escape (a report writes two a case)
    return visible(capped(text_of(value), limit), lines=True)


def capped(text: str, limit: int = DISPLAY_LIMIT) -> str:
    """``text``, or its first ``limit`` characters and a note giving its full length."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}{ELLIPSIS} [cut: {len(text):,} characters in all; the JSON report has the whole text]"


def int_text(number: int) -> str:
    """An int as its digits; one too long for ``str`` (over 4,300 digits) as its length and first and last digits."""
    try:
        return str(int(number))
    except ValueError:
        pass
    import math

    magnitude = abs(int(number))
    digits = int(magnitude.bit_length() * math.log10(2)) + 1
    if magnitude < 10 ** (digits - 1):
        digits -= 1
    sign = "-" if number < 0 else ""
    if digits > 200_000:  # dividing out the first digits would take seconds
        return f"<int of {digits:,} digits>"
    head = magnitude // 10 ** (digits - 12)
    return f"<int of {digits:,} digits: {sign}{head}{ELLIPSIS}{magnitude % 10**12:012d}>"


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 case``, ``2 cases``; ``many`` for words that do not just add an s."""
    return f"{count} {word if count == 1 else many or word + 's'}"


def frames_of(error: BaseException, limit: int = 5) -> tuple[str, ...]:
    """The innermost ``limit`` frames of ``error``'s traceback as ``file:line in function``.

    The frames of agent-eval's own runner and of asyncio, through which every agent and evaluator is
    called, are left out at the start: what remains begins in the code that raised.
    """
    import traceback

    # the code objects, not traceback.extract_tb: that reads every frame's source line from disk
    frames = [(frame.f_code, line) for frame, line in traceback.walk_tb(error.__traceback__)]
    start = 0
    while start < len(frames) and _machinery(frames[start][0].co_filename):
        start += 1
    kept = frames[start:] or frames
    return tuple(_frame_text(code.co_filename, line, code.co_qualname) for code, line in kept[-limit:])


#: Where the frames of agent-eval's runner and thread pool, and of asyncio, come from: every agent and
#: evaluator is called through them, so a traceback starts with them.
_MACHINERY = tuple(
    folder + os.sep
    for folder in (
        __file__.rpartition(os.sep)[0],
        os.__file__.rpartition(os.sep)[0] + os.sep + "asyncio",
        os.__file__.rpartition(os.sep)[0] + os.sep + "concurrent",
    )
)


def _machinery(filename: str) -> bool:
    return filename.startswith(_MACHINERY)


def _frame_text(filename: str, line: int | None, function: str) -> str:
    try:
        relative = os.path.relpath(filename)
    except ValueError:  # another drive on Windows
        relative = filename
    shown = filename if relative.startswith("..") else relative
    # visible(): a file name that was not UTF-8 holds lone surrogates, which no report could encode
    return visible(f"{shown}:{line} in {function}")
