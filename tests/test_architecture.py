"""The shape of the house, read from the imports: no circles, one public boundary, the CLI on top."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PUBLIC = ("agent_eval", "agent_eval.testing", "agent_eval.evaluators", "agent_eval.hookspecs", "agent_eval.stats")


def packages() -> list[tuple[Path, str]]:
    """(source folder, import package) of the core and of every plugin."""
    found = [(ROOT / "core" / "src", "agent_eval")]
    for folder in sorted((ROOT / "plugins").iterdir()):
        src = folder / "src"
        if src.is_dir():
            found += [(src, p.name) for p in src.iterdir() if p.is_dir() and (p / "__init__.py").exists()]
    return found


def modules(src: Path, package: str) -> dict[str, Path]:
    found = {}
    for file in (src / package).rglob("*.py"):
        parts = list(file.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = file
    return found


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            lines.update(sub.lineno for sub in ast.walk(node) if hasattr(sub, "lineno"))
    return lines


def imported(name: str, file: Path) -> Iterator[str]:
    """Every module ``file`` imports at run time, anywhere in it (functions included), absolute."""
    tree = ast.parse(file.read_text(encoding="utf-8"))
    skip = _type_checking_lines(tree)
    package = name.split(".") if file.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def graph(src: Path, package: str) -> dict[str, set[str]]:
    known = modules(src, package)
    edges: dict[str, set[str]] = {}
    for name, file in known.items():
        targets = set()
        for target in imported(name, file):
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name and not (file.name == "__init__.py" and target.startswith(name + ".")):
                targets.add(target)
        edges[name] = targets
    return edges


def cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import circle, or None."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(edges.get(node, ())):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (found := visit(target)):
                return found
        state[node] = 2
        path.pop()
        return None

    for node in sorted(edges):
        if node not in state and (found := visit(node)):
            return found
    return None


@pytest.mark.parametrize(("src", "package"), packages(), ids=lambda value: getattr(value, "name", str(value)))
def test_no_package_has_an_import_circle(src: Path, package: str) -> None:
    found = cycle(graph(src, package))
    assert found is None, " -> ".join(found or [])


def test_plugins_import_only_the_public_names_of_the_core() -> None:
    offenders = []
    for src, package in packages()[1:]:
        for name, file in modules(src, package).items():
            for target in imported(name, file):
                if target.split(".")[0] != "agent_eval":
                    continue
                if target in PUBLIC or any(target.startswith(p + ".") and p != "agent_eval" for p in PUBLIC):
                    continue
                if target.startswith("agent_eval.") and target.count(".") == 1 and target[11:12] != "_":
                    # `from agent_eval import X` also yields "agent_eval.X": X is a public name unless private
                    continue
                offenders.append(f"{file.relative_to(ROOT)} imports {target}")
    assert offenders == []


def test_the_boundary_check_itself_catches_a_private_import(tmp_path: Path) -> None:
    module = tmp_path / "bad.py"
    module.write_text("def f():\n    from agent_eval._calling import Call\n", encoding="utf-8")
    assert "agent_eval._calling" in set(imported("bad", module))


def test_the_cli_is_entered_only_through_its_entry_point() -> None:
    src, package = packages()[0]
    edges = graph(src, package)
    outside = sorted(
        name
        for name, targets in edges.items()
        if not name.startswith("agent_eval.cli") and any(target.startswith("agent_eval.cli") for target in targets)
    )
    assert outside == []


def test_suite_loading_sits_beside_the_runner_not_above_it() -> None:
    src, package = packages()[0]
    edges = graph(src, package)
    below_suite = set()
    todo = ["agent_eval._suite"]
    while todo:
        for target in edges.get(todo.pop(), ()):
            if target not in below_suite:
                below_suite.add(target)
                todo.append(target)
    assert "agent_eval._runner" not in below_suite
