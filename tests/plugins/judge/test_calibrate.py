"""``agent-eval calibrate``: a person's labels against the suite's judges, through the real command and a
real chat-completions server on 127.0.0.1 whose verdicts the tests script per graded output."""

from __future__ import annotations

from pathlib import Path

import pytest
from calibrate_helpers import calibrate, judge_by, judged_case, kappa_by_hand, says_pass, write_labels, write_suite
from judge_helpers import verdict_reply

from agent_eval.testing import ChatServer
from agent_eval.testing.server import completion_reply

# 40 labelled outputs: the person passes 20 and fails 20; the judge agrees on 15 + 16 of them.
TABLE = {"tp": 15, "fn": 5, "fp": 4, "tn": 16}


def forty(tmp_path: Path, criteria: tuple[str, ...] = ("The answer is correct",)) -> list[dict[str, object]]:
    """The suite of 40 judged cases and the labels of the TABLE (criteria taken in turn), written to tmp_path."""
    cells = [("tp", True, True), ("fn", True, False), ("fp", False, True), ("tn", False, False)]
    rows = []
    for cell, label, verdict in cells:
        for _ in range(TABLE[cell]):
            index = len(rows)
            output = f"answer {index} {'judge-pass' if verdict else 'judge-fail'}"
            rows.append({"name": f"c{index:02d}", "output": output, "label": "pass" if label else "fail"})
    cases = [judged_case(str(row["name"]), criteria[index % len(criteria)]) for index, row in enumerate(rows)]
    write_suite(tmp_path, cases)
    write_labels(tmp_path, rows, header={"format": "agent-eval/labels", "suite_file": "suite.json", "run": "r1"})
    return rows


@pytest.fixture
def by_output(judge_at: ChatServer) -> ChatServer:
    judge_at.responder = judge_by(says_pass)
    return judge_at


def test_forty_labels_give_the_agreement_and_kappa_of_their_2x2_table(tmp_path: Path, by_output: ChatServer) -> None:
    forty(tmp_path)
    done = calibrate(tmp_path, "labels.jsonl", "--json")
    assert done.returncode == 0, done.stderr
    data = done.data
    tp, fn, fp, tn = TABLE["tp"], TABLE["fn"], TABLE["fp"], TABLE["tn"]
    assert data["n"] == 40 and data["labelled"] == 40
    assert data["agreement"] == pytest.approx((tp + tn) / 40)  # 0.775
    assert data["kappa"] == pytest.approx(kappa_by_hand(tp, fn, fp, tn))  # 0.55
    assert data["kappa"] == pytest.approx(0.55)
    assert data["confusion"] == {"true_pass": tp, "false_fail": fn, "false_pass": fp, "true_fail": tn}
    assert data["false_pass_rate"] == pytest.approx(fp / (fp + tn))  # over the person's fails
    assert data["false_fail_rate"] == pytest.approx(fn / (fn + tp))  # over the person's passes
    assert data["kappa_ci_low"] < data["kappa"] < data["kappa_ci_high"]
    assert data["model"] is None and data["judge_models"] == ["judge-model"]
    assert data["errors"] == [] and data["skipped"] == [] and data["without_judge"] == []
    assert [entry["model"] for entry in data["models"]] == [None]
    assert data["suite_file"] == "suite.json" and data["run"] == "r1"
    assert len(by_output.chat_requests) == 40  # one question per label: no agent, no second asking
    kinds = sorted(item["kind"] for item in data["disagreements"])
    assert kinds == ["false_fail"] * fn + ["false_pass"] * fp


def test_the_kappa_interval_is_the_large_sample_one_of_fleiss_cohen_and_everitt(
    tmp_path: Path, by_output: ChatServer
) -> None:
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    forty(tmp_path)
    data = calibrate(tmp_path, "labels.jsonl", "--json").data
    reference = inter_rater.cohens_kappa([[TABLE["tp"], TABLE["fn"]], [TABLE["fp"], TABLE["tn"]]])
    assert data["kappa_se"] == pytest.approx(reference.std_kappa)
    assert data["kappa_ci_low"] == pytest.approx(reference.kappa - 1.959963984540054 * reference.std_kappa)
    assert data["kappa_ci_high"] == pytest.approx(reference.kappa + 1.959963984540054 * reference.std_kappa)


def test_the_text_says_agreement_kappa_the_confusion_and_the_false_pass_rate(
    tmp_path: Path, by_output: ChatServer
) -> None:
    forty(tmp_path)
    done = calibrate(tmp_path, "labels.jsonl")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "calibrate: 40 labels in labels.jsonl against suite.json" in out
    assert "judge (judge-model): 40 graded" in out
    assert "agreement        0.775  (31 of 40)" in out
    assert "Cohen's kappa    0.550 (95% CI " in out
    assert "    person pass            15           5\n    person fail             4          16\n" in out
    assert "false-pass rate  0.200  (4 of the 20 the person failed, the judge passed)" in out
    assert "false-fail rate  0.250  (5 of the 20 the person passed, the judge failed)" in out
    assert "false passes: 'c20', 'c21', 'c22', 'c23'" in out
    assert "per criterion" not in out  # one criterion only


def test_min_kappa_passes_at_or_above_and_fails_below(tmp_path: Path, by_output: ChatServer) -> None:
    forty(tmp_path)
    assert calibrate(tmp_path, "labels.jsonl", "--min-kappa", "0.5").returncode == 0
    below = calibrate(tmp_path, "labels.jsonl", "--min-kappa", "0.6")
    assert below.returncode == 1
    assert "below the bar: Cohen's kappa 0.550 is below --min-kappa 0.6" in below.stderr
    assert calibrate(tmp_path, "labels.jsonl", "--min-kappa", "0.6", "--json").data["below_min_kappa"]


def test_each_criterion_has_its_own_figures(tmp_path: Path, by_output: ChatServer) -> None:
    rows = forty(tmp_path, criteria=("The answer is correct", "The answer is polite"))
    data = calibrate(tmp_path, "labels.jsonl", "--json").data
    entries = {entry["criteria"]: entry for entry in data["criteria"]}
    assert list(entries) == ["The answer is correct", "The answer is polite"]
    for offset, entry in enumerate(entries.values()):
        mine = rows[offset::2]
        table = {"tp": 0, "fn": 0, "fp": 0, "tn": 0}
        for row in mine:
            said = "judge-pass" in str(row["output"])
            table[("t" if (row["label"] == "pass") == said else "f") + ("p" if said else "n")] += 1
        cells = (table["tp"], table["fn"], table["fp"], table["tn"])
        assert entry["n"] == len(mine) == 20
        assert entry["confusion"] == dict(
            zip(("true_pass", "false_fail", "false_pass", "true_fail"), cells, strict=True)
        )
        assert entry["kappa"] == pytest.approx(kappa_by_hand(*cells))
    text = calibrate(tmp_path, "labels.jsonl").stdout
    assert "per criterion (2):" in text and "The answer is polite" in text


def test_two_models_are_compared_with_the_person_and_with_each_other(tmp_path: Path, judge_at: ChatServer) -> None:
    forty(tmp_path)
    # model a judges as the outputs say; model b passes everything
    judge_at.responder = judge_by(lambda output, model: says_pass(output) if model == "a" else True)
    done = calibrate(tmp_path, "labels.jsonl", "--model", "a", "--model", "b", "--json")
    assert done.returncode == 0, done.stderr
    data = done.data
    by_model = {entry["model"]: entry for entry in data["models"]}
    assert list(by_model) == ["a", "b"] and data["model"] == "a"
    assert data["kappa"] == pytest.approx(0.55)  # the top-level figures are the first model's
    assert by_model["b"]["confusion"] == {"true_pass": 20, "false_fail": 0, "false_pass": 20, "true_fail": 0}
    assert by_model["b"]["kappa"] == pytest.approx(0.0)
    assert by_model["b"]["false_pass_rate"] == 1.0
    [pair] = data["pairwise"]
    assert pair["models"] == ["a", "b"] and pair["n"] == 40
    # a passes 19 (15 + 4) of the 40 that b passes: they agree on those 19
    assert pair["agreement"] == pytest.approx(19 / 40)
    assert pair["kappa"] == pytest.approx(kappa_by_hand(19, 21, 0, 0))
    assert isinstance(data["alpha"], float) and -1 <= data["alpha"] <= 1
    models = sorted(request.json["model"] for request in judge_at.chat_requests)
    assert models == ["a"] * 40 + ["b"] * 40
    text = calibrate(tmp_path, "labels.jsonl", "--model", "a", "--model", "b").stdout
    assert "judge model a: 40 graded" in text and "judge model b: 40 graded" in text
    assert "a vs b: agreement 0.475 over 40 graded by both" in text
    assert "Krippendorff's alpha, the person and the 2 judges: " in text


def test_min_kappa_holds_every_model_to_the_bar(tmp_path: Path, judge_at: ChatServer) -> None:
    forty(tmp_path)
    judge_at.responder = judge_by(lambda output, model: says_pass(output) if model == "a" else True)
    done = calibrate(tmp_path, "labels.jsonl", "--model", "a", "--model", "b", "--min-kappa", "0.5")
    assert done.returncode == 1
    assert "below the bar: model 'b': Cohen's kappa 0.000 is below --min-kappa 0.5" in done.stderr
    assert "model 'a'" not in done.stderr


def test_judges_that_agree_with_the_person_on_everything_have_kappa_and_alpha_one(
    tmp_path: Path, judge_at: ChatServer
) -> None:
    rows = [{"name": f"c{i}", "output": f"o{i} judge-{'pass' if i % 2 else 'fail'}"} for i in range(6)]
    for row in rows:
        row["label"] = "pass" if "judge-pass" in row["output"] else "fail"
    write_suite(tmp_path, [judged_case(row["name"]) for row in rows])
    write_labels(tmp_path, rows)
    judge_at.responder = judge_by(says_pass)
    data = calibrate(tmp_path, "labels.jsonl", "suite.json", "--model", "a", "--model", "b", "--json").data
    assert (data["agreement"], data["kappa"], data["kappa_ci_low"], data["kappa_ci_high"]) == (1.0, 1.0, 1.0, 1.0)
    assert data["false_pass_rate"] == 0.0 and data["false_fail_rate"] == 0.0
    assert data["pairwise"][0]["kappa"] == 1.0
    assert data["alpha"] == 1.0


def test_one_class_only_leaves_kappa_undefined_even_in_full_agreement(tmp_path: Path, judge_at: ChatServer) -> None:
    rows = [{"name": f"c{i}", "output": f"o{i} judge-pass", "label": "pass"} for i in range(5)]
    write_suite(tmp_path, [judged_case(row["name"]) for row in rows])
    write_labels(tmp_path, rows)
    judge_at.responder = judge_by(says_pass)
    data = calibrate(tmp_path, "labels.jsonl", "suite.json", "--json").data
    assert data["agreement"] == 1.0
    assert (data["kappa"], data["kappa_se"], data["kappa_ci_low"], data["kappa_ci_high"]) == (None, None, None, None)
    assert data["false_pass_rate"] is None  # the person failed nothing
    assert data["false_fail_rate"] == 0.0
    assert data["alpha"] is None
    text = calibrate(tmp_path, "labels.jsonl", "suite.json").stdout
    assert "Cohen's kappa    undefined (the person and the judge gave every output one same label)" in text
    assert "false-pass rate  -  (0 of the 0 the person failed, the judge passed)" in text
    gated = calibrate(tmp_path, "labels.jsonl", "suite.json", "--min-kappa", "0")
    assert gated.returncode == 1
    assert "Cohen's kappa is undefined, so it cannot be shown to reach --min-kappa 0" in gated.stderr


def test_judge_errors_are_counted_and_listed_never_taken_for_verdicts(tmp_path: Path, judge_at: ChatServer) -> None:
    forty(tmp_path)

    def rule(output: str, _model: str) -> object:
        if output.startswith(("answer 3 ", "answer 17 ")):
            return completion_reply("Looks fine to me!")  # prose: an unreadable verdict
        return says_pass(output)

    judge_at.responder = judge_by(rule)  # type: ignore[arg-type]
    done = calibrate(tmp_path, "labels.jsonl", "--json")
    assert done.returncode == 0, done.stderr
    data = done.data
    assert data["n"] == 38
    assert [(error["name"], error["line"]) for error in data["errors"]] == [("c03", 5), ("c17", 19)]
    assert all("judge" in error["reason"] for error in data["errors"])
    assert data["confusion"]["true_pass"] == 14 and data["confusion"]["false_fail"] == 4
    text = calibrate(tmp_path, "labels.jsonl").stdout
    assert "judge (judge-model): 38 graded" in text
    assert "  2 label(s) could not be graded (errors), not counted above:\n    line 5 'c03': " in text
    gated = calibrate(tmp_path, "labels.jsonl", "--min-kappa", "0.1")
    assert gated.returncode == 1
    assert "2 of the labels could not be graded, so kappa does not cover them all" in gated.stderr


def test_a_judge_that_grades_nothing_leaves_nothing_to_calibrate(tmp_path: Path, judge_at: ChatServer) -> None:
    forty(tmp_path)
    judge_at.responder = lambda _request: completion_reply("no idea")
    done = calibrate(tmp_path, "labels.jsonl")
    assert done.returncode == 2
    assert "error: the judge graded none of the 40 labelled outputs (see the errors above): nothing to calibrate" in (
        done.stderr
    )
    assert "40 label(s) could not be graded (errors)" in done.stdout


def test_an_unconfigured_judge_is_said_clearly_and_exits_2(tmp_path: Path) -> None:
    forty(tmp_path)
    done = calibrate(tmp_path, "labels.jsonl")
    assert done.returncode == 2
    assert done.stderr.startswith("error: every judge evaluation was skipped, so nothing was graded: no LLM judge")
    assert "AGENT_EVAL_JUDGE_BASE_URL" in done.stderr and "nothing to calibrate" in done.stderr
    assert done.stdout == ""


def test_verdicts_come_from_the_cache_the_second_time(tmp_path: Path, by_output: ChatServer) -> None:
    forty(tmp_path)
    first = calibrate(tmp_path, "labels.jsonl", "--json").data
    assert len(by_output.chat_requests) == 40
    again = calibrate(tmp_path, "labels.jsonl", "--json").data
    assert len(by_output.chat_requests) == 40  # nothing asked twice
    assert again["kappa"] == first["kappa"]


def test_the_cache_holds_the_verdicts_of_the_run_that_made_the_outputs(tmp_path: Path, by_output: ChatServer) -> None:
    from helpers import run_cli

    (tmp_path / "agent.py").write_text("def agent(question):\n    return 'judge-pass for ' + question\n")
    write_suite(tmp_path, [judged_case("one"), judged_case("two")])
    done = run_cli("run", "suite.json", "--agent", "agent:agent", "--no-history", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert len(by_output.chat_requests) == 2
    rows = [
        {"name": name, "output": f"judge-pass for question of {name}", "label": label}
        for name, label in (("one", "pass"), ("two", "fail"))
    ]
    write_labels(tmp_path, rows, header={"suite_file": "suite.json"})
    data = calibrate(tmp_path, "labels.jsonl", "--json").data
    assert data["confusion"] == {"true_pass": 1, "false_fail": 0, "false_pass": 1, "true_fail": 0}
    assert len(by_output.chat_requests) == 2  # the run's verdicts, taken from the cache


def test_labels_of_cases_without_a_judge_are_left_out_and_named(tmp_path: Path, by_output: ChatServer) -> None:
    write_suite(
        tmp_path,
        [judged_case("judged"), {"name": "plain", "input": "q", "evaluators": [{"contains": "x"}]}],
    )
    rows = [
        {"name": "judged", "output": "judge-pass", "label": "pass"},
        {"name": "plain", "output": "x", "label": "pass"},
    ]
    write_labels(tmp_path, rows)
    data = calibrate(tmp_path, "labels.jsonl", "suite.json", "--json").data
    assert data["n"] == 1 and data["labelled"] == 2 and data["without_judge"] == ["plain"]
    text = calibrate(tmp_path, "labels.jsonl", "suite.json").stdout
    assert "1 labelled case(s) have no llm_judge evaluation, left out: 'plain'" in text
    write_labels(tmp_path, rows[1:])
    nothing = calibrate(tmp_path, "labels.jsonl", "suite.json")
    assert nothing.returncode == 2
    assert "has an llm_judge evaluation in suite.json: nothing to calibrate" in nothing.stderr


def test_several_judges_of_one_case_pass_it_only_together(tmp_path: Path, judge_at: ChatServer) -> None:
    from calibrate_helpers import criterion

    case = {"name": "both", "input": "q", "evaluators": [{"llm_judge": "is short"}, {"llm_judge": "is kind"}]}
    write_suite(tmp_path, [case])
    write_labels(tmp_path, [{"name": "both", "output": "hi", "label": "pass"}])
    judge_at.responder = lambda request: verdict_reply(criterion(request) == "is short")
    data = calibrate(tmp_path, "labels.jsonl", "suite.json", "--json").data
    assert data["confusion"]["false_fail"] == 1  # the case fails: one of its judges failed it
    by_criteria = {entry["criteria"]: entry["confusion"] for entry in data["criteria"]}
    assert by_criteria["is short"]["true_pass"] == 1 and by_criteria["is kind"]["false_fail"] == 1


def test_a_judge_in_a_combinator_is_not_the_cases_judge(tmp_path: Path, by_output: ChatServer) -> None:
    case = {"name": "any", "input": "q", "evaluators": [{"any": [{"llm_judge": "is short"}, {"contains": "x"}]}]}
    write_suite(tmp_path, [case])
    write_labels(tmp_path, [{"name": "any", "output": "judge-pass", "label": "pass"}])
    done = calibrate(tmp_path, "labels.jsonl", "suite.json")
    assert done.returncode == 2 and "nothing to calibrate" in done.stderr


def test_model_does_not_apply_to_a_judge_agent(tmp_path: Path, by_output: ChatServer) -> None:
    (tmp_path / "judges.py").write_text(
        'def strict(prompt):\n    return \'{"reason": "r", "pass": false, "score": 0}\'\n'
    )
    case = {
        "name": "c",
        "input": "q",
        "evaluators": [{"llm_judge": {"criteria": "ok", "judge_agent": "judges:strict"}}],
    }
    write_suite(tmp_path, [case])
    write_labels(tmp_path, [{"name": "c", "output": "judge-pass", "label": "pass"}])
    env = {"PYTHONPATH": str(tmp_path)}
    graded = calibrate(tmp_path, "labels.jsonl", "suite.json", "--json", env=env)
    assert graded.returncode == 0, graded.stderr
    assert graded.data["confusion"]["false_fail"] == 1 and graded.data["judge_models"] == ["strict"]
    refused = calibrate(tmp_path, "labels.jsonl", "suite.json", "--model", "a", env=env)
    assert refused.returncode == 2
    assert "case 'c': its llm_judge asks a judge agent; --model applies to endpoint judges" in refused.stderr


def test_an_output_that_is_json_data_reaches_the_judge_as_the_run_gave_it(tmp_path: Path, judge_at: ChatServer) -> None:
    from calibrate_helpers import graded_output

    write_suite(tmp_path, [judged_case("data")])
    write_labels(tmp_path, [{"name": "data", "output": {"answer": 42, "note": "judge-pass"}, "label": "pass"}])
    judge_at.responder = judge_by(says_pass)
    data = calibrate(tmp_path, "labels.jsonl", "suite.json", "--json").data
    assert data["confusion"]["true_pass"] == 1
    assert '"answer": 42' in graded_output(judge_at.chat_requests[0])


def test_a_criterion_written_with_other_spacing_is_the_same_criterion(tmp_path: Path, by_output: ChatServer) -> None:
    write_suite(tmp_path, [judged_case("a", "The answer is polite"), judged_case("b", "The answer\n  is polite ")])
    rows = [
        {"name": "a", "output": "judge-pass", "label": "pass"},
        {"name": "b", "output": "judge-fail", "label": "fail"},
    ]
    write_labels(tmp_path, rows)
    data = calibrate(tmp_path, "labels.jsonl", "suite.json", "--json").data
    assert [(entry["criteria"], entry["n"]) for entry in data["criteria"]] == [("The answer is polite", 2)]
