"""Every code block of every README holds as written.

Python blocks run (each in a fresh process, in an empty folder); YAML and TOML blocks parse, and YAML
suites are valid against `agent-eval schema` (one marked ``# flagged`` shows a mistake the schema must
catch); shell blocks name commands, options, make targets and paths that exist. A block that is one file
of an example spread over several (a line such as "`test_agent.py`:" just above it) runs with its
example, in that section's own test.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import jsonschema
import pytest
import yaml
from helpers import run_cli

ROOT = Path(__file__).resolve().parents[1]
READMES = [ROOT / "README.md", ROOT / "core" / "README.md", *sorted(ROOT.glob("plugins/*/README.md"))]
READMES.append(ROOT / "bench" / "README.md")
#: Sections whose blocks are files of one example, run together by a test of their own.
EXAMPLES_TESTED_ELSEWHERE = {
    ("README.md", "pytest"): "tests/plugins/pytest/test_pytest_readme.py",
    ("README.md", "In Python tests: the `agent_eval_run` fixture and `assert_passes`"): (
        "tests/plugins/pytest/test_pytest_readme.py"
    ),
    ("plugins/pytest/README.md", None): "tests/plugins/pytest/test_pytest_readme.py",
}
_BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
_FILE_LINE = re.compile(r"^`[\w./-]+`:\s*$")


def blocks() -> list[tuple[str, int, str, str, str | None, bool]]:
    """(readme, line, language, code, section, is a file of an example) of every fenced block."""
    found = []
    for readme in READMES:
        if not readme.exists():
            continue
        text = readme.read_text(encoding="utf-8")
        name = str(readme.relative_to(ROOT))
        for match in _BLOCK.finditer(text):
            before = text[: match.start()].rstrip("\n").splitlines()
            headings = [line.lstrip("#").strip() for line in before if line.startswith("#")]
            section = headings[-1] if headings else None
            part_of_example = bool(before) and bool(_FILE_LINE.match(before[-1].strip()))
            line = text.count("\n", 0, match.start()) + 1
            found.append((name, line, match.group(1), match.group(2), section, part_of_example))
    return found


ALL = blocks()


def ids(block: tuple[str, int, str, str, str | None, bool]) -> str:
    return f"{block[0]}:{block[1]}"


def by_language(*languages: str) -> list[tuple[str, int, str, str, str | None, bool]]:
    return [block for block in ALL if block[2] in languages]


def test_there_are_blocks_of_every_kind() -> None:
    kinds = {block[2] for block in ALL}
    assert {"python", "yaml", "sh", "toml"} <= kinds


@pytest.mark.parametrize("block", by_language("python"), ids=ids)
def test_python_blocks_run_as_written(block: tuple[str, int, str, str, str | None, bool], tmp_path: Path) -> None:
    readme, line, _, code, section, part_of_example = block
    if part_of_example:
        covered = EXAMPLES_TESTED_ELSEWHERE.get((readme, section)) or EXAMPLES_TESTED_ELSEWHERE.get((readme, None))
        assert covered, f"{readme}:{line} is a file of an example no test runs"
        assert (ROOT / covered).exists()
        return
    script = tmp_path / "block.py"
    script.write_text(code, encoding="utf-8")
    unset = ("AGENT_EVAL_JUDGE", "AGENT_EVAL_EMBEDDINGS", "GROQ")
    env = {key: value for key, value in os.environ.items() if not key.startswith(unset)}
    env["AGENT_EVAL_JUDGE_CACHE"] = "0"
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"{readme}:{line}\n{done.stderr[-2000:]}"


@pytest.fixture(scope="module")
def schema(tmp_path_factory: pytest.TempPathFactory) -> jsonschema.Draft202012Validator:
    done = run_cli("schema", cwd=tmp_path_factory.mktemp("schema"))
    return jsonschema.Draft202012Validator(json.loads(done.stdout))


@pytest.mark.parametrize("block", by_language("yaml", "yml"), ids=ids)
def test_yaml_blocks_parse_and_suites_are_valid(
    block: tuple[str, int, str, str, str | None, bool], schema: jsonschema.Draft202012Validator
) -> None:
    readme, line, _, code, *_ = block
    data = yaml.safe_load(code)
    assert data is not None, f"{readme}:{line} is empty"
    if isinstance(data, dict) and "cases" in data:
        problems = [error.message for error in schema.iter_errors(data)]
        if "# flagged" in code:  # an example of a mistake the schema catches: it must catch it
            assert problems, f"{readme}:{line} shows a mistake the schema does not flag"
        else:
            assert problems == [], f"{readme}:{line}: {problems}"


@pytest.mark.parametrize("block", by_language("toml"), ids=ids)
def test_toml_blocks_parse(block: tuple[str, int, str, str, str | None, bool]) -> None:
    tomllib.loads(block[3])


def _make_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    return {match.group(1) for match in re.finditer(r"^([\w.-]+):", text, re.M)}


def _commands(code: str) -> list[list[str]]:
    """The commands of a shell block, one per line (comments and continuations handled), as words."""
    joined = code.replace("\\\n", " ")
    commands = []
    for raw in joined.splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        for part in re.split(r"\s*(?:&&|\|\||;|\|)\s*", line):
            words = shlex.split(part)
            for index, word in enumerate(words):
                if word.startswith((">", "<", "2>")):
                    words = words[:index]  # a redirection: what follows is a file, not an argument
                    break
            if words:
                commands.append(words)
    return commands


@pytest.mark.parametrize("block", by_language("sh", "bash", "shell"), ids=ids)
def test_shell_blocks_name_what_exists(block: tuple[str, int, str, str, str | None, bool]) -> None:
    from agent_eval.cli import main

    readme, line, _, code, *_ = block
    for words in _commands(code):
        where = f"{readme}:{line}: {' '.join(words)}"
        if words[0] == "make":
            assert set(words[1:]) - {"demo", "test"} <= _make_targets() | {w for w in words[1:] if "=" in w}, where
        elif words[0] == "agent-eval":
            args = [word for word in words[1:] if not word.startswith(">")]
            if args and args[0] in ("--version", "--help", "-h"):
                continue
            context = main.make_context("agent-eval", list(args), resilient_parsing=True)
            command = main.get_command(context, args[0])
            assert command is not None, where
            command.make_context(args[0], args[1:])  # unknown options raise
        elif words[:3] == ["pip", "install", "-e"] or words[:2] == ["pip", "install"]:
            for word in words[2:]:
                if word.startswith("./"):
                    assert (ROOT / word).exists(), where
