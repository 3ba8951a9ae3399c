"""Talking to the endpoint: the run's HTTP client, retries, a shared cool-down, and a circuit breaker.

A run's :class:`~agent_eval_judge.session.Session` makes one :class:`Requester`
at its first request: one ``aiohttp.ClientSession`` for the run (kept-alive
connections, at most the judge's concurrency per endpoint), the output mode
each (endpoint, model) accepts, a "not before" time per endpoint that every
call waits for after a 429, and the errors that make retrying pointless (bad
key, unknown model, exhausted quota), so that later calls fail at once with the
same message. This module imports aiohttp; nothing imports it until a request
is about to be made.

No aiohttp exception leaves this module, nor is any chained to the errors it
raises: their reprs carry the request's headers, the key among them. Failures
become one-line descriptions built from what is safe to show.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping
from typing import Any

import aiohttp
import attrs

from agent_eval_judge._version import __version__
from agent_eval_judge.config import Endpoint, Settings
from agent_eval_judge.errors import (
    JudgeError,
    JudgeProtocolError,
    JudgeRequestError,
    JudgeUnavailable,
)
from agent_eval_judge.logs import install_log_redaction
from agent_eval_judge.prompt import OUTPUT_MODES, response_format
from agent_eval_judge.retry import ApiProblem, backoff, server_wait, should_retry_header, with_jitter

log = logging.getLogger("agent_eval_judge")

_USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens")
_HINTS = {
    401: "check {key}",
    403: "the key has no access to this model or endpoint; check {key} and the model",
    404: "check the model name and the base URL",
}
_CIRCUIT_CATEGORIES = {401: "judge_auth", 403: "judge_auth", 404: "judge_model_not_found"}
# Made once: json.dumps with options builds a new encoder on every call, which costs more than the encoding.
_encode_body = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


@attrs.frozen
class Completion:
    """What came back from one successful chat-completions exchange."""

    content: str | None
    finish_reason: str | None
    refusal: str | None
    #: Token counts the endpoint reported (missing ones are left out, not zero).
    usage: Mapping[str, int]
    output_mode: str
    #: HTTP requests made for it, retries and format step-downs included.
    requests: int


@attrs.define
class _Tuning:
    """What an (endpoint, model) pair turned out to accept, learnt from its 400s during the run."""

    mode: str = OUTPUT_MODES[0]
    send_temperature: bool = True
    tokens_field: str = "max_tokens"

    def body(self, model: str, messages: list[dict[str, str]], settings: Settings) -> dict[str, Any]:
        body: dict[str, Any] = {"model": model, "messages": messages}
        if self.send_temperature:
            body["temperature"] = 0
        body[self.tokens_field] = settings.max_tokens
        fmt = response_format(self.mode)
        if fmt is not None:
            body["response_format"] = fmt
        return body

    def adapt(self, problem: ApiProblem, sent: dict[str, Any]) -> str | None:
        """Change what is sent so that the rejected request may pass; say what changed, or None."""
        if problem.names_param("temperature") and "temperature" in sent:
            self.send_temperature = False
            return "without temperature"
        if problem.names_param("max_tokens") and "max_tokens" in sent:
            self.tokens_field = "max_completion_tokens"
            return "with max_completion_tokens"
        used = _mode_of(sent)
        if problem.names_output_format() and used != OUTPUT_MODES[-1]:
            if self.mode == used:
                self.mode = OUTPUT_MODES[OUTPUT_MODES.index(used) + 1]
            return f"output mode {self.mode}"
        return None


def _mode_of(body: Mapping[str, Any]) -> str:
    fmt = body.get("response_format")
    return str(fmt["type"]) if isinstance(fmt, dict) else OUTPUT_MODES[-1]


class _EndpointState:
    """Per endpoint: a limit on requests in flight and the shared "not before" time."""

    def __init__(self, concurrency: int) -> None:
        self.semaphore = asyncio.Semaphore(concurrency)
        self.not_before = 0.0

    async def wait_turn(self) -> None:
        if not self.not_before:  # no 429 yet in this run
            return
        loop = asyncio.get_running_loop()
        while (delay := self.not_before - loop.time()) > 0:
            await asyncio.sleep(delay)

    def cool_down(self, seconds: float) -> None:
        until = asyncio.get_running_loop().time() + seconds
        self.not_before = max(self.not_before, until)


def _client(settings: Settings) -> aiohttp.ClientSession:
    """The run's one HTTP client, with at most ``concurrency`` connections per endpoint."""
    timeout = aiohttp.ClientTimeout(total=settings.timeout, connect=min(settings.timeout, 10.0))
    # The per-endpoint semaphore limits requests in flight; the connector keeps that many connections per host.
    connector = aiohttp.TCPConnector(limit=0, limit_per_host=settings.concurrency)
    return aiohttp.ClientSession(
        connector=connector,
        timeout=timeout,
        headers={"Accept": "application/json", "User-Agent": f"agent-eval-judge/{__version__}"},
        # aiohttp then applies HTTP_PROXY, HTTPS_PROXY and NO_PROXY itself. It looks them up again in a
        # worker thread on every request (and ~/.netrc in another), so only when the environment sets a proxy.
        trust_env=_proxies_configured(),
        # Verdicts are stateless: a cookie an endpoint sets is not sent back.
        cookie_jar=aiohttp.DummyCookieJar(),
    )


def _proxies_configured() -> bool:
    """Whether the environment names a proxy that aiohttp would use (``http`` or ``https``)."""
    from urllib.request import getproxies

    found = getproxies()
    return any(found.get(scheme) for scheme in ("http", "https"))


@attrs.frozen
class _Target:
    """Where an endpoint's requests go and the headers they carry, built once per run."""

    url: str
    headers: Mapping[str, str] = attrs.field(repr=False)

    @classmethod
    def of(cls, endpoint: Endpoint) -> _Target:
        headers = {"Content-Type": "application/json"}
        if endpoint.api_key is not None:
            headers["Authorization"] = "Bearer " + endpoint.api_key.reveal()
        return cls(endpoint.chat_url, headers)


@attrs.frozen
class _Answer:
    """An HTTP answer, read whole."""

    status: int
    headers: Mapping[str, str]
    body: bytes


class Requester:
    """The run's HTTP side: its client, and what it learns about each endpoint during the run."""

    def __init__(self, settings: Settings) -> None:
        install_log_redaction()
        self.settings = settings
        self.client = _client(settings)
        self._endpoints: dict[str, _EndpointState] = {}
        self._targets: dict[Endpoint, _Target] = {}
        self._tuning: dict[tuple[str, str], _Tuning] = {}
        self._circuit: dict[tuple[str, str], JudgeError] = {}
        self.closed = False

    async def aclose(self) -> None:
        """Close the HTTP client (idempotent)."""
        if not self.closed:
            self.closed = True
            await self.client.close()

    def _endpoint(self, endpoint: Endpoint) -> _EndpointState:
        state = self._endpoints.get(endpoint.identity)
        if state is None:
            state = self._endpoints[endpoint.identity] = _EndpointState(self.settings.concurrency)
        return state

    def target(self, endpoint: Endpoint) -> _Target:
        """The endpoint's URL and headers."""
        target = self._targets.get(endpoint)
        if target is None:
            target = self._targets[endpoint] = _Target.of(endpoint)
        return target

    async def complete(self, endpoint: Endpoint, messages: list[dict[str, str]]) -> Completion:
        """Ask the endpoint for a chat completion, riding out rate limits and transient failures."""
        pair = (endpoint.identity, endpoint.model)
        tripped = self._circuit.get(pair)
        if tripped is not None:
            raise type(tripped)(str(tripped), category=tripped.category)
        exchange = _Exchange(self, endpoint, self._endpoint(endpoint), self._tuning.setdefault(pair, _Tuning()))
        try:
            return await exchange.run(messages)
        except JudgeRequestError as error:
            if error.category in ("judge_auth", "judge_model_not_found", "judge_quota"):
                self._circuit.setdefault(pair, error)
            raise


class _Exchange:
    """One question to the endpoint, through as many attempts as the settings allow."""

    def __init__(self, requester: Requester, endpoint: Endpoint, state: _EndpointState, tuning: _Tuning) -> None:
        self.requester = requester
        self.settings = requester.settings
        self.target = requester.target(endpoint)
        self.endpoint = endpoint
        self.state = state
        self.tuning = tuning
        self.requests = 0
        self.failures = 0
        # A wait the server asked for on a non-429 failure (a 503 with Retry-After).
        self._next_wait: float | None = None

    async def run(self, messages: list[dict[str, str]]) -> Completion:
        while True:
            body = self.tuning.body(self.endpoint.model, messages, self.settings)
            answer, failure = await self._send(body)
            if answer is not None and answer.status == 200:
                return self._read(answer, _mode_of(body))
            if answer is not None:
                problem = ApiProblem.from_body(answer.status, answer.body)
                if self._handled(problem, answer.headers, body):
                    continue
                failure = problem.summary()
            await self._after_failure(failure or "no answer")

    async def _send(self, body: dict[str, Any]) -> tuple[_Answer | None, str | None]:
        content = _encode_body(body).encode("utf-8")
        client, url, headers = self.requester.client, self.target.url, self.target.headers
        await self.state.wait_turn()
        async with self.state.semaphore:
            await self.state.wait_turn()
            self.requests += 1
            # The failure is described, never kept: nothing raised later may chain to an aiohttp exception.
            try:
                async with client.post(url, data=content, headers=headers, allow_redirects=False) as response:
                    return _Answer(response.status, response.headers, await response.read()), None
            except TimeoutError:
                return None, f"no answer within {self.settings.timeout:g} s (AGENT_EVAL_JUDGE_TIMEOUT)"
            except aiohttp.ClientError as error:
                return None, _transport_problem(error)

    def _handled(self, problem: ApiProblem, headers: Mapping[str, str], sent: dict[str, Any]) -> bool:
        """Deal with an error answer; True to try again at once, False to count a failure and wait."""
        change = self.tuning.adapt(problem, sent) if problem.status in (400, 422) else None
        if change is not None:
            log.info("%s: %s; retrying %s", self.endpoint.describe(), problem.summary(), change)
            return True
        hint = should_retry_header(headers)
        if hint is False or (hint is None and not problem.retryable):
            raise self._refused(problem)
        wait = server_wait(headers, problem.status)
        if wait is not None and wait > self.settings.max_retry_after:
            raise JudgeUnavailable(
                f"{self.endpoint.describe()}: {problem.summary()}; the server asks to wait {wait:g} s, more than "
                f"the {self.settings.max_retry_after:g} s limit (AGENT_EVAL_JUDGE_MAX_RETRY_AFTER)",
                category="judge_rate_limited",
            )
        if problem.status == 429:
            # Rate limits are per account: every call to this endpoint waits, not only this one.
            delay = with_jitter(wait) if wait is not None else self._backoff(self.failures)
            self.state.cool_down(delay)
        elif wait is not None:
            self._next_wait = with_jitter(wait)
        return False

    async def _after_failure(self, failure: str) -> None:
        self.failures += 1
        if self.failures > self.settings.max_retries:
            raise JudgeUnavailable(
                f"{self.endpoint.describe()}: {failure} (gave up after {self.requests} attempts)",
                category=_category(failure),
            )
        wait, self._next_wait = self._next_wait, None
        if self.state.not_before <= asyncio.get_running_loop().time():
            delay = wait if wait is not None else self._backoff(self.failures - 1)
            log.info("%s: %s; retry %d in %.2f s", self.endpoint.describe(), failure, self.failures, delay)
            await asyncio.sleep(delay)

    def _backoff(self, retry: int) -> float:
        return backoff(retry, self.settings.backoff_base, self.settings.backoff_max)

    def _refused(self, problem: ApiProblem) -> JudgeRequestError:
        if problem.is_quota:
            category, hint = "judge_quota", "the account's quota is used up; waiting will not help"
        else:
            category = _CIRCUIT_CATEGORIES.get(problem.status, "judge_bad_request")
            hint = _HINTS.get(problem.status, "the endpoint rejected the request").format(
                key=self.endpoint.key_variable
            )
        return JudgeRequestError(f"{self.endpoint.describe()}: {problem.summary()}; {hint}", category=category)

    def _read(self, answer: _Answer, mode: str) -> Completion:
        try:
            data = json.loads(answer.body)
        except ValueError:
            data = None
        choice = _first_choice(data)
        if choice is None:
            snippet = " ".join(answer.body[:200].decode("utf-8", errors="replace").split())
            raise JudgeProtocolError(f"{self.endpoint.describe()}: HTTP 200 but not a chat completion: {snippet!r}")
        raw_message = choice.get("message")
        message: dict[str, Any] = raw_message if isinstance(raw_message, dict) else {}
        content = message.get("content")
        refusal = message.get("refusal")
        return Completion(
            content=content if isinstance(content, str) else None,
            finish_reason=_str_or_none(choice.get("finish_reason")),
            refusal=refusal if isinstance(refusal, str) and refusal else None,
            usage=_usage(data),
            output_mode=mode,
            requests=self.requests,
        )


def _first_choice(data: Any) -> dict[str, Any] | None:
    if not isinstance(data, dict):
        return None
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    return choices[0]


def _usage(data: Any) -> dict[str, int]:
    usage = data.get("usage") if isinstance(data, dict) else None
    if not isinstance(usage, dict):
        return {}
    counts: dict[str, int] = {}
    for key in _USAGE_KEYS:
        value = usage.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            counts[key] = value
    return counts


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _transport_problem(error: aiohttp.ClientError) -> str:
    """What went wrong, in words safe to show: never the request's URL or headers."""
    if isinstance(error, aiohttp.ClientConnectorError):
        # host:port and the operating system's reason (refused, unknown host, certificate)
        return "cannot connect (" + _one_line(error) + ")"
    if isinstance(error, aiohttp.ServerDisconnectedError | aiohttp.ClientPayloadError | aiohttp.ClientOSError):
        return "the connection broke before a complete answer (" + _one_line(error) + ")"
    if isinstance(error, aiohttp.ClientHttpProxyError):
        return f"the proxy refused the connection (HTTP {error.status} {_one_line(error.message)})"
    return f"connection problem ({type(error).__name__})"


def _one_line(value: object) -> str:
    return " ".join(str(value).split()) or type(value).__name__


def _category(failure: str) -> str:
    if failure.startswith("no answer within"):
        return "judge_timeout"
    if failure.startswith(("cannot connect", "the connection broke", "connection problem")):
        return "judge_unreachable"
    if failure.startswith("HTTP 429"):
        return "judge_rate_limited"
    return "judge_unavailable"
