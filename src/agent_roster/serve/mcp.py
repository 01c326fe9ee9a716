"""The embedded MCP server: one tool per command of the registry, built with the official SDK.

Tools are derived from :mod:`agent_roster.commands.registry`: the name is the command's
name, the description its summary, the input schema its parameter type's schema. A call
decodes the arguments into the parameter type, runs the command in a worker thread (commands
do blocking file and database work) and returns the result both as JSON text and as
structured content. An error comes back as a tool result with ``isError`` set and the one
error payload (:func:`agent_roster.errors.error_payload`), so an agent sees the code, the
message, the hint and the diagnostics, the same as a CLI or HTTP caller.

Who is calling is decided by the surface (:class:`Gate`): over streamable HTTP the request's
bearer token names a caller (a per-launch credential bound to a task and profile), and the
gate decides which commands that caller may see and call; over stdio the caller is the local
user.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol

import anyio.to_thread
import mcp_types as types
from mcp.server.lowlevel import Server

from agent_roster import __version__
from agent_roster.commands.context import Caller, RosterContext
from agent_roster.commands.registry import Command, all_commands, encode, load
from agent_roster.errors import ForbiddenError, UsageError, error_payload


class Gate(Protocol):
    """The surface's access rule: who a request comes from and what they may call."""

    def caller(self, headers: Mapping[str, str] | None) -> Caller | None:
        """The caller a request's headers name (``None``: the local user); raises
        :class:`ForbiddenError` for a credential that is not valid."""
        ...

    def refusal(self, ctx: RosterContext, caller: Caller | None, command: Command) -> str | None:
        """Why ``caller`` may not call ``command`` (the deciding rule), or ``None``."""
        ...


class OpenGate:
    """Every command for everybody: the stdio transport, run by the local user."""

    def caller(self, headers: Mapping[str, str] | None) -> Caller | None:
        return None

    def refusal(self, ctx: RosterContext, caller: Caller | None, command: Command) -> str | None:
        return None


def tool_of(command: Command) -> types.Tool:
    return types.Tool(
        name=command.name,
        description=command.summary,
        input_schema=command.input_schema(),
    )


def _headers(request: Any) -> Mapping[str, str] | None:
    headers = getattr(request, "headers", None)
    return headers if isinstance(headers, Mapping) else None


def build_server(context: RosterContext, gate: Gate | None = None) -> Server[Any]:
    """The MCP server for ``context``'s vault, named by roster.toml's
    ``[embedded_server] name``."""
    gate = gate or OpenGate()

    async def list_tools(
        rctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        caller = gate.caller(_headers(rctx.request))
        visible = [tool_of(c) for c in all_commands() if gate.refusal(context, caller, c) is None]
        return types.ListToolsResult(tools=visible)

    async def call_tool(rctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            caller = gate.caller(_headers(rctx.request))
            command = load(params.name)
            refusal = gate.refusal(context, caller, command)
            if refusal is not None:
                raise ForbiddenError(
                    f"this agent may not call {command.name}: {refusal}",
                    hint="its profile's Tools decide which roster commands it may call",
                )
            arguments = command.decode(params.arguments or {})
            ctx = context.with_caller(caller)
            result = await anyio.to_thread.run_sync(command.function, ctx, arguments)
            data = encode(result)
        except UsageError as exc:
            return _error(exc)
        except Exception as exc:  # the boundary: any other error is reported, not raised
            return _error(exc)
        return types.CallToolResult(
            content=[types.TextContent(text=json.dumps(data, ensure_ascii=False))],
            structured_content=data,
        )

    return Server(
        context.config().embedded.name,
        version=__version__,
        instructions="Agent Roster: agent profiles, MCP servers, tasks and projects.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _error(exc: BaseException) -> types.CallToolResult:
    payload = error_payload(exc)
    return types.CallToolResult(
        content=[types.TextContent(text=json.dumps(payload, ensure_ascii=False))],
        structured_content=payload,
        is_error=True,
    )


async def serve_stdio(context: RosterContext) -> None:
    """Serve the embedded MCP server over stdin/stdout until the client closes them."""
    from mcp.server.stdio import stdio_server

    server = build_server(context)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
