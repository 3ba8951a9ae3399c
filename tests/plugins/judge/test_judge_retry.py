"""When to retry and how long to wait: server hints, backoff, and error bodies of every server family."""

from __future__ import annotations

import email.utils

import pytest

from agent_eval_judge.retry import ApiProblem, backoff, go_duration, server_wait, should_retry_header, with_jitter

NOW = 1_700_000_000.0


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("12ms", 0.012), ("1s", 1.0), ("1.5s", 1.5), ("6m0s", 360.0), ("1h2m3s", 3723.0), ("250us", 0.00025), ("2", 2.0)],
)
def test_go_durations_are_read_in_seconds(text: str, seconds: float) -> None:
    assert go_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "soon", "1x", "-1"])
def test_nonsense_durations_are_absent(text: str) -> None:
    assert go_duration(text) is None


def test_retry_after_ms_wins_over_retry_after() -> None:
    assert server_wait({"retry-after-ms": "200", "Retry-After": "5"}, 429) == pytest.approx(0.2)


def test_retry_after_seconds_may_be_fractional() -> None:
    assert server_wait({"Retry-After": "1.5"}, 503) == 1.5


def test_retry_after_http_date_is_the_time_left() -> None:
    date = email.utils.formatdate(NOW + 30, usegmt=True)
    assert server_wait({"Retry-After": date}, 429, now=lambda: NOW) == pytest.approx(30, abs=1)


def test_retry_after_in_the_past_or_zero_or_negative_is_absent() -> None:
    past = email.utils.formatdate(NOW - 30, usegmt=True)
    assert server_wait({"Retry-After": past}, 429, now=lambda: NOW) is None
    assert server_wait({"Retry-After": "0"}, 429) is None
    assert server_wait({"Retry-After": "-1"}, 429) is None
    assert server_wait({"Retry-After": "later"}, 429) is None


def test_rate_limit_reset_headers_give_the_longest_wait_on_a_429_only() -> None:
    headers = {"x-ratelimit-reset-requests": "1.5s", "x-ratelimit-reset-tokens": "250ms"}
    assert server_wait(headers, 429) == 1.5
    assert server_wait(headers, 503) is None


def test_no_hint_is_none() -> None:
    assert server_wait({}, 429) is None


def test_backoff_doubles_up_to_the_cap_with_up_to_a_quarter_off() -> None:
    assert backoff(0, 0.5, 8, rng=lambda: 0.0) == 0.5
    assert backoff(3, 0.5, 8, rng=lambda: 0.0) == 4.0
    assert backoff(10, 0.5, 8, rng=lambda: 0.0) == 8.0
    assert backoff(1, 0.5, 8, rng=lambda: 1.0) == 0.75


def test_jitter_adds_at_most_a_tenth() -> None:
    assert with_jitter(2.0, rng=lambda: 0.0) == 2.0
    assert with_jitter(2.0, rng=lambda: 1.0) == pytest.approx(2.2)


def test_x_should_retry_header_is_honoured_either_way() -> None:
    assert should_retry_header({"X-Should-Retry": "false"}) is False
    assert should_retry_header({"x-should-retry": "true"}) is True
    assert should_retry_header({}) is None


@pytest.mark.parametrize(
    ("body", "message", "code"),
    [
        (
            b'{"error": {"message": "Rate limit reached", "type": "rate_limit_error", "code": "rate_limit_exceeded"}}',
            "Rate limit reached",
            "rate_limit_exceeded",
        ),
        (b'{"error": "Unauthorized"}', "Unauthorized", None),
        (
            b'{"object": "error", "message": "The model `x` does not exist.", "type": "NotFoundError", "code": 404}',
            "The model `x` does not exist.",
            "404",
        ),
        (b'{"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}}', "Loading model", "503"),
        (b"<html><body>502 Bad Gateway</body></html>", "<html><body>502 Bad Gateway</body></html>", None),
        (b"", "(no body)", None),
        (b"[1, 2]", "[1, 2]", None),
    ],
)
def test_every_error_shape_is_normalised(body: bytes, message: str, code: str | None) -> None:
    problem = ApiProblem.from_body(500, body)
    assert problem.message == message
    assert problem.code == code


def test_error_messages_are_redacted_and_shortened() -> None:
    body = b'{"error": {"message": "bad key Bearer sk-test-SECRET-0123456789 ' + b"x" * 600 + b'"}}'
    problem = ApiProblem.from_body(401, body)
    assert "sk-test-SECRET" not in problem.message
    assert len(problem.message) <= 300


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 504, 529])
def test_transient_statuses_are_retryable(status: int) -> None:
    assert ApiProblem(status, "x").retryable


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_client_errors_are_not_retryable(status: int) -> None:
    assert not ApiProblem(status, "x").retryable


def test_exhausted_quota_is_not_retryable() -> None:
    problem = ApiProblem(429, "You exceeded your current quota", "insufficient_quota", "insufficient_quota")
    assert problem.is_quota
    assert not problem.retryable


def test_groq_json_validate_failed_is_retried_as_a_generation_failure() -> None:
    body = (
        b'{"error": {"message": "Failed to generate JSON.", "code": "json_validate_failed", "failed_generation": "x"}}'
    )
    assert ApiProblem.from_body(400, body).retryable


def test_output_format_rejections_are_recognised() -> None:
    assert ApiProblem(400, "This model does not support response format json_schema").names_output_format()
    assert ApiProblem(400, "x", param="response_format").names_output_format()
    assert not ApiProblem(400, "Invalid value for 'temperature'").names_output_format()
    assert not ApiProblem(500, "json_schema broke").names_output_format()


def test_unsupported_parameters_are_recognised() -> None:
    assert ApiProblem(400, "Unsupported value", code="unsupported_value", param="temperature").names_param(
        "temperature"
    )
    assert ApiProblem(400, "'max_tokens' is not supported with this model.").names_param("max_tokens")
    assert not ApiProblem(400, "messages must not be empty").names_param("temperature")
