"""Each result's JSON is made by a writer that hands plain values to orjson as they are: its text is the
careful writer's (``to_dict`` and :func:`agent_eval._json.encode`), whatever the values hold."""

from __future__ import annotations

import datetime
import enum
import uuid
from collections import OrderedDict
from typing import Any

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_eval._agent_run import ToolCall, Usage
from agent_eval._json import encode
from agent_eval._model import Attempt, EvalResult, Evaluation, case_json


class Colour(enum.Enum):
    RED = "red"


class Text(str):
    pass


#: Values jsonable changes or that orjson writes its own way, besides what hypothesis makes.
ODD: list[Any] = [
    float("nan"),
    float("inf"),
    -float("inf"),
    2**63,
    2**64,
    -(2**63) - 1,
    10**30,
    "\ud800 alone",
    "a \ud83d\udca9 pair of halves",
    "\u2028 line separator",
    Colour.RED,
    uuid.UUID(int=7),
    datetime.datetime(2026, 1, 1),
    b"bytes \xff",
    {1, 2},
    frozenset({3}),
    OrderedDict(a=1),
    Text("a str subclass"),
    True,
    {1: "int key"},
    {"\udcff": "surrogate key"},
    {None: "none key"},
    [[[["four deep"]]]],
    list(range(65)),
    (),
    {},
    [],
]

leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(st.characters(codec=None, exclude_categories=())),
    st.sampled_from(ODD),
)
values = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(st.one_of(st.text(max_size=3), st.integers(0, 3)), inner, max_size=4),
    ),
    max_leaves=12,
)
texts = st.one_of(st.text(max_size=8), st.sampled_from(["\ud800", "é", "\x1b[31m"]))
numbers = st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True), st.integers(-3, 2**65))


@st.composite
def results(draw: st.DrawFn) -> EvalResult:
    def evaluation() -> Evaluation:
        return Evaluation(
            draw(texts),
            draw(st.sampled_from(["passed", "failed", "error", "skipped"])),
            score=draw(numbers),
            reason=draw(st.one_of(st.none(), texts)),
            frames=draw(st.lists(texts, max_size=2)),
            duration_ms=draw(st.one_of(st.floats(allow_nan=True), st.integers(0, 3))),
            metadata=draw(st.one_of(st.dictionaries(st.text(max_size=3), values, max_size=3), values)),
        )

    tool_calls = [
        ToolCall(draw(texts), draw(st.one_of(values, texts)), result=draw(values))
        for _ in range(draw(st.integers(0, 2)))
    ]
    attempts = [
        Attempt(index, draw(st.sampled_from(["passed", "failed"])), output=draw(values), evaluations=[evaluation()])
        for index in range(draw(st.integers(0, 2)))
    ]
    usage = draw(st.one_of(st.none(), st.builds(Usage, st.integers(0, 2**66), st.integers(0, 9))))
    return EvalResult(
        draw(texts),
        draw(values),
        output=draw(values),
        expected=draw(values),
        status=draw(st.sampled_from(["passed", "failed", "error", "skipped"])),
        score=draw(numbers),
        metadata=draw(st.one_of(st.dictionaries(st.text(max_size=3), values, max_size=3), values)),
        evaluations=[evaluation() for _ in range(draw(st.integers(0, 2)))],
        tool_calls=tool_calls,
        usage=usage,
        cost_usd=draw(numbers),
        attempts=attempts,
        fingerprint=draw(st.one_of(st.none(), texts)),
    )


@settings(max_examples=400, deadline=None)
@given(results())
def test_a_results_json_is_the_careful_writers_text(result: EvalResult) -> None:
    assert case_json(result) == encode(result.to_dict())


def test_odd_values_anywhere_give_the_careful_writers_text() -> None:
    for value in ODD:
        for where in ("input", "output", "metadata", "evaluation", "tool"):
            result = EvalResult(
                "case",
                value if where == "input" else "q",
                output=value if where == "output" else "a",
                status="passed",
                metadata={"m": value} if where == "metadata" else {},
                evaluations=[Evaluation("e", "passed", metadata={"m": value} if where == "evaluation" else {})],
                tool_calls=[ToolCall("t", {"a": value})] if where == "tool" else [],
            )
            assert case_json(result) == encode(result.to_dict()), (where, value)


def test_a_record_of_a_subclass_is_written_the_careful_way() -> None:
    class Loud(Evaluation):
        def to_dict(self) -> dict[str, Any]:
            return {**super().to_dict(), "loud": True}

    result = EvalResult("case", "q", status="passed", evaluations=[Loud("e", "passed")])
    assert b'"loud":true' in case_json(result)


def test_the_runners_record_makers_set_every_field_as_the_class_does() -> None:
    from agent_eval._model import (
        CONTEXT_FIELDS,
        EVALUATION_FIELDS,
        RESULT_FIELDS,
        Case,
        EvaluatorContext,
        make_context,
        make_evaluation,
        make_result,
    )

    orders = ((EvaluatorContext, CONTEXT_FIELDS), (Evaluation, EVALUATION_FIELDS), (EvalResult, RESULT_FIELDS))
    for cls, order in orders:
        assert tuple(field.name for field in attrs.fields(cls)) == order

    evaluation = Evaluation("e", "failed", score=0.5, reason="r", frames=("f",), duration_ms=1.0, metadata={"m": 1})
    result = EvalResult(
        "n", "q", output="a", expected="x", status="failed", score=0.5, reason="r", error="e", frames=("f",),
        duration_ms=2.0, metadata={"k": 1}, evaluations=(evaluation,), tool_calls=(ToolCall("t"),),
        usage=Usage(1, 2), cost_usd=0.1, attempts=(Attempt(0, "failed"),), fingerprint="fp",
    )  # fmt: skip
    context = EvaluatorContext(Case("n", "q"), "a", duration_ms=3.0, attempt=2)
    for record, make in ((evaluation, make_evaluation), (result, make_result), (context, make_context)):
        fields = {field.name: getattr(record, field.name) for field in attrs.fields(type(record))}
        made = make(*fields.values())
        assert type(made) is type(record)
        assert made == record
        assert {name: getattr(made, name) for name in fields} == fields
    assert make_result(*(getattr(result, name) for name in RESULT_FIELDS))._json is None


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(values, values, values), min_size=1, max_size=6))
def test_the_json_the_runner_makes_with_each_result_is_the_careful_writers(answers: list[tuple[Any, Any, Any]]) -> None:
    import asyncio

    from agent_eval import Verdict
    from agent_eval._cases import Cases
    from agent_eval._execution import RunPlan, execute_plan
    from agent_eval._local import LocalExecutor
    from agent_eval._model import Case

    outputs = {f"q{i}": output for i, (output, _, _) in enumerate(answers)}

    async def agent(question: str) -> Any:
        return outputs[question]

    def judge(output: Any) -> Verdict:
        return Verdict(output is not None, metadata={"seen": answers[0][1], "more": [answers[0][2]]})

    cases = Cases(
        Case(
            f"c{i}\ud800" if i == 2 else f"c{i}", f"q{i}", expected=expected, metadata={"m": meta}, evaluators=(judge,)
        )
        for i, (_, expected, meta) in enumerate(answers)
    )
    plan = RunPlan(cases=cases, agent=agent, results_as_json=True)
    report = asyncio.run(execute_plan(plan, LocalExecutor()))
    for result in report.cases:
        made = result._json
        assert case_json(result) == encode(result.to_dict())
        if made is not None:
            assert made == encode(result.to_dict())


def test_the_runner_makes_a_plain_results_json_with_it_when_asked_and_only_then() -> None:
    import asyncio

    from agent_eval._cases import Cases
    from agent_eval._execution import RunPlan, execute_plan
    from agent_eval._local import LocalExecutor
    from agent_eval._model import Case

    async def agent(question: str) -> str:
        return "the answer to " + question

    cases = Cases([Case("c", "q", metadata={"k": [1, "two"]}, evaluators=(lambda output: "answer" in output,))])
    for asked in (True, False):
        report = asyncio.run(execute_plan(RunPlan(cases=cases, agent=agent, results_as_json=asked), LocalExecutor()))
        (result,) = report.cases
        assert (result._json is not None) is asked
        assert case_json(result) == encode(result.to_dict())


def test_results_made_in_several_threads_at_once_each_get_their_own_json() -> None:
    import sys
    import threading

    from agent_eval._local import _assemble
    from agent_eval._model import Case

    wrong: list[str] = []

    def work(tag: str) -> None:
        case = Case(tag, "q", evaluators=(lambda output: True,))
        evaluation = Evaluation("e", "passed", score=1.0, reason=tag)
        for _ in range(20_000):
            result = _assemble(case, tag * 50, [evaluation], 1.0, json=True)
            assert result._json is not None
            if result._json != encode(result.to_dict()):
                wrong.append(tag)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # a switch between any two steps
    try:
        threads = [threading.Thread(target=work, args=(tag,)) for tag in "AB"]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert wrong == []
