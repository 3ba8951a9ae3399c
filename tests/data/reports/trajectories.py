"""Reports whose cases made tool calls (one failing, one with raw-text arguments) and were repeated (one flaky).

Names, arguments, results and errors carry rich markup, an ESC sequence and a ``</script>``: every report
must show them as text.
"""

from __future__ import annotations

from typing import Any

from agent_eval import Case, EvalReport, EvalResult, ToolCall, Usage
from agent_eval._attempts import combine_attempts
from agent_eval._model import Evaluation

#: Markup, an OSC title sequence and the end of a script element.
HOSTILE = "[/b] \x1b]0;pwned\x07 </script><script>window.__pwned=1</script>"

LOOKUP = ToolCall("get_warranty", {"product": "kettle"}, result="2 years", id="call-1")
FAILING = ToolCall(f"delete_account {HOSTILE}", {"id": 3, "note": HOSTILE}, error=f"permission denied {HOSTILE}")
RAW = ToolCall("search", '{"q": "kettle', result={"hits": [1, 2], "note": HOSTILE})
CALLS = (LOOKUP, FAILING, RAW)


def result(name: str, status: Any, **more: Any) -> EvalResult:
    return EvalResult(name, more.pop("input", "question"), output=more.pop("output", "answer"), status=status, **more)


def flaky_case(case_pass_rate: float = 0.5) -> EvalResult:
    """Three attempts: passed (one call), failed (all three calls, one failing), passed (no call)."""
    says = Evaluation("says", "failed", score=0.0, reason="missing '4'")
    steps = Evaluation("max_steps", "passed", score=1.0)
    attempts = [
        result(
            "flaky", "passed", score=1.0, reason="found '4'", tool_calls=(LOOKUP,), usage=Usage(10, 5), cost_usd=0.001
        ),
        result(
            "flaky", "failed", score=0.0, reason="says: missing '4'", evaluations=(says, steps), tool_calls=CALLS,
            usage=Usage(20, 5), cost_usd=0.002, output=f"attempt two {HOSTILE}",
        ),
        result("flaky", "passed", score=1.0, reason="found '4'"),
    ]  # fmt: skip
    return combine_attempts(Case("flaky", "question"), attempts, case_pass_rate)


def report(**more: Any) -> EvalReport:
    """A tool-using failing case, a plain passing one, a flaky repeated one and one that crashed."""
    cases = [
        result(
            "uses tools", "failed", score=0.5, reason="bad", tool_calls=CALLS, usage=Usage(1000, 234), cost_usd=0.0123
        ),
        result("plain", "passed", score=1.0, reason="fine"),
        flaky_case(),
        result("crashes", "error", error="RuntimeError: boom"),
    ]
    return EvalReport(cases, name="trajectories", total_ms=1234, **more)


def repeated_report() -> EvalReport:
    """Only repeated cases: one flaky that fails its bar (every attempt must pass), one that always passed."""
    steady = combine_attempts(
        Case("steady", "question"), [result("steady", "passed", score=1.0, reason="ok") for _ in range(3)], 1.0
    )
    return EvalReport([flaky_case(1.0), steady], name="repeats")


#: The source of an agent (``tools_agent.py``) that looks a product up, calls a tool that fails, and
#: passes raw-text arguments to a third; ``HOSTILE`` is filled in by :func:`agent_source`.
AGENT = """
from agent_eval import AgentRun, ToolCall, Usage

HOSTILE = {hostile!r}


def agent(question, ctx=None):
    calls = [
        ToolCall("get_warranty", {{"product": "kettle"}}, result="2 years"),
        ToolCall("delete_account " + HOSTILE, {{"id": 3, "note": HOSTILE}}, error="permission denied " + HOSTILE),
        ToolCall("search", '{{"q": "kettle', result={{"hits": [1, 2]}}),
    ]
    return AgentRun("the kettle has 2 years", tool_calls=calls, usage=Usage(1000, 234), cost_usd=0.0123)
"""


def agent_source() -> str:
    """The agent's module text."""
    return AGENT.format(hostile=HOSTILE)
