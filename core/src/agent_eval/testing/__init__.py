"""Test helpers: scripted agents and models (no network), and a local chat-completions server."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_eval._agent_run import ToolCall  # the one record of a tool call: agent_eval.ToolCall
from agent_eval.testing.scripted import ModelTurn, ScriptedAgent, ScriptedModel

if TYPE_CHECKING:
    from agent_eval.testing.server import ChatServer

__all__ = ["ChatServer", "ModelTurn", "ScriptedAgent", "ScriptedModel", "ToolCall"]


def __getattr__(name: str) -> Any:
    if name == "ChatServer":
        from agent_eval.testing.server import ChatServer

        return ChatServer
    raise AttributeError(f"module 'agent_eval.testing' has no attribute {name!r}")
