"""An on-disk cache of embeddings, so that a text's vector is asked for once, ever, per endpoint and model.

One file per vector, ``<cache dir>/embeddings/<2 hex>/<key>``, written under a
temporary name and renamed, so a reader sees a whole file or none. Unlike
verdicts (small, all loaded at a run's first lookup), vectors are kilobytes
each and every run adds its answers' ones: a run reads only the files it looks
up. An unreadable file is a miss, never an error. The key hashes the endpoint
(without credentials), the model and the text; the file holds the vector and
the model, never the text nor a key.

Vectors are kept as 32-bit floats, the precision endpoints compute them in; a
fresh vector is rounded the same way (:func:`as_float32`), so a score is the
same whether its vectors came from the endpoint or from here.
"""

# Paths are strings, as in cache.py.
# ruff: noqa: PTH103, PTH105, PTH107, PTH118, PTH120, PTH123

from __future__ import annotations

import base64
import contextlib
import json
import logging
import math
import os
import sys
from array import array
from collections.abc import Sequence

log = logging.getLogger("agent_eval_judge")

#: Bumped when the stored layout changes; files of another format are misses.
VECTOR_FORMAT = 1


def as_float32(vector: Sequence[float]) -> array[float]:
    """``vector`` rounded to 32-bit floats (compact: four bytes a number)."""
    return array("f", vector)


def encode(vector: array[float], model: str) -> bytes:
    """The file's content for ``vector``: one JSON line, the numbers as base64 of little-endian float32."""
    packed = vector
    if sys.byteorder == "big":
        packed = array("f", vector)
        packed.byteswap()
    record = {"format": VECTOR_FORMAT, "model": model, "v": base64.b64encode(packed.tobytes()).decode("ascii")}
    return json.dumps(record, separators=(",", ":")).encode("ascii")


def decode(raw: bytes) -> array[float] | None:
    """The vector in a file's content, or None when it is not one of ours."""
    try:
        data = json.loads(raw.decode("ascii"))
        if not isinstance(data, dict) or data.get("format") != VECTOR_FORMAT or not isinstance(data.get("v"), str):
            return None
        vector = array("f", base64.b64decode(data["v"], validate=True))
    except (ValueError, RecursionError):
        return None
    if sys.byteorder == "big":
        vector.byteswap()
    if not vector or not all(math.isfinite(number) for number in vector):
        return None
    return vector


class VectorCache:
    """Vectors by key under one folder; a failure to write is logged once and otherwise ignored."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self._unwritable = False

    def _path(self, key: str) -> str:
        return os.path.join(self.directory, key[:2], key)

    def get(self, key: str) -> array[float] | None:
        """The stored vector, or None."""
        try:
            with open(self._path(key), "rb") as stream:
                raw = stream.read(1 << 22)
        except OSError:  # not stored (or unreadable): a miss
            return None
        vector = decode(raw)
        if vector is None:
            log.warning("agent-eval embeddings cache: ignoring an unreadable entry in %s", self.directory)
        return vector

    def put(self, key: str, vector: array[float], model: str) -> None:
        """Store ``vector`` under ``key``."""
        if self._unwritable:
            return
        path = self._path(key)
        temporary = f"{path}.{os.getpid()}-{os.urandom(4).hex()}.tmp"
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
            with open(os.open(temporary, flags, 0o600), "wb") as stream:
                stream.write(encode(vector, model))
            os.replace(temporary, path)
        except OSError as error:
            with contextlib.suppress(OSError):
                os.remove(temporary)
            self._unwritable = True
            log.warning(
                "agent-eval embeddings cache: cannot write to %s (%s); this run's vectors are not all stored",
                self.directory,
                error.strerror or error,
            )
