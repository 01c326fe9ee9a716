"""CLI adapters for the harness codecs: discover, import, render, compare, can, why."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from agent_roster.cli import output
from agent_roster.cli.app import EXIT_OK, EXIT_PROBLEMS, Settings, pass_settings

if TYPE_CHECKING:
    from agent_roster.codecs.base import Loss, LossOutcome
    from agent_roster.commands.context import RosterContext


def _harness_choice() -> click.Choice[str]:
    from agent_roster.codecs import codec_names

    return click.Choice(codec_names())


#: Profile names shown per group of identical losses before "and N more".
LOSS_NAMES_SHOWN = 5
#: Kinds of loss listed before the rest are counted (``--verbose`` lists every kind).
LOSS_GROUPS_SHOWN = 40


def _print_losses(losses: Sequence[Loss], *, verbose: bool = False) -> None:
    """Each distinct loss once (outcome, field, what happened), with the profiles it
    applies to: a render of many profiles repeats the same few losses for each of them.
    Past a screenful of such lines the rest are counted, unless ``verbose``; ``--json``
    lists every loss separately."""
    groups: dict[tuple[LossOutcome, str, str], list[str]] = {}
    for loss in losses:  # keyed by the member: its .value is a slow property (200,000 losses)
        groups.setdefault((loss.outcome, loss.field, loss.detail), []).append(loss.profile)
    shown_groups = list(groups.items())
    if not verbose and len(shown_groups) > LOSS_GROUPS_SHOWN:
        shown_groups = shown_groups[:LOSS_GROUPS_SHOWN]
    lines = []
    cut = False
    for (outcome, field, detail), profiles in shown_groups:
        names = list(dict.fromkeys(profiles))
        shown = ", ".join(names[:LOSS_NAMES_SHOWN])
        if len(names) > LOSS_NAMES_SHOWN:
            shown += f" and {len(names) - LOSS_NAMES_SHOWN:,} more"
            cut = True
        lines.append(f"{outcome.value:<10} {field}: {detail} [{shown}]")
    if len(shown_groups) < len(groups):
        rest = list(groups.values())[len(shown_groups) :]
        count = sum(len(profiles) for profiles in rest)
        lines.append(
            f"... and {len(rest):,} more kinds of loss ({count:,} losses; --verbose lists "
            "each kind)"
        )
    if cut or len(shown_groups) < len(groups):
        lines.append("(--json lists every profile of every loss)")
    if lines:  # one write: a large render has hundreds of groups
        output.echo("\n".join(lines))


def _file_lines(lines: list[str], statuses: Sequence[str], *, verbose: bool) -> list[str]:
    """The per-file lines of a render or import, capped at a screenful unless ``verbose``,
    with how many files each status has when some are not listed."""
    capped = output.capped_lines([line.rstrip("\n") for line in lines], "files", verbose=verbose)
    if len(capped) < len(lines):
        counts: dict[str, int] = {}
        for status in statuses:
            counts[status] = counts.get(status, 0) + 1
        capped.append("; ".join(f"{count:,} {status}" for status, count in counts.items()))
    return capped


@click.command()
@click.option("--harness", required=True, type=_harness_choice(), help="The harness to ask.")
@click.option("--workspace", metavar="DIR", help="Project folder [default: current folder].")
@click.option("--home", metavar="DIR", help="User home folder [default: your home].")
@click.option("--json", "as_json", is_flag=True, help="Print profiles and diagnostics as JSON.")
def discover(harness: str, workspace: str | None, home: str | None, as_json: bool) -> int:
    """The agents HARNESS would load from the workspace and home, by its own rules.

    Exit 1 when the harness itself would refuse a file or the whole load."""
    from agent_roster.commands.discover import DiscoverAgentsParams, discover_agents

    params = DiscoverAgentsParams(harness=harness, workspace=workspace, home=home)
    with _context() as ctx:
        found = discover_agents(ctx, params)
    if as_json:
        output.emit(found, True, lambda: None)
    else:
        for profile in found.profiles:
            output.echo(f"{profile['id']:<24} {profile['source']}")
        output.print_diagnostics(found.diagnostics, "text", sys.stderr)
        if found.refused:
            output.echo(f"{harness} would refuse what the diagnostics name", err=True)
    return EXIT_PROBLEMS if found.refused else EXIT_OK


def _context() -> RosterContext:
    """The context of the current command (``discover`` reads no vault, but takes one)."""
    settings = click.get_current_context().find_object(Settings)
    assert settings is not None
    return settings.context()


@click.command(name="import")
@click.argument("source", required=False, metavar="[SOURCE]")
@click.option("--from", "harness", type=_harness_choice(), help="The harness.")
@click.option("--id", "new_id", metavar="ID", help="Shared profile: import under this id.")
@click.option("--install", is_flag=True, help="Shared profile: install its dependencies.")
@click.option("--workspace", metavar="DIR", help="Project folder [default: current folder].")
@click.option("--home", metavar="DIR", help="User home folder [default: your home].")
@click.option("--project", metavar="PID", help="Import as this project's overrides.")
@click.option("--overwrite", is_flag=True, help="Replace vault files that already exist.")
@click.option("--dry-run", is_flag=True, help="Report what would be written; write nothing.")
@click.option(
    "--allow-literal-secret",
    is_flag=True,
    help="Keep secrets' values in the vault [default: --from: a server's become ${VAR} "
    "references, an agent holding one is not imported; SOURCE: a profile holding one is "
    "refused].",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@output.verbose_option
@pass_settings
def import_(
    settings: Settings,
    source: str | None,
    harness: str | None,
    new_id: str | None,
    install: bool,
    workspace: str | None,
    home: str | None,
    project: str | None,
    overwrite: bool,
    dry_run: bool,
    allow_literal_secret: bool,
    as_json: bool,
    verbose: bool,
) -> int:
    """Import agents: --from HARNESS writes the agents a harness would load into the vault;
    SOURCE (a file, - for stdin, or a gist URL) imports one shared profile."""
    from agent_roster.commands.discover import ImportFromHarnessParams, import_from_harness

    if (source is None) == (harness is None):
        raise click.UsageError("give a SOURCE (a shared profile) or --from HARNESS")
    if source is not None:
        if dry_run or workspace or home or project:
            raise click.UsageError("--dry-run, --workspace, --home and --project need --from")
        from agent_roster.cli.share_commands import import_shared

        return import_shared(
            settings, source, new_id, overwrite, install, as_json, allow_literal_secret
        )
    assert harness is not None
    if new_id or install:
        raise click.UsageError("--id and --install are for a shared profile (SOURCE)")

    params = ImportFromHarnessParams(
        harness=harness,
        workspace=workspace,
        home=home,
        project=project,
        overwrite=overwrite,
        dry_run=dry_run,
        allow_literal_secret=allow_literal_secret,
    )
    with settings.context() as ctx:
        report = import_from_harness(ctx, params)
    output.keep_to_exit(report)

    def text() -> None:
        verb = "would be " if dry_run else ""
        lines = [f"{verb}{item.status:<11} {item.kind:<10} {item.path}" for item in report.files]
        statuses = [f"{verb}{item.status}" for item in report.files]
        for line in _file_lines(lines, statuses, verbose=verbose):
            output.echo(line)
        _print_losses(report.losses, verbose=verbose)
        output.print_diagnostics(report.diagnostics, "text", sys.stderr, verbose=verbose)

    output.emit(report, as_json, text)
    return EXIT_OK if report.ok else EXIT_PROBLEMS


@click.command()
@click.option(
    "--to",
    "harnesses",
    required=True,
    multiple=True,
    type=_harness_choice(),
    help="Target harness (repeat for several).",
)
@click.option(
    "--scope",
    type=click.Choice(["project", "user"]),
    default="project",
    show_default=True,
    help="Write the workspace's files or the user's (home) files.",
)
@click.option(
    "--out",
    metavar="DIR",
    help="Workspace or home folder to write under [default: current folder / your home].",
)
@click.option("--project", metavar="PID", help="Render profiles as they apply in this project.")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 when files on disk differ.")
@click.option("--dry-run", is_flag=True, help="Write nothing; print a diff of what would change.")
@click.option(
    "--prune",
    is_flag=True,
    help="Delete files an earlier render wrote that this one no longer produces "
    "(only those nobody edited since).",
)
@click.option(
    "--option",
    "options",
    multiple=True,
    metavar="HARNESS.NAME=VALUE",
    help="A harness's render option (repeatable), e.g. copilot.mcp=cli; "
    "docs/codecs/README.md lists them.",
)
@click.option(
    "--allow-widening",
    is_flag=True,
    help="Write an agent even where the harness cannot hold one of its restrictions "
    "(it would allow a call the profile asks about or denies); the report lists each "
    "call that widened. Without it such an agent is refused.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@output.verbose_option
@click.argument("ids", nargs=-1, metavar="[ID]...")
@pass_settings
def render(
    settings: Settings,
    harnesses: tuple[str, ...],
    scope: str,
    out: str | None,
    project: str | None,
    check: bool,
    dry_run: bool,
    prune: bool,
    options: tuple[str, ...],
    allow_widening: bool,
    as_json: bool,
    verbose: bool,
    ids: tuple[str, ...],
) -> int:
    """Write each profile (all, or the IDs named) as the harness's native files.

    Every file written is recorded with its hash in the output folder's
    .roster-ledger.json; a file an earlier render wrote that this one no longer produces is
    reported as stale (--check fails on it) and --prune deletes it, unless it was edited
    since roster wrote it.

    An agent the harness would allow more than its profile does (a tool list it cannot
    hold, an argument rule, ask where the harness cannot ask) is written with each tool it
    cannot decide by argument decided whole and stricter, or else refused with an error
    naming each such call; --allow-widening writes it anyway and reports what widened."""
    from agent_roster.commands.harness import (
        STALE,
        UNCHANGED,
        RenderToHarnessParams,
        render_to_harness,
    )
    from agent_roster.perf import holding

    params = RenderToHarnessParams(
        to=list(harnesses),
        ids=list(ids),
        scope=scope,
        out=out,
        project=project,
        check=check,
        dry_run=dry_run,
        prune=prune,
        options=list(options),
        allow_widening=allow_widening,
    )
    # The executable ends after this command: the loaded vault is kept to the end too.
    with settings.context() as ctx, holding() as loaded:
        report = render_to_harness(ctx, params)
    output.keep_to_exit((report, loaded))
    if as_json:
        output.emit(report, True, lambda: None)
    else:
        would = "would be " if check or dry_run else ""
        lines = []
        statuses = []
        diffs = False
        for item in report.files:
            if item.status != UNCHANGED:
                verb = "" if item.status == STALE else would
                note = f" ({item.note})" if item.note else ""
                lines.append(f"{verb}{item.status:<9} {item.path}{note}\n")
                statuses.append(f"{verb}{item.status}")
            if item.diff:  # a diff asked for is shown whole, after its file's line
                lines.append(item.diff)
                diffs = True
        if not diffs:
            lines = [line + "\n" for line in _file_lines(lines, statuses, verbose=verbose)]
        output.echo("".join(lines), nl=False)
        unchanged = len(report.files) - len(report.changed)
        if unchanged:
            output.echo(f"{unchanged} file(s) unchanged")
        _print_losses(report.losses, verbose=verbose)
        output.print_diagnostics(report.diagnostics, "text", sys.stderr, verbose=verbose)
        if check and report.changed:
            output.echo(f"{len(report.changed)} file(s) differ from the vault", err=True)
    return EXIT_OK if report.ok else EXIT_PROBLEMS


@click.command()
@click.argument("profile")
@click.argument("tool")
@click.argument("argument", required=False)
@click.option("--project", metavar="PID", help="Apply this project's override.")
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
@pass_settings
def can(
    settings: Settings,
    profile: str,
    tool: str,
    argument: str | None,
    project: str | None,
    as_json: bool,
) -> int:
    """Would PROFILE allow, ask for or deny TOOL (called with ARGUMENT)?

    OpenCode's semantics: ordered rules, the last match wins, no match asks. TOOL may be a
    Claude Code name (Edit, Bash(git log:*)), an MCP tool (mcp__github__create_issue), an
    embedded command (create_task), an OpenCode permission key (edit, bash, webfetch) or
    another harness's tool name (read_file); an OpenCode key answers for every tool it
    governs (the strictest)."""
    from agent_roster.commands.can import CanUseToolParams, can_use_tool

    params = CanUseToolParams(profile=profile, tool=tool, argument=argument, project=project)
    with settings.context() as ctx:
        answer = can_use_tool(ctx, params)
    output.print_diagnostics(answer.config, "text", sys.stderr)

    def text() -> None:
        output.echo(answer.action)
        read = {
            "canonical": "tool",
            "mcp": "MCP tool",
            "embedded": "embedded command",
            "opencode": "OpenCode permission key",
            "unknown": "name no vocabulary knows",
        }.get(answer.vocabulary, answer.vocabulary)
        same = answer.canonical and answer.canonical != tool
        stands = f" = {answer.canonical}" if same else ""
        output.echo(f"  {tool} ({read}{stands}) is decided under key {answer.key}")
        rule = answer.rule
        if rule is None:
            output.echo(f"  no rule matches {answer.key} {answer.argument!r}: the default is ask")
        else:
            output.echo(
                f"  rule {rule.index} ({rule.source}): {rule.text()}"
                f" decided {answer.key} {answer.argument!r}"
            )

    output.emit(answer, as_json, text)
    return EXIT_OK


@click.command()
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
def why(path: str, as_json: bool) -> int:
    """Which profile, harness and render wrote PATH, from the render ledger of the output
    folder above it; and whether the file still holds what roster wrote.

    Exit 2 when no ledger records PATH (roster did not write it)."""
    from agent_roster.commands.ledger import why as lookup

    found = lookup(path)
    if as_json:
        output.emit_json(found.to_dict())
        return EXIT_OK
    entry = found.entry
    lines = [found.path]
    for writer in entry.writers:
        owner = f"profile {writer.profile}" if writer.profile else "every rendered agent"
        project = f" --project {writer.project}" if writer.project else ""
        lines.append(
            f"  {owner}: roster {writer.roster} render --to {writer.harness} "
            f"--scope {writer.scope}{project} of vault {writer.vault}, at {writer.rendered_at}"
        )
    if entry.merged:
        lines.append(
            "  roster merges its entries into this file and keeps the rest"
            + ("" if entry.exclusive else "; it also holds content roster did not write")
        )
    state = {
        "unchanged": "holds exactly what roster wrote",
        "edited": "edited since roster wrote it (--prune never deletes it)",
        "missing": "gone from disk",
    }[found.state]
    lines.append(f"  now: {state}")
    lines.append(f"  ledger: {found.ledger}")
    output.echo("\n".join(lines))
    return EXIT_OK


@click.command()
@click.argument("harnesses", nargs=-1, type=_harness_choice(), metavar="[HARNESS]...")
@click.option("--json", "as_json", is_flag=True, help="Print the matrix as JSON.")
@click.option("--markdown", is_flag=True, help="Print it as docs/codecs/matrix.md.")
def compare(harnesses: tuple[str, ...], as_json: bool, markdown: bool) -> int:
    """What each HARNESS does with every canonical field: kept, translated, embedded,
    dropped or refused (every harness when none is named).

    With several harnesses, a row where they differ starts with *."""
    from agent_roster.codecs import support

    table = support.matrix(harnesses)
    if as_json:
        output.emit_json(support.to_json(table))
    elif markdown:
        output.echo(support.markdown(table), nl=False)
    else:
        output.echo(support.text_table(table), nl=False)
    return EXIT_OK


def register(group: click.Group) -> None:
    for command in (discover, import_, render, compare, can, why):
        group.add_command(command)
