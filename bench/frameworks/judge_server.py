"""The judge for scenario F: agent-eval's test chat server, answering every request with a verdict after a delay.

Runs in its own process so that the client under test has a core of its own.
Prints the base URL on the first line, then serves until its standard input
closes; then prints how many chat requests it answered.
"""

from __future__ import annotations

import json
import sys

from agent_eval.testing import ChatServer
from agent_eval.testing.server import RecordedRequest, Reply, completion_reply

VERDICT = json.dumps({"reason": "the answer states the number", "pass": True, "score": 1.0})


def main() -> None:
    """Serve until standard input closes."""
    delay = float(sys.argv[1]) if len(sys.argv) > 1 else 0.02

    def answer(request: RecordedRequest) -> Reply:
        return completion_reply(VERDICT, delay=delay)

    with ChatServer(answer) as server:
        print(server.url, flush=True)
        sys.stdin.read()
        print(len(server.chat_requests), flush=True)


if __name__ == "__main__":
    main()
