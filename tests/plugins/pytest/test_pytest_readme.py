"""The README's pytest section runs as written: its files, then each ``$ pytest ...`` and the output it shows."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

README = Path(__file__).resolve().parents[3] / "README.md"
FILE_LABEL = re.compile(r"^`([\w./-]+)`:$")


def section() -> list[str]:
    text = README.read_text(encoding="utf-8")
    start = text.index("\n## pytest\n")
    end = text.index("\n## ", start + 1)
    return text[start:end].splitlines()


def blocks(lines: list[str]) -> list[tuple[str | None, str, list[str]]]:
    """(the file name labelling it or None, language, lines) of each fenced block, in order."""
    found: list[tuple[str | None, str, list[str]]] = []
    label = None
    index = 0
    while index < len(lines):
        line = lines[index]
        matched = FILE_LABEL.match(line)
        if matched:
            label = matched.group(1)
        elif line.startswith("```"):
            end = lines.index("```", index + 1)
            found.append((label, line[3:], lines[index + 1 : end]))
            label = None
            index = end
        index += 1
    return found


def pattern(line: str) -> str:
    """An fnmatch pattern for a line of shown output: times and progress columns vary, nothing else does."""
    escaped = re.sub(r"([\[\]?*])", r"[\1]", line.rstrip())
    escaped = re.sub(r"\s+[\[]\[[]\s*\d+%[\]]\]$", "*", escaped)  # "[ 33%]"
    escaped = re.sub(r"^=+ (.* in )\d+\.\d+s =+$", r"*\1*", escaped)  # the closing summary line
    return escaped


def test_the_section_has_files_and_commands() -> None:
    found = blocks(section())
    assert [label for label, _, _ in found if label] == ["eval_demo.yaml", "agents.py", "test_agent.py"]
    assert [lines[0] for _, language, lines in found if language == "console"] == [
        "$ pytest -v",
        "$ pytest test_agent.py",
    ]


def test_the_readme_examples_run_as_written(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    ran = 0
    for label, language, lines in blocks(section()):
        if label is not None:
            (pytester.path / label).write_text("\n".join(lines) + "\n", encoding="utf-8")
        elif language == "console":
            command, *shown = lines
            program, *args = shlex.split(command.removeprefix("$ "))
            assert program == "pytest"
            result = pytester.runpytest_subprocess(*args)  # its own process: test_agent.py is the user's module
            result.stdout.fnmatch_lines([pattern(line) for line in shown if line.strip() and line != "..."])
            ran += 1
    assert ran == 2
