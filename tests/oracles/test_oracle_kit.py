"""The oracle kit itself: the fake model answers both wire formats, streamed and not, records
every request and refuses other hosts; the MCP stub speaks MCP to the official SDK client."""

from __future__ import annotations

import asyncio
import http.client
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from .fake_model import FakeModel, ToolCall
from .fixtures import McpStub

TOOLS = [
    {
        "type": "function",
        "function": {"name": "view", "description": "Read a file.", "parameters": {}},
    },
    {"type": "function", "function": {"name": "stub-echo", "parameters": {"type": "object"}}},
]


def post(
    model: FakeModel, path: str, body: Any, headers: dict[str, str] | None = None
) -> tuple[int, str, str]:
    """POST ``body`` as JSON; the status, content type and whole response text."""
    connection = http.client.HTTPConnection("127.0.0.1", model.port, timeout=30)
    try:
        data = json.dumps(body).encode()
        connection.request(
            "POST", path, data, {"Content-Type": "application/json", **(headers or {})}
        )
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type", ""), response.read().decode()
    finally:
        connection.close()


def sse_data(text: str) -> list[str]:
    return [line.removeprefix("data: ") for line in text.splitlines() if line.startswith("data:")]


def test_chat_completion_not_streamed(fake_model: FakeModel) -> None:
    body = {
        "model": "fake-model",
        "messages": [
            {"role": "system", "content": "You are X.\n<agent_instructions>B</agent_instructions>"},
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        ],
        "tools": TOOLS,
    }
    status, kind, text = post(fake_model, "/v1/chat/completions", body)
    assert (status, kind) == (200, "application/json")
    answer = json.loads(text)
    assert answer["object"] == "chat.completion"
    assert answer["choices"][0]["message"] == {"role": "assistant", "content": "ok"}
    (captured,) = fake_model.calls("chat")
    assert captured.body == body and not captured.stream
    assert captured.tool_names() == ["view", "stub-echo"]
    assert captured.text("system") == "You are X.\n<agent_instructions>B</agent_instructions>"
    assert captured.text("user") == "hi"
    assert captured.headers["Content-Type"] == "application/json"
    logged = (fake_model.log or Path()).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["path"] for line in logged] == ["/v1/chat/completions"]


def test_scripted_tool_calls(fake_model: FakeModel) -> None:
    """A scripted call answers the first request that offers its tool and whose system
    prompt holds its context (a subagent offering the same tool is answered in text), once;
    streamed as a ``tool_calls`` delta or whole; then the model answers in text again."""
    fake_model.script[:] = [
        ToolCall("view", {"path": "a"}, context="You are main"),
        ToolCall("view", {"path": "b"}, context="You are main"),
    ]

    def ask(system: str, stream: bool = False) -> str:
        body = {
            "model": "m",
            "stream": stream,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": "x"}],
            "tools": TOOLS,
        }
        return post(fake_model, "/v1/chat/completions", body)[2]

    assert json.loads(ask("You are a sub"))["choices"][0]["message"]["content"] == "ok"
    whole = json.loads(ask("You are main"))["choices"][0]
    assert whole["finish_reason"] == "tool_calls"
    (call,) = whole["message"]["tool_calls"]
    assert call["type"] == "function" and call["id"].startswith("call_fake_")
    assert (call["function"]["name"], json.loads(call["function"]["arguments"])) == (
        "view",
        {"path": "a"},
    )
    events = [json.loads(d) for d in sse_data(ask("You are main", stream=True)) if d != "[DONE]"]
    (delta,) = [
        e["choices"][0]["delta"] for e in events if "tool_calls" in e["choices"][0]["delta"]
    ]
    assert delta["tool_calls"][0]["function"]["arguments"] == '{"path": "b"}'
    assert events[-1]["choices"][0]["finish_reason"] == "tool_calls"
    assert fake_model.script == []
    assert json.loads(ask("You are main"))["choices"][0]["message"]["content"] == "ok"


def test_chat_completion_streamed_with_usage(fake_model: FakeModel) -> None:
    fake_model.reply = "hello there"
    body = {
        "model": "m",
        "stream": True,
        "stream_options": {"include_usage": True},
        "messages": [{"role": "user", "content": "hi"}],
    }
    status, kind, text = post(fake_model, "/chat/completions", body)
    assert (status, kind) == (200, "text/event-stream")
    events = sse_data(text)
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert "".join(c["choices"][0]["delta"].get("content", "") for c in chunks[:-1]) == (
        "hello there"
    )
    assert [c["choices"][0]["finish_reason"] for c in chunks[:-1]] == [None, None, "stop"]
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] == 2
    assert {c["model"] for c in chunks} == {"m"}
    assert fake_model.calls("chat")[0].stream


def test_anthropic_messages_both_ways(fake_model: FakeModel) -> None:
    body: dict[str, Any] = {
        "model": "claude-x",
        "system": [{"type": "text", "text": "SYSTEM"}],
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"name": "Read", "description": "r", "input_schema": {"type": "object"}}],
    }
    status, _, text = post(fake_model, "/v1/messages", body)
    assert status == 200
    assert json.loads(text)["content"] == [{"type": "text", "text": "ok"}]
    status, kind, text = post(fake_model, "/v1/messages", {**body, "stream": True})
    assert (status, kind) == (200, "text/event-stream")
    names = [line.removeprefix("event: ") for line in text.splitlines() if line[:6] == "event:"]
    assert names == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert json.loads(sse_data(text)[2])["delta"]["text"] == "ok"
    first, second = fake_model.prompts()
    assert first.kind == "messages" and second.stream and not first.stream
    assert first.text("system") == "SYSTEM" and first.tool_names() == ["Read"]


def test_models_and_unknown_paths_are_recorded(fake_model: FakeModel) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", fake_model.port, timeout=30)
    connection.request("GET", "/v1/models")
    listed = json.loads(connection.getresponse().read())
    connection.close()
    assert [m["id"] for m in listed["data"]] == ["fake-model"]
    status, _, _ = post(fake_model, "/v1/responses", {"input": "hi"})
    assert status == 404
    assert [(r.kind, r.path) for r in fake_model.requests] == [
        ("models", "/v1/models"),
        ("other", "/v1/responses"),
    ]
    fake_model.clear()
    assert fake_model.requests == []


@pytest.mark.parametrize(
    "headers",
    [{"Host": "evil.example"}, {"Origin": "http://evil.example"}, {"Host": "127.0.0.1:1"}],
)
def test_other_hosts_and_origins_are_refused(
    fake_model: FakeModel, headers: dict[str, str]
) -> None:
    status, _, text = post(fake_model, "/v1/chat/completions", {"messages": []}, headers)
    assert status == 403 and "loopback" in text
    assert fake_model.requests == [] and len(fake_model.refused) == 1


def test_the_server_stops() -> None:
    with FakeModel() as model:
        port = model.port
        assert post(model, "/v1/chat/completions", {"messages": []})[0] == 200
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    with pytest.raises(OSError):
        connection.request("GET", "/v1/models")
        connection.getresponse()
    with pytest.raises(RuntimeError, match="not running"):
        _ = model.port


def test_mcp_stub_speaks_mcp_to_the_official_client(mcp_stub: McpStub) -> None:
    stub = mcp_stub.with_tools("echo", "get_issue")

    async def session() -> tuple[list[str], str]:
        params = StdioServerParameters(command=stub.command, args=list(stub.args))
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write) as client,
        ):
            await client.initialize()
            listed = await client.list_tools()
            called = await client.call_tool("echo", {"text": "round"})
            block = called.content[0]
            assert block.type == "text"
            return [t.name for t in listed.tools], block.text

    names, echoed = asyncio.run(session())
    assert names == ["echo", "get_issue"] and echoed == "round"
    assert stub.received() == [
        "initialize",
        "notifications/initialized",
        "tools/list",
        "tools/call",
    ]


def test_mcp_stub_refuses_what_it_does_not_know(tmp_path: Path) -> None:
    stub = McpStub(log=tmp_path / "log.jsonl")
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "resources/list"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "nope"}},
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
    ]
    stdin = "\n".join(json.dumps(line) for line in lines) + "\nnot json\n"
    result = subprocess.run(
        stub.argv, input=stdin, capture_output=True, text=True, timeout=60, check=True
    )
    replies = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r.get("error", {}).get("code") for r in replies] == [-32601, -32602, None, -32700]
    assert replies[2] == {"jsonrpc": "2.0", "id": 3, "result": {}}
    assert stub.argv[0] == sys.executable


def test_the_qoder_and_droid_runners_read_their_clis_output() -> None:
    """The runners' parsers, on text as ``qodercli agents list`` and ``droid exec`` print it
    (tests/codecs/test_qoder_cli.py and test_droid_cli.py run the CLIs)."""
    from .droid import Offered, offered
    from .fake_model import Captured
    from .qoder import Listed, parse_agents

    listed, errors = parse_agents(
        "2 errors loading agent configs. Use /agents to see details.\n4 active agents\n\n"
        "Project:\n  qreviewer · Sonnet\n\nUser:\n  (shadowed by Project) qreviewer · Inherit\n"
        "  quser · Inherit\n\nBuilt-in:\n  Explore · Inherit\n"
    )
    assert errors == 2
    assert listed == [
        Listed("Project", "qreviewer", "Sonnet", False),
        Listed("User", "qreviewer", "Inherit", True),
        Listed("User", "quser", "Inherit", False),
        Listed("Built-in", "Explore", "Inherit", False),
    ]
    reminder = (
        "<system-reminder>\nCustom droids available (from /w/.factory/droids and "
        "/h/.factory/droids):\n- a: does: things (location: project)\n- b: (location: project)"
        "\n- c: user one (location: personal)\n\nOnly invoke subagents that are available.\n"
    )
    captured = Captured(
        "POST", "/v1/chat/completions", {}, {"messages": [{"role": "user", "content": reminder}]}
    )
    found, folders = offered(captured)
    assert folders == "/w/.factory/droids and /h/.factory/droids"
    assert found == [
        Offered("a", "does: things", "project"),
        Offered("b", "", "project"),
        Offered("c", "user one", "personal"),
    ]
