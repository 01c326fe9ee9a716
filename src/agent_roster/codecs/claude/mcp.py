"""MCP server JSON in the dialects of Claude Code, Cursor, VS Code and the Copilot CLI.

All four write ``{<key>: {name: entry}}`` with stdio entries (``command``/``args``/``env``)
and remote entries (``url``/``headers``); they differ in the top-level key (``mcpServers``
or VS Code's ``servers``), in whether ``type`` is written, and in the environment-reference
syntax: ``${VAR}`` (Claude, Copilot CLI: the canonical form) or ``${env:VAR}`` (VS Code,
Cursor). README D10 gives the table; ``${VAR:-default}`` exists only in the first form.

Merging keeps every entry and key the codec does not own (the files are shared with other
tools, docs/codecs/claude.md §7) and rewrites only the named entries.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from agent_roster.codecs.base import NativeFile, ReadExisting
from agent_roster.codecs.claude.files import referenced_servers
from agent_roster.codecs.native_io import JsonProblem, existing_text, json_text, parse_json
from agent_roster.codecs.native_md import harness_diagnostic
from agent_roster.diagnostics import Diagnostic
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import AgentProfile
from agent_roster.vault.jsonblock import text_lines


class Dialect(NamedTuple):
    """How one harness writes its MCP server file."""

    title: str
    key: str  # the top-level mapping of servers
    vscode_env: bool  # ``${env:VAR}`` instead of ``${VAR}``
    stdio_type: bool  # write ``"type": "stdio"``
    remote_type: bool  # write ``"type": "http" | "sse"`` (else the harness infers it)


CLAUDE = Dialect("Claude Code", "mcpServers", False, True, True)
COPILOT_CLI = Dialect("Copilot CLI", "mcpServers", False, True, True)
VSCODE = Dialect("VS Code", "servers", True, True, True)
# Cursor infers the remote transport from the server (cursor.com/docs/mcp shows no "type").
CURSOR = Dialect("Cursor", "mcpServers", True, False, False)

_CANONICAL_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?\}")
_VSCODE_ENV_REF = re.compile(r"\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}")
_VSCODE_OTHER_REF = re.compile(r"\$\{(?!env:)[^}]*\}")


def value_to_native(value: str, dialect: Dialect) -> str | None:
    """A canonical value in the dialect's env syntax; ``None`` when it cannot be written
    (``${VAR:-default}`` has no ``${env:…}`` equivalent)."""
    if not dialect.vscode_env:
        return value
    if any(m.group(2) for m in _CANONICAL_REF.finditer(value)):
        return None
    return _CANONICAL_REF.sub(lambda m: "${env:" + m.group(1) + "}", value)


def value_from_native(value: str, dialect: Dialect) -> tuple[str, str]:
    """A native value in canonical syntax, and a note when it holds a reference with no
    canonical meaning (``${workspaceFolder}``, ``${input:x}``: kept verbatim)."""
    if not dialect.vscode_env:
        return value, ""
    others = _VSCODE_OTHER_REF.findall(value)
    converted = _VSCODE_ENV_REF.sub(lambda m: "${" + m.group(1) + "}", value)
    note = f"{', '.join(others)} kept verbatim (no canonical meaning)" if others else ""
    return converted, note


def server_to_native(server: McpServer, dialect: Dialect) -> tuple[dict[str, Any] | None, str]:
    """The entry for ``server``, or ``None`` and the reason it cannot be written."""

    def convert(value: str, where: str) -> str:
        native = value_to_native(value, dialect)
        if native is None:
            raise ValueError(
                f"{where} uses ${{VAR:-default}}, which {dialect.title} cannot expand "
                "(its syntax is ${env:VAR}, without defaults)"
            )
        return native

    entry: dict[str, Any] = {}
    try:
        if server.transport is Transport.STDIO:
            if dialect.stdio_type:
                entry["type"] = "stdio"
            entry["command"] = convert(server.command, "command")
            if server.args:
                entry["args"] = [convert(a, "args") for a in server.args]
            if server.env:
                entry["env"] = {k: convert(v, f"env.{k}") for k, v in server.env.items()}
        else:
            if dialect.remote_type:
                entry["type"] = server.transport.value
            entry["url"] = convert(server.url, "url")
            if server.headers:
                entry["headers"] = {
                    k: convert(v, f"headers.{k}") for k, v in server.headers.items()
                }
    except ValueError as exc:
        return None, str(exc)
    return entry, ""


_TYPES = {
    "stdio": Transport.STDIO,
    "local": Transport.STDIO,  # the Copilot cloud agent's name for stdio
    "http": Transport.HTTP,
    "streamable-http": Transport.HTTP,
    "streamableHttp": Transport.HTTP,
    "sse": Transport.SSE,
}


class ReadServer(NamedTuple):
    """One native entry in canonical form, or the reason the harness skips it; ``notes``
    are values kept verbatim without canonical meaning."""

    server: McpServer | None
    problem: str
    notes: tuple[str, ...]


def server_from_native(name: str, entry: object, dialect: Dialect, source: str) -> ReadServer:
    """Read one entry the way the harness does (transport from ``type``, else from the
    presence of ``command`` or ``url``)."""
    if not isinstance(entry, Mapping):
        return ReadServer(None, "invalid MCP server config: an entry must be an object", ())
    kind = entry.get("type")
    if kind is None:
        kind = "stdio" if "command" in entry or "url" not in entry else "http"
    transport = _TYPES.get(str(kind)) if isinstance(kind, str) else None
    if transport is None:
        return ReadServer(None, f"invalid MCP server config: unsupported type {kind!r}", ())
    notes: list[str] = []

    def text(value: object, where: str) -> str:
        if not isinstance(value, str):
            raise ValueError(f"invalid MCP server config: {where} must be a string")
        converted, note = value_from_native(value, dialect)
        if note:
            notes.append(f"{where}: {note}")
        return converted

    def table(value: object, where: str) -> dict[str, str]:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise ValueError(f"invalid MCP server config: {where} must be an object")
        return {str(k): text(v, f"{where}.{k}") for k, v in value.items()}

    try:
        if transport is Transport.STDIO:
            if not entry.get("command"):
                raise ValueError("invalid MCP server config: stdio needs a command")
            args = entry.get("args") or []
            if not isinstance(args, list):
                raise ValueError("invalid MCP server config: args must be an array")
            server = McpServer(
                name=name,
                transport=transport,
                command=text(entry["command"], "command"),
                args=tuple(text(a, "args") for a in args),
                env=table(entry.get("env"), "env"),
                source=source,
            )
        else:
            if not entry.get("url"):
                raise ValueError(f"invalid MCP server config: {kind} needs a url")
            server = McpServer(
                name=name,
                transport=transport,
                url=text(entry["url"], "url"),
                headers=table(entry.get("headers"), "headers"),
                source=source,
            )
    except ValueError as exc:
        return ReadServer(None, str(exc), ())
    return ReadServer(server, "", tuple(notes))


def position(text: str, needle: str) -> tuple[int, int]:
    """1-based line and column of the first ``"needle"`` in ``text`` (1, 1 when absent):
    good enough to point at an entry of a JSON file."""
    return text_lines(text).locate(json.dumps(needle))  # a lookup: linear for many needles


def load_json_object(text: str, path: str, out: list[Diagnostic], title: str) -> dict[str, Any]:
    """A JSON file's top-level object, or ``{}`` with an error diagnostic."""
    data = parse_json(text)
    if isinstance(data, JsonProblem):
        problem = data
        out.append(
            harness_diagnostic(
                "harness-invalid",
                f"{title} cannot parse {path}: {problem.message}",
                path=path,
                line=problem.line,
                column=problem.column,
                hint="fix the JSON; the harness skips the whole file",
            )
        )
        return {}
    if not isinstance(data, dict):
        out.append(
            harness_diagnostic(
                "harness-invalid",
                f"{title} expects a JSON object in {path}",
                path=path,
                hint="the file must be an object with a servers map",
            )
        )
        return {}
    return data


def read_entries(
    data: Mapping[str, Any], text: str, path: str, dialect: Dialect, out: list[Diagnostic]
) -> dict[str, McpServer]:
    """Every valid server under ``data[dialect.key]``; invalid ones are error diagnostics
    (the harness skips them: Claude prints "Skipped — invalid MCP server config")."""
    servers = data.get(dialect.key)
    if servers is None:
        return {}
    if not isinstance(servers, Mapping):
        out.append(
            harness_diagnostic(
                "harness-field-type",
                f"{dialect.key} must be an object of servers",
                path=path,
                line=position(text, dialect.key)[0],
                hint="map each server name to its configuration",
            )
        )
        return {}
    found: dict[str, McpServer] = {}
    for name, entry in servers.items():
        read = server_from_native(str(name), entry, dialect, path)
        line, column = position(text, str(name))
        if read.server is None:
            out.append(
                harness_diagnostic(
                    "harness-invalid",
                    f"[{name}] {read.problem}; {dialect.title} skips this server",
                    path=path,
                    line=line,
                    column=column,
                    hint="stdio servers need a command; http and sse servers need a url",
                )
            )
            continue
        for note in read.notes:
            out.append(
                harness_diagnostic(
                    "harness-ignored",
                    f"[{name}] {note}",
                    path=path,
                    line=line,
                    column=column,
                    hint="roster has no equivalent; the value is imported as written",
                    warning=True,
                )
            )
        found[str(name)] = read.server
    return found


def merge_into(
    existing: str | None,
    path: str,
    entries: Mapping[str, dict[str, Any]],
    dialect: Dialect,
    out: list[Diagnostic],
) -> str | None:
    """The file text with ``entries`` written under ``dialect.key`` and everything else
    kept; ``None`` (and an error) when the existing file cannot be merged safely."""
    data: dict[str, Any] = {}
    if existing is not None and existing.strip():
        found: list[Diagnostic] = []
        data = load_json_object(existing, path, found, dialect.title)
        if found:
            out.extend(
                harness_diagnostic(
                    "render-unsupported",
                    f"cannot merge MCP servers into {path}: {d.message}",
                    path=path,
                    line=d.line,
                    column=d.column,
                    hint="fix or move the existing file; roster never overwrites it blindly",
                )
                for d in found
            )
            return None
    current = data.get(dialect.key)
    if current is not None and not isinstance(current, dict):
        out.append(
            harness_diagnostic(
                "render-unsupported",
                f"cannot merge MCP servers into {path}: {dialect.key} is not an object",
                path=path,
                hint="fix the existing file first",
            )
        )
        return None
    merged = dict(current or {})
    merged.update(entries)
    data[dialect.key] = merged
    return json_text(data)


def render_mcp_file(
    profiles: Iterable[AgentProfile],
    registry: Mapping[str, McpServer],
    dialect: Dialect,
    path: str,
    existing: ReadExisting,
    diagnostics: list[Diagnostic],
    *,
    mode: int = 0o644,
) -> NativeFile | None:
    """The scope's MCP file with every server the rendered ``profiles`` reference merged
    in, or ``None`` when there is nothing to write (or the existing file must not be
    touched). Names the registry lacks, and servers the dialect cannot express, are
    reported against ``path``."""
    servers, missing = referenced_servers(profiles, registry)
    for name, ids in missing.items():
        diagnostics.append(
            harness_diagnostic(
                "render-unsupported",
                f"{', '.join(ids)} reference MCP server '{name}', which the registry does "
                f"not have; {dialect.title} will not find it",
                path=path,
                hint=f"add mcp-servers/{name}.md to the vault",
                warning=True,
            )
        )
    entries: dict[str, dict[str, Any]] = {}
    for name, server in sorted(servers.items()):
        entry, problem = server_to_native(server, dialect)
        if entry is None:
            diagnostics.append(
                harness_diagnostic(
                    "render-unsupported",
                    f"MCP server '{name}': {problem}",
                    path=path,
                    hint="use a plain ${VAR} reference",
                )
            )
            continue
        entries[name] = entry
    if not entries:
        return None
    current = existing_text(existing, path, diagnostics)
    if current is False:
        return None
    merged = merge_into(current, path, entries, dialect, diagnostics)
    if merged is None:
        return None
    return NativeFile(path=path, content=merged, mode=mode, merged=True)
