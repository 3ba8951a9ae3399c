"""A throwaway evaluator plugin for the report and history tests."""

from __future__ import annotations

from agent_eval import Skip, Verdict, as_text, hookimpl


def says(word):
    """Passes when the answer contains the word."""

    def check(output):
        found = word.lower() in as_text(output).lower()
        return Verdict(found, 1.0 if found else 0.0, f"found {word!r}" if found else f"missing {word!r}")

    check.inline = True
    return check


def graded():
    """Reads 'score=0.75' from the answer; passes at 0.5 or more."""

    def check(output):
        text = as_text(output)
        score = float(text.split("score=", 1)[1].split()[0]) if "score=" in text else 0.0
        return Verdict(score >= 0.5, score, f"graded {score:g}")

    check.inline = True
    return check


def never_judges():
    """Always skips, as a judge with no model configured does."""

    def check(output):
        raise Skip("no judge configured")

    check.inline = True
    return check


def explodes():
    """Always raises, as a broken evaluator does."""

    def check(output):
        raise RuntimeError("evaluator exploded")

    check.inline = True
    return check


def fake_judge(model="tiny-judge"):
    """Passes, reporting a judge model and token usage as the llm_judge evaluator does."""

    def check(output):
        usage = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
        return Verdict(True, 1.0, "looks right", metadata={"model": model, "usage": usage})

    check.inline = True
    return check


def fails_saying(reason):
    """Fails with the given reason, as an evaluator quoting what it saw does."""

    def check(output):
        return Verdict(False, 0.0, reason)

    check.inline = True
    return check


def raises_saying(message):
    """Raises an error with the given message."""

    def check(output):
        raise ValueError(message)

    check.inline = True
    return check


def echoes():
    """Fails with the whole answer as its reason, as an evaluator quoting what it saw does."""

    def check(output):
        return Verdict(False, 0.0, as_text(output))

    check.inline = True
    return check


@hookimpl
def register_evaluators(register):
    for factory in (says, graded, never_judges, explodes, fake_judge, fails_saying, raises_saying, echoes):
        register(factory)
