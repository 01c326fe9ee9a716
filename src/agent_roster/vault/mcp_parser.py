"""MCP server registry files: ``mcp-servers/<name>.md`` (seed 001 "MCP Server Registry").

All configuration lives in the YAML frontmatter; the body is free notes. The name comes from
the file name; a frontmatter ``name`` must agree with it (the original keyed entries by the
frontmatter name but deleted them by file name, leaving stale entries). The project id comes
only from the path.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from agent_roster.argv import CODE as ARGV_CODE
from agent_roster.argv import option_problem
from agent_roster.diagnostics import Diagnostic, did_you_mean
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.vault import markdown
from agent_roster.vault.document import Reporter, describe, normalise
from agent_roster.vault.frontmatter import Mark, read_frontmatter
from agent_roster.vault.paths import segment_problem

SERVER_KEYS = (
    "name",
    "transport",
    "command",
    "args",
    "env",
    "url",
    "headers",
    "description",
    "tags",
)
TRANSPORTS = tuple(t.value for t in Transport)


class ParsedServer(NamedTuple):
    server: McpServer | None
    diagnostics: tuple[Diagnostic, ...]

    @property
    def ok(self) -> bool:
        return self.server is not None and not any(d.is_error for d in self.diagnostics)


def parse_mcp_server(
    raw: bytes | str,
    *,
    path: str = "server.md",
    expected_name: str | None = None,
    project: str | None = None,
) -> ParsedServer:
    """Parse and validate one MCP server file, reporting every problem."""
    out: list[Diagnostic] = []
    r = Reporter(path, out)
    text = normalise(raw, path, out)
    if text is None:
        return ParsedServer(None, tuple(out))
    fm = read_frontmatter(text, path, out)
    if out:  # all settings live in the frontmatter: its own error is the whole story
        return ParsedServer(None, tuple(out))
    if not fm.present:
        r.add(
            "frontmatter-missing",
            "the MCP server file has no frontmatter",
            1,
            1,
            "start the file with:\n---\ntransport: stdio\ncommand: npx\nargs: [...]\n---",
        )
        return ParsedServer(None, tuple(out))
    data = fm.data

    def mark(key: str) -> Mark:
        return fm.value_marks.get(key, Mark(1, 1))

    fields: dict[str, Any] = {}
    name = data.get("name", expected_name)
    problem = segment_problem(name)
    if "name" in data and not isinstance(name, str):
        r.add(
            "field-type",
            f"'name' must be a string, got {describe(name)}",
            *mark("name"),
            hint=f"write 'name: {expected_name or '<server-name>'}'",
        )
    elif name is None:
        r.add("field-required", "'name' is required", 1, 1, "add 'name: <server-name>'")
    elif problem is not None:
        r.add(
            "name-unsafe",
            f"server name {name!r} {problem}",
            *mark("name"),
            hint="use letters, digits, '-' and '_'",
        )
    elif expected_name is not None and name != expected_name:
        r.add(
            "id-mismatch",
            f"frontmatter name {name!r} does not match {expected_name!r}, "
            "the name this file's path gives",
            *mark("name"),
            hint=f"change it to 'name: {expected_name}' or rename the file to {name}.md",
        )
    else:
        fields["name"] = name

    transport = data.get("transport")
    if transport is None:
        r.add(
            "field-required",
            "'transport' is required",
            1,
            1,
            "add 'transport: stdio' (or http, sse)",
        )
    elif transport not in TRANSPORTS:
        r.add(
            "field-value",
            f"'transport' must be one of {', '.join(TRANSPORTS)}, got {describe(transport)}",
            *mark("transport"),
            hint=did_you_mean(str(transport), TRANSPORTS)
            or "stdio runs a local command; http and sse connect to a URL",
        )
    else:
        fields["transport"] = Transport(transport)

    for key in ("command", "url", "description"):
        if key in data:
            value = data[key]
            if not isinstance(value, str) or (key != "description" and not value.strip()):
                r.add(
                    "field-type",
                    f"{key!r} must be a non-empty string, got {describe(value)}",
                    *mark(key),
                    hint=f"write '{key}: <text>', quoted if it contains ': '",
                )
            elif key == "command" and option_problem(value.strip()) is not None:
                # The harness starts it as a program: "-x" is an option, not a program.
                r.add(
                    ARGV_CODE,
                    f"'command' {value!r} {option_problem(value.strip())}",
                    *mark(key),
                    hint="name the program to start, for example 'command: npx'",
                )
            else:
                fields[key] = value.strip()
    if "args" in data:
        value = data["args"]
        if value is None:
            fields["args"] = ()
        elif isinstance(value, list) and all(isinstance(a, str) for a in value):
            fields["args"] = tuple(value)
        else:
            r.add(
                "field-type",
                f"'args' must be a list of strings, got {describe(value)}",
                *mark("args"),
                hint='quote numbers: args: ["--port", "8080"]',
            )
    for key in ("env", "headers"):
        if key in data:
            value = data[key]
            if value is None:
                fields[key] = {}
            elif isinstance(value, dict) and all(
                isinstance(k, str) and isinstance(v, str) for k, v in value.items()
            ):
                fields[key] = dict(value)
            else:
                r.add(
                    "field-type",
                    f"{key!r} must map names to string values, got {describe(value)}",
                    *mark(key),
                    hint='quote values: PORT: "8080"',
                )
    for key in data:
        if key not in SERVER_KEYS:
            line, column = fm.key_marks.get(key, Mark(1, 1))
            r.add(
                "field-unknown",
                f"unknown MCP server key {key!r}",
                line,
                column,
                did_you_mean(key, SERVER_KEYS) or "known keys: " + ", ".join(SERVER_KEYS),
            )

    kind = fields.get("transport")
    if kind is Transport.STDIO:
        if "command" not in fields and "command" not in data:
            r.add(
                "field-required",
                "a stdio server needs 'command'",
                *mark("transport"),
                hint="add 'command: npx' (the program to start)",
            )
        for key in ("url", "headers"):
            if key in data:
                r.add(
                    "field-value",
                    f"{key!r} does not apply to a stdio server",
                    *mark(key),
                    hint="remove it, or set transport: http",
                )
    elif kind in (Transport.HTTP, Transport.SSE):
        if "url" not in fields and "url" not in data:
            r.add(
                "field-required",
                f"an {kind.value} server needs 'url'",
                *mark("transport"),
                hint="add 'url: https://...'",
            )
        for key in ("command", "args", "env"):
            if key in data:
                r.add(
                    "field-value",
                    f"{key!r} does not apply to an {kind.value} server",
                    *mark(key),
                    hint="remove it, or set transport: stdio",
                )

    if "name" not in fields or "transport" not in fields:
        return ParsedServer(None, tuple(out))
    notes = markdown.tidy(text[fm.body_offset :])
    server = McpServer(**fields, notes=notes, project=project, source=path)
    return ParsedServer(server, tuple(out))
