"""A real Ray cluster on this machine for the tests of a module: `ray start --head`, stopped after, whatever happens."""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

RAY = Path(sys.executable).parent / "ray"
_PR_SET_PDEATHSIG = 1
#: Looked up here, not in the forked child, where taking an import lock could hang.
_PRCTL = ctypes.CDLL(None).prctl if sys.platform.startswith("linux") else None
#: Seconds the head may take to start on a busy two-core machine.
START_TIMEOUT = 120


@pytest.fixture(scope="module")
def ray_address() -> Iterator[str]:
    """The address of a two-CPU Ray head started for this module (its own temp folder, its own process group)."""
    pytest.importorskip("ray")
    # short: Ray puts Unix sockets under it, and their paths are limited to about 100 characters
    temp = Path(tempfile.mkdtemp(prefix="aer-", dir="/tmp"))
    log = (temp / "head.log").open("w")
    # a test cluster: no authentication token (the drivers are this machine's tests), no usage statistics
    env = {**os.environ, "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
    env.pop("RAY_ADDRESS", None)
    command = [str(RAY), "start", "--head", "--block", "--port=0", "--num-cpus=2", f"--temp-dir={temp}"]
    command += ["--include-dashboard=false", "--disable-usage-stats"]
    # --block keeps `ray start` as the parent of the cluster's processes, in a process group of its own:
    # stopping it stops them, and the group is killed after, so nothing of the cluster outlives the module;
    # and should this process die before its teardown, the kernel sends `ray start` SIGTERM all the same
    head = subprocess.Popen(
        command,
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        start_new_session=True,
        preexec_fn=_terminate_with_parent,
    )
    try:
        yield _address(temp, head)
    finally:
        _stop(head)
        log.close()
        shutil.rmtree(temp, ignore_errors=True)


def _terminate_with_parent() -> None:
    """In the child, before exec: SIGTERM when the process that started it dies (Linux's PR_SET_PDEATHSIG)."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _address(temp: Path, head: subprocess.Popen[bytes]) -> str:
    """The head's address, once `ray start` has written it."""
    written = temp / "ray_current_cluster"
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if head.poll() is not None:
            pytest.fail(f"ray start exited with {head.returncode}:\n{(temp / 'head.log').read_text()}")
        if written.exists() and written.read_text().strip():
            return written.read_text().strip()
        time.sleep(0.2)
    pytest.fail(f"ray start did not come up in {START_TIMEOUT} s:\n{(temp / 'head.log').read_text()}")


def _stop(head: subprocess.Popen[bytes]) -> None:
    """SIGTERM to `ray start` (it stops its cluster), then SIGKILL to whatever is left of its process group."""
    with contextlib.suppress(ProcessLookupError):
        head.send_signal(signal.SIGTERM)
    try:
        head.wait(timeout=30)
    except subprocess.TimeoutExpired:
        pass
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(head.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        head.wait(timeout=10)
