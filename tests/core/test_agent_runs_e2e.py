"""Agent runs end to end: agents graded on their tool calls from a suite file, through the real command.

One agent is written with the ``openai`` SDK against ``ChatServer`` (the server plays the model: it asks
for tools, then answers) and wrapped in ``AgentRun.from_openai_messages``; the other records its calls
with ``@agent_eval.tool``. The same suite grades both, and the JSON report holds the calls.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_eval.testing import ChatServer
from agent_eval.testing.server import RecordedRequest, ReplyLike, tool_calls_reply
from tests.core.test_report_html_browser import Page, browser, chromium  # noqa: F401 - fixtures
from tests.helpers import run_cli

SUITE = """
name: support
min_pass_rate: 0.5
concurrency: 2
cases:
  - name: looks up the kettle
    input: What warranty does the kettle have?
    evaluators:
      - tool_called: {name: get_warranty, args: {product: kettle}}
      - trajectory_match: {expected: [{name: get_warranty, args: {product: kettle}}]}
      - contains: "2 years"
      - max_steps: 2
  - name: compares two products
    input: Compare the kettle and the toaster
    evaluators:
      - trajectory_match:
          expected: [{name: get_warranty, args: {product: toaster}}, {name: get_warranty, args: {product: kettle}}]
          mode: unordered
      - tool_not_called: delete_account
  - name: answers without a tool
    input: Hello
    evaluators:
      - tool_not_called: get_warranty
      - max_steps: 0
  - name: checks stock first
    input: Is the toaster in stock, and what is its warranty?
    evaluators:
      - trajectory_match: {expected: [check_stock, get_warranty], args: ignore}
"""

SDK_AGENT = '''
"""A support agent written with the openai SDK: a plain tool loop over chat completions."""

import json
import os

import openai

import agent_eval

WARRANTIES = {"kettle": "2 years, extendable to 4", "toaster": "2 years"}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_warranty",
            "description": "The warranty of a product.",
            "parameters": {"type": "object", "properties": {"product": {"type": "string"}}, "required": ["product"]},
        },
    }
]


def get_warranty(product):
    return WARRANTIES.get(product, "unknown")


def converse(question):
    """Answer with the model, running the tools it asks for; the whole conversation and each step's usage."""
    client = openai.OpenAI(base_url=os.environ["SUPPORT_MODEL_URL"], api_key="test", max_retries=0)
    messages = [{"role": "system", "content": "You answer warranty questions."}, {"role": "user", "content": question}]
    usages = []
    while True:
        completion = client.chat.completions.create(model="test-model", messages=messages, tools=TOOLS)
        usages.append(completion.usage)
        message = completion.choices[0].message
        messages.append(message)
        if not message.tool_calls:
            return messages, usages
        for call in message.tool_calls:
            result = get_warranty(**json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})


def agent(question):
    messages, usages = converse(question)
    return agent_eval.AgentRun.from_openai_messages(messages, usage=usages)
'''

TOOL_AGENT = '''
"""The same support agent without a framework: its tools record their calls with @agent_eval.tool."""

import agent_eval

WARRANTIES = {"kettle": "2 years, extendable to 4", "toaster": "2 years"}


@agent_eval.tool
def get_warranty(product):
    return WARRANTIES.get(product, "unknown")


def agent(question):
    products = [product for product in WARRANTIES if product in question.lower()]
    if not products:
        return "Hello! Ask me about a warranty."
    return " ".join(f"The {product} has {get_warranty(product)}." for product in products)
'''


def model(request: RecordedRequest) -> ReplyLike:
    """The scripted model: ask for every product's warranty (in parallel), then answer from the results."""
    messages = request.messages
    question = next(m["content"] for m in messages if m["role"] == "user")
    products = [product for product in ("kettle", "toaster") if product in question.lower()]
    if messages[-1]["role"] == "tool":
        results = [m["content"] for m in messages if m["role"] == "tool"]
        return " ".join(f"The {product} has {result}." for product, result in zip(products, results, strict=True))
    if not products:
        return "Hello! Ask me about a warranty."
    return tool_calls_reply([("get_warranty", {"product": product}) for product in products])


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "suite.yaml").write_text(textwrap.dedent(SUITE).lstrip(), encoding="utf-8")
    (tmp_path / "sdk_agent.py").write_text(SDK_AGENT, encoding="utf-8")
    (tmp_path / "tool_agent.py").write_text(TOOL_AGENT, encoding="utf-8")
    return tmp_path


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer(model) as running:
        yield running


def run(project: Path, agent: str, **env: str) -> tuple[Any, dict[str, Any]]:
    done = run_cli("run", "suite.yaml", "--agent", agent, "--json", "r.json", "--no-history", cwd=project, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads((project / "r.json").read_text(encoding="utf-8"))
    return done, {case["name"]: case for case in report["cases"]}


def calls(case: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    return [(call["name"], call["arguments"], call["result"]) for call in case["tool_calls"]]


def check_grades(cases: dict[str, Any]) -> None:
    assert {name: case["status"] for name, case in cases.items()} == {
        "looks up the kettle": "passed",
        "compares two products": "passed",
        "answers without a tool": "passed",
        "checks stock first": "failed",
    }
    assert cases["checks stock first"]["reason"].startswith("missing call 1 of 2: check_stock")
    assert calls(cases["looks up the kettle"]) == [("get_warranty", {"product": "kettle"}, "2 years, extendable to 4")]
    assert calls(cases["compares two products"]) == [
        ("get_warranty", {"product": "kettle"}, "2 years, extendable to 4"),
        ("get_warranty", {"product": "toaster"}, "2 years"),
    ]
    assert cases["answers without a tool"]["tool_calls"] == []
    assert cases["looks up the kettle"]["output"] == "The kettle has 2 years, extendable to 4."


def test_an_openai_sdk_agent_is_graded_on_its_tool_calls(project: Path, server: ChatServer) -> None:
    done, cases = run(project, "sdk_agent:agent", SUPPORT_MODEL_URL=server.url)
    check_grades(cases)
    (kettle_call,) = cases["looks up the kettle"]["tool_calls"]
    assert re.fullmatch(r"call_\d+", kettle_call["id"])
    assert kettle_call["error"] is None
    # two model calls of 11 + 7 tokens each (the server's fixed count); one for the greeting
    assert cases["looks up the kettle"]["usage"] == {"input_tokens": 22, "output_tokens": 14, "total_tokens": 36}
    assert cases["answers without a tool"]["usage"]["total_tokens"] == 18
    # the agent really spoke the protocol: its second request carries the tool result under the call's id
    followups = [r for r in server.chat_requests if r.messages[-1]["role"] == "tool"]
    assert len(followups) == 3
    kettle = next(r for r in followups if "kettle have" in r.message("user"))
    assert kettle.messages[-1] == {"role": "tool", "tool_call_id": kettle_call["id"], "content": kettle_call["result"]}
    assert kettle.json["tools"][0]["function"]["name"] == "get_warranty"
    assert "3 passed, 1 failed" in done.stdout


def test_the_same_suite_grades_an_agent_that_records_with_the_tool_decorator(project: Path) -> None:
    done, cases = run(project, "tool_agent:agent")
    check_grades(cases)
    assert cases["looks up the kettle"]["tool_calls"][0]["id"] is None  # recorded calls have no model id
    assert cases["looks up the kettle"]["usage"] is None
    assert "3 passed, 1 failed" in done.stdout


def test_the_demo_shows_one_trajectory_passing_and_one_failing_and_stays_above_its_bar(tmp_path: Path) -> None:
    # run from a copy of the suite: the command forgets the modules of its folder after the run, and the
    # repository's folder holds the installed packages themselves
    demo = Path(__file__).resolve().parents[2] / "examples" / "warranty.yaml"
    (tmp_path / "warranty.yaml").write_text(demo.read_text(encoding="utf-8"), encoding="utf-8")
    unconfigured: Any = {name: None for name in ("AGENT_EVAL_JUDGE_BASE_URL", "AGENT_EVAL_JUDGE_MODEL", "GROQ_API_KEY")}
    done = run_cli("run", "warranty.yaml", "--json", "r.json", "--no-history", cwd=tmp_path, env=unconfigured)
    assert done.returncode == 0, done.stdout + done.stderr
    cases = {case["name"]: case for case in json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["cases"]}
    looked_up = cases["looks up the warranty before answering"]
    assert looked_up["status"] == "passed"
    assert calls(looked_up) == [
        ("find_product", {"query": "kettle"}, "kettle"),
        ("get_warranty", {"product": "kettle"}, "2 years, extendable to 4"),
    ]
    compared = cases["looks up both warranties to compare them"]
    assert compared["status"] == "failed"
    assert compared["reason"].startswith('missing call 4 of 4: get_warranty({"product": "toaster"})')


def test_the_sdk_agent_s_trajectory_shows_in_the_html_report_in_chromium_and_in_show(
    project: Path,
    server: ChatServer,
    browser: Any,  # noqa: F811 - the fixture imported above
) -> None:
    done = run_cli(
        "run",
        "suite.yaml",
        "--agent",
        "sdk_agent:agent",
        "--html",
        "r.html",
        "--history",
        "h.db",
        cwd=project,
        env={"SUPPORT_MODEL_URL": server.url},
        process=True,  # the browser's driver runs an event loop in this process
    )
    assert done.returncode == 0, done.stdout + done.stderr
    page = Page(browser, project / "r.html")
    try:
        page.page.click("tr.case:has-text('compares two products') button.toggle")
        steps = page.page.locator("tr.details .trajectory li.step")
        page.expect(steps).to_have_count(2)
        assert steps.locator(".tool").all_text_contents() == ["get_warranty", "get_warranty"]
        assert steps.nth(0).locator("pre").all_text_contents() == [
            '{\n  "product": "kettle"\n}',
            "2 years, extendable to 4",
        ]
        assert steps.nth(1).locator("pre").all_text_contents() == ['{\n  "product": "toaster"\n}', "2 years"]
        assert page.errors == []
    finally:
        page.page.close()
    shown = run_cli("show", "latest", "--history", "h.db", "-v", cwd=project)
    assert shown.returncode == 0, shown.stderr
    steps = [line for line in shown.stdout.splitlines() if "└ step" in line]
    # the kettle case's call, the comparison's two, the stock question's one: each on its own row
    assert [("step 1" in line, "kettle" in line, "toaster" in line) for line in steps] == [
        (True, True, False),
        (True, True, False),
        (False, False, True),
        (True, False, True),
    ]
    assert all('get_warranty {"product": ' in line for line in steps)
