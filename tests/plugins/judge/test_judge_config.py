"""Where the judge is, from the environment; and keys kept out of every message."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_eval import Skip
from agent_eval_judge.config import (
    GROQ_BASE_URL,
    GROQ_DEFAULT_MODEL,
    Endpoint,
    Settings,
    default_cache_dir,
    resolve_endpoint,
)
from agent_eval_judge.errors import JudgeConfigError, JudgeError
from agent_eval_judge.redact import REDACTED, Secret, known_secrets, redact

KEY = "sk-test-SECRET-0123456789"


def test_nothing_configured_skips_naming_every_variable() -> None:
    with pytest.raises(Skip) as raised:
        resolve_endpoint(environ={})
    for name in ("AGENT_EVAL_JUDGE_BASE_URL", "AGENT_EVAL_JUDGE_MODEL", "AGENT_EVAL_JUDGE_API_KEY", "GROQ_API_KEY"):
        assert name in raised.value.reason


def test_base_url_and_model_configure_any_endpoint() -> None:
    env = {"AGENT_EVAL_JUDGE_BASE_URL": "http://127.0.0.1:11434/v1", "AGENT_EVAL_JUDGE_MODEL": "llama3.1:8b"}
    endpoint = resolve_endpoint(environ=env)
    assert (endpoint.base_url, endpoint.model, endpoint.api_key) == (
        env["AGENT_EVAL_JUDGE_BASE_URL"],
        "llama3.1:8b",
        None,
    )
    assert endpoint.chat_url == "http://127.0.0.1:11434/v1/chat/completions"


def test_api_key_is_kept_as_a_secret() -> None:
    env = {
        "AGENT_EVAL_JUDGE_BASE_URL": "https://x.test/v1",
        "AGENT_EVAL_JUDGE_MODEL": "m",
        "AGENT_EVAL_JUDGE_API_KEY": KEY,
    }
    endpoint = resolve_endpoint(environ=env)
    assert endpoint.api_key == Secret(KEY)
    assert KEY not in repr(endpoint)
    assert KEY not in f"{endpoint.api_key} {endpoint.api_key!r}"


def test_model_argument_wins_over_the_environment() -> None:
    env = {"AGENT_EVAL_JUDGE_BASE_URL": "https://x.test/v1", "AGENT_EVAL_JUDGE_MODEL": "env-model"}
    assert resolve_endpoint("arg-model", environ=env).model == "arg-model"


def test_groq_key_alone_means_groq_and_its_default_model() -> None:
    endpoint = resolve_endpoint(environ={"GROQ_API_KEY": "gsk_abc"})
    assert endpoint.base_url == GROQ_BASE_URL == "https://api.groq.com/openai/v1"
    assert endpoint.model == GROQ_DEFAULT_MODEL
    assert endpoint.api_key == Secret("gsk_abc")
    assert endpoint.key_variable == "GROQ_API_KEY"


def test_groq_with_a_chosen_model() -> None:
    env = {"GROQ_API_KEY": "gsk_abc", "AGENT_EVAL_JUDGE_MODEL": "llama-3.3-70b-versatile"}
    assert resolve_endpoint(environ=env).model == "llama-3.3-70b-versatile"


def test_explicit_base_url_wins_over_groq() -> None:
    env = {
        "GROQ_API_KEY": "gsk_abc",
        "AGENT_EVAL_JUDGE_BASE_URL": "http://127.0.0.1:1/v1",
        "AGENT_EVAL_JUDGE_MODEL": "m",
    }
    endpoint = resolve_endpoint(environ=env)
    assert endpoint.base_url == "http://127.0.0.1:1/v1"
    assert endpoint.api_key is None


def test_base_url_without_a_model_is_a_config_error() -> None:
    with pytest.raises(JudgeConfigError, match="AGENT_EVAL_JUDGE_MODEL"):
        resolve_endpoint(environ={"AGENT_EVAL_JUDGE_BASE_URL": "http://127.0.0.1:1/v1"})


def test_model_without_base_url_is_a_config_error() -> None:
    with pytest.raises(JudgeConfigError, match="AGENT_EVAL_JUDGE_BASE_URL is not"):
        resolve_endpoint(environ={"AGENT_EVAL_JUDGE_MODEL": "m"})


def test_url_that_is_not_http_is_a_config_error_without_its_credentials() -> None:
    with pytest.raises(JudgeConfigError) as raised:
        resolve_endpoint(
            environ={"AGENT_EVAL_JUDGE_BASE_URL": "ftp://u:p4ssword@host/v1", "AGENT_EVAL_JUDGE_MODEL": "m"}
        )
    assert "not an http(s) URL" in str(raised.value)
    assert "p4ssword" not in str(raised.value)


def test_display_and_identity_drop_credentials_and_query() -> None:
    endpoint = Endpoint("http://u:p4ss@127.0.0.1:8080/v1/?api_key=abc", "m")
    assert endpoint.display == "127.0.0.1:8080/v1"
    assert endpoint.identity == "http://127.0.0.1:8080/v1"
    assert endpoint.chat_url == "http://u:p4ss@127.0.0.1:8080/v1/chat/completions?api_key=abc"
    assert endpoint.describe() == "judge endpoint 127.0.0.1:8080/v1 (model 'm')"


def test_settings_defaults_and_overrides() -> None:
    assert Settings.from_env({}).max_retries == 3
    settings = Settings.from_env(
        {
            "AGENT_EVAL_JUDGE_TIMEOUT": "2.5",
            "AGENT_EVAL_JUDGE_MAX_RETRIES": "0",
            "AGENT_EVAL_JUDGE_CONCURRENCY": "50",
            "AGENT_EVAL_JUDGE_CACHE": "0",
            "AGENT_EVAL_CACHE_DIR": "/tmp/judge-cache",
        }
    )
    assert (settings.timeout, settings.max_retries, settings.concurrency) == (2.5, 0, 50)
    assert settings.cache is False
    assert settings.cache_dir == "/tmp/judge-cache"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("AGENT_EVAL_JUDGE_TIMEOUT", "soon"),
        ("AGENT_EVAL_JUDGE_TIMEOUT", "0"),
        ("AGENT_EVAL_JUDGE_MAX_RETRIES", "2.5"),
        ("AGENT_EVAL_JUDGE_CONCURRENCY", "0"),
        ("AGENT_EVAL_JUDGE_CACHE", "maybe"),
        ("AGENT_EVAL_JUDGE_TIMEOUT", "nan"),
    ],
)
def test_bad_settings_name_the_variable_and_the_value(name: str, value: str) -> None:
    with pytest.raises(JudgeConfigError) as raised:
        Settings.from_env({name: value})
    assert name in str(raised.value)
    assert repr(value) in str(raised.value)


def test_cache_dir_follows_xdg_then_home(tmp_path: Path) -> None:
    assert default_cache_dir({"XDG_CACHE_HOME": str(tmp_path)}) == str(tmp_path / "agent-eval")
    assert default_cache_dir({}) == str(Path.home() / ".cache" / "agent-eval")
    assert default_cache_dir({"XDG_CACHE_HOME": "relative/path"}) == str(Path.home() / ".cache" / "agent-eval")
    assert default_cache_dir({"AGENT_EVAL_CACHE_DIR": str(tmp_path / "x")}) == str(tmp_path / "x")
    assert default_cache_dir({"AGENT_EVAL_CACHE_DIR": "~/judged"}) == str(Path.home() / "judged")


def test_redact_removes_secrets_from_the_environment_and_credential_patterns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_EVAL_JUDGE_API_KEY", "plainkey-without-pattern-42")
    text = (
        "key plainkey-without-pattern-42; Authorization: Bearer abc.def-123456; other sk-proj-abcdefghijklmnop1234 "
        "groq gsk_abcdefghijklmnopqrstuvwx url http://user:p4ss@host/v1?api_key=abc&x=1"
    )
    cleaned = redact(text)
    for secret in (
        "plainkey-without-pattern-42",
        "abc.def-123456",
        "sk-proj-abcdefghijklmnop1234",
        "gsk_abcdefghij",
        "p4ss",
        "api_key=abc",
    ):
        assert secret not in cleaned
    assert cleaned.count(REDACTED) >= 6
    assert "x=1" in cleaned


def test_redact_keeps_ordinary_words() -> None:
    assert redact("Missing bearer token in the request") == "Missing bearer token in the request"


def test_short_values_are_not_treated_as_secrets() -> None:
    assert known_secrets(environ={"X_API_KEY": "abc", "Y_TOKEN": "longer-token-value"}) == ["longer-token-value"]


def test_judge_errors_redact_their_own_messages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_EVAL_JUDGE_API_KEY", KEY)
    error = JudgeError(f"server said: invalid key {KEY}")
    assert KEY not in str(error)
    assert REDACTED in str(error)
