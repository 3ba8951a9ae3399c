"""The API key never leaves the Authorization header: not in output, reports, cache, logs or exceptions."""

from __future__ import annotations

import json
import logging
import textwrap
from pathlib import Path

import pytest
from helpers import run_cli
from judge_helpers import only, run_cases, verdict_reply

from agent_eval.testing import ChatServer
from agent_eval.testing.server import RecordedRequest, Reply, completion_reply, error_reply
from agent_eval_judge import llm_judge

KEY = "sk-test-SECRET-0123456789"
FRAGMENTS = (KEY, "SECRET-0123456789")


def echoing_the_key(request: RecordedRequest) -> Reply:
    """A hostile or careless server that repeats the Authorization header back, in every way it can.

    A 401 stops the judge for the rest of the run, so suites put that case last.
    """
    token = request.headers.get("authorization", "")
    user = request.message("user")
    if "unauthorized" in user:
        return error_reply(
            401, f"Invalid API key provided: {token}", type="invalid_request_error", code="invalid_api_key"
        )
    if "flaky" in user:
        return error_reply(503, f"overloaded, retry with {token}", headers={"Retry-After": "0.01"})
    if "prose" in user:
        return completion_reply(f"I cannot grade this. Your header was {token}")
    return completion_reply(json.dumps({"reason": f"fine; you sent {token}", "pass": True, "score": 1}))


def write_project(root: Path) -> Path:
    (root / "leaky_agents.py").write_text("def agent(question):\n    return 'Hello there!'\n", encoding="utf-8")
    suite = root / "suite.yaml"
    suite.write_text(
        textwrap.dedent(
            """\
            name: secrets
            cases:
              - {name: fine, input: hi, evaluators: [{llm_judge: "fine"}]}
              - {name: flaky, input: hi, evaluators: [{llm_judge: "flaky"}]}
              - {name: prose, input: hi, evaluators: [{llm_judge: "prose"}]}
              - {name: unauthorized, input: hi, evaluators: [{llm_judge: "unauthorized"}]}
            """
        ),
        encoding="utf-8",
    )
    return suite


def all_text(paths: list[Path]) -> str:
    return "\n".join(path.read_bytes().decode("utf-8", errors="replace") for path in paths)


def test_key_appears_in_no_output_report_or_cache_of_a_real_cli_run(
    server: ChatServer, tmp_path: Path, judge_environment: Path
) -> None:
    server.responder = echoing_the_key
    suite = write_project(tmp_path)
    reports = {
        "--json": tmp_path / "report.json",
        "--jsonl": tmp_path / "cases.jsonl",
        "--junit": tmp_path / "junit.xml",
        "--html": tmp_path / "report.html",
        "--markdown": tmp_path / "report.md",
        "--history": tmp_path / "runs.db",
    }
    args = [arg for flag, path in reports.items() for arg in (flag, str(path))]
    env = {
        "AGENT_EVAL_JUDGE_BASE_URL": server.url,
        "AGENT_EVAL_JUDGE_MODEL": "judge-model",
        "AGENT_EVAL_JUDGE_API_KEY": KEY,
        "AGENT_EVAL_JUDGE_MAX_RETRIES": "1",
    }
    result = run_cli("run", str(suite), "--agent", "leaky_agents:agent", *args, cwd=tmp_path, env=env)

    # The key really was sent and echoed, so its absence below means something.
    assert server.requests and all(r.headers["authorization"] == f"Bearer {KEY}" for r in server.requests)
    assert result.returncode == 1, result.stdout + result.stderr
    report = json.loads(reports["--json"].read_text(encoding="utf-8"))
    statuses = {case["name"]: case["status"] for case in report["cases"]}
    assert statuses == {"unauthorized": "error", "flaky": "error", "prose": "error", "fine": "passed"}
    errors = {case["name"]: case["error"] for case in report["cases"]}
    assert "HTTP 401" in errors["unauthorized"] and "[REDACTED]" in errors["unauthorized"]
    assert "[REDACTED]" in errors["prose"]

    written = [path for path in reports.values() if path.exists()]
    assert len(written) == len(reports)
    cache_files = [path for path in judge_environment.rglob("*") if path.is_file()]
    assert cache_files
    haystack = "\n".join([result.stdout, result.stderr, all_text(written), all_text(cache_files)])
    for fragment in FRAGMENTS:
        assert fragment not in haystack
    assert "Traceback" not in result.stdout + result.stderr


def test_key_appears_in_no_exception_or_log_record(
    server: ChatServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    port = server.port
    monkeypatch.setenv("AGENT_EVAL_JUDGE_BASE_URL", f"http://127.0.0.1:{port}/v1?api_key=abc12345xyz")
    monkeypatch.setenv("AGENT_EVAL_JUDGE_MODEL", "judge-model")
    monkeypatch.setenv("AGENT_EVAL_JUDGE_API_KEY", KEY)
    monkeypatch.setenv("AGENT_EVAL_JUDGE_MAX_RETRIES", "1")
    server.responder = echoing_the_key
    caplog.set_level(logging.DEBUG)
    report = run_cases([llm_judge("flaky"), llm_judge("prose"), llm_judge("fine"), llm_judge("unauthorized")])
    assert [r.status for r in report.cases] == ["error", "error", "passed", "error"]
    assert any("retry" in record.getMessage() for record in caplog.records)
    texts = [caplog.text, report.to_json()]
    for fragment in (*FRAGMENTS, "abc12345xyz"):
        for text in texts:
            assert fragment not in text


def test_verdict_reasons_are_redacted(judge_at: ChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_EVAL_JUDGE_API_KEY", KEY)
    judge_at.queue(verdict_reply(True, 1.0, f"the header said Bearer {KEY}"))
    result = only(run_cases([llm_judge("polite")]))
    assert KEY not in result.reason
    assert "[REDACTED]" in result.reason


def test_key_stays_out_of_the_repr_of_everything_the_judge_holds(
    judge_at: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    from agent_eval_judge.config import resolve_endpoint

    monkeypatch.setenv("AGENT_EVAL_JUDGE_API_KEY", KEY)
    judge_at.queue(verdict_reply(True))
    judge = llm_judge("polite")

    async def main() -> str:
        verdict = await judge("Hello")
        (session,) = judge.sessions
        shown = " ".join(repr(x) for x in (verdict, judge, session, resolve_endpoint(), vars(session)))
        await judge.aclose()
        return shown

    assert KEY not in asyncio.run(main())
