"""Evaluator factories of the installed plugins, as attributes.

``from agent_eval.evaluators import contains`` returns the factory registered
as ``contains``; a name no installed plugin registers raises ImportError that
names the distribution to install.
"""

from __future__ import annotations

from typing import Any

from agent_eval._errors import AgentEvalError


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    from agent_eval._plugins import get_registry

    try:
        return get_registry().factory(name)
    except AgentEvalError as error:
        raise ImportError(str(error), name=name) from None


def __dir__() -> list[str]:
    from agent_eval._plugins import get_registry

    return get_registry().names()
