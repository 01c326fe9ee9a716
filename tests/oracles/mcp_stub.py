"""A stdio MCP server with one tool, for the real-harness oracles (issue 16 item 1).

Run as a script by the harness under test (``python mcp_stub.py [--tool NAME ...] [--log
FILE]``): it speaks newline-delimited JSON-RPC 2.0 on stdin/stdout (the MCP stdio
transport), answers ``initialize`` (echoing the client's protocol version), ``ping``,
``tools/list`` (one tool, ``echo``, taking ``{"text": string}``; ``--tool`` names it, and
repeated, lists several, so a test can stand in for a real server's tool names) and
``tools/call`` (returns the text it was given), ignores notifications and answers any
other method with JSON-RPC's "method not found". With ``--log`` every message received is
appended to FILE as one JSON line, so a test can see that a harness started the server and
what it asked. Standard library only; nothing is imported from the project, so any Python
the harness finds can run it.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

SERVER_NAME = "roster-mcp-stub"
DEFAULT_TOOL = "echo"
DEFAULT_PROTOCOL = "2025-06-18"


def tool_definition(name: str) -> dict[str, Any]:
    """The one tool this server lists."""
    return {
        "name": name,
        "description": f"Echo the text back (the {SERVER_NAME} test tool).",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string", "description": "what to echo"}},
            "required": ["text"],
        },
    }


def answer(message: dict[str, Any], tools: list[str]) -> dict[str, Any] | None:
    """The response to one JSON-RPC message (``None`` for a notification)."""
    if "id" not in message:
        return None
    ident = message["id"]
    method = message.get("method")
    params = message.get("params") or {}
    result: dict[str, Any]
    if method == "initialize":
        result = {
            "protocolVersion": params.get("protocolVersion") or DEFAULT_PROTOCOL,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": SERVER_NAME, "version": "1.0.0"},
        }
    elif method == "ping":
        result = {}
    elif method == "tools/list":
        result = {"tools": [tool_definition(tool) for tool in tools]}
    elif method == "tools/call" and params.get("name") in tools:
        text = str((params.get("arguments") or {}).get("text", ""))
        result = {"content": [{"type": "text", "text": text}], "isError": False}
    elif method == "tools/call":
        return _error(ident, -32602, f"unknown tool: {params.get('name')}")
    else:
        return _error(ident, -32601, f"method not found: {method}")
    return {"jsonrpc": "2.0", "id": ident, "result": result}


def _error(ident: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}


def serve(tools: list[str], log: str | None) -> int:
    """Answer messages from stdin until it closes."""
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except ValueError:
            reply: dict[str, Any] | None = _error(None, -32700, "parse error")
        else:
            if log:
                with open(log, "a", encoding="utf-8") as out:
                    out.write(json.dumps(message) + "\n")
            if isinstance(message, dict):
                reply = answer(message, tools)
            else:
                reply = _error(None, -32600, "batches are not supported")
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", action="append", help=f"a tool's name [{DEFAULT_TOOL}]")
    parser.add_argument("--log", help="append every message received to this JSONL file")
    args = parser.parse_args(argv)
    return serve(args.tool or [DEFAULT_TOOL], args.log)


if __name__ == "__main__":
    sys.exit(main())
