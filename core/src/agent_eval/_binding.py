"""Turning a suite file's evaluator entry (``name: arguments``) into an evaluator, with clear errors."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from agent_eval._calling import NamedEvaluator, callable_name
from agent_eval._errors import AgentEvalError, did_you_mean
from agent_eval._plugins import Registry
from agent_eval._text import describe_error, kind_of, short_repr


class EvaluatorBuilder:
    """Builds evaluators from entries through the registry's factories; one evaluator per distinct entry.

    An entry is ``name`` (no arguments), or a one-key mapping ``{name: arguments}`` where arguments are
    keyword arguments (a mapping) or the factory's first argument (any other value).
    """

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self._built: dict[tuple[str, str], Any] = {}
        self._signatures: dict[str, inspect.Signature | None] = {}

    def build(self, entry: Any) -> Any:
        """The evaluator ``entry`` describes; AgentEvalError says what is wrong with it."""
        if isinstance(entry, str):
            name, arguments = entry, None
        elif isinstance(entry, dict) and len(entry) == 1:
            name, arguments = next(iter(entry.items()))
        else:
            message = "an evaluator is `name: arguments` (one evaluator key, and optionally 'weight')"
            raise AgentEvalError(f"{message}, got {_describe_entry(entry)}")
        key = (str(name), repr(arguments))
        if key not in self._built:
            self._built[key] = self._make(str(name), arguments)
        return self._built[key]

    def _make(self, name: str, arguments: Any) -> Any:
        factory = self.registry.factory(name)
        args: tuple[Any, ...] = ()
        kwargs: dict[str, Any] = {}
        if isinstance(arguments, dict):
            kwargs = {str(k): v for k, v in arguments.items()}
        elif arguments is not None:
            args = (arguments,)
        self._bind(name, factory, args, kwargs)
        try:
            evaluator = factory(*args, **kwargs)
        except (Exception, SystemExit) as error:
            raise AgentEvalError(f"{name}: {_plain_error(error)}") from None
        if not callable(evaluator):
            raise AgentEvalError(f"{name}: the factory returned {short_repr(evaluator)}, not an evaluator")
        return _named(evaluator, name)

    def _bind(self, name: str, factory: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        if name not in self._signatures:
            try:
                self._signatures[name] = inspect.signature(factory)
            except (TypeError, ValueError):
                self._signatures[name] = None
        signature = self._signatures[name]
        if signature is None:
            return
        try:
            signature.bind(*args, **kwargs)
        except TypeError as error:
            raise AgentEvalError(f"{name}: {_binding_problem(signature, kwargs, error)}") from None


def _named(evaluator: Any, name: str) -> Any:
    """The evaluator under its registered name, wrapped when it does not carry that name itself."""
    if callable_name(evaluator) == name:
        return evaluator
    return NamedEvaluator(evaluator, name)


def _binding_problem(signature: inspect.Signature, kwargs: Mapping[str, Any], error: TypeError) -> str:
    accepted = [p.name for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.parameters.values())
    for key in kwargs:
        if key not in accepted and not takes_any:
            return f"unknown argument {key!r}.{did_you_mean(key, accepted)} It takes: {', '.join(accepted)}"
    return f"{error}; it takes: {', '.join(accepted)}"


def _plain_error(error: BaseException) -> str:
    if isinstance(error, ValueError | TypeError | AgentEvalError):
        return " ".join(str(error).split())
    return describe_error(error)


def _describe_entry(entry: Any) -> str:
    if isinstance(entry, dict):
        keys = ", ".join(repr(k) for k in entry) or "no keys"
        return f"a mapping with {keys}"
    return kind_of(entry)
