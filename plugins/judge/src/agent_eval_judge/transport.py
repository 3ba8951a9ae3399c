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

The endpoint is not trusted to be well-behaved: an answer is read up to
``max_body`` bytes and no further, an answer whose JSON gives a key twice is an
error (two ``"choices"`` could say two things), and a large answer is parsed in a
worker thread, so that the other evaluations of the run keep going meanwhile.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import math
import sys
from array import array
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import aiohttp
import attrs

from agent_eval_judge import strict_json
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
_TRIPPING = frozenset({"judge_auth", "judge_model_not_found", "judge_quota"})
#: Answers larger than this are parsed in a worker thread (a verdict is a few hundred bytes).
_PARSE_IN_THREAD = 256 * 1024
R = TypeVar("R")
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


@attrs.frozen
class Embedded:
    """What came back from one successful ``/embeddings`` exchange: one vector per text, in order."""

    vectors: list[list[float]]
    usage: Mapping[str, int]
    requests: int


@attrs.define
class _Tuning:
    """What an (endpoint, model) pair turned out to accept, learnt from its 400s during the run."""

    mode: str = OUTPUT_MODES[0]
    send_temperature: bool = True
    tokens_field: str = "max_tokens"

    def body(self, model: str, messages: list[dict[str, str]], max_tokens: int) -> dict[str, Any]:
        body: dict[str, Any] = {"model": model, "messages": messages}
        if self.send_temperature:
            body["temperature"] = 0
        body[self.tokens_field] = max_tokens
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
    def of(cls, endpoint: Endpoint, url: str) -> _Target:
        headers = {"Content-Type": "application/json"}
        if endpoint.api_key is not None:
            headers["Authorization"] = "Bearer " + endpoint.api_key.reveal()
        return cls(url, headers)


@attrs.frozen
class _Answer:
    """An HTTP answer, read whole."""

    status: int
    headers: Mapping[str, str]
    body: bytes


class _TooLarge(Exception):
    """The answer is larger than the settings allow; reading stopped."""

    def __init__(self, declared: int | None) -> None:
        self.declared = declared


async def _read_capped(response: aiohttp.ClientResponse, cap: int) -> bytes:
    """The answer's body, read chunk by chunk up to ``cap`` bytes (after decompression); _TooLarge beyond."""
    declared = response.content_length
    if declared is not None and declared > cap:
        raise _TooLarge(declared)
    body = bytearray()
    async for chunk in response.content.iter_any():
        body += chunk
        if len(body) > cap:
            raise _TooLarge(None)
    return bytes(body)


async def _off_the_loop(parse: Callable[[bytes], R], body: bytes) -> R:
    """``parse(body)``, in a worker thread when the body is large, so the event loop is not held meanwhile."""
    if len(body) > _PARSE_IN_THREAD:
        return await asyncio.to_thread(parse, body)
    return parse(body)


class Requester:
    """The run's HTTP side: its client, and what it learns about each endpoint during the run."""

    def __init__(self, settings: Settings) -> None:
        install_log_redaction()
        self.settings = settings
        self.client = _client(settings)
        self._endpoints: dict[str, _EndpointState] = {}
        self._targets: dict[tuple[Endpoint, str], _Target] = {}
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

    def target(self, endpoint: Endpoint, url: str) -> _Target:
        """The URL's target: the URL and the endpoint's headers."""
        target = self._targets.get((endpoint, url))
        if target is None:
            target = self._targets[(endpoint, url)] = _Target.of(endpoint, url)
        return target

    def _circuit_for(self, pair: tuple[str, str]) -> None:
        tripped = self._circuit.get(pair)
        if tripped is not None:
            raise tripped.copy()

    async def _exchange(
        self,
        endpoint: Endpoint,
        url: str,
        build: Callable[[], dict[str, Any]],
        adapt: Callable[[ApiProblem, dict[str, Any]], str | None] | None = None,
    ) -> tuple[_Answer, dict[str, Any], int]:
        """A 200 answer from ``url``, the body that got it and the requests made; failures raise JudgeError."""
        pair = (url, endpoint.model)
        self._circuit_for(pair)
        exchange = _Exchange(self, endpoint, url, self._endpoint(endpoint))
        try:
            answer, body = await exchange.run(build, adapt)
        except JudgeRequestError as error:
            if error.category in _TRIPPING:
                self._circuit.setdefault(pair, error)
            raise
        return answer, body, exchange.requests

    async def complete(
        self, endpoint: Endpoint, messages: list[dict[str, str]], *, max_tokens: int | None = None
    ) -> Completion:
        """Ask the endpoint for a chat completion, riding out rate limits and transient failures.

        ``max_tokens`` replaces the settings' answer budget for this question.
        """
        budget = max_tokens or self.settings.max_tokens
        tuning = self._tuning.setdefault((endpoint.identity, endpoint.model), _Tuning())
        answer, body, requests = await self._exchange(
            endpoint, endpoint.chat_url, lambda: tuning.body(endpoint.model, messages, budget), tuning.adapt
        )
        try:
            data = await _off_the_loop(strict_json.loads, answer.body)
        except strict_json.RepeatedKey as repeated:
            raise _repeated_key(endpoint, repeated) from None
        except ValueError:
            data = None
        return _completion(endpoint, answer, data, _mode_of(body), requests)

    async def embed(self, endpoint: Endpoint, texts: Sequence[str]) -> Embedded:
        """One vector per text from the endpoint's ``/embeddings``, with the same retries as :meth:`complete`."""
        body = {"model": endpoint.model, "input": list(texts)}
        answer, _, requests = await self._exchange(endpoint, endpoint.embeddings_url, lambda: body)
        count = len(body["input"])
        try:
            data, vectors = await _off_the_loop(lambda raw: _read_embeddings(raw, count), answer.body)
        except strict_json.RepeatedKey as repeated:
            raise _repeated_key(endpoint, repeated) from None
        except _NotEmbeddings as problem:
            raise JudgeProtocolError(
                f"{endpoint.describe()}: HTTP 200 but not an embeddings answer: {problem} ({_snippet(answer.body)})"
            ) from None
        return Embedded(vectors, _usage(data), requests)


class _Exchange:
    """One question to the endpoint, through as many attempts as the settings allow."""

    def __init__(self, requester: Requester, endpoint: Endpoint, url: str, state: _EndpointState) -> None:
        self.requester = requester
        self.settings = requester.settings
        self.target = requester.target(endpoint, url)
        self.endpoint = endpoint
        self.state = state
        self.requests = 0
        self.failures = 0
        # A wait the server asked for on a non-429 failure (a 503 with Retry-After).
        self._next_wait: float | None = None

    async def run(
        self,
        build: Callable[[], dict[str, Any]],
        adapt: Callable[[ApiProblem, dict[str, Any]], str | None] | None,
    ) -> tuple[_Answer, dict[str, Any]]:
        """The first 200 answer, and the body that got it (``build`` makes each attempt's, after ``adapt``)."""
        while True:
            body = build()
            answer, failure = await self._send(body)
            if answer is not None and answer.status == 200:
                return answer, body
            if answer is not None:
                problem = ApiProblem.from_body(answer.status, answer.body)
                if self._handled(problem, answer.headers, body, adapt):
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
                    received = await _read_capped(response, self.settings.max_body)
                    return _Answer(response.status, response.headers, received), None
            except _TooLarge as large:
                refusal = self._too_large(large)
                category = "judge_too_large"
            except TimeoutError:
                return None, f"no answer within {self.settings.timeout:g} s (AGENT_EVAL_JUDGE_TIMEOUT)"
            except aiohttp.ClientError as error:
                return None, _transport_problem(error)
            except ValueError as error:
                # aiohttp would not build the request; trying again would not change its mind.
                refusal = _request_refused(error)
                category = "judge_bad_request"
        if category == "judge_too_large":
            raise JudgeProtocolError(f"{self.endpoint.describe()}: {refusal}", category=category)
        raise JudgeRequestError(f"{self.endpoint.describe()}: {refusal}", category=category)

    def _too_large(self, large: _TooLarge) -> str:
        cap = self.settings.max_body
        size = f"announces {large.declared} bytes" if large.declared is not None else f"goes on past {cap} bytes"
        return f"the answer {size}, more than the {cap}-byte limit (AGENT_EVAL_JUDGE_MAX_BODY); reading stopped there"

    def _handled(
        self,
        problem: ApiProblem,
        headers: Mapping[str, str],
        sent: dict[str, Any],
        adapt: Callable[[ApiProblem, dict[str, Any]], str | None] | None,
    ) -> bool:
        """Deal with an error answer; True to try again at once, False to count a failure and wait."""
        change = adapt(problem, sent) if adapt is not None and problem.status in (400, 422) else None
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


def _completion(endpoint: Endpoint, answer: _Answer, data: Any, mode: str, requests: int) -> Completion:
    choice = _first_choice(data)
    if choice is None:
        raise JudgeProtocolError(f"{endpoint.describe()}: HTTP 200 but not a chat completion: {_snippet(answer.body)}")
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
        requests=requests,
    )


def _snippet(body: bytes) -> str:
    return repr(" ".join(body[:200].decode("utf-8", errors="replace").split()))


def _repeated_key(endpoint: Endpoint, repeated: strict_json.RepeatedKey) -> JudgeProtocolError:
    return JudgeProtocolError(
        f"{endpoint.describe()}: HTTP 200 but its JSON gives {repeated.key!r} more than once, "
        "so it can be read two ways; refusing to pick one"
    )


#: The largest 32-bit float.
_FLOAT32_MAX = 3.4028234663852886e38


class _NotEmbeddings(Exception):
    """What is wrong with an answer that should carry embeddings."""


def _read_embeddings(body: bytes, count: int) -> tuple[Any, list[list[float]]]:
    """The parsed body and its ``count`` vectors in input order; _NotEmbeddings says what is wrong."""
    try:
        data = strict_json.loads(body)
    except strict_json.RepeatedKey:
        raise
    except ValueError:
        raise _NotEmbeddings("not JSON") from None
    items = data.get("data") if isinstance(data, dict) else None
    if not isinstance(items, list) or len(items) != count:
        got = f"{len(items)} item{'' if len(items) == 1 else 's'}" if isinstance(items, list) else "no 'data' list"
        raise _NotEmbeddings(f"expected 'data' with {count} items, got {got}")
    vectors: list[list[float] | None] = [None] * count
    for position, item in enumerate(items):
        index = item.get("index", position) if isinstance(item, dict) else None
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < count or vectors[index]:
            raise _NotEmbeddings(f"item {position} has no usable 'index' (0 to {count - 1}, each once)")
        vectors[index] = _vector(item.get("embedding"), position)
    found = [vector for vector in vectors if vector is not None]
    if len({len(vector) for vector in found}) > 1:
        raise _NotEmbeddings("the vectors differ in length")
    return data, found


def _vector(value: Any, position: int) -> list[float]:
    if isinstance(value, str):  # base64 of little-endian float32, as OpenAI sends with encoding_format=base64
        try:
            floats = array("f", base64.b64decode(value, validate=True))
        except ValueError:
            raise _NotEmbeddings(f"item {position}'s embedding is not base64 of 32-bit floats") from None
        if sys.byteorder == "big":
            floats.byteswap()
        vector = floats.tolist()
    elif isinstance(value, list) and all(type(number) in (float, int) for number in value):
        try:
            vector = [float(number) for number in value]
        except OverflowError:  # a whole number of hundreds of digits
            vector = [math.inf]
    else:
        raise _NotEmbeddings(f"item {position}'s embedding is not a list of numbers")
    if not vector:
        raise _NotEmbeddings(f"item {position}'s embedding is empty")
    # Vectors are kept as 32-bit floats: a number beyond them would become infinite there, and NaN in a cosine.
    if not all(math.isfinite(number) and -_FLOAT32_MAX <= number <= _FLOAT32_MAX for number in vector):
        problem = "holds a number that is NaN, infinite or beyond 32-bit floats"
        raise _NotEmbeddings(f"item {position}'s embedding {problem}")
    return vector


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


def _request_refused(error: ValueError) -> str:
    message = _one_line(error)
    if "AUTHORIZATION" in message:
        # With a proxy variable set, aiohttp reads ~/.netrc; an entry for the host clashes with the key's header.
        return (
            f"the request could not be made ({message}): ~/.netrc (or $NETRC) has credentials for this host, "
            "which aiohttp reads when a proxy variable is set; remove them or the judge's API key"
        )
    return f"the request could not be made ({message})"


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
