"""``agent-eval review --serve``: the page on 127.0.0.1 (stdlib ``http.server``) until Ctrl-C.

Only ``GET /`` answers, with the page; any other path is 404. A request whose Host is not this
address (a web page that rebinds its own name to 127.0.0.1 to read the run) is refused.
"""

from __future__ import annotations

import click

from agent_eval_judge.usage import fail


def serve_page(page: str, port: int, *, what: str) -> int:
    """Serve ``page`` on 127.0.0.1:``port`` (0: any free port), printing its URL; 0 once stopped with Ctrl-C."""
    from http.server import ThreadingHTTPServer

    body = page.encode("utf-8")
    hosts: set[str] = set()
    try:
        server = ThreadingHTTPServer(("127.0.0.1", port), _handler(body, hosts))
    except OSError as error:
        fail(f"cannot listen on 127.0.0.1:{port}: {error.strerror or error}; give another --port (0: any free one)")
    bound = server.server_port
    hosts.update((f"127.0.0.1:{bound}", f"localhost:{bound}"))
    click.echo(f"serving {what} at http://127.0.0.1:{bound}/ (Ctrl-C to stop)")
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        click.echo("stopped", err=True)
    finally:
        server.server_close()
    return 0


def _handler(body: bytes, hosts: set[str]) -> type:
    from http.server import BaseHTTPRequestHandler

    from agent_eval_judge.review_page import page_policy

    policy = page_policy()

    class Handler(BaseHTTPRequestHandler):
        server_version = "agent-eval-review"
        sys_version = ""

        def do_GET(self) -> None:
            if self.headers.get("Host", "") not in hosts:
                self._answer(403, b"forbidden: open the address agent-eval printed\n", "text/plain")
            elif self.path.split("?", 1)[0] in ("/", "/index.html"):
                self._answer(200, body, "text/html; charset=utf-8")
            else:
                self._answer(404, b"not found\n", "text/plain")

        def _answer(self, status: int, content: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(content)))
            self.send_header("Content-Security-Policy", policy)
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Referrer-Policy", "no-referrer")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(content)

        def log_message(self, format: str, *args: object) -> None:
            """Quiet: the terminal shows the URL, not every request."""

    return Handler
