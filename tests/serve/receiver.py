"""A real local HTTP receiver for webhook notifications: it records every POST, and can be
told to answer with an error first or to hang (accept the request and never answer)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Receiver:
    def __init__(self, *, fail_first: int = 0, hang: bool = False) -> None:
        self.posts: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.attempts = 0
        self.fail_first = fail_first
        self.hang = hang
        self.release = threading.Event()
        self._arrived = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                with receiver._arrived:
                    receiver.attempts += 1
                    attempt = receiver.attempts
                    receiver._arrived.notify_all()
                if receiver.hang:
                    receiver.release.wait(60)  # never answers while the test runs
                    return
                if attempt <= receiver.fail_first:
                    self.send_response(503)
                    self.end_headers()
                    return
                with receiver._arrived:
                    receiver.posts.append(json.loads(body))
                    receiver.headers.append(dict(self.headers))
                    receiver._arrived.notify_all()
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def wait(self, count: int, timeout: float = 30, *, attempts: bool = False) -> None:
        """Until ``count`` events arrived (or ``count`` attempts were made)."""
        deadline = time.monotonic() + timeout
        with self._arrived:
            while (self.attempts if attempts else len(self.posts)) < count:
                left = deadline - time.monotonic()
                assert left > 0, f"{len(self.posts)} posts, {self.attempts} attempts"
                self._arrived.wait(left)


@contextmanager
def receiving(**options: Any) -> Iterator[Receiver]:
    receiver = Receiver(**options)
    thread = threading.Thread(target=receiver.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        receiver.release.set()
        receiver.server.shutdown()
        receiver.server.server_close()
        thread.join(10)
