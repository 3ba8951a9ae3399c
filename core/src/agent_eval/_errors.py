"""The exceptions agent-eval raises, and `Skip` for evaluators that cannot judge."""

from __future__ import annotations

from collections.abc import Iterable

from agent_eval._text import text_of


class AgentEvalError(Exception):
    """Base class of every error agent-eval raises on purpose."""


class SuiteError(AgentEvalError):
    """A suite file or a list of cases is invalid; carries every problem found."""

    def __init__(self, problems: Iterable[str], *, source: str | None = None) -> None:
        self.problems = list(problems)
        self.source = source
        super().__init__(self._summary())

    def _summary(self) -> str:
        if len(self.problems) == 1:
            return self.problems[0]
        where = f" in {self.source}" if self.source else ""
        lines = [f"{len(self.problems)} problems{where}:"]
        lines += [f"  {problem}" for problem in self.problems]
        return "\n".join(lines)


class FileReadError(AgentEvalError):
    """A file the user named cannot be read as text: missing, not a regular file, too large, not UTF-8."""

    def __init__(self, path: str, problem: str, *, line: int | None = None, column: int | None = None) -> None:
        self.path = path
        #: What is wrong, without the path: ``is a directory, not a file``.
        self.problem = problem
        #: Where in the file, when the problem is at a place in it (1-based).
        self.line = line
        self.column = column
        super().__init__(f"{self.where}: {problem}")

    @property
    def where(self) -> str:
        """``path``, or ``path:line:column`` when the problem has a place."""
        if self.line is None:
            return self.path
        return f"{self.path}:{self.line}:{self.column or 1}"


class CommandError(AgentEvalError):
    """A command cannot do what it was asked (a plugin's command too): each of ``problems`` is one line.

    The command line prints each as an ``error:`` line and exits 2, with no traceback.
    """

    def __init__(self, problems: Iterable[str] | str) -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("\n".join(self.problems))


class AgentReferenceError(AgentEvalError):
    """A `module:attr` agent reference cannot be imported or is not callable."""


class EvaluatorNotFound(AgentEvalError, LookupError):
    """No installed plugin registers an evaluator of that name."""


class AmbiguousEvaluator(AgentEvalError, LookupError):
    """Two distributions register an evaluator under the same name."""


class PluginLoadError(AgentEvalError):
    """The plugin that provides a requested evaluator failed to load."""


class Skip(Exception):
    """Raised by an evaluator that cannot judge this case: the evaluation is skipped."""

    def __init__(self, reason: str = "skipped") -> None:
        # the reason is shown as text in every report: Skip(42) is skipped with the reason "42"
        self.reason = reason if isinstance(reason, str) else text_of(reason)
        super().__init__(self.reason)


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """Return ``" Did you mean 'x'?"`` for the closest choice, or an empty string."""
    import difflib

    close = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.6)
    return f" Did you mean {close[0]!r}?" if close else ""
