"""A local stdio MCP server standing in for the example vault's ``npx`` GitHub server, so a
health check spawns nothing that downloads (built with the official SDK)."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server


async def _list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    tool = types.Tool(name="get_issue", description="stub", input_schema={"type": "object"})
    return types.ListToolsResult(tools=[tool])


async def _main() -> None:
    server = Server("github-stub", on_list_tools=_list_tools)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(_main)
