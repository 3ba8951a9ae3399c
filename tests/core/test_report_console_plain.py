"""``--quiet`` to a stream that is not a terminal: the summary line is written without rich, and it is exactly
what rich writes of it there."""

from __future__ import annotations

import io
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_eval._agent_run import Usage
from agent_eval._model import Attempt, EvalReport, EvalResult, Evaluation
from agent_eval._report import console

STATUS = st.sampled_from(["passed", "failed", "error", "skipped"])


@st.composite
def reports(draw: st.DrawFn) -> EvalReport:
    repeat = draw(st.sampled_from([0, 0, 3]))
    cases = []
    for index in range(draw(st.integers(0, 6))):
        metadata = {"usage": {"total_tokens": draw(st.integers(0, 10**7))}} if draw(st.booleans()) else {}
        cases.append(
            EvalResult(
                f"c{index}",
                "q",
                status=draw(STATUS),
                score=draw(st.one_of(st.none(), st.floats(0, 1))),
                evaluations=[Evaluation("judge", "passed", metadata=metadata)],
                attempts=[Attempt(n, draw(STATUS)) for n in range(repeat)],
                usage=draw(st.one_of(st.none(), st.builds(Usage, st.integers(0, 10**9), st.integers(0, 10**6)))),
                cost_usd=draw(st.one_of(st.none(), st.floats(0, 10**6))),
            )
        )
    planned = len(cases) + draw(st.integers(0, 3))
    return EvalReport(
        cases,
        total_ms=draw(st.floats(0, 10**8)),
        interrupted=planned > len(cases),
        planned=planned,
    )


def _by_rich(report: EvalReport, strict: bool, bar: float | None) -> str:
    from rich.text import Text

    stream = io.StringIO()
    line = console.summary_line(report, strict=strict, bar=bar)
    console.make_console(stream).print(Text(line, style=console._summary_style(report, strict, bar)))
    return stream.getvalue()


@settings(max_examples=300, deadline=None)
@given(reports(), st.booleans(), st.one_of(st.none(), st.floats(0, 1)), st.sampled_from([None, "20", "80", "300"]))
def test_the_plain_summary_line_is_what_rich_writes(
    report: EvalReport, strict: bool, bar: float | None, columns: str | None
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        for name in ("COLUMNS", "TTY_COMPATIBLE", "FORCE_COLOR"):
            patch.delenv(name, raising=False)
        if columns is not None:
            patch.setenv("COLUMNS", columns)
        written = io.StringIO()
        console.print_report(report, file=written, quiet=True, strict=strict, bar=bar)
        assert written.getvalue() == _by_rich(report, strict, bar)


@pytest.mark.parametrize("environment", [{"FORCE_COLOR": "1"}, {"TTY_COMPATIBLE": "1"}])
def test_a_terminal_forced_by_the_environment_gets_rich_and_its_style(
    monkeypatch: pytest.MonkeyPatch, environment: dict[str, str]
) -> None:
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    report = EvalReport([EvalResult("c", "q", status="passed", score=1.0)])
    written = io.StringIO()
    console.print_report(report, file=written, quiet=True)
    assert "\x1b[" in written.getvalue()  # rich's style: it was rich that wrote


def test_a_quiet_run_whose_output_is_not_a_terminal_does_not_import_rich(tmp_path: Any) -> None:
    script = (
        "import sys\n"
        "from agent_eval._model import EvalReport, EvalResult\n"
        "from agent_eval._report.console import print_report\n"
        "print_report(EvalReport([EvalResult('c', 'q', status='passed', score=1.0)]), quiet=True)\n"
        "print('rich' in sys.modules)\n"
    )
    import os

    env = {key: value for key, value in os.environ.items() if key not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    env["COLUMNS"] = "200"  # the line fits: rich would not wrap it
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env)
    line, imported = done.stdout.splitlines()
    assert line.startswith("1 passed, 0 failed, 0 errors, 0 skipped · pass rate 100.0%")
    assert imported == "False"


def test_a_stream_that_does_not_write_utf8_goes_to_rich_which_says_how_to_make_it() -> None:
    ascii_stream = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    utf8_stream = io.TextIOWrapper(io.BytesIO(), encoding="UTF-8")
    assert not console._plain_stream(ascii_stream)
    assert console._plain_stream(utf8_stream)
