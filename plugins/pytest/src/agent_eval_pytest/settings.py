"""How a suite runs under pytest: the command line's options over the suite file's keys."""

from __future__ import annotations

from typing import Any

import pytest

from agent_eval import SuiteFile


def run_options(config: pytest.Config, suite: SuiteFile | None) -> dict[str, Any]:
    """Keyword arguments for ``EvalSuite.run`` or ``arun``: the command line wins over the suite."""
    concurrency = config.getoption("agent_eval_concurrency") or (suite.concurrency if suite else None) or 1
    options: dict[str, Any] = {"concurrency": concurrency, "timeout": suite.timeout if suite else None}
    repeat = config.getoption("agent_eval_repeat") or (suite.repeat if suite else None)
    if repeat is not None:
        options["repeat"] = repeat
    return options


def repeats(options: dict[str, Any]) -> int:
    """How many times each case runs with these options."""
    repeat = options.get("repeat")
    return repeat if isinstance(repeat, int) and repeat > 1 else 1
