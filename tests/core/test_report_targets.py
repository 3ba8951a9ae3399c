"""Report paths that are not plain files, and report writers that fail: nothing else is lost."""

from __future__ import annotations

import json
import os
import stat
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from data.reports.project import Project


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def drain(fifo: Path, into: list[bytes]) -> threading.Thread:
    """A reader that takes everything written to ``fifo`` until the writer closes it."""

    def read() -> None:
        with fifo.open("rb") as stream:
            into.append(stream.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return reader


def test_a_fifo_being_read_gets_the_report_written_through_and_stays_a_fifo(project: Project) -> None:
    project.suite(min_pass_rate=0.4)
    fifo = project.root / "report.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = drain(fifo, got)
    done = project.cli("run", "suite.yaml", "--no-history", "--json", str(fifo))
    reader.join(10)
    assert done.returncode == 0, done.stderr
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert [case["name"] for case in json.loads(got[0])["cases"]][:2] == ["greets", "adds"]


def test_a_fifo_nobody_reads_is_refused_in_one_line_and_the_other_reports_are_written(project: Project) -> None:
    project.suite(min_pass_rate=0.4)
    fifo = project.root / "nobody.fifo"
    os.mkfifo(fifo)
    done = project.cli("run", "suite.yaml", "--no-history", "--json", str(fifo), "--junit", "r.xml")
    assert done.returncode == 0, done.stderr  # the JUnit report was written: the pass rate decides
    assert f"warning: --json {fifo}: cannot write: a FIFO that no program is reading" in done.stderr
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert (project.root / "r.xml").read_text(encoding="utf-8").startswith("<?xml")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_under_jsonl_loses_neither_the_run_nor_the_other_reports(project: Project) -> None:
    project.suite(min_pass_rate=0.4)
    done = project.cli("run", "suite.yaml", "--jsonl", "/dev/full", "--json", "r.json", "--html", "r.html")
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("warning: --jsonl /dev/full: cannot write: No space left on device") == 1
    assert len(json.loads((project.root / "r.json").read_text(encoding="utf-8"))["cases"]) == 5
    assert (project.root / "r.html").exists()
    assert "5 cases" in project.cli("runs").stdout or project.cli("show", "latest").returncode == 0
    assert stat.S_ISCHR(Path("/dev/full").stat().st_mode)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_report_that_fails_does_not_skip_the_ones_after_it(project: Project) -> None:
    project.suite(min_pass_rate=0.4)
    done = project.cli(
        "run", "suite.yaml", "--no-history", "--junit", "/dev/full", "--html", "r.html", "--markdown", "r.md"
    )
    assert done.returncode == 0, done.stderr
    assert "warning: --junit /dev/full: cannot write: No space left on device" in done.stderr
    assert (project.root / "r.html").exists() and (project.root / "r.md").exists()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_the_run_is_recorded_while_its_reports_are_written_whether_or_not_they_can_be(project: Project) -> None:
    project.suite(min_pass_rate=0.4)
    done = project.cli("run", "suite.yaml", "--history", "h.db", "--json", "/dev/full", "--junit", "r.xml")
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("warning:") == 1, done.stderr
    shown = project.cli("show", "latest", "--history", "h.db")
    assert shown.returncode == 0, shown.stderr
    assert "greets" in shown.stdout
    assert (project.root / "r.xml").read_text(encoding="utf-8").startswith("<?xml")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_history_that_cannot_be_written_is_said_after_the_reports_whatever_the_timing(project: Project) -> None:
    project.suite(min_pass_rate=0.4)
    (project.root / "bad.db").write_bytes(b"not a database, " * 64)
    for _ in range(3):  # the history is recorded in a thread: its warning waits for the reports' own
        done = project.cli("run", "suite.yaml", "--history", "bad.db", "--json", "/dev/full", "--junit", "r.xml")
        assert done.returncode == 0, done.stderr
        warnings = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
        assert [w.split(":")[1].strip().split()[0] for w in warnings] == ["--json", "run"], done.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_when_no_report_asked_for_could_be_written_the_exit_code_is_3(project: Project) -> None:
    project.suite(min_pass_rate=0.4)
    done = project.cli("run", "suite.yaml", "--no-history", "--json", "/dev/full", "--jsonl", "/dev/full")
    assert done.returncode == 3, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "error: none of the reports asked for could be written (see the warnings above)"
    )


def test_a_character_device_is_written_through_not_replaced(project: Project, tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("making a device node needs root")
    device = tmp_path / "null"
    os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a /dev/null of our own
    project.suite(min_pass_rate=0.4)
    done = project.cli("run", "suite.yaml", "--no-history", "--json", str(device), "--markdown", str(device))
    assert done.returncode == 0, done.stderr
    assert stat.S_ISCHR(device.stat().st_mode)


def test_a_symlink_keeps_pointing_at_the_report_it_names(project: Project) -> None:
    project.suite(min_pass_rate=0.4)
    (project.root / "reports").mkdir()
    real = project.root / "reports" / "r.json"
    real.write_text("{}", encoding="utf-8")
    link = project.root / "latest.json"
    link.symlink_to(real)
    assert project.cli("run", "suite.yaml", "--no-history", "--json", "latest.json").returncode == 0
    assert link.is_symlink()
    assert len(json.loads(real.read_text(encoding="utf-8"))["cases"]) == 5


def test_a_directory_as_a_report_path_is_refused_before_the_run(project: Project) -> None:
    project.suite(min_pass_rate=0.4)
    (project.root / "adir").mkdir()
    done = project.cli("run", "suite.yaml", "--no-history", "--json", "adir")
    assert done.returncode == 2
    assert "'adir' is a directory" in done.stderr
    assert not (project.root / "answers.log").exists()


def test_the_writer_itself_refuses_a_directory_and_leaves_it_alone(tmp_path: Path) -> None:
    from agent_eval._report.files import write_atomic

    (tmp_path / "adir").mkdir()
    with pytest.raises(OSError, match="a directory; give the path of a file to write"):
        write_atomic(tmp_path / "adir", "{}")
    assert (tmp_path / "adir").is_dir()


def resident_share(path: Path) -> float:
    """The share of ``path``'s pages the system holds in memory (Linux's mincore on a mapping of it)."""
    import ctypes
    import mmap

    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    size = path.stat().st_size
    pages = -(-size // mmap.PAGESIZE)
    with path.open("rb") as stream:
        address = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, stream.fileno(), 0)
    assert address not in (None, ctypes.c_void_p(-1).value), os.strerror(ctypes.get_errno())
    try:
        held = (ctypes.c_ubyte * pages)()
        assert libc.mincore(address, size, held) == 0, os.strerror(ctypes.get_errno())
        return sum(byte & 1 for byte in held) / pages
    finally:
        libc.munmap(address, size)


def lets_go(folder: Path) -> bool:
    """Whether the file system of ``folder`` lets go of a synced file's pages when told to (tmpfs's pages
    are all it has)."""
    probe = folder / "probe"
    try:
        with probe.open("wb") as stream:
            stream.write(os.urandom(1 << 20))
            stream.flush()
            os.fsync(stream.fileno())
            os.posix_fadvise(stream.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
        return resident_share(probe) <= 0.1
    finally:
        probe.unlink()


@pytest.fixture
def disk_folder(tmp_path: Path) -> Iterator[Path]:
    """A folder on a file system that lets go of a file's pages: the test's own, or else (a temporary folder on
    tmpfs) one in the checkout, removed after; the test is skipped without Linux's posix_fadvise and mincore,
    or when neither will."""
    if not hasattr(os, "posix_fadvise") or os.uname().sysname != "Linux":
        pytest.skip("needs Linux's posix_fadvise and mincore")
    if lets_go(tmp_path):
        yield tmp_path
        return
    with tempfile.TemporaryDirectory(prefix=".pages-", dir=Path(__file__).resolve().parents[2]) as name:
        if not lets_go(Path(name)):
            pytest.skip("neither the test's folder nor the checkout's file system lets go of a file's pages")
        yield Path(name)


def test_a_report_written_is_on_the_disk_and_its_pages_let_go(disk_folder: Path) -> None:
    from agent_eval._report import files

    parts = [os.urandom(1 << 16) for _ in range(64)]  # 4 MiB
    files.write_atomic(disk_folder / "r.json", iter(parts))
    assert (disk_folder / "r.json").read_bytes() == b"".join(parts)
    files.write_atomic(disk_folder / "r.json", iter(parts))  # (the read above brought them back)
    assert resident_share(disk_folder / "r.json") < 0.1


def test_a_report_is_let_go_of_range_by_range_as_it_is_written(
    disk_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_eval._report import files

    monkeypatch.setattr(files, "_LET_GO_EVERY", 1 << 20)
    monkeypatch.setattr(files, "_BUFFER", 1 << 16)  # (a part waits in the buffer until the next is written)
    path = disk_folder / "r.json"
    held: list[int] = []

    def parts() -> Iterator[bytes]:
        for number in range(64):  # 4 MiB in all, 64 KiB a part: let go of after every 16th
            yield os.urandom(1 << 16)
            if number == 40:  # 40 parts are in the file (the 41st in the buffer): the test puts them on the disk
                (temporary,) = disk_folder.glob(".r.json.*.tmp")
                with temporary.open("rb") as stream:
                    os.fsync(stream.fileno())
            if number == 60:  # after the 48th the 40 on the disk were let go of; 60 are in the file now
                held.append(round(resident_share(temporary) * temporary.stat().st_size) >> 16)

    files.write_atomic(path, parts())
    assert held and held[0] <= 20  # at most the 20 written after the fsync, not all 60
    assert path.stat().st_size == 4 << 20


def test_a_long_jsonl_stream_is_let_go_of_as_it_grows(disk_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_eval._report import files

    monkeypatch.setattr(files, "_LET_GO_EVERY", 1 << 20)
    path = disk_folder / "r.jsonl"
    writer = files.LineWriter(path)
    line = b'{"case": "' + b"x" * 1000 + b'"}'
    for _ in range(3000):  # 3 MB, one line at a time
        writer.write_line(line)
    writer.write_parts([line + b"\n"] * 1000)  # and 1 MB at once
    with path.open("rb") as stream:
        os.fsync(stream.fileno())  # the 4 MB on the disk: the next let-go drops them
    writer.write_parts([line + b"\n"] * 1100)  # past the next MiB
    held = resident_share(path)
    writer.close()
    assert held < 0.3  # of 5.1 MB, only the last 1.1 MB (not yet on the disk when let go of)
    assert path.read_bytes() == (line + b"\n") * 5100


def test_a_jsonl_stream_is_written_whole_when_a_write_takes_part_or_the_system_has_no_advice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_eval._report import files

    monkeypatch.setattr(files, "_LET_GO_EVERY", 1 << 12)
    writev = files._writev
    if writev is not None:  # each writev takes a third of what it is given, at least a byte
        monkeypatch.setattr(
            files, "_writev", lambda fd, parts: os.write(fd, b"".join(parts)[: max(1, sum(map(len, parts)) // 3)])
        )
    lines = [b'{"n": %d, "text": "%s"}\n' % (n, b"y" * (n % 300)) for n in range(3000)]
    for without in (False, True):
        if without:
            monkeypatch.delattr(os, "posix_fadvise", raising=False)
        path = tmp_path / f"r{without}.jsonl"
        writer = files.LineWriter(path)
        for start in range(0, 3000, 150):
            writer.write_parts(lines[start : start + 150])
            writer.write_line(b'{"between": %d}' % start)
        writer.close()
        expected = b"".join(
            b"".join(lines[start : start + 150]) + b'{"between": %d}\n' % start for start in range(0, 3000, 150)
        )
        assert path.read_bytes() == expected


def test_a_report_is_written_whole_with_the_system_s_write_back_advice_or_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_eval._report import files

    monkeypatch.setattr(files, "_LET_GO_EVERY", 10)
    parts = [b"x" * 7, "é".encode()] * 9
    files.write_atomic(tmp_path / "r.json", iter(parts))
    assert (tmp_path / "r.json").read_bytes() == b"".join(parts)
    monkeypatch.delattr(os, "posix_fadvise", raising=False)
    files.write_atomic(tmp_path / "r.json", iter(parts[::-1]))
    assert (tmp_path / "r.json").read_bytes() == b"".join(parts[::-1])
