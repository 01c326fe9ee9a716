"""McpServer: one entry of the MCP server registry (``mcp-servers/<name>.md``)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import msgspec


class Transport(StrEnum):
    STDIO = "stdio"
    HTTP = "http"
    SSE = "sse"


class McpServer(msgspec.Struct, frozen=True, kw_only=True):
    """A registry entry. ``command``/``args``/``env`` apply to stdio, ``url``/``headers`` to
    http and sse. ``project`` is the project id for project-scope entries (from the path
    only, never from the file's content)."""

    name: str
    transport: Transport
    command: str = ""
    args: tuple[str, ...] = ()
    env: dict[str, str] = msgspec.field(default_factory=dict)
    url: str = ""
    headers: dict[str, str] = msgspec.field(default_factory=dict)
    description: str = ""
    notes: str = ""
    project: str | None = None
    source: str = ""
    builtin: bool = False

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "transport": self.transport.value,
            "command": self.command,
            "args": list(self.args),
            "env": dict(self.env),
            "url": self.url,
            "headers": dict(self.headers),
            "description": self.description,
            "notes": self.notes,
            "project": self.project,
            "source": self.source,
            "builtin": self.builtin,
        }
