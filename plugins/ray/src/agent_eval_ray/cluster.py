"""Reaching Ray for a run: the cluster named, or a local Ray started for the run and shut down after it.

The address is ``ray_address``, else ``RAY_ADDRESS``; with neither, a local Ray is started with a small
footprint (no dashboard, as many CPUs as the run can use, a small object store, quiet logs). A process
that already called ``ray.init`` keeps its connection: the run uses it and leaves it open.
"""

from __future__ import annotations

import logging
import os
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


def _cpus() -> int:
    import ray

    resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
    return max(1, int(resources.get("CPU", 1)))
