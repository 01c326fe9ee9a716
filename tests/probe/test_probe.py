"""probe_mcp_server, list_mcp_tool_catalog and list_available_tools against real
third-party MCP servers (issue 15 items 6-8)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent_roster.commands.available_tools import ToolsParams, list_available_tools
from agent_roster.commands.context import RosterContext
from agent_roster.commands.probe import (
    CatalogParams,
    ProbeParams,
    list_mcp_tool_catalog,
    probe_mcp_server,
)
from agent_roster.commands.validate import validate
from agent_roster.errors import NotFoundError
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.probe.client import probe_many
from tests.probe.conftest import server_file, write_clock

ROSTER = [sys.executable, "-m", "agent_roster"]
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "vault"
#: Seconds a test that needs a real server's answer (and does not test the timeout) waits
#: for it: a loaded CI machine once took over the default 15 s to start mcp-server-time.
PATIENT = 60


def by_server(results):  # type: ignore[no-untyped-def]
    return {result.server: result for result in results}


def test_probe_lists_the_real_tools_of_real_servers_and_times_out_cleanly(vault: Path) -> None:
    started = time.monotonic()
    with RosterContext(vault) as ctx:
        # Long enough for the real servers to answer on a loaded CI machine (one took over
        # 15 s there), short enough to wait out the silent one.
        timeout = 30
        report = probe_mcp_server(ctx, ProbeParams(timeout=timeout))
    elapsed = time.monotonic() - started
    results = by_server(report.results)
    assert {t.name for t in results["time"].tools} == {"get_current_time", "convert_time"}
    assert results["time"].ok and results["time"].server_info
    everything = {t.name for t in results["everything"].tools}
    assert {"echo", "get-sum"} <= everything, everything
    silent = results["silent"]
    assert not silent.ok and silent.error_code == "timeout" and not silent.tools
    assert f"{timeout} s" in (silent.error or "")
    # Concurrent: the whole run costs about the slowest probe, not the sum of all three.
    assert elapsed < timeout + 15, elapsed
    # The embedded server is answered in-process, never connected to.
    embedded = results["agent-queue"]
    assert embedded.transport == "embedded"
    assert "list_profiles" in {t.name for t in embedded.tools}


def test_failures_are_results_never_exceptions() -> None:
    servers = [
        McpServer(name="missing", transport=Transport.STDIO, command="/nonexistent/server"),
        McpServer(name="exits", transport=Transport.STDIO, command="false"),
        McpServer(name="refused", transport=Transport.HTTP, url="http://127.0.0.1:9/mcp"),
        McpServer(name="sse", transport=Transport.SSE, url="http://127.0.0.1:9/sse"),
        McpServer(
            name="noenv", transport=Transport.STDIO, command="x", env={"K": "${ROSTER_NO_SUCH}"}
        ),
    ]
    results = by_server(probe_many(servers, timeout=10, environ={"PATH": os.environ["PATH"]}))
    assert results["missing"].error_code == "spawn-failed"
    assert results["exits"].error_code == "server-exited"
    assert results["refused"].error_code == "connect-failed"
    assert results["sse"].error_code == "connect-failed"
    assert results["noenv"].error_code == "env-missing"
    assert "ROSTER_NO_SUCH" in (results["noenv"].error or "")
    assert not any(result.ok for result in results.values())


def test_a_secret_filled_from_the_environment_never_shows_in_an_error() -> None:
    server = McpServer(
        name="remote",
        transport=Transport.HTTP,
        url="http://127.0.0.1:9/mcp?key=${ROSTER_PROBE_KEY}",
        headers={"Authorization": "Bearer ${ROSTER_PROBE_KEY}"},
    )
    secret = "sk-probe-0123456789abcdef"
    (result,) = probe_many([server], timeout=10, environ={"ROSTER_PROBE_KEY": secret})
    assert not result.ok
    assert secret not in (result.error or "")
    assert "${ROSTER_PROBE_KEY}" in (result.error or "")


def test_an_unknown_server_is_refused_with_a_suggestion(vault: Path) -> None:
    with RosterContext(vault) as ctx, pytest.raises(NotFoundError) as caught:
        probe_mcp_server(ctx, ProbeParams(name="tme"))
    assert "did you mean 'time'" in (caught.value.hint or "")


def test_the_catalog_is_cached_and_refreshed_when_a_registry_file_changes(vault: Path) -> None:
    (vault / "mcp-servers" / "silent.md").unlink()
    with RosterContext(vault) as ctx:
        cached = list_mcp_tool_catalog(ctx, CatalogParams(cached=True))
        statuses = {row.server: row.status for row in cached.servers}
        assert statuses == {"agent-queue": "embedded", "everything": "unprobed", "time": "unprobed"}

        patient = CatalogParams(timeout=PATIENT)  # the timeout itself is tested above
        first = list_mcp_tool_catalog(ctx, patient)
        rows = {row.server: row for row in first.servers}
        assert rows["time"].status == "fresh" and rows["time"].ok
        probed_at = rows["time"].probed_at

        again = {row.server: row for row in list_mcp_tool_catalog(ctx, patient).servers}
        assert again["time"].probed_at == probed_at, "a fresh entry is not probed again"

        time_file = vault / "mcp-servers" / "time.md"
        time_file.write_text(
            time_file.read_text().replace("--local-timezone=UTC", "--local-timezone=Europe/Paris")
        )
        stale = {
            r.server: r for r in list_mcp_tool_catalog(ctx, CatalogParams(cached=True)).servers
        }
        assert stale["time"].status == "stale"
        assert stale["everything"].status == "fresh"

        refreshed = {r.server: r for r in list_mcp_tool_catalog(ctx, patient).servers}
        assert refreshed["time"].status == "fresh"
        assert (refreshed["time"].probed_at or 0) > (probed_at or 0)
        assert refreshed["everything"].probed_at == again["everything"].probed_at


def test_validation_checks_mcp_tool_names_against_the_probed_catalog(vault: Path) -> None:
    write_clock(vault, ["mcp__time__get_current_tme", "mcp__time__convert_time"])
    before = [d for d in validate([vault]).diagnostics if d.code == "tool-unknown"]
    assert not [d for d in before if "get_current_tme" in d.message], "unprobed: not judged"

    with RosterContext(vault) as ctx:
        probe_mcp_server(ctx, ProbeParams(name="time", timeout=PATIENT))
    after = [
        d
        for d in validate([vault]).diagnostics
        if d.code == "tool-unknown" and d.path.endswith("clock/profile.md")
    ]
    assert len(after) == 1, after
    assert "get_current_tme" in after[0].message
    assert after[0].hint == "did you mean 'mcp__time__get_current_time'?"
    assert after[0].line > 0


def test_list_available_tools(vault: Path) -> None:
    with RosterContext(vault) as ctx:
        before = list_available_tools(ctx, ToolsParams())
        names = {tool.name: tool for tool in before.tools}
        assert names["Bash"].source == "claude" and names["Bash"].description
        assert "LS" not in names, "retired tools only on request"
        assert names["list_profiles"].source == "embedded"
        assert not any(tool.source == "mcp" for tool in before.tools), "nothing probed yet"
        servers = {server.name: server for server in before.mcp_servers}
        assert servers["time"].in_registry and not servers["time"].probed
        assert servers["filesystem"].package == "@modelcontextprotocol/server-filesystem"
        assert servers["fetch"].manager == "pip"

        probe_mcp_server(ctx, ProbeParams(name="time", timeout=PATIENT))
        after = {tool.name: tool for tool in list_available_tools(ctx, ToolsParams()).tools}
    assert after["mcp__time__get_current_time"].source == "mcp"
    assert after["mcp__time__get_current_time"].status == "fresh"
    assert after["mcp__time__get_current_time"].description


def test_tools_says_how_each_registry_server_is_had(tmp_path: Path) -> None:
    # Issue 15 item 7: manager and package were null for every server in the registry.
    # They come from the entry itself: the example's github runs the npm server, not the
    # hosted one the well-known table names, and its context7 is the hosted URL.
    vault = tmp_path / "vault"
    shutil.copytree(EXAMPLES, vault)
    (vault / "mcp-servers" / "time.md").write_text(
        server_file("time", "/opt/tools/bin/mcp-server-time", ["--local-timezone=UTC"])
    )
    (vault / "mcp-servers" / "fetch.md").write_text(
        server_file("fetch", "uvx", ["--from", "mcp-server-fetch==2025.4.7", "mcp-server-fetch"])
    )
    (vault / "mcp-servers" / "local.md").write_text(server_file("local", "./my-server", []))
    done = run(vault, "tools", "--json")
    assert done.returncode == 0, done.stderr
    servers = {
        s["name"]: (s["manager"], s["package"], s["url"])
        for s in json.loads(done.stdout)["mcp_servers"]
        if s["in_registry"]
    }
    assert servers == {
        "context7": ("remote", None, "https://mcp.context7.com/mcp"),
        "fetch": ("pip", "mcp-server-fetch", None),
        "filesystem": ("npm", "@modelcontextprotocol/server-filesystem", None),
        "github": ("npm", "@modelcontextprotocol/server-github", None),
        "local": (None, None, None),
        "playwright": ("npm", "@playwright/mcp", None),
        "time": ("pip", "mcp-server-time", None),
    }


def test_list_available_tools_creates_no_database(vault: Path) -> None:
    with RosterContext(vault) as ctx:
        list_available_tools(ctx, ToolsParams())
    assert sorted(p.name for p in vault.parent.iterdir()) == ["vault"]


def run(vault: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ROSTER, "--vault", str(vault), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_cli_probes_one_server_by_name_and_lists_the_catalog_and_tools(vault: Path) -> None:
    probed = run(vault, "mcp", "probe", "time", "--timeout", str(PATIENT), "--json")
    assert probed.returncode == 0, probed.stderr
    (result,) = json.loads(probed.stdout)["results"]
    assert result["server"] == "time" and result["ok"]
    assert {t["name"] for t in result["tools"]} == {"get_current_time", "convert_time"}

    catalog = run(vault, "mcp", "catalog", "--cached", "--json")
    assert catalog.returncode == 0, catalog.stderr
    statuses = {row["server"]: row["status"] for row in json.loads(catalog.stdout)["servers"]}
    assert statuses["time"] == "fresh" and statuses["silent"] == "unprobed"

    tools = run(vault, "tools", "--json")
    assert tools.returncode == 0, tools.stderr
    names = {tool["name"] for tool in json.loads(tools.stdout)["tools"]}
    assert {"Read", "list_profiles", "mcp__time__convert_time"} <= names

    text = run(vault, "mcp", "probe", "silent", "--timeout", "2")
    assert text.returncode == 0, text.stderr
    assert "timeout" in text.stdout


def test_a_new_server_file_is_probed_without_a_sync_and_its_exit_reported(vault: Path) -> None:
    # A registry file no sync has seen yet is probed from the vault itself; a command that
    # exits at once is reported as server-exited, never raised. (No daemon is involved.)
    (vault / "mcp-servers" / "extra.md").write_text(
        server_file("extra", "false", []), encoding="utf-8"
    )
    with RosterContext(vault) as ctx:
        report = probe_mcp_server(ctx, ProbeParams(name="extra", timeout=10))
    (result,) = report.results
    assert result.error_code == "server-exited"


@pytest.fixture(params=["streamableHttp", "sse"])
def http_everything(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    """server-everything over HTTP on a free loopback port: (transport, url)."""
    import socket

    from tests.probe.conftest import everything_server

    with socket.socket() as probe_socket:
        probe_socket.bind(("127.0.0.1", 0))
        port = probe_socket.getsockname()[1]
    process = subprocess.Popen(
        [everything_server(), request.param],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert process.poll() is None, "server-everything exited"
                assert time.monotonic() < deadline, "server-everything did not listen"
                time.sleep(0.2)
        if request.param == "sse":
            yield Transport.SSE, f"http://127.0.0.1:{port}/sse"
        else:
            yield Transport.HTTP, f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


def test_probe_over_streamable_http_and_sse(http_everything) -> None:  # type: ignore[no-untyped-def]
    transport, url = http_everything
    server = McpServer(
        name="remote", transport=transport, url=url, headers={"X-Probe": "${ROSTER_PROBE_H}"}
    )
    (result,) = probe_many([server], timeout=30, environ={"ROSTER_PROBE_H": "yes"})
    assert result.ok, result.error
    assert {"echo", "get-sum"} <= {tool.name for tool in result.tools}
    assert result.transport == transport.value
