"""What probing an MCP server found: its tools, or why it could not list them."""

from __future__ import annotations

from typing import Any

import msgspec


class ProbedTool(msgspec.Struct, frozen=True, kw_only=True):
    """One tool a server reported in ``tools/list``."""

    name: str
    description: str = ""
    input_schema: dict[str, Any] = msgspec.field(default_factory=dict)


class ProbeResult(msgspec.Struct, frozen=True, kw_only=True):
    """What one probe found. ``error_code`` is one of ``timeout``, ``spawn-failed``,
    ``connect-failed``, ``server-exited``, ``env-missing``, ``protocol-error``; ``None``
    when ``ok``."""

    server: str
    project: str | None = None
    transport: str
    ok: bool
    tools: tuple[ProbedTool, ...] = ()
    error_code: str | None = None
    error: str | None = None
    server_info: str | None = None
    elapsed_ms: float = 0.0
