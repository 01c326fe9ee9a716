"""CLI adapters for the MCP server registry and migrate-mcp."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from agent_roster.cli import options, output
from agent_roster.cli.app import EXIT_OK, EXIT_PROBLEMS, Settings, pass_settings

_JSON = options.AS_JSON
_BASE = options.BASE_HASH
_NO_WAIT = options.NO_WAIT

_PROJECT = click.option("--project", metavar="PID", help="Project scope instead of system.")


@click.group()
def mcp() -> None:
    """The MCP server registry (mcp-servers/<name>.md)."""


def _server_lines(row: Any) -> None:
    server = row.server
    state = "active" if row.active else f"shadowed by {row.shadowed_by}"
    if row.diagnostics:
        state = "invalid"
    target = ""
    if server is not None:
        target = server["url"] or " ".join([server["command"], *server["args"]])
    output.echo(f"{row.name:20} {row.scope:8} {state:20} {row.path or '(built in)'}  {target}")


@mcp.command("serve")
@pass_settings
def mcp_serve(settings: Settings) -> int:
    """Serve the embedded MCP server over stdio (for an agent that starts it itself)."""
    import anyio

    from agent_roster.commands.context import RosterContext
    from agent_roster.serve.mcp import serve_stdio

    with RosterContext(settings.vault, settings.db) as context:
        anyio.run(serve_stdio, context)
    return EXIT_OK


@mcp.command("list")
@_PROJECT
@_JSON
@pass_settings
def mcp_list(settings: Settings, project: str | None, as_json: bool) -> int:
    """List registry entries (the built-in one, system, and the project's)."""
    from agent_roster.commands.mcp_registry import ListMcpServersParams, list_mcp_servers

    with settings.context() as ctx:
        result = list_mcp_servers(ctx, ListMcpServersParams(project=project))

    def text() -> None:
        for row in result.servers:
            _server_lines(row)

    output.emit(result, as_json, text)
    output.print_diagnostics(result.diagnostics, "text", sys.stderr)
    problems = result.diagnostics or any(r.diagnostics for r in result.servers)
    return EXIT_PROBLEMS if problems else EXIT_OK


@mcp.command("show")
@click.argument("name")
@_PROJECT
@_JSON
@pass_settings
def mcp_show(settings: Settings, name: str, project: str | None, as_json: bool) -> int:
    """Show the entry a name resolves to (project first, then system)."""
    from agent_roster.commands.mcp_registry import GetMcpServerParams, get_mcp_server

    with settings.context() as ctx:
        row = get_mcp_server(ctx, GetMcpServerParams(name=name, project=project))

    def text() -> None:
        _server_lines(row)
        server = row.server
        if server is not None:  # secrets are masked in the result already
            for key, value in server["env"].items():
                output.echo(f"  env     {key}={value}")
            for key, value in server["headers"].items():
                output.echo(f"  header  {key}: {value}")
            if server["description"]:
                output.echo(f"  {server['description']}")

    output.emit(row, as_json, text)
    output.print_diagnostics(row.diagnostics, "text", sys.stderr)
    return EXIT_PROBLEMS if row.diagnostics else EXIT_OK


def _settings_options(func: Any) -> Any:
    for option in reversed(
        [
            click.option(
                "--transport",
                type=click.Choice(["stdio", "http", "sse"]),
                help="stdio runs a command; http and sse connect to a URL "
                "[add: http when only --url is given, else stdio].",
            ),
            click.option("--command", "command_", metavar="CMD", help="Program (stdio)."),
            click.option("--arg", "args", multiple=True, help="An argument (repeat, in order)."),
            click.option("--env", "env", multiple=True, metavar="K=V", help="Environment."),
            click.option("--url", metavar="URL", help="Server URL (http, sse)."),
            click.option("--header", "headers", multiple=True, metavar="K=V", help="Header."),
            click.option("--description", help="One line on what it is for."),
            click.option(
                "--allow-literal-secret",
                is_flag=True,
                help="Write a secret's value into the vault as given "
                "[default: refused; write ${VAR} and set VAR in the environment].",
            ),
        ]
    ):
        func = option(func)
    return func


def _settings(
    transport: str | None,
    command_: str | None,
    args: tuple[str, ...],
    env: tuple[str, ...],
    url: str | None,
    headers: tuple[str, ...],
    description: str | None,
    unsets: tuple[str, ...] = (),
) -> dict[str, Any]:
    """The settings options as ServerSettings fields (left out when not given; ``None``
    for ``--unset KEY``)."""
    from agent_roster.cli.params import pairs

    given: dict[str, Any] = {
        key: value
        for key, value in (
            ("transport", transport),
            ("command", command_),
            ("url", url),
            ("description", description),
            ("args", list(args) or None),
            ("env", pairs(env, "--env") or None),
            ("headers", pairs(headers, "--header") or None),
        )
        if value is not None
    }
    given.update(dict.fromkeys(unsets))
    return given


@mcp.command("add")
@click.argument("name")
@_settings_options
@_PROJECT
@_NO_WAIT
@_JSON
@pass_settings
def mcp_add(
    settings: Settings,
    name: str,
    transport: str | None,
    command_: str | None,
    args: tuple[str, ...],
    env: tuple[str, ...],
    url: str | None,
    headers: tuple[str, ...],
    description: str | None,
    allow_literal_secret: bool,
    project: str | None,
    no_wait: bool,
    as_json: bool,
) -> int:
    """Add a registry entry: --transport stdio --command npx --arg -y --arg PKG, or --url.

    A secret's value (a token, an Authorization header) is refused: write --env
    'GH_TOKEN=${GH_TOKEN}' and set GH_TOKEN in the environment, or pass
    --allow-literal-secret."""
    from agent_roster.commands.mcp_registry import CreateMcpServerParams, create_mcp_server

    given = _settings(transport, command_, args, env, url, headers, description)
    with settings.context() as ctx:
        raw = {
            **given,
            "name": name,
            "project": project,
            "allow_literal_secret": allow_literal_secret,
            "wait": not no_wait,
        }
        params = _decoded("create_mcp_server", raw)
        assert isinstance(params, CreateMcpServerParams)
        row = create_mcp_server(ctx, params)
    output.emit(row, as_json, lambda: output.echo(f"created  {row.path}"))
    return EXIT_OK


@mcp.command("edit")
@click.argument("name")
@_settings_options
@click.option("--unset", "unsets", multiple=True, metavar="KEY", help="Remove a setting.")
@_PROJECT
@_BASE
@_NO_WAIT
@_JSON
@pass_settings
def mcp_edit(
    settings: Settings,
    name: str,
    transport: str | None,
    command_: str | None,
    args: tuple[str, ...],
    env: tuple[str, ...],
    url: str | None,
    headers: tuple[str, ...],
    description: str | None,
    allow_literal_secret: bool,
    unsets: tuple[str, ...],
    project: str | None,
    base_hash: str | None,
    no_wait: bool,
    as_json: bool,
) -> int:
    """Change settings in place; --arg, --env and --header replace the whole list or map."""
    from agent_roster.cli.params import base_hash as based_on
    from agent_roster.commands.mcp_registry import EditMcpServerParams, edit_mcp_server

    given = _settings(transport, command_, args, env, url, headers, description, unsets)
    with settings.context() as ctx:
        path = ctx.layout.mcp_server_path(name, project)
        raw = {
            **given,
            "name": name,
            "project": project,
            "base_hash": based_on(ctx.layout, path, base_hash),
            "allow_literal_secret": allow_literal_secret,
            "wait": not no_wait,
        }
        params = _decoded("edit_mcp_server", raw)
        assert isinstance(params, EditMcpServerParams)
        row = edit_mcp_server(ctx, params)
    output.emit(row, as_json, lambda: output.echo(f"edited   {row.path}"))
    return EXIT_OK


@mcp.command("remove")
@click.argument("name")
@_PROJECT
@_BASE
@_NO_WAIT
@_JSON
@pass_settings
def mcp_remove(
    settings: Settings,
    name: str,
    project: str | None,
    base_hash: str | None,
    no_wait: bool,
    as_json: bool,
) -> int:
    """Delete an entry (refused while a profile still uses it)."""
    from agent_roster.cli.params import base_hash as based_on
    from agent_roster.commands.mcp_registry import DeleteMcpServerParams, delete_mcp_server

    with settings.context() as ctx:
        path = ctx.layout.mcp_server_path(name, project)
        params = DeleteMcpServerParams(
            name=name,
            project=project,
            base_hash=based_on(ctx.layout, path, base_hash),
            wait=not no_wait,
        )
        result = delete_mcp_server(ctx, params)

    def text() -> None:
        for rel in result.removed:
            output.echo(f"removed  {rel}")
        if result.falls_back_to:
            output.echo(f"profiles using {name!r} now get {result.falls_back_to}")

    output.emit(result, as_json, text)
    return EXIT_OK


def _decoded(command: str, raw: dict[str, Any]) -> Any:
    """``raw`` as the command's parameters, checked as every surface checks them (an
    ``--unset`` of a key that is not a setting is refused with a did-you-mean)."""
    from agent_roster.commands.registry import load

    return load(command).decode(raw)


@click.command("migrate-mcp")
@click.option(
    "--config",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="Also migrate config.yaml's agent_profiles.<id>.mcp_servers.",
)
@click.option("--dry-run", is_flag=True, help="Report what would change; write nothing.")
@_JSON
@pass_settings
def migrate_mcp(settings: Settings, config: Path | None, dry_run: bool, as_json: bool) -> int:
    """Move inline MCP configs into mcp-servers/ files; profiles then list names."""
    from agent_roster.commands.migrate_mcp import migrate_mcp as run

    report = run(settings.vault, config=config, dry_run=dry_run)

    def text() -> None:
        verb = "would write" if dry_run else "wrote"
        for rel in report.written:
            output.echo(f"{verb:11} {rel}")
        for rel in report.profiles:
            output.echo(f"{'would edit' if dry_run else 'edited':11} {rel}")
        for rel, reason in report.skipped:
            output.echo(f"{'skipped':11} {rel}: {reason}")
        for where, reason in report.failed:
            output.echo(f"{'failed':11} {where}: {reason}")
        for rel, note in report.secrets:
            output.echo(f"{'secret':11} {rel}: {note}")

    output.emit(report, as_json, text)
    return EXIT_PROBLEMS if report.failed else EXIT_OK


def register(group: click.Group) -> None:
    for command in (mcp, migrate_mcp):
        group.add_command(command)
