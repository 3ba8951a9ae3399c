"""The JSON report (``--json``) and the per-case JSON Lines stream (``--jsonl``)."""

from __future__ import annotations

import contextlib
import functools
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from agent_eval._agent_run import ToolCall
from agent_eval._codec import InvalidRecord, codec_of, jsonable, paused_gc
from agent_eval._files import MAX_REPORT_BYTES, decode_text, is_utf8, read_file_bytes, read_text_file
from agent_eval._json import document, encode, lined_document
from agent_eval._model import Attempt, EvalReport, EvalResult, Status, case_json, parse_json
from agent_eval._report.files import LineWriter, unbroken, write_atomic
from agent_eval._text import kind_of

#: What a report too large to read says to do.
_TOO_LARGE = "give the run's id in the history instead of its report file"


def write(report: EvalReport, path: str | Path) -> None:
    """Write the whole report as JSON (as :meth:`EvalReport.to_json` makes it, but for a report of
    :data:`LINES_FROM` cases or more: each case on one line), atomically, case by case."""
    write_atomic(path, parts(report))


#: A report of at least this many cases is written with each case on one line of compact JSON under the
#: indented run (:func:`agent_eval._json.lined_document`): a case of an instant agent's run takes 520 bytes
#: so against 940 indented, and at a million cases the file's 940 MB went out at about the disk's rate.
LINES_FROM = 10_000


def parts(report: EvalReport) -> Iterator[bytes]:
    """The JSON report (indented, then a newline) in parts: no more than one case's text at a time."""
    if len(report.cases) >= LINES_FROM:
        yield from lined_document(report.summary_dict(), "cases", report.case_json())
    else:
        yield from document(report.summary_dict(), "cases", report.case_json(), indent=True)
    yield b"\n"


def read(path: str | Path) -> EvalReport:
    """Load a report written by :func:`write`.

    FileReadError when the file cannot be read (missing, not a regular file, too large, not UTF-8);
    ValueError, saying which field, when it is not a report.
    """
    return EvalReport.from_json(read_text_file(path, limit=MAX_REPORT_BYTES, advice=_TOO_LARGE))


#: What a comparison reads of each case, and of each of its attempts.
OUTCOME_FIELDS = ("name", "status", "score", "reason", "error")
ATTEMPT_OUTCOME_FIELDS = ("index", "status")


def read_outcomes(path: str | Path) -> EvalReport:
    """Load a report written by :func:`write` as ``compare`` needs it, several times faster on a large one.

    The run's own fields are read whole, and of each case only its name, status, score, reason and
    error, its attempts' statuses and its tool calls' names, each checked as :func:`read` checks it;
    the rest (input, output, evaluations, the calls' arguments, ...) is not read: the cases have None
    and empty values there.
    Errors as for :func:`read`.
    """
    # the bytes, not their text: msgspec reads UTF-8 itself, and a large report is not held twice
    data = read_file_bytes(path, limit=MAX_REPORT_BYTES, advice=_TOO_LARGE)
    with paused_gc():
        # the parsed data is let go of before the collector is back, so that it has none of it to walk
        typed = _typed_outcomes(data) if is_utf8(data) else None  # msgspec checks only what it reads
        if typed is not None:
            return typed
        text = decode_text(data, path)  # which says where a byte is not UTF-8
        del data
        return _outcomes(parse_json(text))


def _typed_outcomes(text: bytes | str) -> EvalReport | None:
    """The outcomes through msgspec, which builds only the fields kept and skips the rest unbuilt: 0.45 s
    for a report of 100,000 cases where parsing it all and picking took 1.1 s. None when msgspec refuses
    the text (a wrong type, a missing field, not JSON): then the reader that says where and why goes over
    it, and the answer is the same either way (tests/core/test_compare_stats.py tries random damage)."""
    import msgspec

    try:
        data = _outcome_decoder().decode(text)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None
    run_fields = {name: value for name in _RUN_FIELDS if (value := getattr(data, name)) is not msgspec.UNSET}
    run = EvalReport.from_dict({**run_fields, "cases": []})  # which checks the run's own fields
    # what is kept of an attempt or a call is a few values that recur (attempt 2 failed): the records are
    # frozen, so one of each is shared (a run of 100,000 cases repeated 5 times holds 500,000 attempts)
    attempts: dict[tuple[int, str], Attempt] = {}
    calls: dict[str, ToolCall] = {}

    def attempt(index: int, status: Status) -> Attempt:
        found = attempts.get((index, status))
        if found is None:
            found = attempts[index, status] = Attempt(index, status)
        return found

    def call(name: str) -> ToolCall:
        found = calls.get(name)
        if found is None:
            found = calls[name] = ToolCall(name)
        return found

    cases = [
        EvalResult(
            case.name,
            None,
            status=case.status,
            score=case.score,
            reason=case.reason,
            error=case.error,
            attempts=tuple(attempt(item.index, item.status) for item in case.attempts) if case.attempts else (),
            tool_calls=tuple(call(item.name) for item in case.tool_calls) if case.tool_calls else (),
        )
        for case in data.cases
    ]
    return _with_cases(run, cases, run_fields.get("planned"))


#: The run's own fields, read whole and checked by ``EvalReport.from_dict``.
_RUN_FIELDS = ("name", "total_ms", "started_at", "interrupted", "planned", "metadata")


@functools.cache
def _outcome_decoder() -> Any:
    """A msgspec decoder of a report into what :func:`read_outcomes` keeps, typed as the codec checks it."""
    import msgspec

    attempt = msgspec.defstruct("Attempt", [("index", int), ("status", Status)])
    call = msgspec.defstruct("ToolCall", [("name", str)])
    case = msgspec.defstruct(
        "Case",
        [
            ("name", str),
            ("status", Status),
            ("score", float | None, None),
            ("reason", str | None, None),
            ("error", str | None, None),
            ("attempts", list[attempt], msgspec.field(default_factory=list)),  # type: ignore[valid-type]
            ("tool_calls", list[call] | None, None),  # type: ignore[valid-type]
        ],
    )
    report = msgspec.defstruct(
        "Report",
        [("cases", list[case]), *((name, Any, msgspec.UNSET) for name in _RUN_FIELDS)],  # type: ignore[valid-type]
    )
    return msgspec.json.Decoder(report)


def _outcomes(data: Any) -> EvalReport:
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        return EvalReport.from_dict(data)  # which says what is wrong with it
    run = EvalReport.from_dict({**data, "cases": []})
    try:
        cases = [_outcome(case, f"cases[{index}]") for index, case in enumerate(data["cases"])]
    except InvalidRecord as error:
        raise InvalidRecord(f"not an agent-eval report: {error}") from None
    return _with_cases(run, cases, data.get("planned"))  # checked above


def _outcome(data: Any, at: str) -> EvalResult:
    name, status, score, reason, error = codec_of(EvalResult).read_fields(data, at, OUTCOME_FIELDS)
    attempts = data.get("attempts", [])
    if not isinstance(attempts, list):
        raise InvalidRecord(f"{at}.attempts must be a list, got {kind_of(attempts)}")
    if attempts:
        read = codec_of(Attempt).read_fields
        attempts = [
            Attempt(*read(item, f"{at}.attempts[{i}]", ATTEMPT_OUTCOME_FIELDS)) for i, item in enumerate(attempts)
        ]
    return EvalResult(
        name,
        None,
        status=status,
        score=score,
        reason=reason,
        error=error,
        attempts=attempts or (),
        tool_calls=_tool_names(data.get("tool_calls"), at),
    )


def _tool_names(calls: Any, at: str) -> tuple[ToolCall, ...]:
    """The calls' names only: what ``compare`` says was added or lost."""
    if not calls:
        return ()
    if not isinstance(calls, list):
        raise InvalidRecord(f"{at}.tool_calls must be a list, got {kind_of(calls)}")
    names = []
    for index, call in enumerate(calls):
        name = call.get("name") if isinstance(call, dict) else None
        if not isinstance(name, str):
            raise InvalidRecord(f"{at}.tool_calls[{index}].name must be a string, got {kind_of(name)}")
        names.append(ToolCall(name))
    return tuple(names)


def read_lines(path: str | Path) -> EvalReport:
    """Load the cases a ``--jsonl`` stream holds, finished or not (a killed run leaves no summary line).

    The run's facts come from the lines' ``run`` field; a case written twice (a run resumed into the
    same file) counts once, as its last line has it.
    """
    from agent_eval._sourcemap import SourceError, load_json

    text = read_text_file(path, limit=MAX_REPORT_BYTES, advice=_TOO_LARGE)
    cases: dict[str, EvalResult] = {}
    run: dict[str, Any] = {}
    summary: dict[str, Any] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = load_json(line)
        except SourceError as error:
            if number == text.count("\n") + 1:
                break  # the last line of a killed run may be cut short
            raise ValueError(f"line {number}: {error.message}") from None
        if not isinstance(record, dict):
            raise ValueError(f"line {number}: expected an object, got {type(record).__name__}")
        kind = record.get("type")
        if isinstance(record.get("run"), dict):
            run = record["run"]
        if kind == "case":
            try:
                result = EvalResult.from_dict(record)
            except (ValueError, TypeError, KeyError) as error:
                raise ValueError(f"line {number}: {error}") from None
            cases[result.name] = result
        elif kind == "summary":
            summary = record
    return EvalReport(
        list(cases.values()),
        name=summary.get("name") if isinstance(summary.get("name"), str) else run.get("suite"),
        interrupted=not summary or bool(summary.get("interrupted")),
        planned=summary.get("planned") if isinstance(summary.get("planned"), int) else None,
        metadata=run,
    )


#: A case's --jsonl line that finishes this soon after the last write waits, this long at most, for the lines
#: of the cases that finish with it (see CaseStream.case): one write for each of them would cost more than
#: an instant agent's whole case.
TOGETHER_S = 0.005


class CaseStream:
    """``--jsonl``: one line per case as it finishes, then one summary line.

    A case's line is ``{"type": "case", "run": {...}, "index": N, **result.to_dict()}``, joined from the
    run's JSON (made once) and the result's (:func:`agent_eval._model.case_json`, kept for the reports).
    """

    def __init__(self, path: str | Path, run: dict[str, Any], *, on_error: Callable[[OSError], None]) -> None:
        import asyncio  # (a run imports it anyway; a reader of reports need not)

        self._running_loop = asyncio.get_running_loop
        self._writer = LineWriter(path)
        self._run = jsonable(run)
        self._head = unbroken(b'{"type":"case","run":' + encode(self._run) + b',"index":')
        self._on_error = on_error
        #: Set when a write failed (a full disk, ...): the run goes on, and nothing more is written here.
        self.failed = False
        #: The parts of the lines of the cases appended since the last write, when that write was
        #: (time.monotonic), and whether the next is due on the event loop.
        self._pending: list[bytes | memoryview] = []
        self._written = -TOGETHER_S
        self._flush_soon = False
        #: Held while lines are appended or written: the watchdog's thread writes them too.
        self._lock = threading.Lock()

    def case(self, index: int, result: EvalResult) -> None:
        """Append a finished case.

        Its line is written at once, unless the last write was less than :data:`TOGETHER_S` ago: then it
        goes with the lines of the cases that finish before the event loop next turns to other work (an
        agent that answers without waiting finishes many in a row), in one write, or with the first that
        finishes once :data:`TOGETHER_S` have gone by, whichever comes first; or, while an agent holds
        the loop, by :meth:`flush_unless_busy` from the watchdog's thread (see ``_signals.done_while_blocked``).
        """
        if self.failed:
            return
        body = case_json(result)  # an object: "{...}", never empty
        if not body.isascii():
            body = unbroken(body)
        with self._lock:
            # the line: the head, the index, and the body after its "{" (no copy of the body is made)
            self._pending += (self._head, b"%d," % index, memoryview(body)[1:], b"\n")
            if time.monotonic() - self._written < TOGETHER_S:
                if self._flush_soon:
                    return
                try:
                    self._running_loop().call_soon(self.flush)
                    self._flush_soon = True
                    return
                except RuntimeError:  # not on an event loop: nothing to wait for
                    pass
            self._write_pending()

    def flush(self) -> None:
        """Write the lines of the cases appended since the last write (from any thread)."""
        with self._lock:
            self._write_pending()

    def flush_unless_busy(self) -> None:
        """:meth:`flush`, unless a write or an append is under way (then it goes as that one goes): for the
        watchdog's thread, and a signal handler, which may have interrupted one in this thread."""
        if self._lock.acquire(blocking=False):
            try:
                self._write_pending()
            finally:
                self._lock.release()

    def _write_pending(self) -> None:
        self._flush_soon = False
        if not self._pending:
            return
        parts, self._pending = self._pending, []
        self._written = time.monotonic()
        self._guarded(self._writer.write_parts, parts)

    def finish(self, report: EvalReport) -> None:
        """Append the run's summary line and close the file."""
        self.flush()
        summary = report.summary_dict()
        self._write({"type": "summary", "run": self._run, **summary})
        with contextlib.suppress(OSError):
            self._writer.close()

    def _write(self, record: dict[str, Any]) -> None:
        self._guarded(self._writer.write, record)

    def _guarded(self, write: Callable[[Any], None], what: Any) -> None:
        """``write(what)``, unless a write failed before: the first to fail is reported (``on_error``), and nothing
        is written after it."""
        if self.failed:
            return
        try:
            write(what)
        except OSError as error:
            self.failed = True
            self._on_error(error)


def _with_cases(run: EvalReport, cases: list[EvalResult], planned: int | None) -> EvalReport:
    """The run ``run`` (read without its cases) holding ``cases``; ``planned`` None: as many as there are cases."""
    return EvalReport(
        cases,
        name=run.name,
        total_ms=run.total_ms,
        started_at=run.started_at,
        interrupted=run.interrupted,
        planned=planned,
        metadata=run.metadata,
    )
