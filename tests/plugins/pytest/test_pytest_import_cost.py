"""Loading the plugin costs a pytest session without suite files nothing: no agent-eval import, no new module."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest_plugins = ["pytester"]


def imported_by(code: str) -> list[str]:
    """The modules a fresh interpreter imports for ``code``, from ``-X importtime``."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    return [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")]


def test_importing_the_plugin_imports_nothing_of_agent_eval() -> None:
    names = imported_by("import agent_eval_pytest.plugin")
    assert "agent_eval_pytest.plugin" in names
    assert [name for name in names if name.split(".")[0] == "agent_eval"] == []


def test_pytest_and_the_plugin_import_no_module_beyond_the_plugins_own() -> None:
    after_pytest = set(imported_by("import pytest"))
    added = set(imported_by("import pytest; import agent_eval_pytest.plugin")) - after_pytest
    assert sorted(added) == ["agent_eval_pytest", "agent_eval_pytest.plugin"]


def test_a_session_without_suite_files_imports_nothing_of_agent_eval(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_plain="""
        import sys

        def test_plain(pytestconfig):
            assert pytestconfig.pluginmanager.has_plugin("agent_eval")
            assert [name for name in sys.modules if name.split(".")[0] == "agent_eval"] == []
        """
    )
    pytester.runpytest_subprocess().assert_outcomes(passed=1)
