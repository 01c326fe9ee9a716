"""``render``: vault profiles written as each harness's native files.

Profiles are rendered *effective* (``extends`` and the project override merged, README D2 in
``docs/codecs/``), without roster.toml's ``[defaults]``: those are the runtime cascade's
fallback, not part of the profile a user wrote, and freezing them into another harness's
files would make that harness ignore its own defaults. A codec computes the files; this
module decides what happens to them: written (atomically, only when the content changed),
compared (``--check``) or shown as a diff (``--dry-run``), and recorded in the output root's
render ledger, which finds the files an earlier render wrote that this one no longer
produces (``commands/ownership.py``; ``--prune`` deletes them).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NamedTuple

import msgspec
from msgspec import Meta

from agent_roster.codecs import codec_names, get_codec
from agent_roster.codecs.base import Codec, Loss, LossOutcome, RenderRequest, Scope
from agent_roster.codecs.guard import (
    forget_answers,
    joined_in_profile_order,
    render_guarded,
    sharing_answers,
)
from agent_roster.commands.ledger import locked
from agent_roster.commands.output_folder import (
    CREATED,
    KEPT,
    REMOVED,
    STALE,
    UNCHANGED,
    UPDATED,
    FileResult,
    OutputFolder,
    Record,
)
from agent_roster.commands.ownership import Ownership
from agent_roster.diagnostics import Diagnostic, did_you_mean, list_profiles_hint
from agent_roster.errors import NotFoundError, UsageError, VaultError
from agent_roster.known_tools import DEFAULT_EMBEDDED_COMMANDS, DEFAULT_EMBEDDED_SERVER
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile
from agent_roster.parallel import available_workers, ordered_map
from agent_roster.perf import hand_over, paused_gc
from agent_roster.resolve.config import load_config
from agent_roster.resolve.index import ProfileIndex
from agent_roster.vault.loader import load_vault
from agent_roster.vault.paths import check_segment

if TYPE_CHECKING:
    from agent_roster.commands.context import RosterContext

__all__ = [
    "CREATED",
    "KEPT",
    "REMOVED",
    "STALE",
    "UNCHANGED",
    "UPDATED",
    "EffectiveSet",
    "FileResult",
    "RenderReport",
    "load_effective",
    "render_agents",
    "render_to_harness",
]


class EffectiveSet(NamedTuple):
    """Effective profiles to render, the registry servers they can reference (by name, in
    the scope they were resolved for), and the vault problems that kept profiles out (and
    every file in the vault's layout that was not loaded, with the reason)."""

    profiles: tuple[AgentProfile, ...]
    servers: dict[str, McpServer]
    diagnostics: tuple[Diagnostic, ...]
    #: The vault's name for roster's own command server (roster.toml ``[embedded]``).
    embedded: str = DEFAULT_EMBEDDED_SERVER
    #: Its command names: the catalog plus roster.toml's ``commands``.
    commands: frozenset[str] = DEFAULT_EMBEDDED_COMMANDS
    #: Every profile id the vault has in the rendered scope (the system scope, plus the
    #: project's when one is given), valid or not: a rendered file whose profile is among
    #: them is not stale merely because it was not rendered this time. Another project's
    #: profile of the same id does not keep a deleted system profile's file (issue 13).
    present: frozenset[str] = frozenset()

    def request(
        self, scope: Scope = Scope.PROJECT, *, allow_widening: bool = False
    ) -> RenderRequest:
        """What a render of these profiles asks each codec for (``RenderRequest``)."""
        return RenderRequest(
            profiles=self.profiles,
            servers=self.servers,
            scope=scope,
            embedded=self.embedded,
            embedded_commands=self.commands,
            allow_widening=allow_widening,
        )


def load_effective(
    vault: str | os.PathLike[str], ids: Sequence[str] = (), *, project: str | None = None
) -> EffectiveSet:
    """The vault's profiles (all, or ``ids``) merged as they apply in ``project`` (or the
    system scope). A profile whose file has errors is left out; its diagnostics say why."""
    if project is not None:
        check_segment(project, "project id")
    for ident in ids:
        check_segment(ident, "profile id")
    loaded = load_config(vault)
    bare = AgentProfile(id="(none)", name="(none)", source="(none)")
    config = msgspec.structs.replace(loaded.config, defaults=bare)
    snapshot = load_vault(
        vault,
        embedded=config.embedded.name,
        workers=available_workers(),
        commands=config.embedded.commands,
        cache=True,
    )
    good = [p.profile for p in snapshot.profiles.values() if p.ok and p.profile is not None]
    servers = [s.server for s in snapshot.servers.values() if s.ok and s.server is not None]
    index = ProfileIndex(config, good, servers, origins=False)
    # roster.toml's [embedded_server] url says where agents reach roster's own command
    # server (issue 14 item 3): an agent that allows one of its commands gets it attached,
    # as a launch spec does, so a bare command name in its Tools reaches a real tool. Only
    # the configured url counts, never whether `roster up` happens to run now: rendered
    # files are committed and `render --check` must not change with the daemon's state.
    embedded = config.embedded
    attach = index.embedded_server() if embedded.url and embedded.inject else None
    commands = embedded.command_names
    visible = {pid for scope, pid in snapshot.profiles if scope is None or scope == project}
    wanted = list(ids) or sorted(visible)
    missing = [ident for ident in wanted if ident not in visible]
    if missing:
        raise NotFoundError(
            f"no profile {missing[0]!r} in the vault",
            hint=did_you_mean(missing[0], visible) or list_profiles_hint(project),
        )
    profiles: list[AgentProfile] = []
    by_name: dict[str, McpServer] = {}
    # Every file the vault holds but did not load is in the report, warnings included
    # (issue 12 item 6); of the rest, only errors keep profiles out.
    unloaded = set(snapshot.unloaded)
    # roster.toml's problems too: it names the embedded server the files refer to.
    problems = [*loaded.diagnostics]
    problems.extend(d for d in snapshot.diagnostics if d.is_error or d in unloaded)
    for ident in wanted:
        for scope in (None, project) if project else (None,):
            parsed = snapshot.profiles.get((scope, ident))
            if parsed is not None and not parsed.ok:
                problems.extend(parsed.diagnostics)
        found = index.effective(ident, project)
        if found is None:
            continue
        profile = found.profile
        for server in found.servers:
            by_name.setdefault(server.name, server)
        if attach is not None and _calls_embedded(profile, attach.name, commands):
            profile = _with_server(profile, attach.name)
            by_name.setdefault(attach.name, attach)
        profiles.append(profile)
    return EffectiveSet(
        tuple(profiles),
        by_name,
        tuple(problems),
        config.embedded.name,
        config.embedded.command_names,
        frozenset(visible),
    )


def _calls_embedded(profile: AgentProfile, server: str, commands: frozenset[str]) -> bool:
    """Whether ``profile`` allows a command of the embedded server named ``server``: bare
    (as profiles write them) or by its full MCP name."""
    prefix = f"mcp__{server}__"
    return any(tool in commands or tool.startswith(prefix) for tool in profile.allowed_tools)


def _with_server(profile: AgentProfile, server: str) -> AgentProfile:
    """``profile`` with ``server`` among its MCP servers (once)."""
    if server in profile.mcp_servers:
        return profile
    return msgspec.structs.replace(profile, mcp_servers=(*profile.mcp_servers, server))


class RenderReport(NamedTuple):
    files: tuple[FileResult, ...]
    losses: tuple[Loss, ...]
    diagnostics: tuple[Diagnostic, ...]
    check: bool
    dry_run: bool

    @property
    def changed(self) -> tuple[FileResult, ...]:
        return tuple(f for f in self.files if f.status != UNCHANGED)

    @property
    def ok(self) -> bool:
        """No errors, and under ``--check`` nothing on disk differs."""
        if any(d.is_error for d in self.diagnostics):
            return False
        return not (self.check and self.changed)


class RenderToHarnessParams(msgspec.Struct, frozen=True, kw_only=True):
    to: Annotated[list[str], Meta(min_length=1, description="the harnesses to render to")]
    ids: Annotated[list[str], Meta(description="the profiles to render (default: all)")] = []
    scope: Annotated[
        str, Meta(description="project (the workspace's files) or user (the home's)")
    ] = "project"
    out: Annotated[
        str | None,
        Meta(
            description="the workspace or home folder to write under (default: the current "
            "folder, or your home)"
        ),
    ] = None
    project: Annotated[str | None, Meta(description="render as they apply in this project")] = None
    check: Annotated[bool, Meta(description="write nothing; report what differs")] = False
    dry_run: Annotated[bool, Meta(description="write nothing; include diffs")] = False
    prune: Annotated[
        bool, Meta(description="delete files an earlier render wrote that this one does not")
    ] = False
    options: Annotated[
        list[str], Meta(description="harness render options, HARNESS.NAME=VALUE")
    ] = []
    allow_widening: Annotated[
        bool,
        Meta(
            description="write an agent the harness would let do more than its profile, "
            "reporting each call that widens (default: narrowed or refused)"
        ),
    ] = False


class RenderedFile(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    harness: str
    path: str
    status: Annotated[str, Meta(description="created, updated, unchanged, stale, removed or kept")]
    note: str = ""
    diff: Annotated[str, Meta(description="a unified diff (dry run)")] = ""


class RenderResult(msgspec.Struct, frozen=True, kw_only=True):
    """Every native file and what happened to it (under check or dry run: what would),
    every field a harness cannot hold (translated, embedded or dropped), and the vault's
    and the harnesses' diagnostics."""

    files: list[RenderedFile]
    losses: list[Loss]
    diagnostics: list[Diagnostic]
    check: bool
    dry_run: bool

    @property
    def changed(self) -> list[RenderedFile]:
        return [f for f in self.files if f.status != UNCHANGED]

    @property
    def ok(self) -> bool:
        """No errors, and under ``check`` nothing on disk differs."""
        if any(d.is_error for d in self.diagnostics):
            return False
        return not (self.check and self.changed)


def render_to_harness(ctx: RosterContext, params: RenderToHarnessParams) -> RenderResult:
    """Render profiles as each harness's native agent files, reporting what cannot carry."""
    report = render_agents(
        ctx.vault,
        params.to,
        scope=params.scope,
        out=params.out,
        ids=params.ids,
        project=params.project,
        check=params.check,
        dry_run=params.dry_run,
        prune=params.prune,
        options=params.options,
        allow_widening=params.allow_widening,
    )
    return RenderResult(
        files=[
            RenderedFile(harness=f.harness, path=f.path, status=f.status, note=f.note, diff=f.diff)
            for f in report.files
        ],
        losses=list(report.losses),
        diagnostics=list(report.diagnostics),
        check=report.check,
        dry_run=report.dry_run,
    )


def default_out(scope: Scope) -> Path:
    """The folder a harness reads for ``scope``: the workspace (current directory) or the
    user's home."""
    return Path.cwd() if scope is Scope.PROJECT else Path.home()


def render_agents(
    vault: str | os.PathLike[str],
    harnesses: Sequence[str],
    *,
    scope: str | Scope = Scope.PROJECT,
    out: str | os.PathLike[str] | None = None,
    ids: Sequence[str] = (),
    project: str | None = None,
    check: bool = False,
    dry_run: bool = False,
    prune: bool = False,
    options: Sequence[str] = (),
    allow_widening: bool = False,
) -> RenderReport:
    """Render the vault's profiles (all, or ``ids``) for each harness under ``out``, and
    report the files earlier renders wrote that this one no longer produces (``prune``:
    delete those still exactly as roster wrote them). ``options`` are codec options as
    ``HARNESS.NAME=VALUE`` (:attr:`Codec.options`). An agent the harness would allow more
    than its profile does is refused (``render-widens``) unless ``allow_widening``, which
    writes it and reports every call that widened (issue 12 item 2)."""
    try:
        scope = Scope(scope)
    except ValueError:
        raise UsageError(f"unknown scope {scope!r}", hint="use project or user") from None
    codecs = [get_codec(name) for name in dict.fromkeys(harnesses)]
    if not codecs:
        raise UsageError("name at least one harness to render to")
    chosen = codec_options(codecs, options)
    base = Path(out) if out is not None else default_out(scope)
    # A render is a bulk job: hundreds of thousands of short-lived acyclic objects, which
    # reference counting frees, while the collector would walk the loaded vault over and
    # over (see paused_gc).
    writes = not (check or dry_run)
    with locked(base) if writes else contextlib.nullcontext(), paused_gc(), sharing_answers():
        return _render(
            vault,
            codecs,
            scope,
            base,
            ids,
            project,
            check=check,
            dry_run=dry_run,
            prune=prune,
            options=chosen,
            allow_widening=allow_widening,
        )


def codec_options(codecs: Sequence[Codec], given: Sequence[str]) -> dict[str, dict[str, str]]:
    """``HARNESS.NAME=VALUE`` options checked against what each codec offers, by harness;
    every problem is a :class:`UsageError` naming the choices."""
    chosen: dict[str, dict[str, str]] = {codec.name: {} for codec in codecs}
    by_name = {codec.name: codec for codec in codecs}
    for text in given:
        key, sep, value = text.partition("=")
        harness, dot, name = key.partition(".")
        if not (sep and dot and harness and name):
            raise UsageError(
                f"option {text!r} is not HARNESS.NAME=VALUE", hint="e.g. copilot.mcp=cli"
            )
        codec = by_name.get(harness)
        if codec is None:
            raise UsageError(
                f"option {text!r} is for {harness!r}, which this render does not write",
                hint="add --to " + harness
                if harness in codec_names()
                else "one of " + ", ".join(by_name),
            )
        offered = {option.name: option for option in codec.options}
        option = offered.get(name)
        if option is None:
            listed = ", ".join(f"{harness}.{o}" for o in offered) or "none"
            raise UsageError(
                f"{harness} has no render option {name!r}", hint=f"its options: {listed}"
            )
        if value not in option.choices:
            raise UsageError(
                f"{harness}.{name} takes {', '.join(option.choices)}, not {value!r}",
                hint=option.help,
            )
        chosen[harness][name] = value
    return chosen


def _render(
    vault: str | os.PathLike[str],
    codecs: Sequence[Codec],
    scope: Scope,
    base: Path,
    ids: Sequence[str],
    project: str | None,
    *,
    check: bool,
    dry_run: bool,
    prune: bool,
    options: dict[str, dict[str, str]],
    allow_widening: bool = False,
) -> RenderReport:
    effective = load_effective(vault, ids, project=project)
    request = effective.request(scope, allow_widening=allow_widening)
    folder = OutputFolder(base)
    owned = Ownership(
        folder, vault, scope.value, project=project, prune=prune, write=not (check or dry_run)
    )

    def run(codec: Codec, part: RenderRequest) -> _Outcome:
        if options.get(codec.name):
            part = msgspec.structs.replace(part, options=options[codec.name])
        rendering = render_guarded(codec, part, folder.read)
        applied = folder.apply(codec.name, rendering.files, check=check, dry_run=dry_run)
        return _Outcome(
            tuple(applied.results),
            rendering.losses,
            (*rendering.diagnostics, *applied.diagnostics),
            tuple(applied.records),
        )

    outcomes: dict[str, list[_Outcome]] = {}
    split = [c for c in codecs if c.partitioned]
    parts = _parts(len(request.profiles)) if split else []
    if len(parts) > 1:
        # Agent files are independent of each other: parts of the job render and write
        # them in forked processes (see RenderRequest.part), the shared files in the last,
        # where a whole render puts them too.
        here = os.getpid()

        def run_part(bounds: tuple[int, int]) -> list[_Outcome]:
            last = bounds[1] == len(request.profiles)
            part = msgspec.structs.replace(request, part=bounds, shared=last)
            found = [run(codec, part) for codec in split]
            if os.getpid() == here:
                # Its profiles' answers are of no more use: freed now, while a worker is
                # still at its part, rather than after the last. A worker leaves them
                # to its exit.
                forget_answers()
            return found

        # A worker's report comes back as msgpack, not pickle: a tenth of the cost for the
        # tens of thousands of losses a large render reports.
        for found in ordered_map(
            run_part,
            parts,
            available_workers(),
            encode=_ENCODER.encode,
            decode=_DECODER.decode,
        ):
            for codec, outcome in zip(split, found, strict=True):
                outcomes.setdefault(codec.name, []).append(outcome)
    files: list[FileResult] = []
    losses: list[Loss] = []
    diagnostics: list[Diagnostic] = list(effective.diagnostics)
    ordered_ids = [p.id for p in request.profiles]
    for codec in codecs:
        found = outcomes.get(codec.name) or [run(codec, request)]
        codec_files = [f for outcome in found for f in outcome.files]
        if len({f.path for f in codec_files}) != len(codec_files):
            raise VaultError(f"the {codec.name} codec produced a file twice")
        codec_diagnostics = [d for outcome in found for d in outcome.diagnostics]
        # Refusals last, in profile order, whether the render was split or not.
        codec_diagnostics.sort(key=lambda d: d.code == "render-widens")
        stale, notes = owned.settle(
            codec.name,
            [r for outcome in found for r in outcome.records],
            present=effective.present,
            named=ids,
            failed=any(d.is_error for d in codec_diagnostics),
        )
        if notes:
            codec_files = [f._replace(note=notes.get(f.path, f.note)) for f in codec_files]
        files.extend(codec_files)
        files.extend(stale)
        if len(found) > 1:
            # Each part's losses are in profile order; the shared files' (reported by the
            # last part) go back beside their profiles', as in a whole render, and, as
            # there, a refused agent keeps only its refusal, whichever part it was in
            # (every refusal comes with its render-widens error).
            codec_losses = joined_in_profile_order([o.losses for o in found], ordered_ids)
            if any(d.code == "render-widens" for d in codec_diagnostics):
                refusal = LossOutcome.REFUSED
                refused = {loss.profile for loss in codec_losses if loss.outcome is refusal}
                codec_losses = [
                    loss
                    for loss in codec_losses
                    if loss.profile not in refused or loss.outcome is refusal
                ]
            losses.extend(codec_losses)
        else:
            losses.extend(found[0].losses)
        diagnostics.extend(codec_diagnostics)
    owned.save()
    hand_over(effective, request, owned, outcomes)
    return RenderReport(tuple(files), tuple(losses), tuple(diagnostics), check, dry_run)


class _Outcome(msgspec.Struct, frozen=True, array_like=True):
    """What rendering one codec (or one part of it) did."""

    files: tuple[FileResult, ...]
    losses: tuple[Loss, ...]
    diagnostics: tuple[Diagnostic, ...]
    records: tuple[Record, ...]


_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(list[_Outcome])


#: Below this many profiles a render stays in one process: forking and collecting results
#: would cost more than the work.
PARALLEL_MIN_PROFILES = 2_000


def _parts(count: int) -> list[tuple[int, int]]:
    # One part per process. Smaller parts would let a fast process take over a slow one's
    # work, but each part's report (a few MB for thousands of agents) blocks its worker
    # on the pipe until this process reads it, which it does only between its own parts.
    workers = available_workers() if count >= PARALLEL_MIN_PROFILES else 0
    if not workers:
        return [(0, count)]
    size = -(-count // (workers + 1))
    return [(start, min(start + size, count)) for start in range(0, count, size)]
