"""The judge package's shape: imports run one way, and the factory and its options agree."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import attrs
import pytest

import agent_eval_judge
from agent_eval_judge import JudgeOptions, LLMJudge, llm_judge

PACKAGE = Path(agent_eval_judge.__file__).parent


def judge_imports(path: Path) -> set[str]:
    """The package's modules that ``path`` imports anywhere: at the top, in functions, under TYPE_CHECKING."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "agent_eval_judge":
                found.update(alias.name for alias in node.names)
            elif node.module.startswith("agent_eval_judge."):
                found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[1] for a in node.names if a.name.startswith("agent_eval_judge."))
    return found


def test_the_packages_modules_import_each_other_without_a_circle() -> None:
    modules = {path.stem: path for path in PACKAGE.glob("*.py") if path.stem != "__init__"}
    graph = {name: judge_imports(path) & modules.keys() for name, path in modules.items()}
    assert graph["judging"], "the scan found no imports: it is not looking at the right files"

    def visit(name: str, trail: tuple[str, ...]) -> None:
        if name in trail:
            pytest.fail("import circle: " + " -> ".join((*trail[trail.index(name) :], name)))
        for imported in graph[name]:
            visit(imported, (*trail, name))

    for name in graph:
        visit(name, ())


def test_options_have_the_factorys_parameters_and_defaults() -> None:
    parameters = inspect.signature(llm_judge).parameters
    fields = attrs.fields(JudgeOptions)
    assert [field.name for field in fields] == list(parameters)
    for field in fields[1:]:
        assert field.default == parameters[field.name].default, field.name


def test_the_judge_holds_its_checked_options() -> None:
    judge = llm_judge("polite", model="  judge-model ", samples=3, include_input=False)
    assert judge.options == JudgeOptions("polite", model="judge-model", samples=3, include_input=False)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        judge.options.samples = 5  # type: ignore[misc]
    assert repr(LLMJudge(judge.options)) == "llm_judge('polite', samples=3)"
