"""``agent-eval init [DIR]``: a starter suite, its agent, the suite's JSON Schema and a CI workflow.

The suite uses only the evaluators of this project's light plugins that are installed (contains,
matches, exact_match), so ``agent-eval run`` passes it as written whatever is installed. Nothing is
ever overwritten: every file is checked before the first is written.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import click

from agent_eval.cli._common import UsageProblem

if TYPE_CHECKING:
    from pathlib import Path

SUITE = "eval_suite.yaml"
AGENT = "my_agent.py"
SCHEMA = "agent-eval.schema.json"
WORKFLOW = ".github/workflows/agent-eval.yml"

#: The light evaluators the starter suite may use, and the distribution of each.
LIGHT = {"contains": "agent-eval-contains", "matches": "agent-eval-contains", "exact_match": "agent-eval-exact"}

AGENT_TEXT = '''\
"""The agent the starter suite grades: canned answers, to replace with a call to your own agent."""

ANSWERS = {
    "Say hello": "Hello! How can I help you today?",
    "What is 2 + 2?": "4",
    "How long is the kettle's warranty?": "The kettle has a 2-year warranty; register it online to extend it.",
}


def agent(question: str) -> str:
    """Answer one question (an agent may also take (question, ctx), and may be async)."""
    return ANSWERS.get(question, "I don't know.")
'''

SUITE_HEAD = f"""\
# yaml-language-server: $schema=./{SCHEMA}
# A starter suite: `agent-eval run {SUITE}` runs it. Editors that use yaml-language-server check it
# against {SCHEMA}; after installing or upgrading an evaluator plugin, write that file again
# with `agent-eval schema > {SCHEMA}`.
name: starter
agent: my_agent:agent                # MODULE:ATTRIBUTE, looked for beside this file first
"""

_SHARED = "evaluators:                          # applied to every case\n"
_OWN = "    evaluators:\n"

#: Each check of the starter suite: its lines with each evaluator that can make it, in order of preference.
CHECKS: dict[str, list[tuple[str, str]]] = {
    "shared": [
        ("contains", _SHARED + "  - not: {contains: [as an AI]}      # passes when the answer lacks it\n"),
        ("matches", _SHARED + '  - not: {matches: "(?i)as an AI"}\n'),
    ],
    "greets": [
        ("contains", _OWN + "      - contains: {keywords: [hello, hi], match_all: false}\n"),
        ("matches", _OWN + '      - matches: {pattern: "\\\\b(hello|hi)\\\\b", ignore_case: true}\n'),
        ("exact_match", _OWN + '      - exact_match: "Hello! How can I help you today?"\n'),
    ],
    "adds": [
        ("exact_match", _OWN + "      - exact_match                  # compares with the case's expected\n"),
        ("contains", _OWN + '      - contains: "4"\n'),
        ("matches", _OWN + '      - matches: "^4$"\n'),
    ],
    "explains": [
        (
            "contains",
            "    threshold: 0.75                  # passes on a weighted mean score of at least 0.75\n"
            + _OWN
            + "      - {contains: [2-year, register, extend], weight: 3}\n"
            "      - any: [{contains: [online]}, {contains: [in store]}]\n",
        ),
        ("matches", _OWN + '      - matches: "\\\\d+-year warranty"\n'),
        (
            "exact_match",
            _OWN + '      - exact_match: "The kettle has a 2-year warranty; register it online to extend it."\n',
        ),
    ],
}

CASES = """\
cases:
  - name: greets the user
    input: Say hello
{greets}
  - name: adds
    input: What is 2 + 2?
    expected: "4"
{adds}
  - name: explains the warranty
    input: How long is the kettle's warranty?
{explains}"""

WORKFLOW_TEXT = """\
# Runs the agent-eval suite on every push and pull request (written by `agent-eval init`).
# GitHub runs the workflows in .github/workflows at the root of the repository.
name: agent-eval
on: [push, pull_request]
jobs:
  evaluate:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - run: pip install {packages}
      - run: agent-eval run {suite} --junit junit.xml --markdown summary.md --no-history
      - uses: actions/upload-artifact@v4
        if: always()
        with:
          name: agent-eval-report
          path: junit.xml
"""


@click.command()
@click.argument("folder", metavar="[DIR]", required=False, default=".", type=click.Path())
def init(folder: str) -> None:
    """Write a starter suite, its agent, its JSON Schema and a CI workflow into DIR (default: here).

    The suite passes `agent-eval run` as written. No file is ever overwritten: when one exists,
    nothing is written.
    """
    import json
    from pathlib import Path

    from agent_eval._plugins import get_registry
    from agent_eval._schema import suite_schema

    if not folder.strip():
        raise UsageProblem(f"{folder!r} names no folder; give a folder, or nothing for this one")
    root = Path(folder)
    registry = get_registry()
    installed = [name for name in LIGHT if name in registry.entries and len(registry.entries[name]) == 1]
    files = {
        SUITE: starter_suite(installed),
        AGENT: AGENT_TEXT,
        SCHEMA: json.dumps(suite_schema(registry), indent=2, ensure_ascii=False) + "\n",
        WORKFLOW: WORKFLOW_TEXT.format(packages=" ".join(_packages(installed)), suite=SUITE),
    }
    _refuse_to_overwrite(root, files)
    _write(root, files)
    shown = "" if root == Path() else f"{root}{os.sep}"
    click.echo(f"wrote {', '.join(shown + name for name in files)}")
    missing = sorted({LIGHT[name] for name in LIGHT if name not in installed})
    install = f"pip install {' '.join(missing)}"
    if not installed:
        click.echo(f"note: no evaluator is installed, so the cases are skipped; {install}", err=True)
    elif missing:
        click.echo(f"note: the suite checks without {' and '.join(missing)}; {install}", err=True)
    click.echo(f"next: agent-eval run {shown}{SUITE}")


def starter_suite(installed: list[str]) -> str:
    """The starter suite's text, graded by the first installed evaluator each check can use."""
    chosen = {check: _choose(lines, installed) for check, lines in CHECKS.items()}
    head = SUITE_HEAD
    if not installed:
        head += (
            "# No evaluator plugin is installed yet, so these cases are skipped, not graded: pip install\n"
            "# agent-eval-contains agent-eval-exact, give each case its evaluators, and remove this line:\n"
            "min_pass_rate: 0\n"
        )
    shared = chosen.pop("shared")
    cases = CASES.format(**{check: text.rstrip("\n") for check, text in chosen.items()})
    return head + shared + cases.replace("\n\n", "\n")


def _choose(options: list[tuple[str, str]], installed: list[str]) -> str:
    return next((lines for name, lines in options if name in installed), "")


def _packages(installed: list[str]) -> list[str]:
    return ["agent-eval-core", *sorted({LIGHT[name] for name in installed})]


def _refuse_to_overwrite(root: Path, files: dict[str, str]) -> None:
    """Exit 2, one line, before anything is written, when a file would be overwritten or cannot be made."""
    if root.exists() and not root.is_dir():
        raise UsageProblem(f"{root} is a file, not a folder; give a folder: agent-eval init DIR")
    taken = [name for name in files if os.path.lexists(root / name)]
    if taken:
        verb, it = ("exists", "it") if len(taken) == 1 else ("exist", "them")
        listed = ", ".join(str(root / name) for name in taken)
        raise UsageProblem(f"{listed} already {verb}; nothing was written (move {it} away, or give another DIR)")
    for name in files:
        for parent in (root / name).parents:
            if os.path.lexists(parent) and not parent.is_dir():
                raise UsageProblem(f"{parent} is a file, not a folder; nothing was written")


def _write(root: Path, files: dict[str, str]) -> None:
    """Write every file, creating none that exists; a failure takes back what was written."""
    written: list[Path] = []
    try:
        for name, text in files.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("x", encoding="utf-8", newline="\n") as handle:
                written.append(path)
                handle.write(text)
    except OSError as error:
        for path in written:
            path.unlink(missing_ok=True)
        raise UsageProblem(
            f"cannot write {error.filename or root}: {error.strerror or error}; nothing was kept"
        ) from None
