"""The ray executor's options, checked when given: from a suite's ``executor:`` mapping or the command line.

Options from the command line arrive as text (``--batch-size 8``), those from a suite file as YAML values.
"""

from __future__ import annotations

import contextlib
import math
import os
from pathlib import Path
from typing import Any

import attrs


def _address(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"ray_address must be a Ray address such as 'head:6379' (the head node's GCS), got {value!r}")
    return value.strip()


def _whole(name: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a whole number of at least 1, got {value!r}")
    return value


def _batch_size(value: Any) -> int | None:
    return _whole("batch_size", value)


def _workers(value: Any) -> int | None:
    return _whole("workers", value)


def _seconds(value: Any) -> float:
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            value = float(value)
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if not number or not math.isfinite(value) or value <= 0:
        raise ValueError(f"connect_timeout must be a positive number of seconds, got {value!r}")
    return float(value)


def _working_dir(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str | os.PathLike) or not Path(value).is_dir():
        raise ValueError(f"working_dir must be an existing folder, got {value!r}")
    return str(Path(value).absolute())


@attrs.frozen(kw_only=True)
class RayOptions:
    """How the ray executor reaches its cluster and splits the work."""

    #: The cluster (None: ``RAY_ADDRESS``, else a local Ray started for the run).
    ray_address: str | None = attrs.field(default=None, converter=_address)
    #: Cases per Ray task (None: chosen from the number of cases and workers).
    batch_size: int | None = attrs.field(default=None, converter=_batch_size)
    #: Ray tasks running at once (None: the cluster's CPUs, at most the concurrency).
    workers: int | None = attrs.field(default=None, converter=_workers)
    #: A folder shipped to every worker as the job's ``runtime_env`` working directory (remote clusters).
    working_dir: str | None = attrs.field(default=None, converter=_working_dir)
    #: Seconds to wait for the cluster to answer (or a local Ray to start) before the run gives up.
    connect_timeout: float = attrs.field(default=120.0, converter=_seconds)
