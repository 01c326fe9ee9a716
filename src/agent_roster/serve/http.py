"""The HTTP API: one JSON endpoint per command of the registry, the embedded MCP server at
``/mcp``, the OpenAPI document at ``/openapi.json`` and ``/healthz``.

Routes are derived from :mod:`agent_roster.commands.registry`, never written per command:
``POST /api/<command>`` takes the parameters as a JSON object; a command that writes nothing
also answers ``GET /api/<command>?param=value`` for scalar parameters. The request and
response schemas in the OpenAPI document are the commands' own parameter and result types.
Every error has the one payload of :func:`agent_roster.errors.error_payload` and the HTTP
status :data:`agent_roster.errors.SURFACE_CODES` gives its kind.

Every request passes :class:`~agent_roster.serve.security.RequestGuard` first (Host and
Origin checks against DNS rebinding and other sites' pages, a body size limit, the token
when the daemon listens beyond loopback).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

import anyio.to_thread
from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from agent_roster import __version__
from agent_roster.commands.context import RosterContext
from agent_roster.commands.registry import Command, all_commands, encode
from agent_roster.errors import error_payload, surface_codes
from agent_roster.serve.mcp import Gate, build_server
from agent_roster.serve.security import GuardSettings, RequestGuard
from agent_roster.store import Store
from agent_roster.store.events import SyncEvent
from agent_roster.sync.bus import EventBus


def _error_response(exc: BaseException) -> JSONResponse:
    return JSONResponse(error_payload(exc), status_code=surface_codes(exc).http_status)


def _endpoint(context: RosterContext, command: Command) -> Callable[[Request], Any]:
    async def endpoint(request: Request) -> Response:
        try:
            if request.method == "GET":
                raw: Any = dict(request.query_params)
            else:
                body = await request.body()
                raw = json.loads(body) if body.strip() else {}
                if not isinstance(raw, dict):
                    from agent_roster.errors import UsageError

                    raise UsageError("the request body must be a JSON object of parameters")
            params = command.decode(raw)
            result = await anyio.to_thread.run_sync(command.function, context, params)
        except json.JSONDecodeError as exc:
            from agent_roster.errors import UsageError
            from agent_roster.vault.json_syntax import json_problem

            # Our own words and place, not CPython's (they differ between versions).
            found = json_problem(exc.doc, exc.pos)
            return _error_response(
                UsageError(
                    f"the request body is not JSON: {found.message} at line {found.line} "
                    f"column {found.column}",
                    hint=found.hint,
                )
            )
        except Exception as exc:  # the boundary: every error becomes the one payload
            return _error_response(exc)
        return JSONResponse(encode(result))

    endpoint.__name__ = command.name
    return endpoint


def _openapi_extra(command: Command) -> dict[str, Any]:
    error = {
        "description": "the error payload (code, message, hint, diagnostics)",
        "content": {"application/json": {"schema": {"type": "object"}}},
    }
    extra: dict[str, Any] = {
        "responses": {
            "200": {
                "description": command.summary,
                "content": {"application/json": {"schema": command.output_schema()}},
            },
            "4XX": error,
            "5XX": error,
        },
    }
    return extra


class EventSource(Protocol):
    """Where ``/events`` reads from: the events table, woken by the sync bus; ``closing``
    ends every open stream (set when the daemon shuts down)."""

    store: Store
    bus: EventBus
    closing: threading.Event


#: A keep-alive comment goes out after this many seconds without an event.
KEEPALIVE_SECONDS = 15.0
#: The wake-up callbacks of the open /events streams (to end them at shutdown).
_streams: set[Callable[[], None]] = set()


def close_streams(source: EventSource) -> None:
    """End every open /events stream: called when the daemon starts shutting down, so that
    the server does not wait for streams that never end on their own."""
    source.closing.set()
    for wake in list(_streams):
        wake()


def _sse(event: SyncEvent) -> bytes:
    from agent_roster.serve.notify import event_json

    data = json.dumps(event_json(event), ensure_ascii=False)
    return f"id: {event.id}\nevent: {event.kind}\ndata: {data}\n\n".encode()


def _events_endpoint(source: EventSource) -> Callable[[Request], Any]:
    async def events(request: Request) -> Response:
        """Server-sent events: every change, failure (with its diagnostics) and recovery,
        resumable from ``Last-Event-ID`` (or ``?after=ID``; without either, only what
        happens from now on)."""
        start = request.headers.get("last-event-id") or request.query_params.get("after")
        try:
            after = int(start) if start is not None else None
        except ValueError:
            from agent_roster.errors import UsageError

            return _error_response(UsageError(f"Last-Event-ID {start!r} is not an event id"))
        if after is None:
            after = await anyio.to_thread.run_sync(source.store.last_sync_event_id)
        loop = asyncio.get_running_loop()
        wake = asyncio.Event()

        def woken(_event: SyncEvent | None = None) -> None:
            loop.call_soon_threadsafe(wake.set)

        unsubscribe = source.bus.subscribe(woken)
        _streams.add(woken)

        async def stream() -> AsyncIterator[bytes]:
            nonlocal after
            try:
                yield b"retry: 1000\n\n"
                while not source.closing.is_set():
                    wake.clear()
                    found = await anyio.to_thread.run_sync(
                        source.store.sync_events_after, after or 0
                    )
                    for event in found:
                        after = event.id or after
                        yield _sse(event)
                    if found:
                        continue
                    try:
                        await asyncio.wait_for(wake.wait(), KEEPALIVE_SECONDS)
                    except TimeoutError:
                        yield b": keep-alive\n\n"
            finally:
                unsubscribe()
                _streams.discard(woken)

        return StreamingResponse(
            stream(),
            media_type="text/event-stream",
            headers={"cache-control": "no-store", "x-accel-buffering": "no"},
        )

    return events


def build_app(
    context: RosterContext,
    *,
    guard: GuardSettings,
    gate: Gate | None = None,
    events: EventSource | None = None,
) -> FastAPI:
    """The API for ``context``'s vault; ``guard`` says which hosts, origins and token to
    accept, ``gate`` who may call what over MCP, ``events`` where ``/events`` reads from
    (the daemon's live state; without it there is no ``/events``)."""
    mcp_server = build_server(context, gate)
    mcp_app = mcp_server.streamable_http_app(
        streamable_http_path="/mcp",
        # The guard below checks Host and Origin for every route, /mcp included.
        transport_security=None,
        host="0.0.0.0",  # noqa: S104 - only disables the SDK's own check; RequestGuard does it
    )

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        async with mcp_server.session_manager.run():
            yield

    app = FastAPI(
        title="Agent Roster",
        version=__version__,
        summary="Agent profiles, MCP servers, tasks and projects, as JSON.",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    if events is not None:
        app.add_api_route(
            "/events",
            _events_endpoint(events),
            methods=["GET"],
            summary="Server-sent sync events",
            include_in_schema=True,
        )

    for command in all_commands():
        endpoint = _endpoint(context, command)
        body_schema = command.input_schema()
        app.add_api_route(
            f"/api/{command.name}",
            endpoint,
            methods=["POST"],
            summary=command.summary,
            description=command.description,
            operation_id=command.name,
            openapi_extra={
                **_openapi_extra(command),
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": body_schema}},
                },
            },
        )
        if not command.spec.writes:
            app.add_api_route(
                f"/api/{command.name}",
                endpoint,
                methods=["GET"],
                summary=command.summary,
                operation_id=f"{command.name}_get",
                openapi_extra={
                    **_openapi_extra(command),
                    "parameters": [
                        {"name": name, "in": "query", "schema": schema}
                        for name, schema in body_schema.get("properties", {}).items()
                        if schema.get("type") in ("string", "integer", "boolean", "number")
                        or any(
                            alt.get("type") in ("string", "integer", "boolean", "number")
                            for alt in schema.get("anyOf", ())
                        )
                    ],
                },
            )

    mcp_route = next(r for r in mcp_app.routes if isinstance(r, Route))
    app.router.routes.append(mcp_route)
    verify = getattr(gate, "verify", None)
    app.add_middleware(RequestGuard, settings=guard, verify_token=verify)
    return app
