"""The agent-eval plugin: registers the ``ray`` executor; its code (and Ray) is imported only when used."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agent_eval import hookimpl

if TYPE_CHECKING:
    from agent_eval_ray.executor import RayExecutor


def ray(
    ray_address: str | None = None,
    batch_size: int | None = None,
    workers: int | None = None,
    working_dir: str | None = None,
    connect_timeout: float = 120.0,
) -> RayExecutor:
    """Run the cases in batches on a Ray cluster (RAY_ADDRESS or ray_address; none: a local Ray for the run).

    ``batch_size``: cases per Ray task (default: chosen from the number of cases and workers);
    ``workers``: Ray tasks at once (default: the cluster's CPUs, at most the concurrency);
    ``working_dir``: a folder shipped to every worker (the job's ``runtime_env``), for a remote cluster;
    ``connect_timeout``: seconds to wait for the cluster (or a local Ray) before giving up.
    """
    from agent_eval_ray.executor import RayExecutor
    from agent_eval_ray.options import RayOptions

    options = RayOptions(
        ray_address=ray_address,
        batch_size=batch_size,
        workers=workers,
        working_dir=working_dir,
        connect_timeout=connect_timeout,
    )
    return RayExecutor(options)


@hookimpl
def register_executors(register: Callable[..., Any]) -> None:
    """Register ``ray``."""
    register(ray)
