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

import functools
from collections.abc import Mapping
from typing import Any, Protocol

import anyio.to_thread
import mcp_types as types
import msgspec
from mcp.server.lowlevel import Server

from agent_roster import __version__
from agent_roster.commands.context import Caller, RosterContext
from agent_roster.commands.registry import Command, all_commands, encode, load
from agent_roster.errors import ForbiddenError, UsageError, error_payload
from agent_roster.redact import redact_data

#: Commands that, in the daemon, read only its live index (no file, no database, no
#: network): they run on the event loop, where a resolve costs less than the two thread
#: switches of a worker thread would (the benchmark's hot path). Every other command runs in
#: a worker thread, since it reads or writes files or the database.
IN_MEMORY = frozenset({"resolve_profile"})


async def run_command(command: Command, ctx: RosterContext, params: Any) -> Any:
    """``command`` on ``ctx``: in a worker thread, or inline for :data:`IN_MEMORY` ones
    when the context is the daemon's live one."""
    if ctx.live is not None and command.name in IN_MEMORY:
        return command.function(ctx, params)
    return await anyio.to_thread.run_sync(command.function, ctx, params)


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


@functools.cache
def tool_of(command: Command) -> types.Tool:
    """The MCP tool of a command (built once: tools/list runs on every agent start)."""
    return types.Tool(
        name=command.name,
        description=command.summary,
        input_schema=compact_schema(command.input_schema()),
    )


def compact_schema(node: Any) -> Any:
    """The same JSON Schema in fewer bytes: an agent pays for every byte of every tool on
    every turn (issue 14 item 3). ``anyOf`` of bare types becomes a ``type`` list,
    ``"default": null`` (an absent parameter is null anyway) and an empty ``required`` go."""
    if isinstance(node, list):
        return [compact_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: compact_schema(value) for key, value in node.items()}
    alternatives = out.get("anyOf")
    if isinstance(alternatives, list) and all(
        isinstance(alt, dict) and set(alt) == {"type"} and isinstance(alt["type"], str)
        for alt in alternatives
    ):
        del out["anyOf"]
        out["type"] = [alt["type"] for alt in alternatives]
    elif (
        isinstance(alternatives, list)
        and len(alternatives) == 2
        and {"type": "null"} in (alternatives)
    ):
        # one schema or null: the schema, with "null" added to its type
        (other,) = [alt for alt in alternatives if alt != {"type": "null"}]
        if isinstance(other, dict) and isinstance(other.get("type"), str):
            del out["anyOf"]
            out.update(other)
            out["type"] = [other["type"], "null"]
    if "default" in out and out["default"] is None:
        del out["default"]
    if out.get("required") == []:
        del out["required"]
    return out


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
            result = await run_command(command, ctx, arguments)
            data = redact_data(encode(result))
        except UsageError as exc:
            return _error(exc)
        except Exception as exc:  # the boundary: any other error is reported, not raised
            return _error(exc)
        return types.CallToolResult(
            # msgspec writes the same JSON as json.dumps(ensure_ascii=False), several times
            # faster: a resolve's result is some 20 KB.
            content=[types.TextContent(text=msgspec.json.encode(data).decode())],
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
        content=[types.TextContent(text=msgspec.json.encode(payload).decode())],
        structured_content=payload,
        is_error=True,
    )


async def serve_stdio(context: RosterContext) -> None:
    """Serve the embedded MCP server over stdin/stdout until the client closes them."""
    from mcp.server.stdio import stdio_server

    server = build_server(context)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
