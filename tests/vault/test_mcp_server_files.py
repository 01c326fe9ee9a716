"""MCP server registry files: mcp-servers/<name>.md."""

from __future__ import annotations

import pytest

from agent_roster.model.mcp import McpServer, Transport

from .helpers import codes, one, parse_server, where

STDIO = """---
name: github
transport: stdio
command: npx
args: ["-y", "@modelcontextprotocol/server-github"]
env:
  GITHUB_TOKEN: ${GITHUB_TOKEN}
description: GitHub issues and pull requests
---
# GitHub

Needs a token with `repo` scope.
"""


def test_stdio_server() -> None:
    parsed = parse_server(STDIO)
    assert parsed.ok and parsed.diagnostics == ()
    assert parsed.server == McpServer(
        name="github",
        transport=Transport.STDIO,
        command="npx",
        args=("-y", "@modelcontextprotocol/server-github"),
        env={"GITHUB_TOKEN": "${GITHUB_TOKEN}"},
        description="GitHub issues and pull requests",
        notes="# GitHub\n\nNeeds a token with `repo` scope.",
        source="mcp-servers/x.md",
    )


@pytest.mark.parametrize("transport", ["http", "sse"])
def test_url_servers(transport: str) -> None:
    text = (
        f"---\ntransport: {transport}\nurl: https://mcp.example.com/{transport}\n"
        "headers:\n  Authorization: Bearer ${TOKEN}\n---\n"
    )
    parsed = parse_server(text)
    assert parsed.ok and parsed.server is not None
    s = parsed.server
    assert (s.name, s.transport.value, s.url) == (
        "github",
        transport,
        f"https://mcp.example.com/{transport}",
    )
    assert s.headers == {"Authorization": "Bearer ${TOKEN}"}
    assert (s.command, s.args, s.env, s.notes) == ("", (), {}, "")


def test_name_comes_from_the_file_and_must_agree() -> None:
    parsed = parse_server("---\nname: gitlab\ntransport: stdio\ncommand: x\n---\n")
    d = one(parsed, "id-mismatch")
    assert (d.line, d.column) == (2, 7)
    assert d.message == (
        "frontmatter name 'gitlab' does not match 'github', the name this file's path gives"
    )
    assert d.hint == "change it to 'name: github' or rename the file to gitlab.md"
    assert parsed.server is None


@pytest.mark.parametrize(
    ("line", "code", "message"),
    [
        ("name:", "field-type", "'name' must be a string, got null"),
        ("name: 5", "field-type", "'name' must be a string, got 5"),
        ("name: ../x", "name-unsafe", "server name '../x' must not contain '..'"),
    ],
)
def test_bad_names(line: str, code: str, message: str) -> None:
    parsed = parse_server(f"---\n{line}\ntransport: stdio\ncommand: x\n---\n")
    d = one(parsed, code)
    assert (d.line, d.message) == (2, message)
    assert parsed.server is None


def test_name_required_when_the_path_gives_none() -> None:
    parsed = parse_server("---\ntransport: stdio\ncommand: x\n---\n", expected_name=None)
    assert [(d.code, d.message) for d in parsed.diagnostics] == [
        ("field-required", "'name' is required")
    ]


def test_transport_rules() -> None:
    missing = parse_server("---\ncommand: x\n---\n")
    assert [(d.code, d.message) for d in missing.diagnostics] == [
        ("field-required", "'transport' is required")
    ]
    wrong = parse_server("---\ntransport: websocket\n---\n")
    d = one(wrong, "field-value")
    assert (d.line, d.column) == (2, 12)
    assert d.message == "'transport' must be one of stdio, http, sse, got 'websocket'"
    assert one(parse_server("---\ntransport: HTTP\nurl: u\n---\n"), "field-value").hint == (
        "did you mean 'http'?"
    )


def test_stdio_needs_a_command_and_takes_no_url() -> None:
    parsed = parse_server("---\ntransport: stdio\nurl: http://x\nheaders: {}\n---\n")
    assert [(d.line, d.column, d.code, d.message) for d in parsed.diagnostics] == [
        (2, 12, "field-required", "a stdio server needs 'command'"),
        (3, 6, "field-value", "'url' does not apply to a stdio server"),
        (4, 10, "field-value", "'headers' does not apply to a stdio server"),
    ]


def test_http_needs_a_url_and_takes_no_command() -> None:
    parsed = parse_server("---\ntransport: http\ncommand: npx\nargs: []\nenv: {}\n---\n")
    assert [(d.line, d.code, d.message) for d in parsed.diagnostics] == [
        (2, "field-required", "an http server needs 'url'"),
        (3, "field-value", "'command' does not apply to an http server"),
        (4, "field-value", "'args' does not apply to an http server"),
        (5, "field-value", "'env' does not apply to an http server"),
    ]


def test_args_and_env_types() -> None:
    text = "---\ntransport: stdio\ncommand: ''\nargs: [--port, 8080]\nenv: {PORT: 8080}\n---\n"
    parsed = parse_server(text)
    assert [(d.line, d.column, d.code, d.message) for d in parsed.diagnostics] == [
        (3, 10, "field-type", "'command' must be a non-empty string, got ''"),
        (4, 7, "field-type", "'args' must be a list of strings, got ['--port', 8080]"),
        (5, 6, "field-type", "'env' must map names to string values, got {'PORT': 8080}"),
    ]
    assert parsed.diagnostics[1].hint == 'quote numbers: args: ["--port", "8080"]'
    assert parsed.diagnostics[2].hint == 'quote values: PORT: "8080"'
    assert codes(parse_server("---\ntransport: stdio\ncommand: x\nenv: [A]\n---\n")) == [
        "field-type"
    ]


def test_empty_args_and_env_are_fine() -> None:
    parsed = parse_server("---\ntransport: stdio\ncommand: x\nargs:\nenv:\n---\n")
    assert parsed.ok and parsed.server is not None
    assert (parsed.server.args, parsed.server.env) == ((), {})


def test_unknown_keys_warn() -> None:
    parsed = parse_server("---\ntransport: stdio\ncomand: npx\ncommand: npx\ntimeout: 5\n---\n")
    assert [
        (d.line, d.column, d.severity.value, d.message, d.hint) for d in parsed.diagnostics
    ] == [
        (3, 1, "warning", "unknown MCP server key 'comand'", "did you mean 'command'?"),
        (
            5,
            1,
            "warning",
            "unknown MCP server key 'timeout'",
            "known keys: name, transport, command, args, env, url, headers, description, tags",
        ),
    ]
    assert parsed.ok


def test_no_frontmatter() -> None:
    parsed = parse_server("# GitHub\nnotes only\n")
    d = one(parsed, "frontmatter-missing")
    assert d.message == "the MCP server file has no frontmatter"
    assert parsed.server is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("---\ntransport: [stdio\n---\nnotes\n", (3, 1, "yaml-invalid")),
        ("---\ntransport: stdio\ncommand: x\n", (1, 1, "frontmatter-unterminated")),
        ("---\n- stdio\n---\n", (2, 1, "yaml-not-mapping")),
        ("\n---\ntransport: stdio\n---\n", (2, 1, "frontmatter-not-at-start")),
    ],
)
def test_broken_frontmatter_is_the_only_diagnostic(
    text: str, expected: tuple[int, int, str]
) -> None:
    parsed = parse_server(text)
    assert where(parsed.diagnostics) == [expected]  # no "'transport' is required" cascade
    assert parsed.server is None


def test_project_comes_from_the_caller_never_the_file() -> None:
    from agent_roster.vault.mcp_parser import parse_mcp_server

    text = "---\ntransport: stdio\ncommand: x\nproject: other\n---\n"
    parsed = parse_mcp_server(text, expected_name="jira", project="web")
    assert parsed.server is not None and parsed.server.project == "web"
    assert codes(parsed) == ["field-unknown"]
