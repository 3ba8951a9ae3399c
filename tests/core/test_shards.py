"""Shards that merge into the unsharded run, and runs that resume where they stopped."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from helpers import BIN, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_eval._resume import shard_of

AGENT = """
import os, random, time
from pathlib import Path

def agent(question):
    with open(os.environ.get("CALLS", "calls.log"), "a") as log:
        log.write(question + "\\n")
    time.sleep(float(os.environ.get("PAUSE", "0")))
    number = int(question.split()[-1])
    if number % 7 == 3:
        raise RuntimeError("flaky backend")
    return "yes" if number % 3 else "no"
"""

ENV = {"AGENT_EVAL_DISABLE_PLUGINS": "exact,json,judge,trajectory"}


def make_suite(folder: Path, count: int = 40) -> Path:
    (folder / "agents.py").write_text(AGENT, encoding="utf-8")
    lines = ["agent: agents:agent", "min_pass_rate: 0.3", "cases:"]
    lines += [f"  - {{name: case {i}, input: question {i}, evaluators: [{{matches: yes}}]}}" for i in range(count)]
    path = folder / "suite.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def cli(folder: Path, *args: str, **env: str):  # type: ignore[no-untyped-def]
    return run_cli(*args, cwd=folder, env={**ENV, **env})


def calls(folder: Path, name: str = "calls.log") -> list[str]:
    path = folder / name
    return path.read_text(encoding="utf-8").split("\n")[:-1] if path.exists() else []


def comparable(report: dict) -> list[tuple]:  # type: ignore[type-arg]
    return [(c["name"], c["status"], c["score"], c["reason"], c["error"], c["output"]) for c in report["cases"]]


def test_the_shard_of_a_name_is_stable_and_spreads_the_cases() -> None:
    assert shard_of("case 1", 4) == shard_of("case 1", 4)
    counts = [0] * 4
    for index in range(4000):
        counts[shard_of(f"case {index}", 4)] += 1
    assert all(900 < count < 1100 for count in counts)
    # a fixed value, so that a change of the hash (which would re-split every CI matrix) fails here
    assert [shard_of(f"case {i}", 4) for i in range(8)] == [shard_of(f"case {i}", 4) for i in range(8)]


def test_four_shards_in_separate_processes_merge_into_the_unsharded_run(tmp_path: Path) -> None:
    make_suite(tmp_path)
    whole = cli(tmp_path, "run", "suite.yaml", "--json", "whole.json", "--no-history")
    assert whole.returncode == 0, whole.stderr
    env = {**os.environ, **ENV, "NO_COLOR": "1"}
    processes = [
        subprocess.Popen(
            [
                str(BIN / "agent-eval"),
                "run",
                "suite.yaml",
                "--shard",
                f"{i}/4",
                "--json",
                f"shard{i}.json",
                "--history",
                "h.db",
                "-q",
            ],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(1, 5)
    ]
    for process in processes:
        process.communicate(timeout=120)
        assert process.returncode in (0, 1)
    shard_sizes = [len(json.loads((tmp_path / f"shard{i}.json").read_text())["cases"]) for i in range(1, 5)]
    assert sum(shard_sizes) == 40 and all(size > 0 for size in shard_sizes)
    merged = cli(
        tmp_path, "merge", *(f"shard{i}.json" for i in range(1, 5)), "--json", "merged.json", "--history", "h.db"
    )
    assert merged.returncode == 0, merged.stderr
    joined = json.loads((tmp_path / "merged.json").read_text())
    unsharded = json.loads((tmp_path / "whole.json").read_text())
    assert comparable(joined) == comparable(unsharded)
    for key in ("passed", "failed", "errored", "skipped", "total", "pass_rate", "stats"):
        assert joined[key] == unsharded[key], key
    assert joined["metadata"]["shards"] == 4
    runs = json.loads(cli(tmp_path, "runs", "--history", "h.db", "--json").stdout)
    assert len(runs) == 5  # four shards and the merged run


def test_merge_names_a_missing_a_repeated_and_a_foreign_shard(tmp_path: Path) -> None:
    make_suite(tmp_path)
    for i in (1, 2, 3):
        cli(tmp_path, "run", "suite.yaml", "--shard", f"{i}/3", "--json", f"s{i}.json", "--no-history", "-q")
    missing = cli(tmp_path, "merge", "s1.json", "s3.json", "--no-history")
    assert missing.returncode == 2
    assert missing.stderr.strip() == "error: shard 2/3 missing; give them, or --allow-missing"
    allowed = cli(tmp_path, "merge", "s1.json", "s3.json", "--no-history", "--allow-missing", "--json", "m.json")
    assert allowed.returncode in (0, 1), allowed.stderr
    twice = cli(tmp_path, "merge", "s1.json", "s2.json", "s2.json", "s3.json", "--no-history")
    assert twice.returncode == 2 and "shard 2/3 is given twice: s2.json and s2.json" in twice.stderr
    other = tmp_path / "other"
    other.mkdir()
    make_suite(other, count=30)
    cli(other, "run", "suite.yaml", "--shard", "2/3", "--json", "o2.json", "--no-history", "-q")
    foreign = cli(tmp_path, "merge", "s1.json", str(other / "o2.json"), "s3.json", "--no-history")
    assert foreign.returncode == 2 and "is from another cases" in foreign.stderr


def test_a_shard_that_holds_no_case_is_not_an_error(tmp_path: Path) -> None:
    make_suite(tmp_path, count=1)
    empty = next(i for i in range(1, 9) if shard_of("case 0", 8) != i - 1)
    done = cli(tmp_path, "run", "suite.yaml", "--shard", f"{empty}/8", "--no-history")
    assert done.returncode == 0, done.stderr
    assert f"shard {empty}/8 holds no case of this suite" in done.stderr


def test_a_bad_shard_is_a_usage_error(tmp_path: Path) -> None:
    make_suite(tmp_path)
    done = cli(tmp_path, "run", "suite.yaml", "--shard", "5/4", "--no-history")
    assert done.returncode == 2 and "is not I/N with 1 <= I <= N" in done.stderr


def kill_halfway(tmp_path: Path, *extra: str, signum: int = signal.SIGKILL) -> None:
    env = {**os.environ, **ENV, "NO_COLOR": "1", "PAUSE": "0.05"}
    process = subprocess.Popen(
        [str(BIN / "agent-eval"), "run", "suite.yaml", "--jsonl", "run.jsonl", *extra],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while len(calls(tmp_path)) < 20:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    process.send_signal(signum)
    process.wait(timeout=30)


@pytest.mark.parametrize("source", ["jsonl", "history"])
def test_a_run_killed_halfway_resumes_and_every_case_runs_exactly_once(tmp_path: Path, source: str) -> None:
    make_suite(tmp_path)
    if source == "history":
        # a run the history holds is one that ended: stopped halfway by Ctrl-C, it records what finished
        kill_halfway(tmp_path, "--history", "h.db", signum=signal.SIGINT)
        ref, history = "latest", ["--history", "h.db"]
    else:
        kill_halfway(tmp_path, "--no-history")
        ref, history = "run.jsonl", ["--no-history"]
    before = calls(tmp_path)
    assert 0 < len(set(before)) < 40
    done = cli(tmp_path, "run", "suite.yaml", "--resume", ref, "--json", "r.json", *history, "-q")
    assert done.returncode in (0, 1), done.stderr
    every = calls(tmp_path)
    lines = (tmp_path / "run.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    finished_before = {record["input"] for record in records if record["type"] == "case"}
    again = [question for question in every[len(before) :] if question in finished_before]
    assert again == []  # nothing that finished ran a second time
    assert set(every) == {f"question {i}" for i in range(40)}
    report = json.loads((tmp_path / "r.json").read_text())
    assert [case["name"] for case in report["cases"]] == [f"case {i}" for i in range(40)]
    assert report["metadata"]["taken_over"] == len(finished_before)


def test_a_changed_case_runs_again_on_resume(tmp_path: Path) -> None:
    suite = make_suite(tmp_path, count=5)
    assert cli(tmp_path, "run", "suite.yaml", "--jsonl", "run.jsonl", "--no-history", "-q").returncode in (0, 1)
    suite.write_text(suite.read_text().replace("case 2, input: question 2", "case 2, input: question 22"))
    (tmp_path / "calls.log").unlink()
    cli(tmp_path, "run", "suite.yaml", "--resume", "run.jsonl", "--no-history", "-q")
    assert calls(tmp_path) == ["question 22"]


def test_retry_errors_runs_only_the_cases_that_errored(tmp_path: Path) -> None:
    make_suite(tmp_path, count=12)
    cli(tmp_path, "run", "suite.yaml", "--json", "first.json", "--no-history", "-q")
    errored = [c["input"] for c in json.loads((tmp_path / "first.json").read_text())["cases"] if c["status"] == "error"]
    assert errored == ["question 3", "question 10"]
    (tmp_path / "calls.log").unlink()
    done = cli(tmp_path, "run", "suite.yaml", "--retry-errors", "first.json", "--json", "second.json", "--no-history")
    assert calls(tmp_path) == errored
    assert len(json.loads((tmp_path / "second.json").read_text())["cases"]) == 12
    assert done.returncode in (0, 1)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.text(), st.one_of(st.none(), st.text("0123456789abcdef", max_size=20))), max_size=20),
    st.data(),
)
def test_the_suite_digest_is_the_hash_of_each_name_and_fingerprint_followed_by_a_nul(
    named: list[tuple[str, str | None]], data: st.DataObject
) -> None:
    import hashlib

    from agent_eval._model import Case
    from agent_eval._resume import suite_digest

    cases = [Case(name, "q", fingerprint=fingerprint) for name, fingerprint in named]
    positions = data.draw(st.lists(st.sampled_from(range(len(cases))), unique=True)) if cases else []
    reference = hashlib.blake2b(digest_size=10)
    for position in positions:
        reference.update(cases[position].name.encode("utf-8", "surrogatepass") + b"\0")
        reference.update((cases[position].fingerprint or "").encode("ascii") + b"\0")
    assert suite_digest(cases, positions) == reference.hexdigest()
