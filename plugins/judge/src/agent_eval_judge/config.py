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
REPAIR_SWITCH = "AGENT_EVAL_JUDGE_REPAIR"
MAX_BODY = "AGENT_EVAL_JUDGE_MAX_BODY"

EMBEDDINGS_BASE_URL = "AGENT_EVAL_EMBEDDINGS_BASE_URL"
EMBEDDINGS_API_KEY = "AGENT_EVAL_EMBEDDINGS_API_KEY"
EMBEDDINGS_MODEL = "AGENT_EVAL_EMBEDDINGS_MODEL"
DEFAULT_EMBEDDINGS_MODEL = "text-embedding-3-small"
BATCH_SIZE = "AGENT_EVAL_EMBEDDINGS_BATCH_SIZE"
BATCH_WINDOW = "AGENT_EVAL_EMBEDDINGS_BATCH_WINDOW"

NOT_CONFIGURED = (
    f"no LLM judge configured: set {BASE_URL} and {MODEL} (and {API_KEY} if the endpoint needs a key) "
    f"for any OpenAI-compatible endpoint, or {GROQ_KEY} for Groq, or pass llm_judge(judge_agent=...)"
)

EMBEDDINGS_NOT_CONFIGURED = (
    f"no embeddings endpoint configured: set {EMBEDDINGS_BASE_URL} (and {EMBEDDINGS_API_KEY} if the endpoint "
    f"needs a key) for any OpenAI-compatible /embeddings endpoint, or {BASE_URL} to use the judge's endpoint; "
    f"{EMBEDDINGS_MODEL} names the model (default {DEFAULT_EMBEDDINGS_MODEL})"
)

T = TypeVar("T", int, float)


def _key_variable_of(endpoint: Endpoint) -> str:
    return GROQ_KEY if endpoint.source == GROQ_KEY else API_KEY


@attrs.frozen
class Endpoint:
    """An OpenAI-compatible chat-completions endpoint, its model and key."""

    base_url: str
    model: str
    api_key: Secret | None = attrs.field(default=None, repr=False)
    #: Which variable named the endpoint, for hints in error messages.
    source: str = BASE_URL
    #: Which variable holds its key, for hints in error messages.
    key_variable: str = attrs.field(default=attrs.Factory(_key_variable_of, takes_self=True), kw_only=True, repr=False)
    #: What the endpoint is asked for, in messages: ``judge`` (chat completions) or ``embeddings``.
    role: str = attrs.field(default="judge", kw_only=True)

    # The URL's parts are worked out once per endpoint: a run asks for them on every evaluation.

    @functools.cached_property
    def chat_url(self) -> str:
        """``{base}/chat/completions``, keeping any query string of the base URL."""
        return self._joined("/chat/completions")

    @functools.cached_property
    def embeddings_url(self) -> str:
        """``{base}/embeddings``, keeping any query string of the base URL."""
        return self._joined("/embeddings")

    def _joined(self, path: str) -> str:
        parts = urlsplit(self.base_url)
        return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/") + path, parts.query, ""))

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

    def describe(self) -> str:
        """``judge endpoint host/path (model 'm')`` for messages."""
        return f"{self.role} endpoint {self.display} (model {self.model!r})"


def resolve_endpoint(model: str | None = None, environ: Mapping[str, str] | None = None) -> Endpoint:
    """The endpoint from the environment; raise Skip when nothing is configured.

    ``model`` (from ``llm_judge(model=...)``) wins over the environment's model.
    """
    env = os.environ if environ is None else environ
    base = env.get(BASE_URL, "").strip()
    key = env.get(API_KEY, "").strip()
    chosen = model or env.get(MODEL, "").strip() or None
    if base:
        _check_url(base, BASE_URL)
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


def resolve_embeddings_endpoint(environ: Mapping[str, str] | None = None) -> Endpoint:
    """The embeddings endpoint from the environment; raise Skip when nothing is configured.

    ``AGENT_EVAL_EMBEDDINGS_BASE_URL``, else the judge's base URL. The judge's key goes only to the
    judge's own endpoint: an embeddings endpoint elsewhere gets ``AGENT_EVAL_EMBEDDINGS_API_KEY`` or no key.
    """
    env = os.environ if environ is None else environ
    model = env.get(EMBEDDINGS_MODEL, "").strip() or DEFAULT_EMBEDDINGS_MODEL
    own, own_key = env.get(EMBEDDINGS_BASE_URL, "").strip(), env.get(EMBEDDINGS_API_KEY, "").strip()
    judge, judge_key = env.get(BASE_URL, "").strip(), env.get(API_KEY, "").strip()
    base, source = (own, EMBEDDINGS_BASE_URL) if own else (judge, BASE_URL)
    if not base:
        if own_key:
            raise JudgeConfigError(
                f"{EMBEDDINGS_API_KEY} is set but neither {EMBEDDINGS_BASE_URL} nor {BASE_URL} is: "
                "set one to the endpoint's base URL"
            )
        raise Skip(EMBEDDINGS_NOT_CONFIGURED)
    _check_url(base, source)
    key, key_variable = own_key, EMBEDDINGS_API_KEY
    if not key and judge_key and (not own or _same_endpoint(own, judge)):
        key, key_variable = judge_key, API_KEY
    secret = Secret(key) if key else None
    return Endpoint(base, model, secret, source, key_variable=key_variable, role="embeddings")


def _same_endpoint(first: str, second: str) -> bool:
    return bool(second) and Endpoint(first, "-").identity == Endpoint(second, "-").identity


def _check_url(url: str, variable: str) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        shown = redact(url)
        raise JudgeConfigError(
            f"{variable}={shown!r} is not an http(s) URL; expected e.g. http://127.0.0.1:11434/v1"
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
    #: The largest HTTP answer read, in bytes; reading stops there, with an error.
    max_body: int = 4 * 1024 * 1024
    #: A second chance for an answer that cannot be read (asked again) or was cut off (a larger budget).
    repair: bool = True
    #: Texts sent in one ``/embeddings`` request at most.
    embeddings_batch_size: int = 32
    #: Seconds a text waits for others to share its ``/embeddings`` request.
    embeddings_batch_window: float = 0.02
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
            max_body=_number(env, MAX_BODY, int, defaults.max_body, minimum=1024),
            repair=_switch(env, REPAIR_SWITCH),
            embeddings_batch_size=_number(
                env, BATCH_SIZE, int, defaults.embeddings_batch_size, minimum=1, maximum=2048
            ),
            embeddings_batch_window=_number(
                env, BATCH_WINDOW, float, defaults.embeddings_batch_window, minimum=0, maximum=10
            ),
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


def _number(
    env: Mapping[str, str],
    name: str,
    kind: Callable[[str], T],
    default: T,
    *,
    minimum: float,
    maximum: float | None = None,
) -> T:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    what = "a whole number" if kind is int else "a number"
    wanted = f"{what} of at least {minimum:g}" if maximum is None else f"{what} from {minimum:g} to {maximum:g}"
    try:
        value = kind(raw)
    except ValueError:
        raise JudgeConfigError(f"{name}={raw!r} is not {what}; expected {wanted}") from None
    if not math.isfinite(value) or value < minimum or (maximum is not None and value > maximum):
        raise JudgeConfigError(f"{name}={raw!r} is out of range; expected {wanted}")
    return value


def _switch(env: Mapping[str, str], name: str) -> bool:
    raw = env.get(name, "").strip().lower()
    if raw in ("", "1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    raise JudgeConfigError(f"{name}={raw!r} is not a switch; expected 1 or 0")
