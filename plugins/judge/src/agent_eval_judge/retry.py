"""When to retry a judge request and how long to wait: status codes, server hints, backoff."""

from __future__ import annotations

import email.utils
import json
import math
import random
import re
import time
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from agent_eval_judge.redact import redact

#: Statuses worth another attempt: timeouts, conflicts, rate limits and server errors.
RETRY_STATUSES = frozenset({408, 409, 429})
_QUOTA_WORDS = ("insufficient_quota", "exceeded your current quota", "billing", "spend limit")
_DOWNGRADE_WORDS = ("response_format", "response format", "json_schema", "json schema", "json_object", "structured")
_GO_PART = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)")
_GO_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_MESSAGE_LIMIT = 300


@attrs.frozen
class ApiProblem:
    """An error answer from any OpenAI-compatible server, normalised."""

    status: int
    message: str
    type: str | None = None
    code: str | None = None
    param: str | None = None

    @classmethod
    def from_body(cls, status: int, body: bytes) -> ApiProblem:
        """Read ``{"error": {...}}``, ``{"error": "text"}``, a flat error object, or any text."""
        text = body.decode("utf-8", errors="replace")
        try:
            data = json.loads(text)
        except ValueError:
            return cls(status, _clean(text) or "(no body)")
        if not isinstance(data, dict):
            return cls(status, _clean(text))
        error = data.get("error", data)
        if isinstance(error, str):
            return cls(status, _clean(error))
        if not isinstance(error, dict):
            return cls(status, _clean(text))
        message = error.get("message")
        return cls(
            status,
            _clean(message if isinstance(message, str) else text),
            _text(error.get("type")),
            _text(error.get("code")),
            _text(error.get("param")),
        )

    @property
    def is_quota(self) -> bool:
        """A 429 that waiting cannot fix: the account's quota or spend limit is used up."""
        blob = " ".join(filter(None, (self.type, self.code, self.message))).lower()
        return self.status == 429 and any(word in blob for word in _QUOTA_WORDS)

    @property
    def is_generation_failure(self) -> bool:
        """Groq's 400 ``json_validate_failed``: the model wrote bad JSON in JSON mode; another try may work."""
        return self.status == 400 and self.code == "json_validate_failed"

    @property
    def retryable(self) -> bool:
        """Whether another attempt may succeed."""
        if self.is_quota:
            return False
        return self.status in RETRY_STATUSES or self.status >= 500 or self.is_generation_failure

    def names_output_format(self) -> bool:
        """A 400 that rejects the ``response_format`` we sent."""
        blob = " ".join(filter(None, (self.param, self.code, self.message))).lower()
        return self.status in (400, 422) and any(word in blob for word in _DOWNGRADE_WORDS)

    def names_param(self, name: str) -> bool:
        """A 400 that rejects the parameter ``name`` (unsupported value or parameter)."""
        if self.status not in (400, 422):
            return False
        if self.param == name:
            return True
        lowered = self.message.lower()
        return name in lowered and ("unsupported" in lowered or "not support" in lowered)

    def summary(self) -> str:
        """``HTTP 429 rate_limit_exceeded: message``."""
        label = self.code or self.type
        return f"HTTP {self.status}" + (f" {label}" if label else "") + f": {self.message}"


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, dict | list):
        return None
    return str(value)


def _clean(text: str) -> str:
    line = redact(" ".join(text.split()))
    return line if len(line) <= _MESSAGE_LIMIT else line[: _MESSAGE_LIMIT - 1] + "…"


def server_wait(headers: Mapping[str, str], status: int, *, now: Callable[[], float] = time.time) -> float | None:
    """Seconds the server asked us to wait, or None when it did not say (or said nonsense).

    ``retry-after-ms`` first, then ``retry-after`` (seconds or an HTTP date); for a
    429 without those, the longest ``x-ratelimit-reset-*`` duration (``1.5s``, ``6m0s``).
    """
    lowered = {name.lower(): value for name, value in headers.items()}
    millis = _positive(lowered.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000
    after = lowered.get("retry-after")
    if after is not None:
        seconds = _positive(after)
        if seconds is None:
            seconds = _http_date_wait(after, now)
        if seconds is not None:
            return seconds
    if status != 429:
        return None
    resets = [
        go_duration(lowered[name])
        for name in ("x-ratelimit-reset-requests", "x-ratelimit-reset-tokens")
        if name in lowered
    ]
    known = [value for value in resets if value is not None and value > 0]
    return max(known) if known else None


def _positive(raw: str | None) -> float | None:
    if raw is None:
        return None
    try:
        value = float(raw.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) and value > 0 else None


def _http_date_wait(raw: str, now: Callable[[], float]) -> float | None:
    try:
        when = email.utils.parsedate_to_datetime(raw.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    wait = when.timestamp() - now()
    return wait if wait > 0 else None


def go_duration(text: str) -> float | None:
    """A Go-style duration (``12ms``, ``1.5s``, ``6m0s``, ``1h2m3s``) in seconds, or None."""
    raw = text.strip()
    if not raw:
        return None
    total = 0.0
    position = 0
    for match in _GO_PART.finditer(raw):
        if match.start() != position:
            return None
        total += float(match.group(1)) * _GO_UNITS[match.group(2)]
        position = match.end()
    if position != len(raw):
        return _positive(raw)
    return total


def backoff(retry: int, base: float, cap: float, rng: Callable[[], float] = random.random) -> float:
    """The wait before retry number ``retry`` (0-based): doubling from ``base`` up to ``cap``, minus up to 25 %."""
    return float(min(cap, base * 2.0**retry) * (1 - 0.25 * rng()))


def with_jitter(seconds: float, rng: Callable[[], float] = random.random) -> float:
    """``seconds`` plus up to 10 %, so that clients told the same wait do not return in lockstep."""
    return seconds * (1 + 0.1 * rng())


def should_retry_header(headers: Mapping[str, str]) -> bool | None:
    """The server's ``x-should-retry`` verdict, when it gives one."""
    for name, value in headers.items():
        if name.lower() == "x-should-retry":
            lowered = value.strip().lower()
            if lowered in ("true", "false"):
                return lowered == "true"
    return None
