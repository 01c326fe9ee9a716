"""A fake model on loopback: the LLM boundary of the real-harness oracles (issue 16 item 1).

Many harness CLIs accept a "bring your own key" OpenAI-compatible base URL. Pointed at this
server, a one-shot prompt goes through the harness's real config-loading path, and the
request it sends shows what it loaded: the agent's prompt, the exact tool list (MCP tools
included), the subagents it offers. The server answers every chat completion with a fixed
text, streamed as server-sent events or as one JSON body, whichever the client asked for,
and records every request it receives. A test may script tool calls instead
(``FakeModel.script``): each answers the first request offering that tool, so a harness
can be made to launch a subagent whose own request the test then reads. Standard library
only; it binds 127.0.0.1 on a port the kernel picks, and refuses a request whose Host or
Origin is not that loopback address (a page in a browser on this machine must not reach
it, DNS rebinding included).

Wire formats served (``/v1`` prefix optional):

* ``POST .../chat/completions``: OpenAI chat completions, ``stream`` true or false (with
  ``stream_options.include_usage`` honoured);
* ``POST .../messages``: Anthropic messages, streamed or not (for Claude-like harnesses);
* ``GET .../models``: one model, named by :attr:`FakeModel.model`.

Anything else is answered 404 and still recorded, so a test sees what the harness tried.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

#: Largest request body accepted (a harness's system prompt with every tool schema is a few
#: hundred kilobytes at most).
MAX_BODY = 32 * 1024 * 1024
LOOPBACK_HOSTS = ("127.0.0.1", "localhost")


@dataclass(frozen=True)
class Captured:
    """One request the fake model received, as the harness sent it."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any  # the decoded JSON body; the raw text when it is not JSON; None when empty

    @property
    def kind(self) -> str:
        """``chat``, ``messages``, ``models`` or ``other``: which wire call this was."""
        return _route(self.method, self.path)

    @property
    def stream(self) -> bool:
        return isinstance(self.body, dict) and bool(self.body.get("stream"))

    def messages(self) -> list[dict[str, Any]]:
        """The conversation sent (chat: ``messages``; Anthropic: ``messages`` after the
        ``system`` text, which comes first as a system message)."""
        if not isinstance(self.body, dict):
            return []
        messages = [m for m in self.body.get("messages") or () if isinstance(m, dict)]
        system = self.body.get("system")
        if system is not None:
            messages.insert(0, {"role": "system", "content": system})
        return messages

    def text(self, role: str | None = None) -> str:
        """Every text part of the messages (of ``role`` only, when given), joined by blank
        lines: what the model was told."""
        parts = [
            _content_text(m.get("content")) for m in self.messages() if role in (None, m["role"])
        ]
        return "\n\n".join(p for p in parts if p)

    def tools(self) -> list[dict[str, Any]]:
        """The tool definitions sent, each as ``{"name", "description", "parameters"}``
        (OpenAI's ``function`` objects and Anthropic's tools in one shape)."""
        if not isinstance(self.body, dict):
            return []
        tools = []
        for tool in self.body.get("tools") or ():
            if not isinstance(tool, dict):
                continue
            spec = tool.get("function", tool)
            tools.append(
                {
                    "name": spec.get("name"),
                    "description": spec.get("description", ""),
                    "parameters": spec.get("parameters", spec.get("input_schema")),
                }
            )
        return tools

    def tool_names(self) -> list[str]:
        """The names of the tools offered to the model, in the order sent."""
        return [str(t["name"]) for t in self.tools()]


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}, ...]
        return "\n\n".join(
            str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("text")
        )
    return ""


def _route(method: str, path: str) -> str:
    tail = urlsplit(path).path.rstrip("/")
    if method == "POST" and tail.endswith("/chat/completions"):
        return "chat"
    if method == "POST" and tail.endswith("/messages"):
        return "messages"
    if method == "GET" and tail.endswith("/models"):
        return "models"
    return "other"


@dataclass
class FakeModel:
    """The server and what it saw. Use as a context manager, or :meth:`start`/:meth:`stop`
    (the ``fake_model`` fixture in ``tests/oracles/fixtures.py`` does that)."""

    #: The answer to every prompt.
    reply: str = "ok"
    #: The model id ``/models`` lists and completions name.
    model: str = "fake-model"
    #: A JSONL file every request is also appended to (for looking at a run by hand).
    log: Path | None = None
    #: Tool calls to make, in order: each answers the first chat request after the one
    #: before it that offers a tool of that name (so a test can have the harness launch
    #: a subagent and read that subagent's own request). Consumed as they are made.
    script: list[ToolCall] = field(default_factory=list)
    requests: list[Captured] = field(default_factory=list)
    #: Requests refused for their Host or Origin, as ``(host, origin)``.
    refused: list[tuple[str, str]] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the fake model is not running")
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """The server's root, ``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL harnesses take, ``http://127.0.0.1:PORT/v1``."""
        return f"{self.url}/v1"

    def start(self) -> FakeModel:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        server.daemon_threads = True
        self._server = server
        # A short poll interval: ``stop`` waits for the loop to notice (0.5 s by default).
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-model"
        )
        self._thread.daemon = True
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._server = self._thread = None

    def __enter__(self) -> FakeModel:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def clear(self) -> None:
        """Forget the requests seen so far (between two harness runs in one test)."""
        with self._lock:
            self.requests.clear()
            self.refused.clear()

    def calls(self, kind: str = "chat") -> list[Captured]:
        """The requests of one :attr:`Captured.kind`, in the order received."""
        with self._lock:
            return [r for r in self.requests if r.kind == kind]

    def prompts(self) -> list[Captured]:
        """Every completion request (chat or Anthropic messages), in order."""
        with self._lock:
            return [r for r in self.requests if r.kind in ("chat", "messages")]

    def record(self, captured: Captured) -> None:
        with self._lock:
            self.requests.append(captured)
            if self.log is not None:
                with self.log.open("a", encoding="utf-8") as out:
                    out.write(json.dumps(captured.__dict__, default=str) + "\n")

    def next_id(self) -> int:
        with self._lock:
            return next(self._ids)

    def take_call(self, captured: Captured) -> ToolCall | None:
        """The next scripted call, when ``captured`` offers its tool and its system prompt
        holds the call's ``context`` (then it is used up)."""
        with self._lock:
            if not self.script:
                return None
            call = self.script[0]
            if call.name in captured.tool_names() and call.context in captured.text("system"):
                return self.script.pop(0)
        return None


@dataclass(frozen=True)
class ToolCall:
    """A tool call the fake model makes instead of answering with text, to the first
    request offering the tool whose system prompt contains ``context`` (say, the main
    agent's and not a subagent's, which may offer the same tool)."""

    name: str
    arguments: dict[str, Any]
    context: str = ""


def _handler(fake: FakeModel) -> type[BaseHTTPRequestHandler]:
    class Handler(_FakeHandler):
        model = fake

    return Handler


class _FakeHandler(BaseHTTPRequestHandler):
    model: FakeModel
    # HTTP/1.0: a streamed answer ends when the connection closes, with no chunked encoding.
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: the test reads ``requests``

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def _allowed(self) -> bool:
        port = self.model.port
        host = self.headers.get("Host", "")
        origin = self.headers.get("Origin")
        hosts = {f"{name}:{port}" for name in LOOPBACK_HOSTS}
        origins = {f"http://{h}" for h in hosts}
        if host in hosts and (origin is None or origin in origins):
            return True
        with self.model._lock:
            self.model.refused.append((host, origin or ""))
        return False

    def _serve(self) -> None:
        if not self._allowed():
            self._json(403, {"error": {"message": "Host or Origin is not this loopback server"}})
            return
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self._json(413, {"error": {"message": "request body too large"}})
            return
        raw = self.rfile.read(length) if length else b""
        body: Any = None
        if raw:
            text = raw.decode("utf-8", "replace")
            try:
                body = json.loads(text)
            except ValueError:
                body = text
        captured = Captured(
            method=self.command, path=self.path, headers=dict(self.headers.items()), body=body
        )
        self.model.record(captured)
        kind = captured.kind
        if kind == "models":
            self._json(200, _models(self.model.model))
        elif kind == "chat":
            self._chat(captured)
        elif kind == "messages":
            self._messages(captured)
        else:
            self._json(404, {"error": {"message": f"the fake model has no {self.path}"}})

    # --- OpenAI chat completions --------------------------------------------------------

    def _chat(self, captured: Captured) -> None:
        request = captured.body if isinstance(captured.body, dict) else {}
        ident = f"chatcmpl-fake-{self.model.next_id()}"
        model = str(request.get("model") or self.model.model)
        created = int(time.time())
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        call = self.model.take_call(captured)
        calls = (
            [
                {
                    "index": 0,
                    "id": f"call_fake_{self.model.next_id()}",
                    "type": "function",
                    "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
                }
            ]
            if call is not None
            else []
        )
        finish = "tool_calls" if calls else "stop"
        if not captured.stream:
            message: dict[str, Any] = {
                "role": "assistant",
                "content": None if calls else self.model.reply,
            }
            if calls:
                message["tool_calls"] = [
                    {k: v for k, v in c.items() if k != "index"} for c in calls
                ]
            self._json(
                200,
                {
                    "id": ident,
                    "object": "chat.completion",
                    "created": created,
                    "model": model,
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": usage,
                },
            )
            return

        def chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
            return {
                "id": ident,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }

        answer = {"tool_calls": calls} if calls else {"content": self.model.reply}
        events: list[Any] = [
            chunk({"role": "assistant", "content": ""}, None),
            chunk(answer, None),
            chunk({}, finish),
        ]
        options = request.get("stream_options")
        if isinstance(options, dict) and options.get("include_usage"):
            events.append({**chunk({}, None), "choices": [], "usage": usage})
        self._sse([(None, event) for event in events], done=True)

    # --- Anthropic messages -------------------------------------------------------------

    def _messages(self, captured: Captured) -> None:
        request = captured.body if isinstance(captured.body, dict) else {}
        ident = f"msg_fake_{self.model.next_id()}"
        model = str(request.get("model") or self.model.model)
        usage = {"input_tokens": 1, "output_tokens": 1}
        message = {
            "id": ident,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": self.model.reply}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": usage,
        }
        if not captured.stream:
            self._json(200, message)
            return
        text = {"type": "text", "text": ""}
        events = [
            ("message_start", {"type": "message_start", "message": {**message, "content": []}}),
            (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": text},
            ),
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": self.model.reply},
                },
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                    "usage": {"output_tokens": 1},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
        self._sse(events, done=False)

    # --- writing ------------------------------------------------------------------------

    def _json(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _sse(self, events: list[tuple[str | None, Any]], *, done: bool) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        for name, payload in events:
            prefix = f"event: {name}\n" if name else ""
            self.wfile.write(f"{prefix}data: {json.dumps(payload)}\n\n".encode())
            self.wfile.flush()
        if done:
            self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


def _models(model: str) -> dict[str, Any]:
    return {
        "object": "list",
        "data": [{"id": model, "object": "model", "created": 0, "owned_by": "roster-tests"}],
    }
