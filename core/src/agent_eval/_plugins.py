"""The plugin manager, entry-point loading and the registry of evaluator factories."""

from __future__ import annotations

import os
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

import attrs
import pluggy

from agent_eval import hookspecs
from agent_eval._errors import AmbiguousEvaluator, EvaluatorNotFound, PluginLoadError, did_you_mean
from agent_eval._text import describe_error

if TYPE_CHECKING:
    from agent_eval._entrypoints import EntryPoint

GROUP = "agent_eval"
DISABLE_AUTOLOAD_ENV = "AGENT_EVAL_DISABLE_PLUGIN_AUTOLOAD"
DISABLE_PLUGINS_ENV = "AGENT_EVAL_DISABLE_PLUGINS"

#: The distributions that provide this project's own evaluators, for "pip install" hints.
KNOWN_DISTRIBUTIONS = {
    "contains": "agent-eval-contains",
    "matches": "agent-eval-contains",
    "exact_match": "agent-eval-exact",
    "valid_json": "agent-eval-json",
    "llm_judge": "agent-eval-judge",
    **{
        name: "agent-eval-trajectory"
        for name in (
            "tool_called",
            "tool_not_called",
            "trajectory_match",
            "max_steps",
            "max_latency",
            "max_tokens",
            "max_cost",
        )
    },
}

#: The keys of a suite file's evaluator entries that are not evaluators (combinators, and ``weight``):
#: no plugin may register an evaluator under one of them.
RESERVED = ("all", "any", "not", "weight")

HOW_TO_INSTALL = (
    "install an evaluator plugin, e.g. `pip install agent-eval-contains agent-eval-exact "
    "agent-eval-json agent-eval-judge agent-eval-trajectory`"
)


@attrs.frozen
class EvaluatorInfo:
    """A registered evaluator factory and where it comes from."""

    name: str
    factory: Callable[..., Any]
    plugin: str
    distribution: str | None = None
    version: str | None = None

    @property
    def description(self) -> str:
        """The first line of the factory's docstring."""
        doc = (getattr(self.factory, "__doc__", None) or "").strip()
        return doc.splitlines()[0].strip() if doc else ""

    @property
    def source(self) -> str:
        """``distribution version``, or the plugin name for plugins registered directly."""
        if self.distribution is None:
            return f"plugin {self.plugin!r}"
        return f"{self.distribution} {self.version}" if self.version else self.distribution

    def parameters(self) -> list[dict[str, Any]]:
        """The factory's parameters, from its signature: name, kind, required, default."""
        import inspect

        try:
            signature = inspect.signature(self.factory)
        except (TypeError, ValueError):
            return []
        return [_describe_parameter(p) for p in signature.parameters.values()]

    def to_dict(self) -> dict[str, Any]:
        """Name, package, version, description and parameters, for ``--json``."""
        return {
            "name": self.name,
            "package": self.distribution,
            "version": self.version,
            "description": self.description,
            "plugin": self.plugin,
            "parameters": self.parameters(),
        }


def _describe_parameter(parameter: Any) -> dict[str, Any]:
    import inspect

    from agent_eval._codec import jsonable

    kinds = {
        inspect.Parameter.POSITIONAL_ONLY: "positional",
        inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional_or_keyword",
        inspect.Parameter.VAR_POSITIONAL: "var_positional",
        inspect.Parameter.KEYWORD_ONLY: "keyword",
        inspect.Parameter.VAR_KEYWORD: "var_keyword",
    }
    annotation = parameter.annotation
    if annotation is inspect.Parameter.empty:
        annotation = None
    elif not isinstance(annotation, str):
        annotation = getattr(annotation, "__name__", repr(annotation))
    described: dict[str, Any] = {
        "name": parameter.name,
        "kind": kinds[parameter.kind],
        "required": parameter.default is inspect.Parameter.empty
        and parameter.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD),
        "annotation": annotation,
    }
    if parameter.default is not inspect.Parameter.empty:
        described["default"] = jsonable(parameter.default)
    return described


@attrs.frozen
class BrokenPlugin:
    """A plugin that failed to import or to register its evaluators."""

    entry_point: str
    error: str
    distribution: str | None = None
    version: str | None = None

    def message(self) -> str:
        """One line naming the entry point, its distribution and the error."""
        source = f" from {self.distribution} {self.version or ''}".rstrip() if self.distribution else ""
        return f"plugin {self.entry_point!r}{source} failed to load: {self.error}"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return attrs.asdict(self)


@attrs.define
class Registry:
    """Every evaluator factory registered by the loaded plugins, by name."""

    entries: dict[str, list[EvaluatorInfo]] = attrs.Factory(dict)
    broken: list[BrokenPlugin] = attrs.Factory(list)
    #: Executor factories by name (``local`` is the core's own).
    executors: dict[str, list[EvaluatorInfo]] = attrs.Factory(dict)

    def add(self, info: EvaluatorInfo) -> None:
        """Record a factory; a second one under the same name is kept beside the first."""
        same_name = self.entries.setdefault(info.name, [])
        same_name.append(info)
        same_name.sort(key=lambda item: (item.distribution or "", item.plugin))

    def add_executor(self, info: EvaluatorInfo) -> None:
        """Record an executor factory."""
        self.executors.setdefault(info.name, []).append(info)

    def names(self) -> list[str]:
        """Registered names, sorted."""
        return sorted(self.entries)

    def all(self) -> list[EvaluatorInfo]:
        """Every registration, sorted by name then distribution."""
        return [info for name in self.names() for info in self.entries[name]]

    def get(self, name: str) -> EvaluatorInfo:
        """The one registration of ``name``, or a clear error saying why there is none."""
        found = self.entries.get(name)
        if found and len(found) == 1:
            return found[0]
        if found:
            sources = " and ".join(info.source for info in found)
            raise AmbiguousEvaluator(
                f"Evaluator {name!r} is registered by {sources}; uninstall one of them "
                f"(or disable its plugin with {DISABLE_PLUGINS_ENV})."
            )
        raise self._not_found(name)

    def factory(self, name: str) -> Callable[..., Any]:
        """The factory registered as ``name``."""
        return self.get(name).factory

    def executor(self, name: str) -> EvaluatorInfo:
        """The executor factory registered as ``name``, or a clear error."""
        found = self.executors.get(name)
        if found and len(found) == 1:
            return found[0]
        if found:
            sources = " and ".join(info.source for info in found)
            raise AmbiguousEvaluator(f"Executor {name!r} is registered by {sources}; uninstall one of them.")
        names = sorted(self.executors)
        hint = did_you_mean(name, names)
        message = f"Unknown executor {name!r}.{hint} Installed: {', '.join(names) or 'none'}."
        if name == "ray":
            message += " It is provided by agent-eval-ray: pip install agent-eval-ray"
        raise EvaluatorNotFound(message)

    def _not_found(self, name: str) -> Exception:
        wanted = KNOWN_DISTRIBUTIONS.get(name)
        for plugin in self.broken:
            if wanted is not None and plugin.distribution == wanted:
                return PluginLoadError(f"Evaluator {name!r} is unavailable: {plugin.message()}")
        installed = ", ".join(self.names()) or "none"
        message = f"Unknown evaluator {name!r}.{did_you_mean(name, self.names())} Installed: {installed}."
        if wanted is not None:
            message += f" It is provided by {wanted}: pip install {wanted}"
        elif not self.entries:
            message += f" To add evaluators, {HOW_TO_INSTALL}."
        if self.broken:
            message += " (Some plugins failed to load: " + "; ".join(p.message() for p in self.broken) + ")"
        return EvaluatorNotFound(message)


def new_plugin_manager() -> pluggy.PluginManager:
    """A plugin manager for project ``agent_eval`` with its hook specifications, no plugin loaded."""
    manager = pluggy.PluginManager(hookspecs.PROJECT)
    manager.add_hookspecs(hookspecs)
    return manager


@attrs.define
class Plugins:
    """A plugin manager plus where each of its plugins came from."""

    manager: pluggy.PluginManager = attrs.Factory(new_plugin_manager)
    origins: dict[str, tuple[str | None, str | None]] = attrs.Factory(dict)
    broken: list[BrokenPlugin] = attrs.Factory(list)
    _commands: list[tuple[str, Any, str]] | None = attrs.field(default=None, init=False)

    def __attrs_post_init__(self) -> None:
        # The core's own plugin goes through the same hooks as any other (the ``local`` executor).
        from agent_eval import _builtin

        self.register(_builtin, name="agent_eval")

    def register(
        self,
        plugin: ModuleType | object,
        name: str | None = None,
        *,
        distribution: str | None = None,
        version: str | None = None,
    ) -> None:
        """Register a plugin object (usually a module) directly, as tests and embedders do."""
        registered = self.manager.register(plugin, name=name)
        if registered is None:
            raise ValueError(f"plugin {name!r} is blocked or already registered")
        self.origins[registered] = (distribution, version)

    def load_entry_points(self, group: str = GROUP) -> None:
        """Import and register every entry point of ``group``; failures are recorded, not raised."""
        if _truthy(os.environ.get(DISABLE_AUTOLOAD_ENV)):
            return
        disabled = {n.strip() for n in os.environ.get(DISABLE_PLUGINS_ENV, "").split(",") if n.strip()}
        from agent_eval._entrypoints import entry_points

        for entry_point in entry_points(group):
            if entry_point.name not in disabled:
                self._load_one(entry_point)

    def _load_one(self, entry_point: EntryPoint) -> None:
        distribution, version = entry_point.distribution, entry_point.version
        name = entry_point.name
        if self.manager.has_plugin(name):
            name = f"{distribution}:{name}"
        try:
            module = entry_point.load()
            self.register(module, name=name, distribution=distribution, version=version)
        except (Exception, SystemExit) as error:  # a plugin must never take the others down
            self.broken.append(BrokenPlugin(entry_point.name, describe_error(error), distribution, version))

    def registry(self) -> Registry:
        """Call every plugin's ``register_evaluators`` and ``register_executors``; collect the factories."""
        registry = Registry(broken=list(self.broken))
        self._collect("register_evaluators", registry, registry.add)
        self._collect("register_executors", registry, registry.add_executor)
        return registry

    def commands(self) -> list[tuple[str, Any, str]]:
        """(name, click command, plugin) of every command the plugins register, once per process."""
        if self._commands is None:
            found: list[tuple[str, Any, str]] = []
            for impl in self.manager.hook.register_commands.get_hookimpls():
                plugin = self.manager.get_name(impl.plugin) or repr(impl.plugin)

                def register(command: Any, _plugin: str = plugin) -> None:
                    name = getattr(command, "name", None)
                    if not isinstance(name, str) or not callable(getattr(command, "main", None)):
                        raise TypeError(f"register() needs a click command, got {command!r}")
                    found.append((name, command, _plugin))

                try:
                    impl.function(**{arg: register for arg in impl.argnames})
                except (Exception, SystemExit) as error:
                    self.broken.append(BrokenPlugin(plugin, describe_error(error)))
            self._commands = found
        return self._commands

    def _collect(self, hook: str, registry: Registry, add: Callable[[EvaluatorInfo], None]) -> None:
        for impl in getattr(self.manager.hook, hook).get_hookimpls():
            plugin_name = self.manager.get_name(impl.plugin) or repr(impl.plugin)
            distribution, version = self.origins.get(plugin_name, (None, None))
            collected: list[EvaluatorInfo] = []

            def register(
                factory: Callable[..., Any],
                *,
                name: str | None = None,
                _plugin: str = plugin_name,
                _dist: str | None = distribution,
                _version: str | None = version,
                _into: list[EvaluatorInfo] = collected,
            ) -> None:
                _into.append(_make_info(factory, name, _plugin, _dist, _version))

            try:
                impl.function(**{arg: register for arg in impl.argnames})
            except (Exception, SystemExit) as error:
                registry.broken.append(BrokenPlugin(plugin_name, describe_error(error), distribution, version))
                continue
            for info in collected:
                add(info)


def _make_info(
    factory: Callable[..., Any], name: str | None, plugin: str, distribution: str | None, version: str | None
) -> EvaluatorInfo:
    if not callable(factory):
        raise TypeError(f"register() needs a callable factory, got {factory!r}")
    name = name or getattr(factory, "__name__", None)
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"evaluator name {name!r} must be an identifier; pass register(f, name='...')")
    if name in RESERVED:
        raise ValueError(
            f"evaluator name {name!r} is reserved (suite files use {', '.join(RESERVED)} to combine and weigh "
            "evaluators); pass register(f, name='...')"
        )
    return EvaluatorInfo(name, factory, plugin, distribution, version)


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() not in ("", "0", "false", "no")


_plugins: Plugins | None = None
_registry: Registry | None = None


def get_plugins() -> Plugins:
    """The process-wide plugins, loaded from entry points on first use."""
    global _plugins
    if _plugins is None:
        plugins = Plugins()
        plugins.load_entry_points()
        _plugins = plugins
    return _plugins


def get_plugin_manager() -> pluggy.PluginManager:
    """The process-wide pluggy manager, with entry-point plugins loaded."""
    return get_plugins().manager


def get_registry() -> Registry:
    """The process-wide registry of evaluator factories."""
    global _registry
    if _registry is None:
        _registry = get_plugins().registry()
    return _registry


def set_registry(registry: Registry | None) -> None:
    """Replace the process-wide registry (None: load from entry points again on next use)."""
    global _registry, _plugins
    _registry = registry
    if registry is None:
        _plugins = None


def registry_of(*modules: ModuleType | object) -> Registry:
    """A registry built from the given plugin modules only, without entry points (for tests)."""
    plugins = Plugins()
    for index, module in enumerate(modules):
        plugins.register(module, name=getattr(module, "__name__", f"plugin{index}"))
    return plugins.registry()
