"""A run's embeddings from one endpoint: each distinct text asked for once, texts sent together in batches.

Evaluations that run at about the same time share requests: the first text
that needs asking opens a batch, texts from other evaluations join it for
``embeddings_batch_window`` seconds (or until it holds ``embeddings_batch_size``
texts), and then one ``POST /embeddings`` with a list ``input`` asks for them all.
A text already known (asked earlier in the run, being asked now, or stored on
disk) is not asked again, so a reference shared by many cases costs one text.
A batch the endpoint refuses with a 400 (one text too long for the model, say)
is asked again text by text, so that only the texts it refuses fail.

A batch's tokens and requests are charged to one of the evaluations that put a
text in it, so the report's sums are exact.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from agent_eval_judge.cache import KeyMaker
from agent_eval_judge.errors import JudgeError, JudgeRequestError
from agent_eval_judge.usage import summed
from agent_eval_judge.vectors import VectorCache, as_float32

if TYPE_CHECKING:
    from array import array

    from agent_eval_judge.config import Endpoint, Settings
    from agent_eval_judge.transport import Requester


@attrs.define(eq=False)
class _Batch:
    """Texts asked for in one request (or, after a 400, one by one), and what they cost until claimed."""

    texts: list[str] = attrs.Factory(list)
    futures: list[asyncio.Future[array[float]]] = attrs.Factory(list)
    usage: dict[str, int] = attrs.Factory(dict)
    claimed: bool = False

    def charge(self, usage: dict[str, int]) -> None:
        summed([usage], into=self.usage)

    def claim(self) -> dict[str, int]:
        """What the batch cost, the first time it is claimed; nothing after."""
        if self.claimed:
            return {}
        self.claimed = True
        return self.usage


@attrs.frozen
class Fetched:
    """Vectors for an evaluation's texts, in order, and what they cost it."""

    vectors: list[array[float]]
    #: Tokens the endpoint reported and ``requests``, for the batches this evaluation is charged with.
    usage: dict[str, int]
    #: Texts that were already known (from the disk or earlier in the run).
    cache_hits: int


class Embeddings:
    """The run's vectors from one endpoint and model (one per run and endpoint; see the session)."""

    def __init__(
        self, endpoint: Endpoint, requester: Callable[[], Requester], store: VectorCache | None, settings: Settings
    ) -> None:
        self.endpoint = endpoint
        self._requester = requester
        self._store = store
        self._size = settings.embeddings_batch_size
        self._window = settings.embeddings_batch_window
        self._keys = KeyMaker({"kind": "embedding", "endpoint": endpoint.identity, "model": endpoint.model})
        #: Every text of the run: its vector, or the request that will give it.
        self._known: dict[str, asyncio.Future[array[float]]] = {}
        self._open: _Batch | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._sending: set[asyncio.Task[None]] = set()

    async def vectors(self, texts: Sequence[str]) -> Fetched:
        """A vector for each of ``texts`` (a JudgeError when the endpoint gives none)."""
        waits: list[asyncio.Future[array[float]]] = []
        batches: list[_Batch] = []
        hits = 0
        for text in texts:
            known = self._known.get(text)
            if known is None:
                known = self._stored(text)
            if known is not None:
                hits += 1
                waits.append(known)
                continue
            future, batch = self._enqueue(text)
            waits.append(future)
            if batch not in batches:
                batches.append(batch)
        vectors = [await _shared(wait) for wait in waits]
        return Fetched(vectors, summed(batch.claim() for batch in batches), hits)

    def _stored(self, text: str) -> asyncio.Future[array[float]] | None:
        vector = self._store.get(self._keys.key(text)) if self._store is not None else None
        if vector is None:
            return None
        future = self._known[text] = asyncio.get_running_loop().create_future()
        future.set_result(vector)
        return future

    def _enqueue(self, text: str) -> tuple[asyncio.Future[array[float]], _Batch]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[array[float]] = loop.create_future()
        future.add_done_callback(_retrieve)
        self._known[text] = future
        batch = self._open
        if batch is None:
            batch = self._open = _Batch()
            self._timer = loop.call_later(self._window, self._flush)
        batch.texts.append(text)
        batch.futures.append(future)
        if len(batch.texts) >= self._size:
            self._flush()
        return future, batch

    def _flush(self) -> None:
        batch, self._open = self._open, None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if batch is not None:
            task = asyncio.get_running_loop().create_task(self._send(batch, batch.texts, batch.futures))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)

    async def _send(self, batch: _Batch, texts: list[str], futures: list[asyncio.Future[array[float]]]) -> None:
        try:
            embedded = await self._requester().embed(self.endpoint, texts)
        except JudgeRequestError as error:
            if error.category == "judge_bad_request" and len(texts) > 1:
                # One text the endpoint refuses (too long for the model, say) must not fail the others.
                alone = zip(texts, futures, strict=True)
                await asyncio.gather(*(self._send(batch, [text], [future]) for text, future in alone))
                return
            self._fail(texts, futures, error)
            return
        except (JudgeError, asyncio.CancelledError) as error:
            self._fail(texts, futures, error)
            if isinstance(error, asyncio.CancelledError):
                raise
            return
        except Exception as error:  # a bug: every waiter sees it (as its case's error) rather than hangs
            self._fail(texts, futures, error)
            return  # and the task ends there: raised again, it would be an unretrieved task exception too
        batch.charge({**embedded.usage, "requests": embedded.requests})
        for text, future, vector in zip(texts, futures, embedded.vectors, strict=True):
            rounded = as_float32(vector)
            if self._store is not None:
                self._store.put(self._keys.key(text), rounded, self.endpoint.model)
            if not future.done():
                future.set_result(rounded)

    def _fail(self, texts: list[str], futures: list[asyncio.Future[array[float]]], error: BaseException) -> None:
        for text, future in zip(texts, futures, strict=True):
            if self._known.get(text) is future:
                del self._known[text]  # a later evaluation may ask again
            if future.done():
                continue
            if isinstance(error, asyncio.CancelledError):
                future.cancel()
            else:
                future.set_exception(error)

    async def aclose(self) -> None:
        """Stop what is still waiting or being asked (the run is over)."""
        if self._timer is not None:
            self._timer.cancel()
        open_batch, self._open = self._open, None
        if open_batch is not None:
            self._fail(open_batch.texts, open_batch.futures, asyncio.CancelledError())
        sending = list(self._sending)
        for task in sending:
            task.cancel()
        await asyncio.gather(*sending, return_exceptions=True)


async def _shared(future: asyncio.Future[array[float]]) -> array[float]:
    """The future's vector; cancelling the waiter leaves the future to its other waiters."""
    try:
        return await asyncio.shield(future)
    except JudgeError as error:
        raise error.copy() from None  # each evaluation its own


def _retrieve(future: asyncio.Future[Any]) -> None:
    # A batch's error is seen by whoever waits; one nobody waits for any more is not worth a warning.
    if not future.cancelled():
        future.exception()
