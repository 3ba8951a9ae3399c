"""Fixtures for the judge's tests: a clean judge environment and a real chat-completions server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_eval.testing import ChatServer


@pytest.fixture(autouse=True)
def judge_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No judge configured from the outside, a private cache folder, and fast backoff; returns the cache folder."""
    for name in list(os.environ):
        if name.startswith(("AGENT_EVAL_JUDGE_", "AGENT_EVAL_EMBEDDINGS_", "AGENT_EVAL_CACHE")) or name in (
            "GROQ_API_KEY",
            "XDG_CACHE_HOME",
        ):
            monkeypatch.delenv(name)
        # A proxy in the developer's environment would stand between the judge and the test server.
        if name.lower() in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
            monkeypatch.delenv(name)
    cache = tmp_path / "cache"
    monkeypatch.setenv("AGENT_EVAL_CACHE_DIR", str(cache))
    monkeypatch.setenv("AGENT_EVAL_JUDGE_BACKOFF_BASE", "0.01")
    monkeypatch.setenv("AGENT_EVAL_JUDGE_BACKOFF_MAX", "0.05")
    return cache


@pytest.fixture
def server() -> Iterator[ChatServer]:
    """A chat-completions server on 127.0.0.1 for this test."""
    with ChatServer() as running:
        yield running


@pytest.fixture
def judge_at(server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> ChatServer:
    """The judge configured to use ``server`` with model ``judge-model``; returns the server."""
    monkeypatch.setenv("AGENT_EVAL_JUDGE_BASE_URL", server.url)
    monkeypatch.setenv("AGENT_EVAL_JUDGE_MODEL", "judge-model")
    return server
