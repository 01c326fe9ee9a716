"""The sharing commands (issue 15) as a user runs them on the example vault, from the CLI,
the MCP server and the HTTP API: the same results on each."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from agent_roster.cli import main

from ..fake_gh import GIST_URL, install_fake_gh


def mcp_call(served: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    async def call() -> dict[str, Any]:
        async with (
            streamable_http_client(f"{served}/mcp") as (read, write, *_),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            result = await session.call_tool(tool, arguments)
            assert not result.is_error, result
            payload: dict[str, Any] = result.structured_content
            return payload

    return anyio.run(call)


def cli_json(vault: Path, capsys: Any, *args: str) -> tuple[int, dict[str, Any]]:
    code = main(["--vault", str(vault), *args, "--json"])
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return code, data


def test_export_is_the_same_on_every_surface(served: str, vault: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    _, from_cli = cli_json(vault, capsys, "export", "code-review")
    from_http = httpx.get(f"{served}/api/export_profile", params={"id": "code-review"}).json()
    from_mcp = mcp_call(served, "export_profile", {"id": "code-review"})
    assert from_cli == from_http == from_mcp
    assert from_cli["yaml"].startswith("# Agent Profile: Code Reviewer\nagent_profile:\n")
    assert from_cli["servers"] == ["github"]


def test_import_check_and_tools_over_http_and_mcp(served: str, vault: Path) -> None:
    shared = (
        "# Agent Profile: Shared\nagent_profile:\n  id: shared\n  name: Shared\n"
        "  allowed_tools: [Read]\n  install:\n    commands: [git]\n"
    )
    imported = httpx.post(f"{served}/api/import_profile", json={"yaml": shared}).json()
    assert imported["imported"] and imported["path"] == "agent-types/shared/profile.md"
    assert (vault / "agent-types" / "shared" / "profile.md").is_file()
    # The same file again is refused (no overwrite), with the one error shape.
    again = httpx.post(f"{served}/api/import_profile", json={"yaml": shared})
    assert again.status_code == 400 and again.json()["error"]["code"] == "usage"

    checked = mcp_call(served, "check_profile", {"id": "shared"})
    assert checked == {
        "profile_id": "shared",
        "valid": True,
        "issues": [],
        "manifest": {"npm": [], "pip": [], "commands": ["git"]},
        "python": checked["python"],
        "not_applicable": [],
    }
    tools = httpx.get(f"{served}/api/list_available_tools").json()
    names = {tool["name"] for tool in tools["tools"]}
    assert {"Read", "Bash", "export_profile", "probe_mcp_server"} <= names
    listed = mcp_call(served, "source_list", {})
    assert listed == {"sources": []}


def test_publishing_a_gist_takes_post_never_a_get(
    served: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 14 item 7: a GET is what another site's <img> makes a browser send, so
    # GET /api/export_profile?gist=true must never run `gh gist create`.
    gh = install_fake_gh(tmp_path)
    monkeypatch.setenv("PATH", f"{gh.bin_dir}:{os.environ['PATH']}")
    url = f"{served}/api/export_profile"
    for flag in ("true", "1"):
        refused = httpx.get(url, params={"id": "code-review", "gist": flag})
        assert refused.status_code == 405, refused.text
        assert refused.json() == {
            "error": {
                "code": "usage",
                "message": "export_profile with gist acts beyond roster, so it takes POST",
                "hint": "POST /api/export_profile with the parameters as a JSON object",
                "diagnostics": [],
            }
        }
    # An <img> on another site's page sends no Origin, but the browser names the site.
    for site in ("cross-site", "same-site"):
        img = httpx.get(url, params={"id": "code-review"}, headers={"sec-fetch-site": site})
        assert img.status_code == 403
        assert img.json()["error"]["code"] == "forbidden"
        assert img.json()["error"]["message"] == (
            f"requests from another site's page are refused (Sec-Fetch-Site: {site})"
        )
    assert gh.calls() == []
    # Reading stays a GET (the browser's own requests included); publishing is a POST.
    for site in (None, "same-origin", "none"):
        headers = {"sec-fetch-site": site} if site else {}
        read = httpx.get(url, params={"id": "code-review"}, headers=headers)
        assert read.status_code == 200 and read.json()["gist_url"] is None
    published = httpx.post(url, json={"id": "code-review", "gist": True})
    assert published.status_code == 200, published.text
    assert published.json()["gist_url"] == GIST_URL
    assert [call[:2] for call in gh.calls()] == [["gist", "create"]]
    # The OpenAPI document does not offer gist as a GET parameter.
    document = httpx.get(f"{served}/openapi.json").json()
    names = [p["name"] for p in document["paths"]["/api/export_profile"]["get"]["parameters"]]
    assert "id" in names and "gist" not in names
