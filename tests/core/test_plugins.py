"""Plugin loading from entry points, the registry, and ``agent_eval.evaluators``."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import fake_plugin
import pytest
from helpers import write_plugin

from agent_eval import AmbiguousEvaluator, EvaluatorNotFound, PluginLoadError, hookimpl
from agent_eval import _plugins as plugins
from agent_eval._plugins import Plugins, Registry, registry_of

GOOD = """
from agent_eval import hookimpl

def shouts(*, at_least: int = 1):
    '''Passes when the output has at least `at_least` exclamation marks.

    More text that list-evaluators does not show.
    '''
    return lambda output: str(output).count("!") >= at_least

@hookimpl
def register_evaluators(register):
    register(shouts, name="acme_shouts")
"""

BROKEN_IMPORT = "import no_such_module_anywhere\n"

BROKEN_REGISTER = """
from agent_eval import hookimpl

@hookimpl
def register_evaluators(register):
    raise RuntimeError("cannot register today")
"""


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder on sys.path where fake distributions are installed, visible to entry-point discovery."""
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.delenv("AGENT_EVAL_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    monkeypatch.setenv("AGENT_EVAL_DISABLE_PLUGINS", "contains,exact,json,judge,trajectory")  # only the fakes here
    yield root
    for name in ("acme_evals_plugin", "broken_plugin", "other_plugin", "second_plugin"):
        sys.modules.pop(name, None)


def loaded() -> Registry:
    found = Plugins()
    found.load_entry_points()
    return found.registry()


def test_entry_point_plugin_is_listed_with_its_distribution_and_version(site: Path) -> None:
    write_plugin(site, GOOD)
    info = loaded().get("acme_shouts")
    assert (info.distribution, info.version, info.plugin) == ("acme-evals", "1.2.3", "acme")
    assert info.description == "Passes when the output has at least `at_least` exclamation marks."
    assert info.parameters() == [
        {"name": "at_least", "kind": "keyword", "required": False, "annotation": "int", "default": 1}
    ]
    assert info.factory(at_least=2)("hi!!") is True


def test_plugin_that_fails_to_import_is_reported_and_does_not_hide_others(site: Path) -> None:
    write_plugin(
        site, BROKEN_IMPORT, distribution="broken-evals", version="0.1", entry_point="broken", module="broken_plugin"
    )
    write_plugin(site, GOOD)
    registry = loaded()
    assert registry.names() == ["acme_shouts"]
    (broken,) = registry.broken
    assert broken.message() == (
        "plugin 'broken' from broken-evals 0.1 failed to load: "
        "ModuleNotFoundError: No module named 'no_such_module_anywhere'"
    )


def test_plugin_whose_register_hook_raises_is_reported_and_skipped(site: Path) -> None:
    write_plugin(
        site, BROKEN_REGISTER, distribution="broken-evals", version="0.1", entry_point="broken", module="broken_plugin"
    )
    write_plugin(site, GOOD)
    registry = loaded()
    assert registry.names() == ["acme_shouts"]
    assert registry.broken[0].error == "RuntimeError: cannot register today"


def test_two_distributions_registering_one_name_are_both_listed_and_using_it_names_both(site: Path) -> None:
    write_plugin(site, GOOD)
    write_plugin(site, GOOD, distribution="other-evals", version="2.0", entry_point="other", module="other_plugin")
    registry = loaded()
    assert [(i.name, i.distribution) for i in registry.all()] == [
        ("acme_shouts", "acme-evals"),
        ("acme_shouts", "other-evals"),
    ]
    with pytest.raises(AmbiguousEvaluator, match=r"registered by acme-evals 1\.2\.3 and other-evals 2\.0"):
        registry.get("acme_shouts")


def test_disable_plugins_skips_entry_points_by_name(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_plugin(site, GOOD)
    monkeypatch.setenv("AGENT_EVAL_DISABLE_PLUGINS", "contains,exact,json,judge,trajectory,acme")
    assert loaded().names() == []


def test_disable_autoload_loads_no_entry_point(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_plugin(site, GOOD)
    monkeypatch.setenv("AGENT_EVAL_DISABLE_PLUGIN_AUTOLOAD", "1")
    assert loaded().names() == []


def test_evaluators_module_resolves_factories_as_attributes(site: Path) -> None:
    write_plugin(site, GOOD)
    from agent_eval.evaluators import acme_shouts  # type: ignore[attr-defined]

    assert acme_shouts(at_least=1)("yes!") is True


def test_evaluators_module_names_the_distribution_of_a_missing_builtin(site: Path) -> None:
    with pytest.raises(ImportError, match=r"provided by agent-eval-contains: pip install agent-eval-contains"):
        from agent_eval.evaluators import contains  # type: ignore[attr-defined]  # noqa: F401


def test_a_builtin_whose_plugin_is_broken_says_so() -> None:
    registry = Registry(broken=[plugins.BrokenPlugin("contains", "SyntaxError: bad", "agent-eval-contains", "0.1.0")])
    with pytest.raises(PluginLoadError, match="'contains' is unavailable: plugin 'contains' from agent-eval-contains"):
        registry.get("contains")


def test_unknown_name_with_nothing_installed_says_how_to_add_evaluators() -> None:
    with pytest.raises(EvaluatorNotFound, match="To add evaluators, install an evaluator plugin"):
        Registry().get("anything")


def test_modules_can_be_registered_directly_on_a_fresh_manager() -> None:
    registry = registry_of(fake_plugin)
    assert registry.names() == ["has", "pattern_found", "same"]
    assert registry.get("has").distribution is None
    assert registry.get("has").source == "plugin 'fake_plugin'"


def test_register_rejects_a_name_that_is_not_an_identifier() -> None:
    class BadName:
        @hookimpl
        def register_evaluators(self, register: object) -> None:
            register(len, name="not a name")  # type: ignore[operator]

    registry = registry_of(BadName())
    assert registry.names() == []
    assert "must be an identifier" in registry.broken[0].error


def test_hookspec_is_documented_with_its_parameter_and_an_example() -> None:
    from agent_eval import hookspecs

    doc = hookspecs.register_evaluators.__doc__ or ""
    assert ":param register:" in doc
    assert "@hookimpl" in doc and "register(" in doc
