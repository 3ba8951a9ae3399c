"""The ``ray`` executor, on the driver: join Ray, send the cases in batches to Ray tasks, emit what streams back.

A few lanes run at once (one Ray task each, as many as the cluster has CPUs, at most the concurrency),
sharing the run's concurrency; each takes the next batch when its task ends. Every task streams its
results as its cases finish, so progress, ``--jsonl`` and the history see them as with ``local``.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from agent_eval import AgentEvalError, EvalResult, RunPlan
from agent_eval_ray.cluster import Connection, Link, address_of
from agent_eval_ray.failures import errored, failure, not_rebuilt
from agent_eval_ray.job import job_of
from agent_eval_ray.options import RayOptions
from agent_eval_ray.planning import Batch, batch_size, batches, lane_concurrencies
from agent_eval_ray.worker import run_batch

#: Called with (index into the plan's cases, result) as each case finishes.
Emit = Callable[[int, EvalResult], None]


class RayExecutor:
    """Runs a plan's cases in batches on Ray tasks; one executor runs one plan."""

    def __init__(self, options: RayOptions | None = None) -> None:
        self.options = options or RayOptions()
        self.stopping = False
        #: The streams of the Ray tasks in flight, for cancelling them.
        self._streams: set[Any] = set()
        self._lanes: list[asyncio.Task[None]] = []
        self._link: Link | None = None

    async def execute(self, plan: RunPlan, emit: Emit) -> None:
        """Run every case of ``plan`` on Ray, calling ``emit(index, result)`` as each case finishes."""
        job = job_of(plan, self.options.working_dir).to_dict()
        if not plan.cases:
            return
        self._link = Link(self.options, plan.settings.concurrency)
        try:
            connection = await self._connect(self._link)
            if connection is not None and not self.stopping:
                await self._run(plan, job, connection.cpus, emit)
        finally:
            await self._link.close()

    async def _connect(self, link: Link) -> Connection | None:
        """The link's connection; None when the run is stopped meanwhile."""
        timeout = self.options.connect_timeout
        try:
            return await asyncio.wait_for(asyncio.shield(link.opened), timeout)
        except asyncio.CancelledError:
            if self.stopping:
                return None
            raise
        except TimeoutError:
            address = address_of(self.options)
            where = f"the Ray cluster at {address!r}" if address else "a local Ray"
            raise AgentEvalError(
                f"no answer from {where} within {timeout:g} s (connect_timeout); is the address right, the cluster up?"
            ) from None

    def stop(self) -> None:
        """Send no more batches and cancel the Ray tasks in flight (their workers are stopped at once)."""
        self.stopping = True
        if self._link is not None:
            self._link.opened.cancel()
        if self._streams:
            import ray

            for stream in list(self._streams):
                with contextlib.suppress(Exception):  # a task that just ended cannot be cancelled: fine
                    ray.cancel(stream, force=True)
        for lane in self._lanes:
            lane.cancel()

    async def _run(self, plan: RunPlan, job: dict[str, Any], cpus: int, emit: Emit) -> None:
        import ray

        count = len(plan.cases)
        positions = plan.positions or tuple(range(count))
        if len(positions) != count:
            raise ValueError(f"the plan has {count} cases but {len(positions)} positions in the suite file")
        concurrency = plan.settings.concurrency
        workers = self.options.workers or cpus
        size = self.options.batch_size or batch_size(count, lane_concurrencies(concurrency, workers, count))
        lanes = lane_concurrencies(concurrency, min(workers, math.ceil(count / size)), count)
        keys = [(case.name, case.fingerprint) for case in plan.cases]
        pending = batches(positions, keys, size)
        # no retries: a case that crashed its worker would crash the next one, and results already
        # streamed must not come twice
        task = ray.remote(max_retries=0)(run_batch)
        self._lanes = [asyncio.create_task(self._lane(task, job, pending, lane, plan, emit)) for lane in lanes]
        outcomes = await asyncio.gather(*self._lanes, return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, BaseException) and not isinstance(outcome, asyncio.CancelledError):
                raise outcome

    async def _lane(
        self, task: Any, job: dict[str, Any], pending: Iterator[Batch], concurrency: int, plan: RunPlan, emit: Emit
    ) -> None:
        for batch in pending:  # the lanes share one iterator: each takes the next batch when it is free
            if self.stopping:
                return
            await self._batch(task, job, batch, concurrency, plan, emit)

    async def _batch(
        self, task: Any, job: dict[str, Any], batch: Batch, concurrency: int, plan: RunPlan, emit: Emit
    ) -> None:
        """Run one batch; the cases it did not return become errors that say why."""
        from ray.exceptions import RayError

        stream = task.remote(job, list(batch.positions), [list(key) for key in batch.keys], concurrency)
        self._streams.add(stream)
        waiting = dict.fromkeys(range(len(batch.indices)))  # positions in the batch, in order
        worker: Mapping[str, Any] | None = None
        reason = "the Ray task ended without returning this case"
        try:
            async for ref in stream:
                message = await ref
                if "worker" in message:
                    worker = message["worker"]
                elif "failed" in message:
                    reason = not_rebuilt(message["failed"], worker)
                for position, data in message.get("results", ()):
                    del waiting[position]
                    if not waiting:
                        # every case came back: the task is ending, so a stop (from this emit, say) leaves it
                        # be. Ray's cancel racing a task's last reply can abort this process (its "Tried to
                        # complete task that was not pending" check: ray-project/ray#54846)
                        self._streams.discard(stream)
                    emit(batch.indices[position], EvalResult.from_dict(data))
        except RayError as error:
            if self.stopping:
                return  # cancelled: its cases simply did not finish
            reason = failure(error, worker)
        finally:
            self._streams.discard(stream)
        for position in waiting:
            index = batch.indices[position]
            emit(index, errored(plan.cases[index], reason))
