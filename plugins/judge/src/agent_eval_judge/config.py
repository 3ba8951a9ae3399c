"""Where the judge is and how it behaves, read from the environment once per run."""

# The cache folder is a string (see cache.py); pathlib is not imported on a cached run.
# ruff: noqa: PTH111, PTH117, PTH118

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Mapping
from typing import TypeVar
from urllib.parse import urlsplit, urlunsplit

import attrs

from agent_eval import Skip
from agent_eval_judge.errors import JudgeConfigError
from agent_eval_judge.redact import Secret, redact

BASE_URL = "AGENT_EVAL_JUDGE_BASE_URL"
MODEL = "AGENT_EVAL_JUDGE_MODEL"
API_KEY = "AGENT_EVAL_JUDGE_API_KEY"
GROQ_KEY = "GROQ_API_KEY"

GROQ_BASE_URL = "https://api.groq.com/openai/v1"
#: A production Groq model with strict structured outputs (json_schema).
GROQ_DEFAULT_MODEL = "openai/gpt-oss-120b"

CACHE_DIR = "AGENT_EVAL_CACHE_DIR"
CACHE_SWITCH = "AGENT_EVAL_JUDGE_CACHE"

NOT_CONFIGURED = (
    f"no LLM judge configured: set {BASE_URL} and {MODEL} (and {API_KEY} if the endpoint needs a key) "
    f"for any OpenAI-compatible endpoint, or {GROQ_KEY} for Groq, or pass llm_judge(judge_agent=...)"
)

T = TypeVar("T", int, float)


@attrs.frozen
class Endpoint:
    """An OpenAI-compatible chat-completions endpoint, its model and key."""

    base_url: str
    model: str
    api_key: Secret | None = attrs.field(default=None, repr=False)
    #: Which variable named the endpoint, for hints in error messages.
    source: str = BASE_URL

    # The URL's parts are worked out once per endpoint: a run asks for them on every evaluation.

    @functools.cached_property
    def chat_url(self) -> str:
        """``{base}/chat/completions``, keeping any query string of the base URL."""
        parts = urlsplit(self.base_url)
        path = parts.path.rstrip("/") + "/chat/completions"
        return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))

    @functools.cached_property
    def display(self) -> str:
        """``host:port/path`` without credentials or query: safe to show and to hash."""
        parts = urlsplit(self.base_url)
        host = parts.hostname or ""
        if parts.port is not None:
            host = f"{host}:{parts.port}"
        return host + parts.path.rstrip("/")

    @functools.cached_property
    def identity(self) -> str:
        """Scheme, host, port and path: what identifies the endpoint in the cache and the cool-down."""
        return f"{urlsplit(self.base_url).scheme}://{self.display}"

    @property
    def key_variable(self) -> str:
        """The variable that holds this endpoint's key."""
        return GROQ_KEY if self.source == GROQ_KEY else API_KEY

    def describe(self) -> str:
        """``judge endpoint host/path (model 'm')`` for messages."""
        return f"judge endpoint {self.display} (model {self.model!r})"


def resolve_endpoint(model: str | None = None, environ: Mapping[str, str] | None = None) -> Endpoint:
    """The endpoint from the environment; raise Skip when nothing is configured.

    ``model`` (from ``llm_judge(model=...)``) wins over the environment's model.
    """
    env = os.environ if environ is None else environ
    base = env.get(BASE_URL, "").strip()
    key = env.get(API_KEY, "").strip()
    chosen = model or env.get(MODEL, "").strip() or None
    if base:
        _check_url(base)
        if not chosen:
            raise JudgeConfigError(f"{BASE_URL} is set but no model is: set {MODEL} or pass llm_judge(model=...)")
        return Endpoint(base, chosen, Secret(key) if key else None, BASE_URL)
    groq = env.get(GROQ_KEY, "").strip()
    if groq:
        return Endpoint(GROQ_BASE_URL, chosen or GROQ_DEFAULT_MODEL, Secret(groq), GROQ_KEY)
    if key or env.get(MODEL, "").strip():
        set_now = API_KEY if key else MODEL
        raise JudgeConfigError(f"{set_now} is set but {BASE_URL} is not: set it to the endpoint's base URL")
    raise Skip(NOT_CONFIGURED)


def _check_url(url: str) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        shown = redact(url)
        raise JudgeConfigError(
            f"{BASE_URL}={shown!r} is not an http(s) URL; expected e.g. http://127.0.0.1:11434/v1"
        ) from None


@attrs.frozen
class Settings:
    """How the judge behaves: time limits, retries, concurrency, answer size and the cache."""

    #: Seconds to wait for one answer.
    timeout: float = 60.0
    #: Retries after the first attempt, for rate limits, server errors, timeouts and lost connections.
    max_retries: int = 3
    #: Requests in flight at once, per endpoint.
    concurrency: int = 16
    #: First backoff delay in seconds; it doubles each retry, up to ``backoff_max``.
    backoff_base: float = 0.5
    backoff_max: float = 8.0
    #: A server that asks to wait longer than this (seconds) gets an error instead of a wait.
    max_retry_after: float = 60.0
    #: The judge's answer budget in tokens.
    max_tokens: int = 1024
    #: Answers, inputs and references longer than this many characters are cut before judging.
    max_chars: int = 50_000
    cache: bool = True
    #: The cache folder, as a string: the cache builds its file names with ``os.path``.
    cache_dir: str = attrs.field(factory=lambda: default_cache_dir({}))

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Read ``AGENT_EVAL_JUDGE_*`` and ``AGENT_EVAL_CACHE_DIR``; a bad value is a JudgeConfigError."""
        env = os.environ if environ is None else environ
        defaults = _DEFAULTS
        return cls(
            timeout=_number(env, "AGENT_EVAL_JUDGE_TIMEOUT", float, defaults.timeout, minimum=0.001),
            max_retries=_number(env, "AGENT_EVAL_JUDGE_MAX_RETRIES", int, defaults.max_retries, minimum=0),
            concurrency=_number(env, "AGENT_EVAL_JUDGE_CONCURRENCY", int, defaults.concurrency, minimum=1),
            backoff_base=_number(env, "AGENT_EVAL_JUDGE_BACKOFF_BASE", float, defaults.backoff_base, minimum=0),
            backoff_max=_number(env, "AGENT_EVAL_JUDGE_BACKOFF_MAX", float, defaults.backoff_max, minimum=0),
            max_retry_after=_number(
                env, "AGENT_EVAL_JUDGE_MAX_RETRY_AFTER", float, defaults.max_retry_after, minimum=0
            ),
            max_tokens=_number(env, "AGENT_EVAL_JUDGE_MAX_TOKENS", int, defaults.max_tokens, minimum=16),
            max_chars=_number(env, "AGENT_EVAL_JUDGE_MAX_CHARS", int, defaults.max_chars, minimum=100),
            cache=_switch(env, CACHE_SWITCH),
            cache_dir=default_cache_dir(env),
        )


#: The defaults ``from_env`` falls back on (built without a cache folder, which only the environment decides).
_DEFAULTS = Settings(cache_dir="")


def default_cache_dir(environ: Mapping[str, str]) -> str:
    """``$AGENT_EVAL_CACHE_DIR``, else ``$XDG_CACHE_HOME/agent-eval``, else ``~/.cache/agent-eval``."""
    explicit = environ.get(CACHE_DIR, "").strip()
    if explicit:
        return os.path.expanduser(explicit)
    xdg = environ.get("XDG_CACHE_HOME", "").strip()
    base = xdg if xdg and os.path.isabs(xdg) else os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "agent-eval")


def _number(env: Mapping[str, str], name: str, kind: Callable[[str], T], default: T, *, minimum: float) -> T:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    what = "a whole number" if kind is int else "a number"
    try:
        value = kind(raw)
    except ValueError:
        raise JudgeConfigError(f"{name}={raw!r} is not {what}; expected {what} of at least {minimum:g}") from None
    if not math.isfinite(value) or value < minimum:
        raise JudgeConfigError(f"{name}={raw!r} is out of range; expected {what} of at least {minimum:g}")
    return value


def _switch(env: Mapping[str, str], name: str) -> bool:
    raw = env.get(name, "").strip().lower()
    if raw in ("", "1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    raise JudgeConfigError(f"{name}={raw!r} is not a switch; expected 1 or 0")
