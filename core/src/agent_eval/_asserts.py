"""``assert_passes``: a test's assertion on a report, naming each case that did not pass and why."""

from __future__ import annotations

from agent_eval._model import EvalReport, EvalResult
from agent_eval._text import short_repr, shorten

#: At most this many cases are named in the message; the others are counted.
SHOWN = 10
#: Each case's line is cut to this many characters.
LINE_LIMIT = 300


def assert_passes(report: EvalReport, *, min_pass_rate: float = 1.0) -> None:
    """Raise AssertionError naming each case that did not pass, unless ``report.pass_rate >= min_pass_rate``.

    Skipped cases count neither way, as in ``pass_rate``: a report whose cases were all skipped has
    pass rate 0.0 and fails any bar above 0.
    """
    __tracebackhide__ = True  # pytest shows the test's line that called this, not this function
    if not isinstance(report, EvalReport):
        raise TypeError(f"assert_passes() takes an EvalReport, got {short_repr(report)}")
    if isinstance(min_pass_rate, bool) or not isinstance(min_pass_rate, int | float) or not 0 <= min_pass_rate <= 1:
        raise ValueError(f"min_pass_rate must be a number from 0 to 1, got {min_pass_rate!r}")
    if report.pass_rate >= min_pass_rate:
        return
    raise AssertionError(failure_message(report, min_pass_rate))


def failure_message(report: EvalReport, min_pass_rate: float) -> str:
    """The summary line, then one line per case that did not pass (skipped ones when nothing ran)."""
    ran = report.total - report.skipped
    counts = (
        f"{report.passed} passed, {report.failed} failed, {report.errored} error{'' if report.errored == 1 else 's'}, "
        f"{report.skipped} skipped"
    )
    if ran:
        head = f"pass rate {report.pass_rate:.1%} is below {min_pass_rate:.1%}: {counts}"
        if report.skipped:
            head += " (skipped cases do not count)"
        shown = [result for result in report.cases if result.status in ("failed", "error")]
    else:
        head = f"no case ran: {counts}" if report.total else "no case ran: the report is empty"
        shown = list(report.cases)
    if report.interrupted:
        head += f"; the run was interrupted after {report.total} of {report.planned} cases"
    lines = [head, *(f"  {case_line(result)}" for result in shown[:SHOWN])]
    if len(shown) > SHOWN:
        lines.append(f"  … and {len(shown) - SHOWN} more")
    return "\n".join(lines)


def case_line(result: EvalResult) -> str:
    """``'adds': failed, score 0.50: expected '4', got '5'`` on one bounded line."""
    parts = [f"{result.name!r}: {result.status}"]
    if result.score is not None:
        parts.append(f", score {result.score:.2f}")
    if result.attempts and result.pass_fraction is not None:
        parts.append(f", {result.pass_fraction:.0%} of attempts passed")
    explained = [text for text in (result.reason, result.error) if text]
    if explained:
        parts.append(": " + "; ".join(explained))
    return shorten("".join(parts), LINE_LIMIT)
