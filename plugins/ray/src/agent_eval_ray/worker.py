"""The Ray task, run in a worker process: rebuild the run there, run one batch, stream each result back.

The task is a generator (a Ray streaming generator): it yields who it is first, so that a worker lost
later can be named, then the results of its cases, as plain dicts, as they finish. The batch runs as
``EvalSuite.arun`` does in one process (concurrency, timeout and repeats per case), on an event loop in
a thread of its own, so that results go out while other cases are still running.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from agent_eval import AgentContext, AgentEvalError, EvalResult, EvalSuite, SuiteFile, load_agent, load_suite
from agent_eval import describe_error as describe
from agent_eval_ray.job import Job

#: The suite and agent this worker process rebuilt, by (suite file, agent reference, modification time):
#: a worker runs many batches of one run, and loads them once.
_BUILT: dict[tuple[str, str, int], tuple[SuiteFile, Callable[..., Any]]] = {}

#: What a batch's event loop hands the generator: (index in the batch, result), or how the batch ended.
_Item = tuple[int, dict[str, Any]] | BaseException | None


def run_batch(
    job_data: dict[str, Any], positions: Sequence[int], keys: Sequence[Sequence[Any]], concurrency: int
) -> Iterator[dict[str, Any]]:
    """Yield ``{"worker": ...}``, then ``{"results": [[index, result], ...]}`` as cases finish.

    A run that cannot be rebuilt here (the suite file, a plugin or the agent missing on this worker)
    yields ``{"failed": reason}`` instead of results.
    """
    yield {"worker": identity()}
    job = Job.from_dict(job_data)
    try:
        suite, agent = rebuild(job)
        cases = pick(suite, positions, keys)
    except Exception as error:  # whatever stops the rebuild is the reason every case of the batch gives
        yield {"failed": describe(error)}
        return
    yield from _stream(job, agent, cases, concurrency)


def identity() -> dict[str, Any]:
    """The node, worker id and process of this worker."""
    import ray

    node = ray.util.get_node_ip_address()  # type: ignore[no-untyped-call]
    return {"node": node, "id": ray.get_runtime_context().get_worker_id(), "pid": os.getpid()}


def rebuild(job: Job) -> tuple[SuiteFile, Callable[..., Any]]:
    """The suite and agent of ``job``, loaded in this process (its plugins, its import path)."""
    if job.cwd is not None and Path(job.cwd).is_dir():
        os.chdir(job.cwd)  # this process runs only this run's tasks: a Ray worker serves one job
    for path in reversed(job.import_paths):
        folder = str(Path(path).absolute())
        if folder not in sys.path:
            sys.path.insert(0, folder)
    suite_path = str(Path(job.suite_path).absolute())
    key = (suite_path, job.agent_reference, Path(suite_path).stat().st_mtime_ns)
    built = _BUILT.get(key)
    if built is None:
        suite = load_suite(suite_path)
        built = _BUILT[key] = (suite, load_agent(job.agent_reference, origin=suite_path))
    return built


def pick(suite: SuiteFile, positions: Sequence[int], keys: Sequence[Sequence[Any]]) -> Any:
    """The suite's cases at ``positions``, checked to be the ones the run means (same name and fingerprint)."""
    cases = suite.cases
    for position, (name, fingerprint) in zip(positions, keys, strict=True):
        case = cases[position] if 0 <= position < len(cases) else None
        if case is None or case.name != name or (fingerprint is not None and case.fingerprint != fingerprint):
            raise AgentEvalError(
                f"{suite.path}: case {name!r} is not case {position + 1} as the run expects; "
                "the suite file changed since the run started, or differs on this worker"
            )
    return cases.select(cases[position] for position in positions)


def _stream(job: Job, agent: Callable[..., Any], cases: Any, concurrency: int) -> Iterator[dict[str, Any]]:
    finished: queue.SimpleQueue[_Item] = queue.SimpleQueue()

    def on_result(index: int, result: EvalResult) -> None:
        finished.put((index, result.to_dict()))

    def work() -> None:
        suite = EvalSuite(agent, cases, name=job.name)
        run = suite.arun(
            AgentContext(session_id=job.session_id, env=dict(job.env)),
            print=False,
            concurrency=concurrency,
            timeout=job.timeout,
            repeat=job.repeat,
            case_pass_rate=job.case_pass_rate,
            on_result=on_result,
        )
        try:
            asyncio.run(run)
        except BaseException as error:  # handed to the generator, which raises it as the task's error
            finished.put(error)
        else:
            finished.put(None)

    threading.Thread(target=work, name="agent-eval-batch", daemon=True).start()
    while True:
        items = [finished.get()]
        with contextlib.suppress(queue.Empty):
            while True:  # whatever else finished meanwhile goes in the same message
                items.append(finished.get_nowait())
        results = [list(item) for item in items if isinstance(item, tuple)]
        if results:
            yield {"results": results}
        for item in items:
            if isinstance(item, BaseException):
                raise item
            if item is None:
                return
