"""The ray executor for agent-eval: run a suite's cases in batches on a Ray cluster."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_eval_ray.plugin import ray

if TYPE_CHECKING:
    from agent_eval_ray.executor import RayExecutor
    from agent_eval_ray.options import RayOptions

__all__ = ["RayExecutor", "RayOptions", "ray"]


_LAZY = {"RayExecutor": "agent_eval_ray.executor", "RayOptions": "agent_eval_ray.options"}


def __getattr__(name: str) -> Any:
    # The executor and its options load on first use: listing plugins imports only the factory.
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'agent_eval_ray' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
