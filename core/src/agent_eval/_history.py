"""The run history: every report recorded in a SQLite database, and what changed between two runs.

From schema version 4 on, a run's ``report`` column holds its JSON report compressed by zlib (a BLOB,
about a tenth of the text's size); runs recorded before keep theirs as JSON text, and both are read.
SQL's JSON functions (``json_extract``, ``json_each``, ...) therefore do not apply to ``report``: a
column a query needs is a column of ``runs`` of its own, filled when the run is recorded.
"""

from __future__ import annotations

import codecs
import contextlib
import math
import re
import secrets
import sqlite3
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import attrs

from agent_eval import stats
from agent_eval._errors import AgentEvalError
from agent_eval._files import MAX_REPORT_BYTES, make_folder
from agent_eval._json import batches, document
from agent_eval._model import EvalReport, EvalResult, Status

#: Seconds a writer waits for another process's lock before giving up.
BUSY_TIMEOUT = 30.0

#: Ordered schema migrations: entry ``n`` takes a database from version ``n`` to ``n + 1``.
#: Append new ones; never edit one that has shipped (but to mend one that stopped an upgrade: 2 once set
#: ``strict`` to NULL, against its NOT NULL, for a report without ``metadata.strict``). Those that read
#: ``report`` with SQL's JSON functions (2 and 3) only ever run over JSON text: a database holds compressed
#: reports only from version 4 on.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """
        CREATE TABLE runs (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            recorded_at TEXT NOT NULL,
            started_at TEXT,
            suite TEXT,
            suite_file TEXT,
            agent TEXT,
            total INTEGER NOT NULL,
            passed INTEGER NOT NULL,
            failed INTEGER NOT NULL,
            errored INTEGER NOT NULL,
            skipped INTEGER NOT NULL,
            pass_rate REAL NOT NULL,
            total_ms REAL NOT NULL,
            interrupted INTEGER NOT NULL,
            report TEXT NOT NULL
        )
        """,
        "CREATE INDEX runs_by_suite ON runs (suite, seq)",
        "CREATE INDEX runs_by_started_at ON runs (started_at)",
    ),
    (
        # the bar each run was held to, so that `runs` can say whether it met it without reading reports
        "ALTER TABLE runs ADD COLUMN min_pass_rate REAL",
        "ALTER TABLE runs ADD COLUMN strict INTEGER NOT NULL DEFAULT 0",
        """
        UPDATE runs SET
            min_pass_rate = CASE WHEN json_type(report, '$.metadata.min_pass_rate') IN ('integer', 'real')
                                 THEN json_extract(report, '$.metadata.min_pass_rate') END,
            strict = coalesce(json_type(report, '$.metadata.strict') = 'true', 0)
        WHERE json_valid(report)
        """,
    ),
    (
        # what the agents used and cost, so that `runs` can list them without reading reports; old rows
        # are filled from the cases of their stored reports (total() and a count: no integer overflow)
        "ALTER TABLE runs ADD COLUMN agent_tokens INTEGER",
        "ALTER TABLE runs ADD COLUMN cost_usd REAL",
        """
        UPDATE runs SET
            agent_tokens = (
                SELECT CASE WHEN count(*) THEN CAST(total(
                    CASE WHEN json_type(c.value, '$.usage.input_tokens') = 'integer'
                         THEN json_extract(c.value, '$.usage.input_tokens') ELSE 0 END
                    + CASE WHEN json_type(c.value, '$.usage.output_tokens') = 'integer'
                           THEN json_extract(c.value, '$.usage.output_tokens') ELSE 0 END
                ) AS INTEGER) END
                FROM json_each(report, '$.cases') AS c WHERE json_type(c.value, '$.usage') = 'object'
            ),
            cost_usd = (
                SELECT CASE WHEN count(*) THEN total(json_extract(c.value, '$.cost_usd')) END
                FROM json_each(report, '$.cases') AS c WHERE json_type(c.value, '$.cost_usd') IN ('integer', 'real')
            )
        WHERE json_valid(report) AND json_type(report, '$.cases') = 'array'
        """,
    ),
    # reports are written zlib-compressed from here on (runs already recorded keep their text): the new
    # version alone says so, and an older agent-eval, which would read such a report as JSON text,
    # refuses the database instead
    (),
)

#: zlib's fastest level: a report of 100,000 cases goes from 57 MB to 5 MB in about 0.2 s; on more varied
#: text level 2 saves 6% more in 14% more time, level 3 10% more in half as much time again.
COMPRESSION_LEVEL = 1

_INSERT = """
    INSERT INTO runs (id, recorded_at, started_at, suite, suite_file, agent, total, passed, failed, errored,
                      skipped, pass_rate, total_ms, interrupted, min_pass_rate, strict, agent_tokens, cost_usd, report)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, zeroblob(?))
"""
_LIST = """
    SELECT id, recorded_at, started_at, suite, suite_file, agent, total, passed, failed, errored, skipped,
           pass_rate, total_ms, interrupted, min_pass_rate, strict, agent_tokens, cost_usd
    FROM runs WHERE ? IS NULL OR suite = ? ORDER BY seq DESC LIMIT ?
"""
_LOAD = """
    SELECT id, recorded_at, started_at, suite, suite_file, agent, total, passed, failed, errored, skipped,
           pass_rate, total_ms, interrupted, min_pass_rate, strict, agent_tokens, cost_usd, report
    FROM runs WHERE id = ?
"""
_LATEST = re.compile(r"latest(?:~(\d+))?")
_T = TypeVar("_T")


class HistoryError(AgentEvalError):
    """The run history cannot be read or written, or holds no such run."""


@attrs.frozen
class RunSummary:
    """One recorded run as listed by ``agent-eval runs``."""

    id: str
    recorded_at: str
    started_at: str | None
    suite: str | None
    suite_file: str | None
    agent: str | None
    total: int
    passed: int
    failed: int
    errored: int
    skipped: int
    pass_rate: float
    total_ms: float
    interrupted: bool
    #: The bar the run was held to (``--min-pass-rate``), when it recorded one, and whether it was strict.
    min_pass_rate: float | None = None
    strict: bool = False
    #: The agents' tokens (input and output) and cost in US dollars over the run, when any case reported them.
    agent_tokens: int | None = None
    cost_usd: float | None = None

    @property
    def met(self) -> bool:
        """True when the run's pass rate (strict, if the run was) reached its bar (1.0 when none was recorded)."""
        rate = (self.passed / self.total if self.total else 0.0) if self.strict else self.pass_rate
        return rate >= (1.0 if self.min_pass_rate is None else self.min_pass_rate)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of the summary."""
        return attrs.asdict(self)


@attrs.frozen
class StoredRun:
    """A recorded run: its summary and the whole report."""

    summary: RunSummary
    report: EvalReport


def new_run_id(now: datetime | None = None) -> str:
    """A run id that sorts by time: ``20250102-030405-a1b2c3``."""
    moment = now or datetime.now(UTC)
    return f"{moment:%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


class History:
    """The runs recorded in one SQLite database (WAL mode, so readers never block the writer)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def exists(self) -> bool:
        """True when the database file is there."""
        return self.path.is_file()

    def record(self, report: EvalReport) -> str:
        """Store ``report`` and return its run id (the report's ``metadata["run_id"]`` when set)."""
        # the columns come from the JSON-ready data: its texts all encode (no lone surrogate is left)
        data = report.summary_dict()
        meta = data["metadata"] = dict(data["metadata"])  # the report's own dicts stay as they are
        run_id = str(meta.get("run_id") or new_run_id())
        meta["run_id"] = run_id
        recorded_at = datetime.now(UTC).isoformat(timespec="seconds")
        row = (
            run_id,
            recorded_at,
            data["started_at"] or recorded_at,
            _text_or_none(data["name"] or meta.get("suite")),
            _text_or_none(meta.get("suite_file")),
            _text_or_none(meta.get("agent")),
            report.total,
            report.passed,
            report.failed,
            report.errored,
            report.skipped,
            report.pass_rate,
            report.total_ms,
            int(report.interrupted),
            *_gate(report),
            *_agent_totals(report),
        )
        # the report's JSON, from each case's own (made once per run for every writer) joined in batches,
        # compressed before the database is locked: this thread's work that holds the interpreter (the
        # reports are written meanwhile) is a loop over the cases and the joins of about a MiB each
        compressed = _compressed(document(data, "cases", batches(report.case_json())))
        if compressed is None:  # it could not be read back: the history does not take it
            raise HistoryError(
                f"run {run_id!r}: its report holds more than {MAX_REPORT_BYTES:,} bytes of JSON, the most a report "
                "may hold, so it could not be read back"
            )
        with self._connect(create=True) as connection:
            try:
                with _transaction(connection):
                    _insert(connection, row, compressed)
            except sqlite3.IntegrityError:
                raise HistoryError(f"run {run_id!r} is already recorded in {self.path}") from None
        return run_id

    def runs(self, *, limit: int | None = 20, suite: str | None = None) -> list[RunSummary]:
        """The recorded runs, newest first."""
        if not self.exists():
            return []
        with self._connect() as connection:
            rows = connection.execute(_LIST, [suite, suite, -1 if limit is None else limit]).fetchall()
        return [_summary(row) for row in rows]

    def resolve(self, ref: str) -> str:
        """The run id that ``ref`` names: an id, a unique prefix of one, ``latest`` or ``latest~N``."""
        with self._connect() as connection:
            return self._resolve(connection, ref)

    def load(self, ref: str) -> StoredRun:
        """The run that ``ref`` names (see :meth:`resolve`)."""
        with self._connect() as connection:
            run_id = self._resolve(connection, ref)
            *columns, stored = connection.execute(_LOAD, [run_id]).fetchone()
        try:
            text = _report_text(stored)
            del stored  # a compressed report is not kept while its text is read
            report = EvalReport.from_json(text)
        except (ValueError, KeyError, TypeError) as error:
            raise HistoryError(f"run {run_id!r} in {self.path} cannot be read: {error}") from None
        return StoredRun(_summary(columns), report)

    def _resolve(self, connection: sqlite3.Connection, ref: str) -> str:
        latest = _LATEST.fullmatch(ref)
        if latest:
            back = int(latest.group(1) or 0)
            row = connection.execute("SELECT id FROM runs ORDER BY seq DESC LIMIT 1 OFFSET ?", [back]).fetchone()
            if row is None:
                count = connection.execute("SELECT count(*) FROM runs").fetchone()[0]
                raise HistoryError(f"{ref!r} needs {back + 1} recorded runs; {self.path} holds {count}")
            return str(row[0])
        if connection.execute("SELECT 1 FROM runs WHERE id = ?", [ref]).fetchone():
            return ref
        rows = connection.execute(
            "SELECT id FROM runs WHERE substr(id, 1, ?) = ? ORDER BY seq DESC LIMIT 6", [len(ref), ref]
        ).fetchall()
        if len(rows) == 1:
            return str(rows[0][0])
        if rows:
            shown = ", ".join(str(r[0]) for r in rows[:5])
            raise HistoryError(f"run {ref!r} is ambiguous in {self.path}: it starts {shown}; give more of the id")
        raise HistoryError(f"no run {ref!r} in {self.path}; `agent-eval runs` lists the recorded runs")

    @contextlib.contextmanager
    def _connect(self, *, create: bool = False) -> Iterator[sqlite3.Connection]:
        if not create and not self.exists():
            raise HistoryError(f"no run history at {self.path}; `agent-eval run` records one")
        if create:
            try:
                _make_folder(self.path.parent)
            except OSError as error:
                raise HistoryError(f"cannot create the run history {self.path}: {error.strerror or error}") from None
        try:
            connection = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT, isolation_level=None)
        except sqlite3.Error as error:
            raise HistoryError(f"cannot open the run history {self.path}: {error}") from None
        try:
            _retry_locked(lambda: _prepare(connection, self.path))
            yield connection
        except sqlite3.Error as error:
            raise HistoryError(f"run history {self.path}: {error}") from None
        finally:
            connection.close()


def _make_folder(folder: Path) -> None:
    """Create the history's folder; a new ``.agent-eval`` folder gets a ``.gitignore`` so it stays local."""
    if folder.is_dir():
        return
    make_folder(folder)
    if folder.name == ".agent-eval":
        with contextlib.suppress(OSError):
            (folder / ".gitignore").write_text("# Created by agent-eval: local run history.\n*\n", encoding="utf-8")


def _prepare(connection: sqlite3.Connection, path: Path) -> None:
    """Switch to WAL and bring the schema up to date, one process at a time."""
    connection.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT * 1000)}")
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA synchronous = NORMAL")
    if _version(connection) == len(MIGRATIONS):
        return
    with _transaction(connection):
        _migrate(connection, path)


def _version(connection: sqlite3.Connection) -> int:
    try:
        row = connection.execute("SELECT version FROM schema_version").fetchone()
    except sqlite3.OperationalError:  # no such table: a new database
        return 0
    return int(row[0]) if row else 0


def _migrate(connection: sqlite3.Connection, path: Path) -> None:
    connection.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    current = _version(connection)  # again: another process may have migrated meanwhile
    if current > len(MIGRATIONS):
        raise HistoryError(
            f"{path} has schema version {current}, newer than this agent-eval knows ({len(MIGRATIONS)}); "
            "upgrade agent-eval or pass --history with another file"
        )
    for statements in MIGRATIONS[current:]:
        for statement in statements:
            connection.execute(statement)
    connection.execute("DELETE FROM schema_version")
    connection.execute("INSERT INTO schema_version (version) VALUES (?)", [len(MIGRATIONS)])


def _compressed(parts: Iterable[bytes]) -> list[bytes] | None:
    """The report whose UTF-8 JSON is ``parts`` (a batch of about a MiB or a comma each, as the recording
    makes them), zlib-compressed as they come: never joined whole, nor copied into batches again. None when
    it holds more than :data:`agent_eval._files.MAX_REPORT_BYTES`, which would not be read back."""
    compressor = zlib.compressobj(COMPRESSION_LEVEL)
    pieces = []
    made = 0
    for part in parts:
        made += len(part)
        if made > MAX_REPORT_BYTES:
            return None
        pieces.append(compressor.compress(part))
    pieces.append(compressor.flush())
    return pieces


def _insert(connection: sqlite3.Connection, row: Sequence[Any], compressed: list[bytes]) -> None:
    """Insert a run's row, its report (the last column) written in place from ``compressed``.

    Bound as one value, the report would be in memory three times over (joined, SQLite's copy of it,
    the row SQLite makes of that); written into a blob of its size, it is there once more, in SQLite.
    """
    seq = connection.execute(_INSERT, [*row, sum(map(len, compressed))]).lastrowid
    assert seq is not None  # an INSERT's row
    with connection.blobopen("runs", "report", seq) as blob:
        for piece in compressed:
            blob.write(piece)


def _report_text(stored: Any) -> Any:
    """The JSON text of a stored report: a BLOB is zlib-compressed UTF-8 (version 4 on), text is as it was.

    The BLOB is decompressed and decoded a piece at a time, so its JSON is never whole as bytes beside
    the text: decompressed whole, the two runs of 100,000 cases ``compare`` reads peaked 18 MB higher than
    the same runs stored as text. ValueError says what is wrong with a BLOB that is not one (damaged,
    cut short, not UTF-8 inside).
    """
    if not isinstance(stored, bytes):
        return stored
    decoder = codecs.getincrementaldecoder("utf-8")()
    texts: list[str] = []
    read = 0  # bytes of JSON given to the decoder, to say where a byte that is not UTF-8 is
    try:
        for piece in _decompressed(stored):
            read += len(piece)
            texts.append(decoder.decode(piece))
        texts.append(decoder.decode(b"", final=True))
    except UnicodeDecodeError as error:  # error.object: the bytes the decoder held, then the piece
        at = read - len(error.object) + error.start
        raise ValueError(f"its report is not UTF-8 text: byte {error.object[error.start]:#04x} at {at:,}") from None
    return "".join(texts)


def _decompressed(stored: bytes) -> Iterator[bytes]:
    """What ``stored`` holds zlib-compressed, in pieces of a MiB; ValueError unless it is one whole stream of at
    most :data:`agent_eval._files.MAX_REPORT_BYTES`, the most a report file may hold (a few MB of damaged or
    hostile BLOB can expand a thousand times)."""
    decompressor = zlib.decompressobj()
    rest = stored
    made = 0
    try:
        while not decompressor.eof:
            piece = decompressor.decompress(rest, 1 << 20)
            rest = decompressor.unconsumed_tail
            if not piece and not rest:
                break
            made += len(piece)
            if made > MAX_REPORT_BYTES:
                raise ValueError(
                    f"its compressed report expands past {MAX_REPORT_BYTES:,} bytes, the most a report may hold"
                )
            yield piece
    except zlib.error as error:
        raise ValueError(f"its compressed report is damaged ({error})") from None
    if not decompressor.eof:
        raise ValueError(f"its compressed report is cut short after {len(stored):,} bytes")
    if decompressor.unused_data:
        raise ValueError(f"its compressed report is followed by {len(decompressor.unused_data):,} bytes more")


@contextlib.contextmanager
def _transaction(connection: sqlite3.Connection) -> Iterator[None]:
    """BEGIN IMMEDIATE ... COMMIT; on error, ROLLBACK only if SQLite has not already rolled back.

    After some errors (a full disk: SQLITE_FULL) SQLite ends the transaction itself, and a ROLLBACK
    would fail with "no transaction is active", hiding the error that says what went wrong.
    """
    connection.execute("BEGIN IMMEDIATE")
    try:
        yield
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            with contextlib.suppress(sqlite3.Error):  # the first error is the one to report
                connection.execute("ROLLBACK")
        raise


def _retry_locked(action: Callable[[], _T]) -> _T:
    """Run ``action``, retrying while another process holds a lock SQLite does not wait for.

    Switching a new database to WAL can fail with "database is locked" at once, without the busy
    handler, when another process is doing the same.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT
    while True:
        try:
            return action()
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _summary(row: Sequence[Any]) -> RunSummary:
    fields = [field.name for field in attrs.fields(RunSummary)]
    values = dict(zip(fields, row, strict=True))
    bar = values["min_pass_rate"]
    return RunSummary(
        **{
            **values,
            "interrupted": bool(values["interrupted"]),
            "strict": bool(values["strict"]),
            "min_pass_rate": float(bar) if isinstance(bar, int | float) else None,
            "agent_tokens": _whole(values["agent_tokens"]),
            "cost_usd": float(values["cost_usd"]) if isinstance(values["cost_usd"], int | float) else None,
        }
    )


def _whole(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and math.isfinite(value) else None


def _gate(report: EvalReport) -> tuple[float | None, int]:
    """The ``min_pass_rate`` and ``strict`` the run recorded in its metadata."""
    bar = report.metadata.get("min_pass_rate")
    strict = int(report.metadata.get("strict") is True)
    # abs(bar) <= max: an int too big for a float, NaN and infinities are not bars
    if isinstance(bar, int | float) and not isinstance(bar, bool) and abs(bar) <= sys.float_info.max:
        return float(bar), strict
    return None, strict


def _agent_totals(report: EvalReport) -> tuple[int | None, float | None]:
    """The run's agent tokens and cost as SQLite can hold them (a count past 64 bits is no count)."""
    usage = report.agent_usage
    tokens = None if usage is None else usage.total_tokens
    return (tokens if tokens is not None and abs(tokens) < 2**63 else None), report.cost_usd


def _text_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


# --- comparing two runs --------------------------------------------------------------------------------


@attrs.frozen
class CaseChange:
    """One case as it was in the base run and as it is in the head run."""

    name: str
    base_status: Status | None
    head_status: Status | None
    base_score: float | None = None
    head_score: float | None = None
    #: The head's reason (or error), else the base's: why the case is where it is now.
    reason: str | None = None

    @property
    def score_delta(self) -> float | None:
        """``head_score - base_score`` when both are known."""
        if self.base_score is None or self.head_score is None:
            return None
        return self.head_score - self.base_score

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of the change."""
        return {**attrs.asdict(self), "score_delta": self.score_delta}


@attrs.frozen
class ToolChange:
    """A case whose agent made other tool calls in the head run than in the base run (by name, counted)."""

    name: str
    #: Tool name → how many more calls of it HEAD made; lost: how many fewer.
    added: Mapping[str, int]
    lost: Mapping[str, int]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of the change."""
        return {"name": self.name, "added": dict(self.added), "lost": dict(self.lost)}


#: The level ``Comparison.to_dict`` judges ``significant`` at when no ``--alpha`` is given.
DEFAULT_ALPHA = 0.05


@attrs.frozen(kw_only=True)
class PairedFigures:
    """HEAD against BASE over the paired cases: the difference in pass rate, its interval, a paired test.

    The paired cases are those of the same name in both runs that ran in both (a case skipped in
    either run is left out). Each case counts by its pass fraction: 1 or 0 when it ran once, the share
    of its attempts that passed when it was repeated, so that a run with repeats can be compared with
    one without.
    """

    #: How many cases were paired, and how many of the same name were left out (skipped in either run).
    cases: int = 0
    left_out: int = 0
    #: Attempts per case in each run, the most any paired case had (1: the run was not repeated).
    base_repeat: int = 1
    head_repeat: int = 1
    #: The mean over the paired cases of each run's per-case values (the pass rate, or pass@1 with repeats).
    base_rate: float | None = None
    head_rate: float | None = None
    #: ``head_rate - base_rate``, with the 95% normal-approximation interval over per-case differences.
    diff: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    #: ``"mcnemar"`` (every paired case ran once), ``"paired-t"`` (some were repeated), None (fewer than 2).
    test: str | None = None
    #: The test's two-sided p-value.
    p_value: float | None = None
    #: Pearson's r of the paired per-case values; None when either run's values are all the same.
    correlation: float | None = None
    #: McNemar's discordant pairs: cases that passed only in BASE, and only in HEAD (None with repeats).
    base_only: int | None = None
    head_only: int | None = None

    @property
    def repeated(self) -> bool:
        """True when either run repeated its cases (pass fractions and the paired t-test were used)."""
        return self.base_repeat > 1 or self.head_repeat > 1

    def significant(self, alpha: float = DEFAULT_ALPHA) -> bool:
        """True when HEAD is worse than BASE with a p-value below ``alpha``: the ``--alpha`` gate."""
        if self.p_value is None or self.diff is None:
            return False
        return self.p_value < alpha and self.diff < 0


@attrs.frozen
class Comparison:
    """What changed per case between a base run and a head run."""

    base: EvalReport
    head: EvalReport
    #: Passed in the base, failed or errored in the head.
    regressions: tuple[CaseChange, ...]
    #: Did not pass in the base, passes in the head.
    fixed: tuple[CaseChange, ...]
    #: Any other change of status (passed → skipped, failed → error, ...).
    status_changes: tuple[CaseChange, ...]
    #: Same status, different score.
    score_changes: tuple[CaseChange, ...]
    added: tuple[CaseChange, ...]
    removed: tuple[CaseChange, ...]
    #: The paired figures over the cases that ran in both runs.
    paired: PairedFigures = attrs.field(factory=PairedFigures, kw_only=True)
    #: Cases whose agent called other tools (or as often) in HEAD than in BASE.
    tool_changes: tuple[ToolChange, ...] = attrs.field(default=(), kw_only=True)

    @property
    def regressed(self) -> bool:
        """True when any case regressed."""
        return bool(self.regressions)

    @property
    def unchanged(self) -> bool:
        """True when no case changed at all."""
        groups = (self.regressions, self.fixed, self.status_changes, self.score_changes, self.added, self.removed)
        return not any(groups)

    def to_dict(self, *, alpha: float = DEFAULT_ALPHA) -> dict[str, Any]:
        """A JSON-ready dict: both runs' summaries, every group of changes and the paired figures.

        ``significant`` is the ``--alpha`` gate's verdict at ``alpha``: HEAD worse with p below it.
        """
        paired = self.paired
        return {
            "base": _run_brief(self.base),
            "head": _run_brief(self.head),
            "regressed": self.regressed,
            "regressions": [change.to_dict() for change in self.regressions],
            "fixed": [change.to_dict() for change in self.fixed],
            "status_changes": [change.to_dict() for change in self.status_changes],
            "score_changes": [change.to_dict() for change in self.score_changes],
            "added": [change.to_dict() for change in self.added],
            "removed": [change.to_dict() for change in self.removed],
            "tool_changes": [change.to_dict() for change in self.tool_changes],
            "paired_cases": paired.cases,
            "diff": paired.diff,
            "ci_low": paired.ci_low,
            "ci_high": paired.ci_high,
            "test": paired.test,
            "p_value": paired.p_value,
            "correlation": paired.correlation,
            "alpha": alpha,
            "significant": paired.significant(alpha),
        }


#: Two scores closer than this are the same score (they went through JSON and rounding).
SCORE_TOLERANCE = 1e-9


def compare(base: EvalReport, head: EvalReport, *, labels: tuple[str, str] = ("BASE", "HEAD")) -> Comparison:
    """Match the cases of two runs by name and sort every difference into its group.

    Cases are paired by name, so a run that holds a name twice cannot be compared: HistoryError names
    the run (by ``labels``) and the repeated names. The cases that ran in both runs also give the
    paired figures (see :class:`PairedFigures`).
    """
    before, after = _keyed(base.cases, labels[0]), _keyed(head.cases, labels[1])
    groups: dict[str, list[CaseChange]] = {key: [] for key in ("regressions", "fixed", "status", "score")}
    pairs: list[tuple[EvalResult, EvalResult]] = []
    for key, new in after.items():
        old = before.get(key)
        if old is not None:
            pairs.append((old, new))
            kind = _kind(old, new)
            if kind:
                groups[kind].append(_change(key, old, new))
    added = [_change(key, None, new) for key, new in after.items() if key not in before]
    removed = [_change(key, old, None) for key, old in before.items() if key not in after]
    return Comparison(
        base,
        head,
        tuple(groups["regressions"]),
        tuple(groups["fixed"]),
        tuple(groups["status"]),
        tuple(groups["score"]),
        tuple(added),
        tuple(removed),
        paired=_paired(pairs),
        tool_changes=tuple(change for old, new in pairs if (change := _tool_change(old, new)) is not None),
    )


def _tool_change(old: EvalResult, new: EvalResult) -> ToolChange | None:
    """What tool calls HEAD's case made that BASE's did not, and the other way round; None when the same."""
    if not old.tool_calls and not new.tool_calls:
        return None
    from collections import Counter

    before = Counter(call.name for call in old.tool_calls)
    after = Counter(call.name for call in new.tool_calls)
    if before == after:
        return None
    return ToolChange(new.name, dict(sorted((after - before).items())), dict(sorted((before - after).items())))


def _paired(pairs: Sequence[tuple[EvalResult, EvalResult]]) -> PairedFigures:
    """The paired figures of the cases of the same name in both runs (those skipped in either left out)."""
    base_values: list[float] = []
    head_values: list[float] = []
    for old, new in pairs:
        before, after = old.pass_fraction, new.pass_fraction
        if before is not None and after is not None:
            base_values.append(before)
            head_values.append(after)
    base_repeat = max((len(old.attempts) for old, new in pairs if old.attempts), default=1)
    head_repeat = max((len(new.attempts) for old, new in pairs if new.attempts), default=1)
    n = len(base_values)
    empty = PairedFigures(cases=n, left_out=len(pairs) - n, base_repeat=base_repeat, head_repeat=head_repeat)
    found = stats.paired_comparison(base_values, head_values)
    if found is None:
        return empty
    figures = attrs.evolve(
        empty,
        base_rate=math.fsum(base_values) / n,
        head_rate=math.fsum(head_values) / n,
        diff=found.diff,
        ci_low=found.low,
        ci_high=found.high,
        correlation=found.correlation,
    )
    if n < 2:
        return figures
    if figures.repeated:
        return attrs.evolve(figures, test="paired-t", p_value=found.p_value)
    # one attempt each: every value is 1.0 or 0.0, and only the pairs that differ tell the runs apart
    base_only = sum(1 for b, h in zip(base_values, head_values, strict=True) if b > h)
    head_only = sum(1 for b, h in zip(base_values, head_values, strict=True) if h > b)
    p_value = stats.mcnemar_p_value(base_only, head_only)
    return attrs.evolve(figures, test="mcnemar", p_value=p_value, base_only=base_only, head_only=head_only)


def _kind(old: EvalResult, new: EvalResult) -> str | None:
    if old.status == new.status:  # most cases: only the score can have changed
        if old.score is not None and new.score is not None and abs(old.score - new.score) > SCORE_TOLERANCE:
            return "score"
        return None
    if old.passed and new.status in ("failed", "error"):
        return "regressions"
    if not old.passed and new.passed:
        return "fixed"
    return "status"


def _keyed(results: Sequence[EvalResult], label: str) -> dict[str, EvalResult]:
    """Results by name; a name that occurs twice is a HistoryError naming it."""
    keyed = {result.name: result for result in results}
    if len(keyed) == len(results):
        return keyed
    counts: dict[str, int] = {}
    for result in results:
        counts[result.name] = counts.get(result.name, 0) + 1
    repeated = [f"{name!r} ({count} times)" for name, count in counts.items() if count > 1]
    if repeated:
        shown = ", ".join(repeated[:5]) + (f" and {len(repeated) - 5} more" if len(repeated) > 5 else "")
        raise HistoryError(
            f"{label} holds more than one case named {shown}; cases are paired by name, so each name must "
            "occur once (rename the cases in the suite and run it again)"
        )
    return keyed


def _change(key: str, old: EvalResult | None, new: EvalResult | None) -> CaseChange:
    now = new or old
    assert now is not None
    return CaseChange(
        name=key,
        base_status=old.status if old else None,
        head_status=new.status if new else None,
        base_score=old.score if old else None,
        head_score=new.score if new else None,
        reason=now.error or now.reason,
    )


def _run_brief(report: EvalReport) -> dict[str, Any]:
    return {
        "run_id": report.metadata.get("run_id"),
        "suite": report.name,
        "total": report.total,
        "passed": report.passed,
        "failed": report.failed,
        "errored": report.errored,
        "skipped": report.skipped,
        "pass_rate": report.pass_rate,
        "interrupted": report.interrupted,
    }
