"""OpenCode's ``mcp`` block ↔ canonical registry servers (docs/codecs/opencode.md §6).

``{"type": "local", "command": [cmd, *args], "environment": {...}}`` for stdio servers and
``{"type": "remote", "url": ..., "headers": {...}}`` for HTTP and SSE (OpenCode has one
remote type). Environment references are ``{env:VAR}`` in OpenCode and ``${VAR}`` in the
vault (README D10); a ``${VAR:-default}`` has no OpenCode form and is refused.
"""

from __future__ import annotations

import heapq
import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from agent_roster.model.mcp import McpServer, Transport

_CANONICAL_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_CANONICAL_DEFAULT = re.compile(r"\$\{[^}]*:-")
_NATIVE_REF = re.compile(r"\{env:([^}]*)\}")
_NATIVE_SUBST = re.compile(r"\{(?:env|file):")


class NativeServer(NamedTuple):
    """A server rendered for the ``mcp`` block, or why it cannot be (``problem``), plus
    what was translated on the way (``notes``)."""

    entry: dict[str, Any] | None
    problem: str
    notes: tuple[str, ...]


def _to_native_value(value: str, where: str, problems: list[str]) -> str:
    if _CANONICAL_DEFAULT.search(value):
        problems.append(f"{where}: OpenCode has no form for a '${{VAR:-default}}' reference")
    if _NATIVE_SUBST.search(value):
        problems.append(
            f"{where}: the literal text '{{env:'/'{{file:' would be substituted by OpenCode"
        )
    return _CANONICAL_REF.sub(r"{env:\1}", value)


def render_server(server: McpServer) -> NativeServer:
    """The ``mcp.<name>`` entry for a registry server."""
    problems: list[str] = []
    notes: list[str] = []
    entry: dict[str, Any]
    if server.transport is Transport.STDIO:
        if not server.command:
            return NativeServer(None, "a stdio server needs a command", ())
        command = [_to_native_value(server.command, "command", problems)]
        command += [_to_native_value(a, "args", problems) for a in server.args]
        entry = {"type": "local", "command": command}
        if server.env:
            entry["environment"] = {
                k: _to_native_value(v, f"env.{k}", problems) for k, v in server.env.items()
            }
    else:
        if not server.url:
            return NativeServer(None, f"a {server.transport.value} server needs a url", ())
        entry = {"type": "remote", "url": _to_native_value(server.url, "url", problems)}
        if server.headers:
            entry["headers"] = {
                k: _to_native_value(v, f"headers.{k}", problems) for k, v in server.headers.items()
            }
        if server.transport is Transport.SSE:
            notes.append("SSE written as OpenCode 'remote' (it negotiates the transport itself)")
    if problems:
        return NativeServer(None, "; ".join(problems), ())
    return NativeServer(entry, "", tuple(notes))


def _to_canonical_value(value: str) -> str:
    return _NATIVE_REF.sub(r"${\1}", value)


class ImportedServer(NamedTuple):
    """A canonical server from an ``mcp`` entry (``None`` with ``problem`` when OpenCode
    would refuse the entry), and the native keys that had no canonical place."""

    server: McpServer | None
    problem: str
    dropped: tuple[str, ...]


def _string_map(value: Any) -> dict[str, str] | None:
    if not isinstance(value, Mapping) or not all(isinstance(v, str) for v in value.values()):
        return None
    return {str(k): _to_canonical_value(v) for k, v in value.items()}


def import_server(name: str, entry: Any, source: str) -> ImportedServer:
    """The canonical form of ``mcp.<name>`` after all layers are merged."""
    if not isinstance(entry, Mapping):
        return ImportedServer(None, f"Expected McpLocalConfig | McpRemoteConfig, got {entry!r}", ())
    kind = entry.get("type")
    dropped = tuple(
        f"{key}: {entry[key]!r}" for key in ("cwd", "enabled", "timeout", "oauth") if key in entry
    )
    if kind == "local":
        command = entry.get("command")
        if (
            not isinstance(command, list)
            or not command
            or not all(isinstance(c, str) for c in command)
        ):
            return ImportedServer(
                None, f"Expected an array of strings, got {command!r} mcp.{name}.command", ()
            )
        env = _string_map(entry.get("environment", {}))
        if env is None:
            return ImportedServer(None, f"Expected a record of strings, mcp.{name}.environment", ())
        server = McpServer(
            name=name,
            transport=Transport.STDIO,
            command=_to_canonical_value(command[0]),
            args=tuple(_to_canonical_value(c) for c in command[1:]),
            env=env,
            source=source,
        )
        return ImportedServer(server, "", dropped)
    if kind == "remote":
        url = entry.get("url")
        headers = _string_map(entry.get("headers", {}))
        if not isinstance(url, str) or headers is None:
            return ImportedServer(None, f"Expected a url string and string headers, mcp.{name}", ())
        server = McpServer(
            name=name,
            transport=Transport.HTTP,
            url=_to_canonical_value(url),
            headers=headers,
            source=source,
        )
        return ImportedServer(server, "", dropped)
    return ImportedServer(None, f'Expected "local" | "remote", got {kind!r} mcp.{name}.type', ())


def order_servers(existing: Sequence[str], wanted: Iterable[Sequence[str]]) -> list[str]:
    """The ``mcp`` block's key order: ``existing`` keys keep their positions; new servers
    follow in an order consistent with every profile's own ``mcp_servers`` order where one
    exists (OpenCode has no per-agent order, so import reads the block's order)."""
    lists = [list(w) for w in wanted]
    seen = set(existing)
    new: list[str] = []
    for names in lists:
        for name in names:
            if name not in seen:
                seen.add(name)
                new.append(name)
    # Kahn's algorithm over "a before b" edges from each list; ties keep first appearance.
    after: dict[str, set[str]] = {n: set() for n in new}
    for names in lists:
        chain = [n for n in names if n in after]
        for a, b in itertools.pairwise(chain):
            if a != b:
                after[a].add(b)
    # Linear in the edges: a vault of 1,000 servers made the quadratic form take seconds.
    incoming = dict.fromkeys(new, 0)
    for targets in after.values():
        for target in targets:
            incoming[target] += 1
    first = {name: i for i, name in enumerate(new)}
    ordered: list[str] = []
    ready = [first[n] for n in new if incoming[n] == 0]  # a heap of first appearances
    heapq.heapify(ready)
    while ready:
        node = new[heapq.heappop(ready)]
        ordered.append(node)
        for nxt in after[node]:
            incoming[nxt] -= 1
            if incoming[nxt] == 0:
                heapq.heappush(ready, first[nxt])
    placed = set(ordered)
    ordered += [n for n in new if n not in placed]  # a cycle: first appearance
    return [*existing, *ordered]
