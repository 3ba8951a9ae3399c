"""The ray executor without a cluster: its registration, options, how a run is split, the job, the error texts."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import agent_eval
from agent_eval import Case, RunPlan, RunSettings
from agent_eval_ray import RayExecutor, RayOptions, ray
from agent_eval_ray.failures import errored, failure, not_rebuilt, worker_name
from agent_eval_ray.job import Job, job_of
from agent_eval_ray.planning import batch_size, batches, lane_concurrencies

WORKER = {"node": "192.0.2.7", "id": "3f2a9c1b5d6e7f80aa", "pid": 4242}


def test_the_plugin_registers_ray_as_an_executor_with_its_options() -> None:
    info = agent_eval.get_registry().executor("ray")
    assert info.distribution == "agent-eval-ray"
    parameters = ["ray_address", "batch_size", "workers", "working_dir", "connect_timeout"]
    assert list(inspect.signature(info.factory).parameters) == parameters
    assert info.description.startswith("Run the cases in batches on a Ray cluster")
    assert isinstance(info.factory(), agent_eval.Executor)


def test_importing_the_plugin_does_not_import_ray() -> None:
    import subprocess
    import sys

    code = "import agent_eval_ray.plugin, sys; print('ray' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_options_from_the_command_line_arrive_as_text_and_are_converted() -> None:
    executor = ray(ray_address=" 10.0.0.5:6379 ", batch_size="8", workers="3", connect_timeout="2.5")  # type: ignore[arg-type]
    assert executor.options == RayOptions(ray_address="10.0.0.5:6379", batch_size=8, workers=3, connect_timeout=2.5)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"batch_size": 0}, "batch_size must be a whole number of at least 1, got 0"),
        ({"batch_size": "eight"}, "batch_size must be a whole number of at least 1, got 'eight'"),
        ({"workers": True}, "workers must be a whole number of at least 1, got True"),
        ({"ray_address": ""}, "ray_address must be a Ray address such as 'head:6379' (the head node's GCS), got ''"),
        ({"working_dir": "/no/such/folder"}, "working_dir must be an existing folder, got '/no/such/folder'"),
        ({"connect_timeout": "soon"}, "connect_timeout must be a positive number of seconds, got 'soon'"),
        ({"connect_timeout": 0}, "connect_timeout must be a positive number of seconds, got 0"),
    ],
)
def test_a_bad_option_is_a_value_error_of_one_sentence(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError) as raised:
        ray(**options)  # type: ignore[arg-type]
    assert str(raised.value) == message


def test_lanes_share_the_concurrency_one_per_worker() -> None:
    assert lane_concurrencies(100, 2, 2000) == [50, 50]
    assert lane_concurrencies(5, 2, 2000) == [3, 2]
    assert lane_concurrencies(1, 8, 2000) == [1]  # the run's concurrency is the cluster's too
    assert lane_concurrencies(10, 8, 3) == [4, 3, 3]  # no lane without a case


def test_batches_are_a_few_per_lane_and_never_smaller_than_a_lane_runs_at_once() -> None:
    assert batch_size(2000, [50, 50]) == 250
    assert batch_size(10, [5, 5]) == 5
    assert batch_size(10, [1]) == 3
    assert batch_size(3, [50, 50]) == 3
    keys = [(f"case {n}", None) for n in range(5)]
    split = list(batches([10, 11, 12, 13, 14], keys, 2))
    assert [batch.indices for batch in split] == [(0, 1), (2, 3), (4,)]
    assert [batch.positions for batch in split] == [(10, 11), (12, 13), (14,)]
    assert split[2].keys == (("case 4", None),)


def plan(suite_path: str | None = "suite.yaml", reference: str | None = "agents:agent") -> RunPlan:
    settings = RunSettings(concurrency=4, timeout=2.5, repeat=3, case_pass_rate=0.5)
    cases = [Case("a", "x")]
    return RunPlan(cases=cases, settings=settings, suite_path=suite_path, agent_reference=reference, positions=(0,))  # type: ignore[arg-type]


def test_the_job_holds_paths_and_settings_only_and_survives_plain_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "evals").mkdir()
    job = job_of(plan("evals/suite.yaml"), None)
    assert job.suite_path == str(tmp_path / "evals" / "suite.yaml")
    assert job.import_paths == (str(tmp_path), str(tmp_path / "evals"))
    assert job.cwd == str(tmp_path)
    assert (job.timeout, job.repeat, job.case_pass_rate) == (2.5, 3, 0.5)
    data = job.to_dict()
    assert data["import_paths"] == [str(tmp_path), str(tmp_path / "evals")]
    assert Job.from_dict(data) == job


def test_with_a_working_dir_the_paths_are_relative_to_it_as_workers_see_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    job = job_of(plan("evals/suite.yaml"), str(tmp_path))
    assert (job.suite_path, job.import_paths, job.cwd) == ("evals/suite.yaml", (".", "evals"), None)
    with pytest.raises(ValueError, match="must be inside working_dir"):
        job_of(plan("../elsewhere/suite.yaml"), str(tmp_path))


def test_a_plan_without_a_suite_file_cannot_go_to_workers() -> None:
    with pytest.raises(ValueError, match="rebuilds the run from its suite file and agent reference"):
        job_of(plan(None, None), None)
    with pytest.raises(ValueError, match="agent-eval run SUITE --executor ray"):
        agent_eval.EvalSuite(lambda q: q, [Case("a", "x")]).run(print=False, executor=RayExecutor())


class WorkerCrashedError(Exception):
    pass


class RayTaskError(Exception):
    def __init__(self, cause: BaseException) -> None:
        super().__init__("ray::run_batch() (pid=1, ip=192.0.2.7)\n  File ...\nTraceback ...")
        self.cause = cause


def test_a_lost_worker_is_named_with_the_first_line_of_what_ray_says() -> None:
    error = WorkerCrashedError("The worker died unexpectedly while executing this task.\nCheck the *.log files.")
    assert worker_name(WORKER) == "192.0.2.7/3f2a9c1b (pid 4242)"
    assert failure(error, WORKER) == (
        "lost Ray worker 192.0.2.7/3f2a9c1b (pid 4242): WorkerCrashedError: "
        "The worker died unexpectedly while executing this task."
    )
    assert failure(error, None).startswith("Ray task failed before it reached a worker: WorkerCrashedError: ")


def test_a_task_that_raised_gives_what_it_raised_not_ray_s_traceback() -> None:
    error = RayTaskError(RuntimeError("disk full"))
    assert failure(error, WORKER) == "Ray task failed on worker 192.0.2.7/3f2a9c1b (pid 4242): RuntimeError: disk full"
    assert not_rebuilt("SuiteError: x", WORKER) == (
        "Ray worker 192.0.2.7/3f2a9c1b (pid 4242) could not rebuild the run: SuiteError: x"
    )


def test_an_unfinished_case_keeps_its_input_expected_and_metadata() -> None:
    case = Case("a", "question", expected="answer", metadata={"topic": "t"}, fingerprint="f1")
    result = errored(case, "lost Ray worker x")
    assert (result.name, result.input, result.expected, result.status, result.error) == (
        "a",
        "question",
        "answer",
        "error",
        "lost Ray worker x",
    )
    assert result.metadata == {"topic": "t"} and result.fingerprint == "f1"


def test_a_stop_from_a_batch_s_last_result_cancels_the_tasks_still_working_but_not_that_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Ray's cancel of a task that is sending its last reply can abort the caller's process (ray-project/ray#54846)
    import asyncio

    real_ray = pytest.importorskip("ray")
    from agent_eval import EvalResult
    from agent_eval_ray.planning import Batch

    cancelled: list[str] = []
    monkeypatch.setattr(real_ray, "cancel", lambda stream, force=False: cancelled.append(stream.name))

    class Stream:
        """What a Ray task's ``remote`` gives: the refs of its messages, each awaited for the message."""

        def __init__(self, name: str, messages: list[dict[str, object]], hold: asyncio.Event) -> None:
            self.name, self.messages, self.hold = name, messages, hold

        async def __aiter__(self):  # type: ignore[no-untyped-def]
            for message in self.messages:
                await self.hold.wait()
                yield asyncio.sleep(0, result=message)

    def done(name: str) -> dict[str, object]:
        return EvalResult(name, "x", output="x", status="passed", score=1.0).to_dict()

    async def run() -> None:
        executor = RayExecutor(RayOptions(batch_size=2))
        first, working = asyncio.Event(), asyncio.Event()
        streams = iter(
            [
                Stream("finishing", [{"results": [[0, done("a")]]}, {"results": [[1, done("b")]]}], first),
                Stream("working", [{"results": [[0, done("c")]]}], working),  # held until the stop
            ]
        )
        task = type("Task", (), {"remote": staticmethod(lambda *args: next(streams))})()
        plan = RunPlan(cases=[Case("a", "x"), Case("b", "x"), Case("c", "x"), Case("d", "x")])  # type: ignore[arg-type]
        emitted: list[int] = []

        def emit(index: int, result: EvalResult) -> None:
            emitted.append(index)
            if index == 1:  # the first batch's last case: its task is ending
                executor.stop()

        batch = Batch((0, 1), positions=(0, 1), keys=(("a", None), ("b", None)))
        other = Batch((2, 3), positions=(2, 3), keys=(("c", None), ("d", None)))
        lanes = [executor._batch(task, {}, batch, 1, plan, emit), executor._batch(task, {}, other, 1, plan, emit)]
        running = [asyncio.ensure_future(lane) for lane in lanes]
        await asyncio.sleep(0.01)  # both tasks are in flight
        first.set()
        await asyncio.sleep(0.01)
        working.set()
        await asyncio.gather(*running)
        assert emitted[:2] == [0, 1]

    asyncio.run(run())
    assert cancelled == ["working"]
