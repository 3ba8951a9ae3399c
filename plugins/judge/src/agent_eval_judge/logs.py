"""A logging filter that keeps secrets out of the judge's and the HTTP libraries' log records."""

from __future__ import annotations

import logging

from agent_eval_judge.redact import redact


class RedactingFilter(logging.Filter):
    """A logging filter that redacts secrets from each record's message before any handler sees it."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's message when it holds a secret; never drop the record."""
        try:
            message = record.getMessage()
        except Exception:  # a malformed record is the logger's problem, not ours
            return True
        cleaned = redact(message)
        if cleaned != message:
            record.msg = cleaned
            record.args = None
        return True


_FILTERED_LOGGERS = (
    "agent_eval_judge",
    "aiohttp.client",
    "aiohttp.internal",
    # aiohttp reports unclosed sessions and connections through the event loop's exception handler,
    # and a connection's repr shows its proxy credentials.
    "asyncio",
)
_installed = False


def install_log_redaction() -> None:
    """Attach :class:`RedactingFilter` to the judge's and the HTTP libraries' loggers (once)."""
    global _installed
    if _installed:
        return
    _installed = True
    for name in _FILTERED_LOGGERS:
        logging.getLogger(name).addFilter(RedactingFilter())
