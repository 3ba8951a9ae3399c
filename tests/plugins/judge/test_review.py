"""``agent-eval review``: the page it writes (one file, strict policy, the run as escaped JSON), the runs it
reads, and ``--serve``. What the page does in a browser is in test_review_browser.py."""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from calibrate_helpers import judged_case, review, write_report, write_suite

from agent_eval import EvalResult, Evaluation, ToolCall

HOSTILE = "</script><script>window.__pwned=1</script><img src=x onerror=alert(1)> & \u202eevil"


def result(name: str, output: Any = "an answer", **extra: Any) -> EvalResult:
    return EvalResult(name, f"question of {name}", output=output, status="passed", **extra)


def page_parts(path: Path) -> dict[str, Any]:
    """The page's policy, its own script and style, and the data it embeds (read back)."""
    text = path.read_text(encoding="utf-8")
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', text)
    data = re.search(r'<script type="application/json" id="review-data">(.*?)</script>', text, re.S)
    scripts = re.findall(r"<script>(.*?)</script>", text, re.S)
    style = re.search(r"<style>(.*?)</style>", text, re.S)
    assert policy and data and style and len(scripts) == 1
    return {
        "text": text,
        "policy": policy.group(1),
        "raw_data": data.group(1),
        "data": json.loads(data.group(1)),
        "script": scripts[0],
        "style": style.group(1),
    }


def digest(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def test_the_page_allows_only_its_own_script_and_style_and_carries_the_run_as_inert_json(tmp_path: Path) -> None:
    write_report(tmp_path, [result("greets"), result(HOSTILE, output={"text": HOSTILE, "n": 1})])
    done = review(tmp_path, "run.json", "-o", "page.html")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "wrote page.html: 2 cases to label; open it in a browser\n"
    parts = page_parts(tmp_path / "page.html")
    policy = parts["policy"]
    assert policy.startswith("default-src 'none'; ")
    assert f"script-src '{digest(parts['script'])}';" in policy
    assert f"style-src '{digest(parts['style'])}';" in policy
    assert "base-uri 'none'" in policy and "form-action 'none'" in policy
    assert not re.search(r"[<>&]", parts["raw_data"])  # nothing in the data can end its element
    cases = parts["data"]["cases"]
    assert cases[1]["name"] == HOSTILE and cases[1]["output"] == {"text": HOSTILE, "n": 1}  # whole, as run
    assert "window.__pwned" not in parts["text"].replace(parts["raw_data"], "")
    assert not re.search(r"\b(src|href)=", parts["text"].replace(parts["raw_data"], ""))  # nothing loads


def test_the_page_data_holds_what_the_labels_file_and_its_first_line_need(tmp_path: Path) -> None:
    write_suite(tmp_path, [judged_case("greets", "The answer greets"), {"name": "plain", "input": "q"}])
    call = ToolCall("lookup", {"q": "kettle"}, result="30 days")
    evaluation = Evaluation("llm_judge", "failed", score=0.2, reason="too curt", metadata={"model": "m"})
    write_report(
        tmp_path,
        [result("greets", "hi", tool_calls=[call], evaluations=[evaluation], expected="hello"), result("plain")],
    )
    assert review(tmp_path, "run.json").returncode == 0
    data = page_parts(tmp_path / "review.html")["data"]
    assert {key: data[key] for key in ("key", "run", "suite", "suite_file", "source", "format", "version")} == {
        "key": "20260102-030405-abcdef",
        "run": "20260102-030405-abcdef",
        "suite": "calibration",
        "suite_file": "suite.json",
        "source": "run.json",
        "format": "agent-eval/labels",
        "version": 1,
    }
    assert data["download_name"] == "labels-20260102-030405-abcdef.jsonl"
    first, second = data["cases"]
    assert first["criteria"] == ["The answer greets"] and second["criteria"] == []
    assert (first["input"], first["expected"], first["output"]) == ("question of greets", "hello", "hi")
    assert first["evaluations"] == [
        {"name": "llm_judge", "status": "failed", "score": 0.2, "reason": "too curt", "error": None}
    ]
    assert [ToolCall.from_dict(call) for call in first["tool_calls"]] == [call]  # calibrate reads them back


def test_without_the_suite_file_the_page_has_no_criteria_and_says_why(tmp_path: Path) -> None:
    write_report(tmp_path, [result("greets")], suite_file="gone.yaml")
    done = review(tmp_path, "run.json")
    assert done.returncode == 0
    assert "warning: the run's suite file 'gone.yaml' is not here; the page shows no criteria" in done.stderr
    data = page_parts(tmp_path / "review.html")["data"]
    assert data["suite_file"] == "gone.yaml" and data["cases"][0]["criteria"] == []


def test_a_suite_given_wins_over_the_runs(tmp_path: Path) -> None:
    write_suite(tmp_path, [judged_case("greets", "Greets warmly")], name="other.json")
    write_report(tmp_path, [result("greets")], suite_file="gone.yaml")
    done = review(tmp_path, "run.json", "other.json")
    assert done.returncode == 0 and done.stderr == ""
    data = page_parts(tmp_path / "review.html")["data"]
    assert data["suite_file"] == "other.json" and data["cases"][0]["criteria"] == ["Greets warmly"]


def test_a_jsonl_stream_is_read_even_when_its_run_was_cut_short(tmp_path: Path) -> None:
    run = {"run_id": "r-7", "suite": "streamed", "suite_file": "suite.json"}
    lines = [
        json.dumps({"type": "case", "run": run, "index": 0, **result("a", "first").to_dict()}),
        json.dumps({"type": "case", "run": run, "index": 1, **result("b", "second").to_dict()}),
        '{"type": "case", "run": {"run_id": "r-7"}, "na',
    ]
    (tmp_path / "run.jsonl").write_text("\n".join(lines), encoding="utf-8")
    done = review(tmp_path, "run.jsonl")
    assert done.returncode == 0, done.stderr
    data = page_parts(tmp_path / "review.html")["data"]
    assert (data["run"], data["suite"]) == ("r-7", "streamed")
    assert [case["output"] for case in data["cases"]] == ["first", "second"]


def test_a_run_in_the_history_is_reviewed_by_its_id_or_latest(tmp_path: Path) -> None:
    from agent_eval import EvalReport
    from agent_eval._history import History

    report = EvalReport([result("a", "x"), result("b", "y")], name="recorded", metadata={"run_id": "r-42"})
    History(tmp_path / "h.db").record(report)
    for ref in ("latest", "r-42"):
        done = review(tmp_path, ref, "--history", "h.db")
        assert done.returncode == 0, done.stderr
        data = page_parts(tmp_path / "review.html")["data"]
        assert (data["run"], [case["name"] for case in data["cases"]]) == ("r-42", ["a", "b"])
    missing = review(tmp_path, "latest", "--history", "none.db")
    assert missing.returncode == 2
    assert missing.stderr.startswith("error: no run history at none.db")


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (None, "run.json: no such file; give a JSON report written by `run --json`, or a run id"),
        ('{"cases": 3}', "run.json: not an agent-eval report: expected an object with a 'cases' list"),
        ("{nope", "run.json: not an agent-eval report: invalid JSON at line 1, column 2"),
    ],
)
def test_a_file_that_is_not_a_report_is_one_line(tmp_path: Path, content: str | None, problem: str) -> None:
    if content is not None:
        (tmp_path / "run.json").write_text(content, encoding="utf-8")
    done = review(tmp_path, "run.json")
    assert done.returncode == 2
    assert done.stderr.startswith("error: " + problem), done.stderr
    assert len(done.stderr.splitlines()) == 1


def test_cases_must_have_distinct_names_as_labels_go_by_name(tmp_path: Path) -> None:
    write_report(tmp_path, [result("same"), result("other"), result("same")])
    done = review(tmp_path, "run.json")
    assert done.returncode == 2
    assert "two cases are named 'same'; labels go by case name, so each must be unique" in done.stderr
    assert not (tmp_path / "review.html").exists()


def test_a_run_without_an_id_keeps_its_progress_under_a_key_of_its_cases(tmp_path: Path) -> None:
    write_report(tmp_path, [result("a", "x")], run_id=None)
    review(tmp_path, "run.json", "-o", "one.html")
    review(tmp_path, "run.json", "-o", "two.html")
    one, two = (page_parts(tmp_path / name)["data"] for name in ("one.html", "two.html"))
    assert one["run"] is None and one["key"] == two["key"] and len(one["key"]) == 20
    assert one["download_name"] == "labels-review.jsonl"
    write_report(tmp_path, [result("a", "y")], run_id=None)
    review(tmp_path, "run.json", "-o", "three.html")
    assert page_parts(tmp_path / "three.html")["data"]["key"] != one["key"]


def test_the_pages_folder_is_made_and_a_page_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    write_report(tmp_path, [result("a")], suite_file=None)
    assert review(tmp_path, "run.json", "-o", "new/folder/page.html").returncode == 0
    assert (tmp_path / "new" / "folder" / "page.html").is_file()
    (tmp_path / "file").write_text("", encoding="utf-8")
    done = review(tmp_path, "run.json", "-o", "file/page.html")
    assert done.returncode == 2
    assert done.stderr.startswith("error: file/page.html: cannot write the page: "), done.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["file", "new", "run.json"]


def test_serve_refuses_a_port_in_use_in_one_line(tmp_path: Path) -> None:
    write_report(tmp_path, [result("a")])
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = review(tmp_path, "run.json", "--serve", "--port", str(port))
    assert done.returncode == 2
    assert f"error: cannot listen on 127.0.0.1:{port}: " in done.stderr and "give another --port" in done.stderr


@pytest.mark.slow
def test_serve_answers_the_page_on_localhost_until_ctrl_c(tmp_path: Path) -> None:
    write_report(tmp_path, [result("a"), result("b")])
    command = [str(Path(sys.executable).parent / "agent-eval"), "review", "run.json", "--serve", "--port", "0"]
    server = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        found = re.fullmatch(
            r"serving the review page of run\.json \(2 cases\) at (http://127\.0\.0\.1:(\d+)/) "
            r"\(Ctrl-C to stop\)\n",
            line,
        )
        assert found, line
        port = int(found.group(2))

        def get(path: str, host: str | None = None) -> tuple[int, dict[str, str], bytes]:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            connection.putrequest("GET", path, skip_host=host is not None)
            if host is not None:
                connection.putheader("Host", host)
            connection.endheaders()
            answer = connection.getresponse()
            body = answer.read()
            connection.close()
            return answer.status, {k.lower(): v for k, v in answer.getheaders()}, body

        status, headers, body = get("/")
        assert status == 200 and headers["content-type"] == "text/html; charset=utf-8"
        assert headers["content-security-policy"].startswith("default-src 'none'; script-src 'sha256-")
        assert headers["x-content-type-options"] == "nosniff" and headers["cache-control"] == "no-store"
        assert b'id="review-data"' in body and f"localhost:{port}" not in body.decode()
        assert get("/other")[0] == 404
        assert get("/", host=f"rebound.example:{port}")[0] == 403
        assert get("/", host=f"localhost:{port}")[0] == 200
    finally:
        server.send_signal(signal.SIGINT)
        _, err = server.communicate(timeout=20)
    assert server.returncode == 0, err
    assert err.strip().endswith("stopped")
