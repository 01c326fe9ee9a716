"""The Claude Code tool table against the real CLI (issue 12 item 4).

``claude -p`` is pointed at a loopback endpoint that records the request and answers with
an error, so no login or network is needed. Its request lists the tools the CLI offers the
model; ``--disallowed-tools`` makes it name every rule that "matches no known tool". Every
tool the CLI offers is in ``known_tools.CLAUDE_CODE_TOOLS``, and the names it does not know
are exactly the table's retired and interactive-only ones.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from agent_roster.known_tools import CLAUDE_CODE_TOOLS

from .helpers import need_harness, run_harness

UNKNOWN = "matches no known tool"


class _Recorder(BaseHTTPRequestHandler):
    requests: list[dict[str, Any]]

    def do_POST(self) -> None:
        size = int(self.headers.get("content-length", 0))
        body = self.rfile.read(size)
        if self.path.startswith("/v1/messages"):
            self.requests.append(json.loads(body))
        self.send_response(400)
        self.send_header("content-type", "application/json")
        self.end_headers()
        error = {"type": "error", "error": {"type": "invalid_request_error", "message": "fake"}}
        self.wfile.write(json.dumps(error).encode())

    def do_GET(self) -> None:
        self.send_response(404)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def endpoint() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    requests: list[dict[str, Any]] = []
    handler = type("Recorder", (_Recorder,), {"requests": requests})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", requests
    finally:
        server.shutdown()
        server.server_close()


def _claude(binary: str, url: str, tmp: Path, *args: str, search: bool = False) -> str:
    """Run ``claude ARGS -p hi`` against ``url``; ``search`` turns tool search on (the CLI
    then knows ToolSearch, and defers most tools behind it)."""
    home, work = tmp / "home", tmp / "work"
    home.mkdir(exist_ok=True)
    work.mkdir(exist_ok=True)
    env = {
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "sk-fake",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "ENABLE_TOOL_SEARCH": "true" if search else "false",
        **({"IS_SANDBOX": "1"} if os.geteuid() == 0 else {}),
    }
    run = run_harness([binary, *args, "-p", "hi"], cwd=work, home=home, env=env)
    return run.stdout + run.stderr


def test_every_tool_the_cli_offers_is_in_the_table(
    endpoint: tuple[str, list[dict[str, Any]]], tmp_path: Path
) -> None:
    binary = need_harness("claude")
    url, requests = endpoint
    current = [tool.name for tool in CLAUDE_CODE_TOOLS if tool.status == "current"]
    requests.clear()
    _claude(binary, url, tmp_path, "--tools", ",".join(current))
    assert requests, "the CLI sent no request to the loopback endpoint"
    offered = {tool["name"] for tool in requests[0]["tools"]}
    assert {"Agent", "Bash", "Read", "SendMessage", "TaskList", "Workflow"} <= offered
    assert offered <= set(current)


def test_the_cli_knows_exactly_the_current_names(
    endpoint: tuple[str, list[dict[str, Any]]], tmp_path: Path
) -> None:
    binary = need_harness("claude")
    url, _ = endpoint
    names = [tool.name for tool in CLAUDE_CODE_TOOLS]
    output = _claude(binary, url, tmp_path, "--disallowed-tools", ",".join(names), search=True)
    unknown = {name for name in names if f'Permission deny rule "{name}" {UNKNOWN}' in output}
    expected = {tool.name for tool in CLAUDE_CODE_TOOLS if tool.status != "current"}
    assert unknown == expected
