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
    #: Where the run went: the address given, or "a local Ray".
    where: str

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
        return Connection(cpus=_cpus(), owned=False, where="the Ray this process joined")
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
    return Connection(cpus=_cpus(), owned=True, where=repr(address) if address else "a local Ray")


def connecting(options: RayOptions, concurrency: int) -> asyncio.Future[Connection]:
    """:func:`connect` in a thread of its own, as a future of this loop.

    Joining a cluster can take seconds (starting a local Ray) or minutes (Ray retries an address that
    does not answer), so a run that is stopped meanwhile does not wait for it: it cancels the future,
    and the connection, when it comes, is closed at once. The thread is a daemon, so that a process
    that ends meanwhile does not wait for it either.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Connection] = loop.create_future()

    def hand_over(connection: Connection | None, error: BaseException | None) -> None:
        if future.cancelled():
            if connection is not None:
                threading.Thread(target=connection.close, daemon=True).start()
        elif error is not None:
            future.set_exception(error)
        else:
            future.set_result(connection)  # type: ignore[arg-type]

    def work() -> None:
        connection, error = None, None
        try:
            connection = connect(options, concurrency)
        except BaseException as raised:  # handed to the run, which raises it
            error = raised
        try:
            loop.call_soon_threadsafe(hand_over, connection, error)
        except RuntimeError:  # the run's loop is gone: nobody will use this connection
            if connection is not None:
                connection.close()

    threading.Thread(target=work, name="agent-eval-ray-connect", daemon=True).start()
    return future


def _cpus() -> int:
    import ray

    resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
    return max(1, int(resources.get("CPU", 1)))
