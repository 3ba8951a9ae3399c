"""What the judges of one run share (one session per event loop): settings, endpoints, the cache, HTTP.

The settings and endpoints are read from the environment at the run's first
judge evaluation, not at every one; the verdict cache is loaded at its first
lookup; the HTTP side (:mod:`agent_eval_judge.transport`, which imports
aiohttp) is made at the first request, so a run served from the cache never
loads it. Every ``llm_judge`` and ``similar`` evaluator of the run holds the session; the last
one to be closed (the runner closes them at the end of a run) closes it.
"""

from __future__ import annotations

import asyncio
import os
import threading
import weakref
from typing import TYPE_CHECKING

from agent_eval_judge.cache import KeyMaker, VerdictCache
from agent_eval_judge.config import Endpoint, Settings, resolve_embeddings_endpoint, resolve_endpoint
from agent_eval_judge.embeddings import Embeddings
from agent_eval_judge.errors import JudgeConfigError
from agent_eval_judge.redact import Redactor
from agent_eval_judge.vectors import VectorCache

if TYPE_CHECKING:
    from agent_eval_judge.transport import Requester


class Session:
    """The judge's shared state for one run (one event loop)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        #: The run's event loop, weakly: the registry below forgets a session whose loop is gone.
        self.loop = weakref.ref(loop)
        self.users: set[int] = set()
        self.closed = False
        self._settings: Settings | None = None
        self._settings_error: JudgeConfigError | None = None
        try:
            self._settings = Settings.from_env()
        except JudgeConfigError as error:
            # Each evaluation reports it (after checking that a judge is configured at all).
            self._settings_error = error
        #: Removes the environment's credentials (found once) from every reason the judge gives.
        self.redact = Redactor.from_environment()
        #: Cache keys' fixed parts, hashed once per (endpoint, model).
        self.key_makers: dict[tuple[str, str, bool], KeyMaker] = {}
        self._endpoints: dict[str | None, Endpoint] = {}
        self._verdicts: VerdictCache | None = None
        self._embeddings: Embeddings | None = None
        self._requester: Requester | None = None

    def is_current(self) -> bool:
        """Whether this session is open and belongs to the running event loop."""
        return not self.closed and self.loop() is asyncio.get_running_loop()

    @property
    def settings(self) -> Settings:
        """The run's settings; a JudgeConfigError when a variable holds a bad value."""
        if self._settings is None:
            error = self._settings_error
            assert error is not None
            raise JudgeConfigError(str(error), category=error.category)
        return self._settings

    def endpoint(self, model: str | None) -> Endpoint:
        """The endpoint for ``model`` (None: the environment's), resolved once per run; Skip when none is set."""
        endpoint = self._endpoints.get(model)
        if endpoint is None:
            endpoint = self._endpoints[model] = resolve_endpoint(model)
        return endpoint

    @property
    def verdicts(self) -> VerdictCache | None:
        """The verdict cache, or None when ``AGENT_EVAL_JUDGE_CACHE=0``."""
        if self._verdicts is None and self.settings.cache:
            folder = os.path.join(self.settings.cache_dir, "judge")  # noqa: PTH118 (paths are strings, see cache.py)
            self._verdicts = VerdictCache(folder)
        return self._verdicts

    def embeddings(self) -> Embeddings:
        """The run's embeddings (endpoint from the environment, resolved once); Skip when none is configured."""
        if self._embeddings is None:
            endpoint = resolve_embeddings_endpoint()  # first: unconfigured is a skip, whatever else is set
            settings = self.settings
            store = None
            if settings.cache:
                store = VectorCache(os.path.join(settings.cache_dir, "embeddings"))  # noqa: PTH118
            self._embeddings = Embeddings(endpoint, lambda: self.requester, store, settings)
        return self._embeddings

    @property
    def requester(self) -> Requester:
        """The HTTP side, made (and aiohttp imported) at the first request."""
        if self._requester is None:
            from agent_eval_judge.transport import Requester

            self._requester = Requester(self.settings)
        return self._requester

    async def aclose(self) -> None:
        """Close this run's cache segment and HTTP client (idempotent)."""
        if self.closed:
            return
        self.closed = True
        if self._verdicts is not None:
            self._verdicts.close()
        if self._embeddings is not None:
            await self._embeddings.aclose()
        if self._requester is not None:
            await self._requester.aclose()


_sessions: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Session] = weakref.WeakKeyDictionary()
_sessions_lock = threading.Lock()


def session_for(user: object) -> Session:
    """The running loop's session (created on first use), with ``user`` counted among its holders."""
    loop = asyncio.get_running_loop()
    with _sessions_lock:
        session = _sessions.get(loop)
        if session is None or session.closed:
            session = _sessions[loop] = Session(loop)
        session.users.add(id(user))
    return session


async def release(user: object, sessions: list[Session]) -> None:
    """``user`` is done; close each session that nobody else holds."""
    for session in sessions:
        with _sessions_lock:
            session.users.discard(id(user))
            last = not session.users
            if last:
                for loop, held in list(_sessions.items()):
                    if held is session:
                        del _sessions[loop]
        if last:
            await session.aclose()
