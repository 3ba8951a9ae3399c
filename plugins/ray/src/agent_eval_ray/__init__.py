"""The ray executor for agent-eval: run a suite's cases in batches on a Ray cluster."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_eval_ray.options import RayOptions
from agent_eval_ray.plugin import ray

if TYPE_CHECKING:
    from agent_eval_ray.executor import RayExecutor

__all__ = ["RayExecutor", "RayOptions", "ray"]


def __getattr__(name: str) -> Any:
    # The executor (and Ray) load on first use: listing plugins imports only the factory.
    if name != "RayExecutor":
        raise AttributeError(f"module 'agent_eval_ray' has no attribute {name!r}")
    from agent_eval_ray.executor import RayExecutor

    return RayExecutor
