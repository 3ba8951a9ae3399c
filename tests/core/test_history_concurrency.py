"""Two processes recording into one history database at once lose no run."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from agent_eval._history import History

WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from agent_eval._history import History
    from agent_eval._model import EvalReport, EvalResult

    db, go, who, count = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    while not go.exists():
        time.sleep(0.001)
    for i in range(count):
        case = EvalResult(f"case {i}", "in", output="out " * 200, status="passed" if i % 3 else "failed", score=1.0)
        report = EvalReport([case], name=who, metadata={"run_id": f"{who}-{i:04d}"})
        History(db).record(report)
    print("done", who)
    """
)


@pytest.mark.slow
def test_two_processes_recording_at_once_lose_no_row(tmp_path: Path) -> None:
    db, go, count = tmp_path / "fresh" / "runs.db", tmp_path / "go", 150
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    writers = [
        subprocess.Popen(
            [sys.executable, str(script), str(db), str(go), who, str(count)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for who in ("left", "right")
    ]
    time.sleep(0.5)  # both are waiting for the start signal, with the database not yet created
    go.touch()
    for writer in writers:
        out, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err
        assert out.startswith("done")
    runs = History(db).runs(limit=None)
    ids = {run.id for run in runs}
    assert len(runs) == 2 * count
    assert ids == {f"{who}-{i:04d}" for who in ("left", "right") for i in range(count)}
    interleaved = [run.suite for run in reversed(runs)]
    assert interleaved.index("right") < len(interleaved) - count, "the writers should overlap in time"
