"""Every command of the registry is on every surface: the CLI, the MCP server and the HTTP
API (issue 14 item 8); every read-only command gives the same answer on all three; and one
error shape crosses all three."""

from __future__ import annotations

import json
import re
from pathlib import Path

import anyio
import click
import httpx
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from agent_roster.cli import main
from agent_roster.cli.app import _register, cli
from agent_roster.commands.registry import NAMES, SPECS, all_commands
from agent_roster.vault.writer import content_hash
from tests.command_samples import TAGS, prepare, prepare_writes, samples, write_samples


def _cli_command(words: list[str]) -> click.Command | None:
    node: click.Command | None = cli
    for word in words:
        if not isinstance(node, click.Group):
            return None
        node = node.commands.get(word)
    return node


def test_every_command_is_defined_once_with_typed_params_and_a_summary() -> None:
    commands = all_commands()
    assert [c.name for c in commands] == [s.name for s in SPECS]
    assert len(NAMES) == len(SPECS)
    for command in commands:
        assert command.summary, command.name
        schema = command.input_schema()
        assert schema["type"] == "object", command.name
        # Every parameter is in the schema (a parameter called "title" once was not).
        assert list(schema["properties"]) == list(command.params.__struct_fields__)
        assert "$ref" not in json.dumps(schema), command.name


def test_every_command_is_on_the_cli() -> None:
    _register()
    missing = [s.cli for s in SPECS if _cli_command(s.cli.split()) is None]
    assert missing == []


def test_every_command_is_an_http_route_and_in_openapi(served: str) -> None:
    document = httpx.get(f"{served}/openapi.json").json()
    for spec in SPECS:
        operations = document["paths"][f"/api/{spec.name}"]
        assert "post" in operations
        assert ("get" in operations) is (not spec.writes), spec.name
    # A read's scalar parameters, optional ones too, are its query parameters.
    query = document["paths"]["/api/get_profile"]["get"]["parameters"]
    assert [p["name"] for p in query] == ["id", "project"]


def test_every_command_is_an_mcp_tool(served: str) -> None:
    async def tools() -> list[str]:
        async with (
            streamable_http_client(f"{served}/mcp") as (read, write, *_),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            listed = await session.list_tools()
            return [t.name for t in listed.tools]

    assert sorted(anyio.run(tools)) == sorted(NAMES)


def test_one_error_shape_on_cli_http_and_mcp(served: str, vault: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    code = main(["--vault", str(vault), "profile", "get", "codin", "--json"])
    cli_error = json.loads(capsys.readouterr().out)["error"]
    assert code == 2
    response = httpx.post(f"{served}/api/get_profile", json={"id": "codin"})
    assert response.status_code == 404
    http_error = response.json()["error"]

    async def call() -> dict[str, object]:
        async with (
            streamable_http_client(f"{served}/mcp") as (read, write, *_),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            result = await session.call_tool("get_profile", {"id": "codin"})
            assert result.is_error
            payload: dict[str, object] = result.structured_content["error"]
            return payload

    mcp_error = anyio.run(call)
    assert cli_error == http_error == mcp_error
    assert cli_error["code"] == "not-found"
    assert cli_error["hint"] == "did you mean 'coding'?"


def _mcp_call(served: str, name: str, arguments: dict[str, object]) -> tuple[bool, object]:
    async def call() -> tuple[bool, object]:
        async with (
            streamable_http_client(f"{served}/mcp") as (read, write, *_),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            result = await session.call_tool(name, arguments)
            return bool(result.is_error), result.structured_content

    return anyio.run(call)


def test_every_read_only_command_answers_the_same_on_every_surface(  # type: ignore[no-untyped-def]
    served: str, vault: Path, tmp_path: Path, capsys
) -> None:
    home = tmp_path / "harness"
    prepare(vault, home)
    for name, (params, words) in samples(home).items():
        code = main(["--vault", str(vault), *words])
        from_cli = json.loads(capsys.readouterr().out)
        assert code in (0, 1), (name, from_cli)  # 1: it ran and found problems
        response = httpx.post(f"{served}/api/{name}", json=params)
        assert response.status_code == 200, (name, response.text)
        query = httpx.get(f"{served}/api/{name}", params=params)
        assert query.status_code == 200, (name, query.text)
        is_error, from_mcp = _mcp_call(served, name, params)
        assert not is_error, (name, from_mcp)
        assert from_cli == response.json() == query.json() == from_mcp, name


def test_a_stale_hash_is_the_same_conflict_on_every_surface(  # type: ignore[no-untyped-def]
    served: str, vault: Path, capsys
) -> None:
    path = vault / "agent-types/coding/profile.md"
    before = path.read_bytes()
    stale = {"id": "coding", "base_hash": "0" * 32, "description": "changed meanwhile"}
    words = ["profile", "edit", "coding", "--base-hash", "0" * 32]
    code = main(["--vault", str(vault), *words, "--description", "changed meanwhile", "--json"])
    cli_error = json.loads(capsys.readouterr().out)["error"]
    response = httpx.post(f"{served}/api/edit_profile", json=stale)
    is_error, from_mcp = _mcp_call(served, "edit_profile", stale)
    assert (code, response.status_code, is_error) == (2, 409, True)
    assert cli_error == response.json()["error"] == from_mcp["error"]  # type: ignore[index]
    assert cli_error["code"] == "conflict"
    assert path.read_bytes() == before
    fresh = {**stale, "base_hash": content_hash(before)}
    written = httpx.post(f"{served}/api/edit_profile", json=fresh).json()
    assert written["changed"] and written["synced"]
    assert written["content_hash"] == content_hash(path.read_bytes())


def test_a_literal_secret_is_the_same_refusal_on_every_surface(  # type: ignore[no-untyped-def]
    served: str, vault: Path, capsys
) -> None:
    """``allow_literal_secret`` is a parameter like any other (issue 13 item 4): refused
    without it in one shape on the CLI, HTTP and MCP, written as given with it."""
    token = "ghp_" + "Q7xK2mN9pL4vB8cR1tY6wZ3aF5hJ0dS2gE4u"
    params: dict[str, object] = {"name": "leaky", "command": "npx", "env": {"GH_PAT": token}}
    words = ["mcp", "add", "leaky", "--command", "npx", "--env", f"GH_PAT={token}", "--json"]
    code = main(["--vault", str(vault), *words])
    cli_error = json.loads(capsys.readouterr().out)["error"]
    response = httpx.post(f"{served}/api/create_mcp_server", json=params)
    is_error, from_mcp = _mcp_call(served, "create_mcp_server", params)
    assert (code, response.status_code, is_error) == (2, 422, True)
    assert cli_error == response.json()["error"] == from_mcp["error"]  # type: ignore[index]
    assert cli_error["code"] == "literal-secret" and "${GH_PAT}" in cli_error["hint"]
    assert token not in json.dumps(cli_error)
    assert not (vault / "mcp-servers" / "leaky.md").exists()
    allowed = httpx.post(
        f"{served}/api/create_mcp_server", json={**params, "allow_literal_secret": True}
    )
    assert allowed.status_code == 200, allowed.text
    assert token in (vault / "mcp-servers" / "leaky.md").read_text()


def test_a_bug_is_the_same_shape_on_every_surface(  # type: ignore[no-untyped-def]
    served: str, vault: Path, capsys, monkeypatch
) -> None:
    import agent_roster.commands.validate as module

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom: /a/private/path")

    monkeypatch.setattr(module, "load_vault", boom)
    code = main(["--vault", str(vault), "validate", "--format", "json"])
    captured = capsys.readouterr()
    cli_error = json.loads(captured.out)["error"]
    assert code == 70 and "internal error" in captured.err
    response = httpx.post(f"{served}/api/validate_vault", json={})
    is_error, from_mcp = _mcp_call(served, "validate_vault", {})
    assert (response.status_code, is_error) == (500, True)
    assert cli_error == response.json()["error"] == from_mcp["error"]  # type: ignore[index]
    assert cli_error["code"] == "bug" and "private" not in cli_error["message"]


def test_an_unknown_command_or_a_get_of_a_write_is_refused_in_the_one_shape(served: str) -> None:
    unknown = httpx.get(f"{served}/api/get_profil", params={"id": "coding"})
    assert unknown.status_code == 404
    assert unknown.json()["error"]["code"] == "not-found"
    assert unknown.json()["error"]["hint"] == "did you mean 'get_profile'?"
    write = httpx.get(f"{served}/api/delete_profile", params={"id": "coding"})
    assert write.status_code == 405
    assert write.json()["error"]["message"] == "delete_profile writes, so it takes POST"
    assert httpx.get(f"{served}/healthz").json() == {"status": "ok"}


def test_an_unknown_path_or_method_is_answered_in_the_one_shape(served: str) -> None:
    # Starlette answered these with its plain-text "Not Found" (issue 14).
    hint = (
        "the API is POST /api/<command> (the commands: /openapi.json); "
        "also /mcp, /events and /healthz"
    )
    for path in ("/", "/nope", "/api", "/api/list_profiles/extra", "/favicon.ico"):
        answer = httpx.get(f"{served}{path}")
        assert answer.status_code == 404, path
        assert answer.headers["content-type"] == "application/json", path
        assert answer.json() == {
            "error": {
                "code": "not-found",
                "message": f"no route {path}",
                "hint": hint,
                "diagnostics": [],
            }
        }, path
    for method, path in (("PUT", "/api/list_profiles"), ("DELETE", "/healthz")):
        answer = httpx.request(method, f"{served}{path}")
        assert answer.status_code == 405, (method, path)
        assert answer.json() == {
            "error": {
                "code": "usage",
                "message": f"{path} does not take {method}",
                "hint": "commands take POST (and GET when they only read); see /openapi.json",
                "diagnostics": [],
            }
        }


#: What differs between the surfaces' calls by design: the surface's tag in ids and paths
#: (tests/command_samples.py TAGS), hashes and commits of files that hold the tag, and the
#: moments and durations of the call.
_TAG = re.compile(r"via(cli|http|mcp)")
_HEX = re.compile(r"\b[0-9a-f]{16,64}\b")
_MOMENTS = frozenset({"seconds", "probed_at", "elapsed_ms"})


def _normalised(value: object) -> object:
    if isinstance(value, dict):
        return {k: None if k in _MOMENTS else _normalised(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalised(v) for v in value]
    if isinstance(value, str):
        return _TAG.sub("via<surface>", _HEX.sub("<hash>", value))
    return value


def test_every_write_command_does_the_same_on_every_surface(  # type: ignore[no-untyped-def]
    served: str, vault: Path, tmp_path: Path, capsys
) -> None:
    """Every write of the registry, run on the CLI, over HTTP and over MCP, each on its own
    target: each succeeds, leaves its effect in the vault or the database, and the three
    results are one shape (equal once the surface's tag, hashes and times are set aside)."""
    work = tmp_path / "work"
    prepare(vault, tmp_path / "harness")
    prepare_writes(vault, work)
    found = write_samples(vault, work)
    assert sorted(found) == sorted(s.name for s in SPECS if s.writes)
    for spec in SPECS:
        if not spec.writes:
            continue
        sample = found[spec.name]
        results: dict[str, object] = {}
        for surface, tag in TAGS.items():
            sample.before(tag)
            if surface == "cli":
                code = main(["--vault", str(vault), *sample.words(tag), "--json"])
                result = json.loads(capsys.readouterr().out)
                assert code == 0, (spec.name, result)
            elif surface == "http":
                response = httpx.post(f"{served}/api/{spec.name}", json=sample.params(tag))
                assert response.status_code == 200, (spec.name, response.text)
                result = response.json()
            else:
                is_error, result = _mcp_call(served, spec.name, sample.params(tag))
                assert not is_error, (spec.name, result)
            assert isinstance(result, dict), (spec.name, surface, result)
            sample.effect(tag, result)
            results[surface] = _normalised(result)
        assert results["cli"] == results["http"] == results["mcp"], spec.name
