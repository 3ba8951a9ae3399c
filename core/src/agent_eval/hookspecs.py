"""Hook specifications: what a plugin of project ``agent_eval`` can implement.

A plugin is a module named by an entry point in group ``agent_eval``::

    [project.entry-points.agent_eval]
    acme = "acme_evals.plugin"

Its functions marked with :data:`hookimpl` are called by agent-eval.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pluggy

PROJECT = "agent_eval"

#: Marks a function of a plugin module as the implementation of a hook.
hookimpl = pluggy.HookimplMarker(PROJECT)
#: Marks a function of this module as a hook specification.
hookspec = pluggy.HookspecMarker(PROJECT)


@hookspec
def register_evaluators(register: Callable[..., Any]) -> None:
    """Register the evaluator factories this plugin provides.

    Called once, when agent-eval first needs the list of evaluators (a suite
    is loaded, ``agent_eval.evaluators`` is accessed, or ``agent-eval
    list-evaluators`` runs).

    :param register:
        ``register(factory, *, name=None)``. ``factory`` is a callable whose
        parameters are the evaluator's options and which returns an evaluator:
        a callable ``(output)`` or ``(output, ctx)``, sync or async, returning
        ``bool`` or :class:`agent_eval.Verdict`. ``name`` defaults to
        ``factory.__name__``; it is the key used in suite files (``all``,
        ``any``, ``not`` and ``weight`` are reserved there: registering one
        raises ValueError). The first
        line of the factory's docstring is the description that
        ``agent-eval list-evaluators`` shows, and its signature gives the
        parameters (with their defaults) listed by ``--json``.

    Keep the plugin module cheap to import: import heavy libraries inside the
    factory or the evaluator, so that listing evaluators stays fast.

    Example::

        from agent_eval import Verdict, hookimpl

        def word_count_at_most(limit: int):
            \"\"\"Passes when the output has at most `limit` words.\"\"\"
            def check(output: str) -> Verdict:
                words = len(str(output).split())
                return Verdict(words <= limit, reason=f"{words} words (limit {limit})")
            return check

        @hookimpl
        def register_evaluators(register):
            register(word_count_at_most)
            register(word_count_at_most, name="acme_short")

    A plugin whose ``register_evaluators`` raises is reported (entry point,
    distribution, error) and its evaluators are left out; other plugins load.
    """


@hookspec
def register_executors(register: Callable[..., Any]) -> None:
    """Register the executors this plugin provides: ways to run a suite's cases.

    Called once, when agent-eval first needs the executors (``agent-eval run --executor NAME``, or a
    suite file's ``executor:`` key). The core registers ``local`` itself, through this same hook: the
    asyncio workers of this process.

    :param register:
        ``register(factory, *, name=None)``. ``factory`` is a callable whose parameters are the
        executor's options (``--executor ray --ray-address ADDR`` passes ``ray_address="ADDR"``; a
        suite's ``executor: {ray: {ray_address: ...}}`` passes the mapping) and which returns a new
        executor for one run: an object with ``async execute(plan, emit)`` and ``stop()``
        (:class:`agent_eval.Executor`). ``execute`` runs the cases of ``plan``
        (:class:`agent_eval.RunPlan`: the cases, the agent, the settings, and the suite file and agent
        reference a worker in another process rebuilds them from) and calls ``emit(index, result)``
        with an :class:`agent_eval.EvalResult` as each case finishes; ``stop()`` (Ctrl-C) cancels the
        work in flight. ``name`` defaults to ``factory.__name__``.

    Keep the plugin module cheap to import: import the cluster's client inside the factory.

    Example::

        from agent_eval import EvalSuite, hookimpl

        class InOrder:
            \"\"\"Run the cases one at a time, in this process.\"\"\"

            def __init__(self):
                self.stopped = False

            async def execute(self, plan, emit):
                for index, case in enumerate(plan.cases):
                    if self.stopped:
                        return
                    report = await EvalSuite(plan.agent, [case]).arun(print=False, timeout=plan.settings.timeout)
                    emit(index, report.cases[0])

            def stop(self):
                self.stopped = True

        @hookimpl
        def register_executors(register):
            register(InOrder, name="in_order")
    """


@hookspec
def register_commands(register: Callable[..., Any]) -> None:
    """Register the ``agent-eval`` subcommands this plugin provides.

    Called when the command line is asked for a command that is not one of agent-eval's own (or for
    the list of commands, ``agent-eval --help``): agent-eval's own commands start without loading any
    plugin. ``agent-eval-judge`` registers ``calibrate`` and ``review`` this way.

    :param register:
        ``register(command)``. ``command`` is a ``click.Command`` (``@click.command()``); its name is
        the subcommand's. A name agent-eval already uses, or that another plugin registered first, is
        refused with a warning naming both.

    Keep the plugin module cheap to import: define the command in a module of its own and import it
    inside ``register_commands``, and import heavy libraries inside the command.

    Example::

        import click
        from agent_eval import hookimpl

        @click.command()
        @click.argument("name")
        def hello(name):
            \"\"\"Say hello.\"\"\"
            click.echo(f"hello {name}")

        @hookimpl
        def register_commands(register):
            register(hello)
    """
