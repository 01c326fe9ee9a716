"""The checks every HTTP request passes before it reaches a route (issue 14 item 7).

* **Host**: only the names the daemon is reached by (``127.0.0.1:<port>``, ``localhost:<port>``,
  ``[::1]:<port>``, plus the bind address and configured names when it listens elsewhere).
  A page on another site that rebinds its DNS name to 127.0.0.1 sends its own name, and is
  refused: the MCP specification requires this check for streamable HTTP.
* **Origin**: a browser request from any other origin than the daemon's own is refused, so
  another site's page cannot drive the API even where CORS would not protect it (simple
  POSTs, SSE).
* **Sec-Fetch-Site**: a browser names where a request comes from even when it sends no
  Origin (a GET from an ``<img>``, a link, a form); ``cross-site`` and ``same-site`` (another
  port of localhost is the same site) are another page than the daemon's own, and refused.
  Programs send no such header.
* **Body size**: bodies above a limit are refused (413), counted as they stream in, not only
  from ``Content-Length``.
* **Token**: when the daemon listens beyond loopback, every request but ``/healthz`` needs
  ``Authorization: Bearer <token>`` (the daemon token, or a per-launch token the verifier
  accepts). A bearer token that is given is always checked, on loopback too: a forged or
  expired launch token is refused here, never treated as the local user.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Callable, Iterable
from typing import Any

import msgspec
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agent_roster.errors import ForbiddenError, TooLargeError, error_payload

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
#: Requests larger than this are refused (1 MiB: a profile is a few KB).
DEFAULT_MAX_BODY = 1 << 20


class GuardSettings(msgspec.Struct, frozen=True, kw_only=True):
    """What :class:`RequestGuard` accepts."""

    port: int
    bind: str = "127.0.0.1"
    extra_hosts: tuple[str, ...] = ()
    #: Required on every request but /healthz when set (the daemon listens beyond loopback).
    token: str | None = None
    max_body: int = DEFAULT_MAX_BODY

    @property
    def loopback(self) -> bool:
        return self.bind in ("127.0.0.1", "localhost", "::1")

    def hosts(self) -> frozenset[str]:
        names = [*LOOPBACK_NAMES, *self.extra_hosts]
        if not self.loopback:
            names.append(f"[{self.bind}]" if ":" in self.bind else self.bind)
        return frozenset(f"{name}:{self.port}" for name in names)

    def origins(self) -> frozenset[str]:
        return frozenset(f"http://{host}" for host in self.hosts())


class RequestGuard:
    """Pure ASGI middleware (it must see /mcp's streamed bodies too)."""

    def __init__(
        self,
        app: ASGIApp,
        settings: GuardSettings,
        verify_token: Callable[[str], bool] | None = None,
    ) -> None:
        self.app = app
        self.settings = settings
        self.verify_token = verify_token
        self._hosts = settings.hosts()
        self._origins = settings.origins()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = _headers(scope["headers"])
        problem = self._refusal(scope, headers)
        if problem is not None:
            status, exc = problem
            await _respond(send, status, error_payload(exc))
            return
        length = headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > self.settings.max_body:
            await _respond(send, 413, _too_large(self.settings.max_body))
            return
        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, self._limited(receive), tracked)
        except _BodyTooLarge:
            if not started:
                await _respond(send, 413, _too_large(self.settings.max_body))

    def _refusal(self, scope: Scope, headers: dict[str, str]) -> tuple[int, Exception] | None:
        host = headers.get("host", "")
        if host not in self._hosts:
            return 403, ForbiddenError(
                f"requests for host {host!r} are refused",
                hint="reach the daemon by the address it prints (DNS rebinding protection)",
            )
        origin = headers.get("origin")
        if origin is not None and origin not in self._origins:
            return 403, ForbiddenError(
                f"requests from origin {origin!r} are refused",
                hint="only the daemon's own pages may call it from a browser",
            )
        site = headers.get("sec-fetch-site")
        if site in ("cross-site", "same-site"):
            return 403, ForbiddenError(
                f"requests from another site's page are refused (Sec-Fetch-Site: {site})",
                hint="only the daemon's own pages may call it from a browser",
            )
        given = _bearer(headers.get("authorization", ""))
        if scope.get("path") == "/healthz" or (self.settings.token is None and not given):
            return None
        if given and (
            (self.settings.token is not None and hmac.compare_digest(given, self.settings.token))
            or (self.verify_token is not None and self.verify_token(given))
        ):
            return None
        if given:
            return 401, ForbiddenError(
                "the bearer token is not valid",
                hint="a launch token comes from a current launch spec; the daemon token is "
                "stored beside the database",
            )
        return 401, ForbiddenError(
            "this daemon needs a token",
            hint="send 'Authorization: Bearer <token>' with the token stored beside the database",
        )

    def _limited(self, receive: Receive) -> Receive:
        limit = self.settings.max_body
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _BodyTooLarge(limit)
            return message

        return limited


class _BodyTooLarge(TooLargeError):
    """Raised from ``receive`` inside a route: its error boundary answers 413 with the one
    payload, and a route without one is answered here."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"the request body is larger than {limit} bytes",
            hint="send less: a profile is a few KB",
        )


def _too_large(limit: int) -> dict[str, Any]:
    return error_payload(_BodyTooLarge(limit))


def _bearer(value: str) -> str:
    scheme, _, token = value.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def _headers(raw: Iterable[tuple[bytes, bytes]]) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in raw}


async def _respond(send: Send, status: int, payload: dict[str, Any]) -> None:
    body = json.dumps(payload).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
