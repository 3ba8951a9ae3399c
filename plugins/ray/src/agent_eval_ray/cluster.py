"""Reaching Ray for a run: the cluster named, or a local Ray started for the run and shut down after it.

The address is ``ray_address``, else ``RAY_ADDRESS``; with neither, a local Ray is started with a small
footprint (no dashboard, as many CPUs as the run can use, a small object store, quiet logs). A process
that already called ``ray.init`` keeps its connection: the run uses it and leaves it open.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from typing import Any

import attrs

from agent_eval import AgentEvalError, describe_error
from agent_eval_ray.options import RayOptions

#: The local Ray's object store: results are small dicts (Ray sends them inline, not through the store).
LOCAL_OBJECT_STORE_BYTES = 128 * 1024 * 1024
#: Ray's own log level during a run: its errors, not its notices.
QUIET = logging.ERROR


@attrs.define
class Connection:
    """This process's connection to Ray for one run."""

    #: The cluster's CPUs when the run started: how many Ray tasks it runs at once.
    cpus: int
    #: Whether the run called ``ray.init`` (and so shuts Ray down after).
    owned: bool

    def close(self) -> None:
        """Disconnect (a local Ray stops with it) when the run connected."""
        if self.owned:
            import ray

            ray.shutdown()


def address_of(options: RayOptions) -> str | None:
    """The cluster to join: the option, else ``RAY_ADDRESS``; None for a local Ray."""
    return options.ray_address or os.environ.get("RAY_ADDRESS") or None


def connect(options: RayOptions, concurrency: int) -> Connection:
    """Join the cluster (or start a local Ray) for a run of ``concurrency`` cases at once."""
    import ray

    if ray.is_initialized():
        if options.working_dir is not None:
            raise AgentEvalError(
                "working_dir cannot apply: Ray is already initialised in this process; "
                "pass runtime_env={'working_dir': ...} to your ray.init instead"
            )
        return Connection(cpus=_cpus(), owned=False)
    address = address_of(options)
    settings: dict[str, Any] = {}
    if options.working_dir is not None:
        settings["runtime_env"] = {"working_dir": options.working_dir}
    # Ray's logger at the run's level from the start: ray.init warns before it applies logging_level (the
    # run connects from a thread, where Ray cannot set its SIGTERM handler; the run has its own)
    logging.getLogger("ray").setLevel(QUIET)
    try:
        if address is not None:
            ray.init(address=address, logging_level=QUIET, **settings)
        else:
            # a Ray started for one run reports no usage statistics unless asked to
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            ray.init(
                address="local",
                num_cpus=options.workers or max(1, min(concurrency, os.cpu_count() or 1)),
                include_dashboard=False,
                object_store_memory=LOCAL_OBJECT_STORE_BYTES,
                logging_level=QUIET,
                **settings,
            )
    except Exception as error:  # Ray raises ConnectionError, RuntimeError, ValueError... for the same mistake
        where = f"the Ray cluster at {address!r}" if address else "a local Ray"
        raise AgentEvalError(f"cannot start the run on {where}: {describe_error(error)}") from None
    return Connection(cpus=_cpus(), owned=True)


class Link:
    """A run's connection to Ray, made, held and closed by a thread of its own.

    Joining can take seconds (starting a local Ray) or minutes (Ray retries an address that does not
    answer), so a run that is stopped meanwhile does not wait: it cancels :attr:`opened`, and the
    connection, when it comes, is closed at once. The thread then stays until :meth:`close`: the
    processes of a local Ray die with the thread that started them (Linux's parent-death signal is
    per thread). It is a daemon, so that a process that ends meanwhile does not wait for it.
    """

    def __init__(self, options: RayOptions, concurrency: int) -> None:
        self._loop = asyncio.get_running_loop()
        #: The connection, once made.
        self.opened: asyncio.Future[Connection] = self._loop.create_future()
        self._release = threading.Event()
        self._thread = threading.Thread(
            target=self._hold, args=(options, concurrency), name="agent-eval-ray", daemon=True
        )
        self._thread.start()

    async def close(self) -> None:
        """Let go of the connection (a local Ray stops): waits for that, but never for a join still going on."""
        made = self.opened.done() and not self.opened.cancelled() and self.opened.exception() is None
        self.opened.cancel()
        self._release.set()
        if made:
            await asyncio.to_thread(self._thread.join)

    def _hold(self, options: RayOptions, concurrency: int) -> None:
        try:
            connection = connect(options, concurrency)
        except BaseException as error:  # handed to the run, which raises it
            self._hand_over(None, error)
            return
        self._hand_over(connection, None)
        self._release.wait()
        connection.close()

    def _hand_over(self, connection: Connection | None, error: BaseException | None) -> None:
        def give() -> None:
            if self.opened.cancelled():
                self._release.set()  # nobody waits for it any more: close it at once
            elif error is not None:
                self.opened.set_exception(error)
            elif connection is not None:
                self.opened.set_result(connection)

        try:
            self._loop.call_soon_threadsafe(give)
        except RuntimeError:  # the run's loop is gone: nobody will use this connection
            self._release.set()


def _cpus() -> int:
    import ray

    resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
    return max(1, int(resources.get("CPU", 1)))
