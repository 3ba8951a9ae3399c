"""The agent-eval plugin: registers ``valid_json``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent_eval import hookimpl
from agent_eval_json.factories import valid_json


@hookimpl
def register_evaluators(register: Callable[..., Any]) -> None:
    """Register ``valid_json``."""
    register(valid_json)
