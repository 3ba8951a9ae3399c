"""One HTTP client per run, shared by every judge of the run, closed at the end; a cheap import."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from judge_helpers import answer_agent, run_cases, verdict_reply

from agent_eval import EvalSuite
from agent_eval._plugins import registry_of
from agent_eval._suite import load_suite
from agent_eval.testing import ChatServer
from agent_eval_judge import LLMJudge, llm_judge, plugin
from agent_eval_judge import session as judge_session


def test_one_connection_serves_every_judge_of_a_run(judge_at: ChatServer) -> None:
    judge_at.responder = lambda _: verdict_reply(True)
    run_cases([llm_judge(f"criterion {i}") for i in range(5)])
    assert len({request.client for request in judge_at.requests}) == 1


def test_runner_closes_the_client_at_the_end_of_the_run(judge_at: ChatServer) -> None:
    judge_at.responder = lambda _: verdict_reply(True)
    judges = [llm_judge("a"), llm_judge("b")]
    run_cases(judges)
    assert all(judge.sessions == [] for judge in judges)
    assert len(judge_session._sessions) == 0


def test_each_run_gets_a_fresh_client(judge_at: ChatServer) -> None:
    judge_at.responder = lambda _: verdict_reply(True)
    judge = llm_judge("polite", cache=False)
    run_cases([judge])
    run_cases([judge])
    first, second = judge_at.requests
    assert first.client != second.client


def test_aclose_is_idempotent_and_leaves_a_client_others_still_hold(judge_at: ChatServer) -> None:
    judge_at.responder = lambda _: verdict_reply(True)
    first, second = llm_judge("a", cache=False), llm_judge("b", cache=False)

    async def main() -> None:
        await first("Hello")
        await second("Hello")
        (session,) = first.sessions
        assert second.sessions == [session]
        await first.aclose()
        await first.aclose()
        assert not session.closed
        await second("Hello again")
        await second.aclose()
        assert session.closed

    asyncio.run(main())
    assert len(judge_at.requests) == 3


def test_two_suites_on_one_loop_do_not_close_each_others_client(judge_at: ChatServer) -> None:
    def slow_for_b(request: object) -> object:
        user = request.message("user")  # type: ignore[attr-defined]
        return verdict_reply(True, delay=0.3 if "slow" in user else 0.0)

    judge_at.responder = slow_for_b  # type: ignore[assignment]
    quick = EvalSuite(answer_agent(), [{"name": "q", "input": "x", "evaluator": llm_judge("quick", cache=False)}])
    slow = EvalSuite(answer_agent(), [{"name": "s", "input": "x", "evaluator": llm_judge("slow", cache=False)}])

    async def main() -> list[str]:
        reports = await asyncio.gather(quick.arun(print=False), slow.arun(print=False))
        return [report.cases[0].status for report in reports]

    assert asyncio.run(main()) == ["passed", "passed"]


def test_suite_files_take_a_bare_criterion_or_options(judge_at: ChatServer, tmp_path: Path) -> None:
    suite_file = tmp_path / "suite.yaml"
    suite_file.write_text(
        textwrap.dedent(
            """\
            cases:
              - name: bare
                input: Say hello
                evaluators:
                  - llm_judge: "The answer is polite"
              - name: options
                input: Say hello
                evaluators:
                  - llm_judge: {criteria: "The answer greets the user", samples: 3, include_input: false}
            """
        ),
        encoding="utf-8",
    )
    suite = load_suite(suite_file, registry=registry_of(plugin))
    first, second = (case.all_evaluators[0] for case in suite.cases)
    assert isinstance(first, LLMJudge) and first.options.criteria == "The answer is polite"
    assert isinstance(second, LLMJudge) and (second.options.samples, second.options.include_input) == (3, False)
    judge_at.responder = lambda _: verdict_reply(True)
    report = EvalSuite(answer_agent(), suite.cases).run(print=False)
    assert report.passed == 2
    assert len(judge_at.requests) == 4


def test_bad_options_in_a_suite_file_are_a_load_error_naming_the_line(tmp_path: Path) -> None:
    from agent_eval import SuiteError

    suite_file = tmp_path / "suite.yaml"
    suite_file.write_text(
        "cases:\n  - name: x\n    input: y\n    evaluators:\n      - llm_judge: {criteria: polite, samples: 0}\n",
        encoding="utf-8",
    )
    with pytest.raises(SuiteError) as raised:
        load_suite(suite_file, registry=registry_of(plugin))
    assert "suite.yaml:5" in str(raised.value)
    assert "samples must be a whole number" in str(raised.value)


def test_import_and_factory_leave_the_http_client_unloaded() -> None:
    code = (
        "import sys, agent_eval_judge, agent_eval_judge.plugin\n"
        "agent_eval_judge.llm_judge('x', samples=3)\n"
        "heavy = ('aiohttp', 'yarl', 'asyncio', 'agent_eval_judge.transport', 'agent_eval_judge.judging')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out.replace("'", '"')) == []


def test_installed_entry_point_lists_llm_judge_with_its_parameters() -> None:
    agent_eval = Path(sys.executable).parent / "agent-eval"
    out = subprocess.run([str(agent_eval), "list-evaluators", "--json"], capture_output=True, text=True, check=True)
    entries = {entry["name"]: entry for entry in json.loads(out.stdout)}
    entry = entries["llm_judge"]
    assert entry["package"] == "agent-eval-judge"
    assert entry["description"].startswith("Grades the answer against a natural-language criterion")
    names = [parameter["name"] for parameter in entry["parameters"]]
    assert names == [
        "criteria",
        "judge_agent",
        "model",
        "include_input",
        "include_expected",
        "samples",
        "cache",
        "include_trajectory",
    ]


def test_settings_are_read_once_per_run_not_per_evaluation(
    judge_at: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_eval_judge.config import Settings

    reads = []
    real = Settings.from_env.__func__  # type: ignore[attr-defined]

    def counted(cls: type[Settings], environ: object = None) -> Settings:
        reads.append(1)
        return real(cls, environ)  # type: ignore[no-any-return]

    monkeypatch.setattr(Settings, "from_env", classmethod(counted))
    judge_at.responder = lambda _: verdict_reply(True)
    run_cases([llm_judge(f"criterion {i}") for i in range(6)], concurrency=3)
    assert len(reads) == 1
    run_cases([llm_judge("another run")])
    assert len(reads) == 2


def test_a_run_served_from_the_cache_never_loads_aiohttp(judge_at: ChatServer, tmp_path: Path) -> None:
    judge_at.responder = lambda _: verdict_reply(True)
    code = (
        "import sys\n"
        "from agent_eval import EvalSuite\n"
        "from agent_eval_judge import llm_judge\n"
        "cases = [{'name': f'c{i}', 'input': f'q{i}', 'evaluator': llm_judge('polite')} for i in range(3)]\n"
        "report = EvalSuite(lambda q: 'Hello', cases).run(print=False)\n"
        "print(report.passed, report.usage.get('cache_hits', 0), 'aiohttp' in sys.modules)\n"
    )
    env = {**os.environ}
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert first.stdout.split() == ["3", "0", "True"]
    assert second.stdout.split() == ["3", "3", "False"]
    assert len(judge_at.requests) == 3
