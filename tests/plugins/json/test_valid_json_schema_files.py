"""Schema files that are not regular files, too large, not UTF-8 or too deep: refused when the suite loads."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

from agent_eval_json import valid_json


def refusal(schema: Path, seconds: float = 10) -> str:
    """The message of the ValueError ``valid_json(schema)`` raises, within ``seconds`` (a block fails the test)."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            valid_json(str(schema))
        except BaseException as error:
            outcome["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        if schema.is_fifo():  # a writer lets a reader blocked in open() go on
            os.close(os.open(schema, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(seconds)
        pytest.fail(f"reading the schema {schema.name} blocked for {seconds} s")
    error = outcome.get("error")
    assert isinstance(error, ValueError), error
    return str(error)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need a POSIX system")
def test_a_named_pipe_as_the_schema_is_refused_at_once(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "schema.json")
    assert refusal(tmp_path / "schema.json") == (
        f"schema file '{tmp_path / 'schema.json'}' is a named pipe (FIFO), not a regular file"
    )


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_device_behind_a_symlink_as_the_schema_is_refused(tmp_path: Path) -> None:
    (tmp_path / "schema.json").symlink_to("/dev/zero")
    assert refusal(tmp_path / "schema.json") == (
        f"schema file '{tmp_path / 'schema.json'}' is a character device, not a regular file"
    )


def test_a_schema_file_over_the_cap_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_eval_json import schema as schemas

    path = tmp_path / "schema.json"
    path.write_text('{"type": "object", "description": "' + "x" * 100 + '"}', encoding="utf-8")
    monkeypatch.setattr(schemas, "MAX_SCHEMA_BYTES", 50)
    assert refusal(path) == f"schema file '{path}' is too large: {path.stat().st_size} bytes, more than 50; split it up"


def test_a_schema_file_that_is_not_utf8_is_refused_with_its_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "schema.json"
    path.write_bytes(b'{"type": "object",\n "description": "caf\xe9"}')
    assert refusal(path) == (
        f"schema file '{path}' is not UTF-8 text: byte 0xe9 cannot be decoded; save the file as UTF-8 "
        "(line 2, column 21)"
    )


def test_a_schema_file_nested_too_deeply_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "schema.json"
    path.write_text('{"enum": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    assert refusal(path) == f"schema file '{path}' nests too deeply to read"
    path.write_text('{"maximum": 1' + "0" * 5000 + "}", encoding="utf-8")
    assert refusal(path) == f"schema file '{path}' holds an integer of more than 4,300 digits"
