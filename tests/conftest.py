"""Fixtures shared by every test: an isolated plugin registry."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent_eval import _plugins as plugins


@pytest.fixture(autouse=True)
def fresh_registry() -> Iterator[None]:
    """Every test starts without a cached registry, so entry points are read again."""
    plugins.set_registry(None)
    yield
    plugins.set_registry(None)
