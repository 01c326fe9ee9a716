"""Ask a registry MCP server which tools it offers, with the official ``mcp`` SDK client.

A probe never raises: whatever goes wrong (a command that does not exist, a process that
exits, a server that never answers, a refused connection, a protocol error) becomes a
:class:`ProbeResult` with ``ok=False``, a stable ``error_code`` and a message with secrets
masked. Each probe has a deadline; several servers are probed concurrently, so one slow
server costs its own timeout, not the sum (issue 15 item 6).

``${VAR}`` / ``{env:VAR}`` references in a server's command, args, env, URL and headers are
filled from the environment at probe time, as the harnesses do when they launch the server;
a missing variable is an error result, and no connection is attempted.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import anyio

from agent_roster.model.catalog import ProbedTool, ProbeResult
from agent_roster.model.mcp import McpServer, Transport

#: Seconds a probe may take when the caller does not say.
DEFAULT_TIMEOUT = 15.0
#: How many servers are probed at once (each stdio probe is a process).
DEFAULT_CONCURRENCY = 8

_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\{env:([A-Za-z_][A-Za-z0-9_]*)\}")
# Stderr lines kept for an error message: enough to show why a server died.
_STDERR_TAIL = 5


class _MissingVariable(Exception):
    def __init__(self, names: Sequence[str]) -> None:
        super().__init__(", ".join(names))
        self.names = tuple(names)


class _Expander:
    """Fills references from an environment, remembering what it put in so that error
    messages can show the reference again instead of the (possibly secret) value."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self.environ = environ
        self.missing: list[str] = []
        self.filled: dict[str, str] = {}

    def __call__(self, text: str) -> str:
        def fill(match: re.Match[str]) -> str:
            name = match.group(1) or match.group(2)
            value = self.environ.get(name)
            if value is None:
                if name not in self.missing:
                    self.missing.append(name)
                return match.group(0)
            self.filled[value] = match.group(0)
            return value

        return _REFERENCE.sub(fill, text)

    def mapping(self, values: Mapping[str, str]) -> dict[str, str]:
        return {key: self(value) for key, value in values.items()}

    def mask(self, message: str) -> str:
        # Longest first, so a value containing another is replaced whole.
        for value in sorted(self.filled, key=len, reverse=True):
            if len(value) >= 4:
                message = message.replace(value, self.filled[value])
        return message


def probe(
    server: McpServer,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    environ: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> ProbeResult:
    """Probe one server (blocking)."""
    return probe_many([server], timeout=timeout, environ=environ, cwd=cwd)[0]


def probe_many(
    servers: Iterable[McpServer],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    concurrency: int = DEFAULT_CONCURRENCY,
    environ: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> list[ProbeResult]:
    """Probe several servers concurrently (blocking); results in the order given."""
    wanted = list(servers)
    env = os.environ if environ is None else environ
    return anyio.run(_probe_all, wanted, timeout, max(1, concurrency), env, cwd)


async def _probe_all(
    servers: list[McpServer],
    timeout: float,
    concurrency: int,
    environ: Mapping[str, str],
    cwd: str | os.PathLike[str] | None,
) -> list[ProbeResult]:
    results: list[ProbeResult | None] = [None] * len(servers)
    limiter = anyio.CapacityLimiter(concurrency)

    async def one(index: int, server: McpServer) -> None:
        async with limiter:
            results[index] = await probe_async(server, timeout=timeout, environ=environ, cwd=cwd)

    async with anyio.create_task_group() as group:
        for index, server in enumerate(servers):
            group.start_soon(one, index, server)
    return [result for result in results if result is not None]


async def probe_async(
    server: McpServer,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    environ: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> ProbeResult:
    """Probe one server inside a running event loop; never raises (but for cancellation
    of the caller itself)."""
    expand = _Expander(os.environ if environ is None else environ)
    started = time.perf_counter()

    def result(**fields: Any) -> ProbeResult:
        if fields.get("error"):
            fields["error"] = expand.mask(str(fields["error"]))
        return ProbeResult(
            server=server.name,
            project=server.project,
            transport=server.transport.value,
            elapsed_ms=round((time.perf_counter() - started) * 1000, 1),
            **fields,
        )

    with tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace") as errlog:
        try:
            with anyio.fail_after(timeout):
                tools, info = await _list_tools(server, expand, errlog, cwd)
        except _MissingVariable as missing:
            return result(
                ok=False,
                error_code="env-missing",
                error="environment variable(s) not set: " + ", ".join(missing.names),
            )
        except TimeoutError:
            return result(
                ok=False,
                error_code="timeout",
                error=f"no tools/list answer within {timeout:g} s" + _tail(errlog),
            )
        except Exception as exc:  # a probe reports every failure as data
            code, message = _classify(server, exc)
            return result(ok=False, error_code=code, error=message + _tail(errlog))
    return result(ok=True, tools=tools, server_info=info)


async def _list_tools(
    server: McpServer,
    expand: _Expander,
    errlog: Any,
    cwd: str | os.PathLike[str] | None,
) -> tuple[tuple[ProbedTool, ...], str | None]:
    from mcp.client.session import ClientSession

    if server.transport is Transport.STDIO:
        from mcp.client.stdio import StdioServerParameters, stdio_client

        params = StdioServerParameters(
            command=expand(server.command),
            args=[expand(arg) for arg in server.args],
            env=expand.mapping(server.env),
            cwd=os.fspath(cwd) if cwd is not None else None,
        )
        _check_missing(expand)
        transport = stdio_client(params, errlog=errlog)
    else:
        url = expand(server.url)
        headers = expand.mapping(server.headers)
        _check_missing(expand)
        transport = _http_transport(server.transport, url, headers)
    async with transport as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            listed = await _all_tools(session)
    info = getattr(init, "server_info", None) or getattr(init, "serverInfo", None)
    described = f"{info.name} {info.version}".strip() if info is not None else None
    return listed, described


def _http_transport(transport: Transport, url: str, headers: dict[str, str]) -> Any:
    if transport is Transport.SSE:
        from mcp.client.sse import sse_client

        return sse_client(url, headers=headers)
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    return _OwnedClient(streamable_http_client, url, create_mcp_http_client(headers=headers))


class _OwnedClient:
    """streamable_http_client with a client carrying our headers, closed with it."""

    def __init__(self, factory: Any, url: str, client: Any) -> None:
        self.factory, self.url, self.client = factory, url, client
        self.inner: Any = None

    async def __aenter__(self) -> Any:
        await self.client.__aenter__()
        self.inner = self.factory(self.url, http_client=self.client)
        return await self.inner.__aenter__()

    async def __aexit__(self, *exc: object) -> None:
        try:
            await self.inner.__aexit__(*exc)
        finally:
            await self.client.__aexit__(None, None, None)


async def _all_tools(session: Any) -> tuple[ProbedTool, ...]:
    """Every page of ``tools/list``."""
    tools: list[ProbedTool] = []
    cursor: str | None = None
    for _ in range(1000):  # a server that pages forever is cut off, not followed
        page = await (session.list_tools(cursor=cursor) if cursor else session.list_tools())
        for tool in page.tools:
            schema = getattr(tool, "input_schema", None) or getattr(tool, "inputSchema", None)
            tools.append(
                ProbedTool(
                    name=tool.name,
                    description=(tool.description or "").strip(),
                    input_schema=dict(schema or {}),
                )
            )
        cursor = getattr(page, "next_cursor", None) or getattr(page, "nextCursor", None)
        if not cursor:
            break
    return tuple(sorted(tools, key=lambda tool: tool.name))


def _check_missing(expand: _Expander) -> None:
    if expand.missing:
        raise _MissingVariable(expand.missing)


def _classify(server: McpServer, exc: BaseException) -> tuple[str, str]:
    """A stable code and one line for a failure, from the innermost real exception."""
    leaf = _innermost(exc)
    if server.transport is Transport.STDIO and isinstance(leaf, OSError | ValueError):
        return "spawn-failed", f"cannot start {server.command!r}: {_describe(leaf)}"
    name = type(leaf).__name__
    if server.transport is Transport.STDIO and "Connection closed" in str(leaf):
        return "server-exited", "the server process closed its connection before answering"
    if server.transport is not Transport.STDIO and (
        isinstance(leaf, OSError) or "Connect" in name or "HTTPStatus" in name
    ):
        return "connect-failed", f"cannot reach {server.url}: {_describe(leaf)}"
    return "protocol-error", _describe(leaf)


def _innermost(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def _tail(errlog: Any) -> str:
    """The last lines the server wrote to stderr, if any, for the error message."""
    try:
        errlog.seek(0)
        lines = [line.rstrip() for line in errlog.read()[-4000:].splitlines() if line.strip()]
    except (OSError, ValueError):
        return ""
    return ("; stderr: " + " | ".join(lines[-_STDERR_TAIL:])) if lines else ""
