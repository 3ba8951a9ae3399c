"""How a suite runs under pytest: the command line's options over the suite file's keys."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest

from agent_eval import EvalSuite, SuiteFile


def accepts(method: Callable[..., Any], name: str) -> bool:
    """True when ``method`` takes a keyword argument ``name`` (options newer than the installed core)."""
    return name in inspect.signature(method).parameters


def check_repeat(repeat: int) -> None:
    """Refuse repeats the installed core cannot make, rather than run each case once in silence."""
    if not accepts(EvalSuite.arun, "repeat"):
        from importlib.metadata import version

        raise pytest.UsageError(
            f"--agent-eval-repeat {repeat}: agent-eval-core {version('agent-eval-core')} cannot run a case more "
            "than once (EvalSuite.run takes no `repeat`); upgrade agent-eval-core, or leave the option out"
        )


def run_options(config: pytest.Config, suite: SuiteFile | None, method: Callable[..., Any]) -> dict[str, Any]:
    """Keyword arguments for ``method`` (``EvalSuite.run`` or ``arun``): the command line wins over the suite."""
    concurrency = config.getoption("agent_eval_concurrency") or (suite.concurrency if suite else None) or 1
    options: dict[str, Any] = {"concurrency": concurrency, "timeout": suite.timeout if suite else None}
    repeat = config.getoption("agent_eval_repeat") or getattr(suite, "repeat", None)
    if repeat is not None and accepts(method, "repeat"):
        options["repeat"] = repeat
    return options


def repeats(options: dict[str, Any]) -> int:
    """How many times each case runs with these options."""
    repeat = options.get("repeat")
    return repeat if isinstance(repeat, int) and repeat > 1 else 1
