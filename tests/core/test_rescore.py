"""rescore: the answers a run stored, graded again with the suite's evaluators now, and no agent called."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_cli

AGENT = """
import itertools
from pathlib import Path

count = itertools.count()

def agent(question):
    with open("calls.log", "a") as log:
        log.write(question + "\\n")
    if question == "crash":
        raise RuntimeError("down")
    return {"kettle": "2 years, extendable", "toaster": "1 year", "flip": "yes" if next(count) % 2 else "no"}[question]
"""

SUITE = """
agent: agents:agent
cases:
  - {name: kettle, input: kettle, evaluators: [{contains: [2 years, extendable]}]}
  - {name: toaster, input: toaster, evaluators: [{contains: [2 years]}]}
  - {name: crash, input: crash, evaluators: [{contains: [anything]}]}
"""

ENV = {"AGENT_EVAL_DISABLE_PLUGINS": "exact,json,judge,trajectory"}


def cli(folder: Path, *args: str):  # type: ignore[no-untyped-def]
    return run_cli(*args, cwd=folder, env=ENV)


def calls(folder: Path) -> int:
    return len((folder / "calls.log").read_text(encoding="utf-8").splitlines())


def test_rescore_regrades_the_stored_answers_after_a_keyword_changes_and_calls_no_agent(tmp_path: Path) -> None:
    (tmp_path / "agents.py").write_text(AGENT, encoding="utf-8")
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE, encoding="utf-8")
    first = cli(tmp_path, "run", "suite.yaml", "--json", "first.json", "--history", "h.db")
    assert first.returncode == 1
    assert calls(tmp_path) == 3
    before = json.loads((tmp_path / "first.json").read_text())["cases"]
    assert [c["status"] for c in before] == ["passed", "failed", "error"]
    suite.write_text(SUITE.replace("contains: [2 years]", "contains: [1 year]"), encoding="utf-8")
    done = cli(tmp_path, "rescore", "latest", "--json", "second.json", "--history", "h.db")
    assert calls(tmp_path) == 3  # not one agent call
    after = json.loads((tmp_path / "second.json").read_text())
    assert [c["status"] for c in after["cases"]] == ["passed", "passed", "error"]
    assert [c["output"] for c in after["cases"]] == [c["output"] for c in before]
    assert after["cases"][2]["error"] == before[2]["error"]  # the case with no answer stays as it was
    assert after["metadata"]["rescored_from"] == json.loads((tmp_path / "first.json").read_text())["metadata"]["run_id"]
    assert done.returncode == 1  # the crash still errors: below the bar of 1.0
    listed = json.loads(cli(tmp_path, "runs", "--history", "h.db", "--json").stdout)
    assert len(listed) == 2


def test_rescore_of_a_repeated_run_grades_every_stored_attempt(tmp_path: Path) -> None:
    (tmp_path / "agents.py").write_text(AGENT, encoding="utf-8")
    (tmp_path / "suite.yaml").write_text(
        "agent: agents:agent\ncases:\n  - {name: flip, input: flip, evaluators: [{matches: '^yes$'}]}\n",
        encoding="utf-8",
    )
    cli(tmp_path, "run", "suite.yaml", "--repeat", "4", "--json", "first.json", "--no-history")
    first = json.loads((tmp_path / "first.json").read_text())["cases"][0]
    (tmp_path / "suite.yaml").write_text(
        "agent: agents:agent\ncases:\n  - {name: flip, input: flip, evaluators: [{matches: '^no$'}]}\n",
        encoding="utf-8",
    )
    cli(tmp_path, "rescore", "first.json", "--json", "second.json", "--no-history")
    second = json.loads((tmp_path / "second.json").read_text())["cases"][0]
    assert calls(tmp_path) == 4
    assert [a["output"] for a in second["attempts"]] == [a["output"] for a in first["attempts"]]
    assert [a["status"] for a in second["attempts"]] == [
        "failed" if a["status"] == "passed" else "passed" for a in first["attempts"]
    ]


def test_rescore_says_which_cases_of_the_suite_the_run_does_not_hold(tmp_path: Path) -> None:
    (tmp_path / "agents.py").write_text(AGENT, encoding="utf-8")
    (tmp_path / "suite.yaml").write_text(SUITE, encoding="utf-8")
    cli(tmp_path, "run", "suite.yaml", "-k", "kettle", "--json", "first.json", "--no-history")
    done = cli(tmp_path, "rescore", "first.json", "suite.yaml", "--json", "second.json", "--no-history")
    assert "warning: 2 cases of suite.yaml are not in first.json: not graded" in done.stderr
    assert [c["name"] for c in json.loads((tmp_path / "second.json").read_text())["cases"]] == ["kettle"]
    assert done.returncode == 0
