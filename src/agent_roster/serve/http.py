"""The HTTP API: one JSON endpoint per command of the registry, the embedded MCP server at
``/mcp``, the OpenAPI document at ``/openapi.json`` and ``/healthz``.

Routes are derived from :mod:`agent_roster.commands.registry`, never written per command:
``POST /api/<command>`` takes the parameters as a JSON object; a command that writes nothing
also answers ``GET /api/<command>?param=value`` for scalar parameters, except with a flag
that makes it act beyond roster (``export_profile``'s ``gist``: POST only). The request and
response schemas in the OpenAPI document are the commands' own parameter and result types
(FastAPI writes it, when it is first asked for). The app itself is plain Starlette: a request
reaches its command through one route and a dict.
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
import msgspec
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from agent_roster import __version__
from agent_roster.commands.context import RosterContext
from agent_roster.commands.registry import Command, all_commands, encode, is_scalar
from agent_roster.errors import NotFoundError, UsageError, error_payload, surface_codes
from agent_roster.redact import redact_data
from agent_roster.serve.mcp import Gate, build_server, run_command
from agent_roster.serve.security import GuardSettings, RequestGuard
from agent_roster.store import Store
from agent_roster.store.events import SyncEvent
from agent_roster.sync.bus import EventBus


def _json(result: Any) -> bytes:
    """A command result as JSON, its secrets masked (:func:`agent_roster.redact.redact_data`,
    on the same builtins :func:`~agent_roster.commands.registry.encode` gives every
    surface), encoded by msgspec."""
    return msgspec.json.encode(redact_data(encode(result)))


def _error_response(exc: BaseException, status: int | None = None) -> JSONResponse:
    return JSONResponse(error_payload(exc), status_code=status or surface_codes(exc).http_status)


def _endpoint(context: RosterContext, command: Command) -> Callable[[Request], Any]:
    async def endpoint(request: Request) -> Response:
        try:
            if request.method == "GET":
                raw: Any = dict(request.query_params)
            else:
                body = await request.body()
                raw = json.loads(body) if body.strip() else {}
                if not isinstance(raw, dict):
                    raise UsageError("the request body must be a JSON object of parameters")
            params = command.decode(raw)
            acting = [flag for flag in command.spec.acts_with if getattr(params, flag, False)]
            if request.method == "GET" and acting:
                # A GET is what another site's <img> or link makes a browser send: it must
                # never publish (issue 14 item 7).
                return _error_response(
                    UsageError(
                        f"{command.name} with {acting[0]} acts beyond roster, so it takes POST",
                        hint=f"POST /api/{command.name} with the parameters as a JSON object",
                    ),
                    status=405,
                )
            result = await run_command(command, context, params)
            body = _json(result)
        except json.JSONDecodeError as exc:
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
        return Response(body, media_type="application/json")

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


HEALTHY = b'{"status":"ok"}'
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


def _documented(events: EventSource | None) -> Any:
    """A FastAPI app holding one route per command (and ``/events``), only for its OpenAPI
    document: the request and response schemas are the commands' own types."""
    from fastapi import FastAPI

    docs = FastAPI(
        title="Agent Roster",
        version=__version__,
        summary="Agent profiles, MCP servers, tasks and projects, as JSON.",
    )

    async def unserved() -> None:  # pragma: no cover - never routed to
        raise NotImplementedError

    if events is not None:
        docs.add_api_route("/events", unserved, methods=["GET"], summary="Server-sent sync events")
    for command in all_commands():
        body_schema = command.input_schema()
        docs.add_api_route(
            f"/api/{command.name}",
            unserved,
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
            docs.add_api_route(
                f"/api/{command.name}",
                unserved,
                methods=["GET"],
                summary=command.summary,
                operation_id=f"{command.name}_get",
                openapi_extra={
                    **_openapi_extra(command),
                    "parameters": [
                        {"name": name, "in": "query", "schema": schema}
                        for name, schema in body_schema.get("properties", {}).items()
                        if is_scalar(schema) and name not in command.spec.acts_with
                    ],
                },
            )
    return docs


def build_app(
    context: RosterContext,
    *,
    guard: GuardSettings,
    gate: Gate | None = None,
    events: EventSource | None = None,
) -> Starlette:
    """The API for ``context``'s vault; ``guard`` says which hosts, origins and token to
    accept, ``gate`` who may call what over MCP, ``events`` where ``/events`` reads from
    (the daemon's live state; without it there is no ``/events``)."""
    mcp_server = build_server(context, gate)
    mcp_app = mcp_server.streamable_http_app(
        streamable_http_path="/mcp",
        # A POST is answered with one JSON body rather than an SSE stream of one event:
        # fewer writes per call, and the MCP specification allows either.
        json_response=True,
        # The guard below checks Host and Origin for every route, /mcp included.
        transport_security=None,
        host="0.0.0.0",  # noqa: S104 - only disables the SDK's own check; RequestGuard does it
    )

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        async with mcp_server.session_manager.run():
            yield

    async def healthz(_request: Request) -> Response:
        return Response(HEALTHY, media_type="application/json")

    endpoints = {c.name: (c, _endpoint(context, c)) for c in all_commands()}

    async def command_route(request: Request) -> Response:
        name = request.path_params["command"]
        found = endpoints.get(name)
        if found is None:
            from agent_roster.diagnostics import did_you_mean

            return _error_response(
                NotFoundError(f"no command {name!r}", hint=did_you_mean(name, endpoints))
            )
        command, endpoint = found
        if request.method == "GET" and command.spec.writes:
            return _error_response(
                UsageError(
                    f"{name} writes, so it takes POST",
                    hint=f"POST /api/{name} with the parameters as a JSON object",
                ),
                status=405,
            )
        response: Response = await endpoint(request)
        return response

    document: list[bytes] = []

    async def openapi(_request: Request) -> Response:
        if not document:
            document.append(json.dumps(_documented(events).openapi()).encode())
        return Response(document[0], media_type="application/json")

    # A request reaches a command through one route and a dict: FastAPI would try each of
    # ~80 routes in turn and wrap every call in its dependency machinery, which cost more
    # than a resolve. FastAPI makes the OpenAPI document (from one route per command, on an
    # app that is never served), imported when the document is first asked for, not at start.
    routes = [
        # The floor the benchmark measures commands against: the server's own cost.
        Route("/healthz", healthz, methods=["GET"]),
        Route("/api/{command}", command_route, methods=["GET", "POST"]),
        Route("/openapi.json", openapi, methods=["GET"]),
        next(r for r in mcp_app.routes if isinstance(r, Route)),
    ]
    if events is not None:
        routes.append(Route("/events", _events_endpoint(events), methods=["GET"]))
    verify = getattr(gate, "verify", None)
    return Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[Middleware(RequestGuard, settings=guard, verify_token=verify)],
        # The router's own answers (an unknown path, a method a route does not take) in the
        # one error shape too, not Starlette's plain text.
        exception_handlers={HTTPException: _routing_error},
    )


async def _routing_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        return _error_response(
            NotFoundError(
                f"no route {request.url.path}",
                hint="the API is POST /api/<command> (the commands: /openapi.json); "
                "also /mcp, /events and /healthz",
            ),
            status=404,
        )
    if exc.status_code == 405:
        return _error_response(
            UsageError(
                f"{request.url.path} does not take {request.method}",
                hint="commands take POST (and GET when they only read); see /openapi.json",
            ),
            status=405,
        )
    return _error_response(UsageError(str(exc.detail)), status=exc.status_code)
