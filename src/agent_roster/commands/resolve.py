"""``resolve`` and ``run``: the effective profile for a task or profile, and its launch.

:func:`resolve_profile` is the registry command; ``roster run`` resolves the same way
(:func:`resolve_for`) and then executes the launch, which only the CLI does.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple

import msgspec
from msgspec import Meta

from agent_roster.argv import check_runnable
from agent_roster.commands.project_profiles import Origin
from agent_roster.diagnostics import Diagnostic
from agent_roster.errors import InvalidDocumentError, UsageError
from agent_roster.redact import server_dict
from agent_roster.resolve.cascade import Resolution, resolve, resolve_task
from agent_roster.resolve.config import LoadedConfig, load_config
from agent_roster.resolve.index import ProfileIndex
from agent_roster.resolve.launch import TOKEN_ENV, LaunchSpec, build_cached
from agent_roster.store import Store
from agent_roster.sync.engine import SyncEngine
from agent_roster.vault.paths import CONFIG_FILE
from agent_roster.vault.paths import state_dir as _state_dir_of
from agent_roster.vault.writer import atomic_write

if TYPE_CHECKING:
    from agent_roster.commands.context import RosterContext
    from agent_roster.resolve.attach import Attachment

#: How to install each runtime's CLI when it is missing.
INSTALL_HINTS = {
    "claude": "npm install -g @anthropic-ai/claude-code",
    "acpx": "npm install -g acpx",
}


class Resolved(NamedTuple):
    resolution: Resolution
    launch: LaunchSpec
    #: roster.toml's problems: with an error, built-in defaults stand in for what it could
    #: not say, and the resolution shows them as warnings (issue 11 item 5).
    config: tuple[Diagnostic, ...] = ()
    #: Why a profile resolved from its last synced version (its file fails to parse now).
    notes: tuple[str, ...] = ()


class ResolveProfileParams(msgspec.Struct, frozen=True, kw_only=True):
    task: Annotated[str | None, Meta(description="resolve this task's profile (the cascade)")] = (
        None
    )
    profile: Annotated[str | None, Meta(description="resolve this profile")] = None
    project: Annotated[
        str | None, Meta(description="with profile: apply this project's override")
    ] = None


class ResolvedProfile(msgspec.Struct, frozen=True, kw_only=True):
    """Which level of the cascade decided (task, project, default, profile), the effective
    profile with the file and section every field comes from, its MCP servers (secrets
    masked), every warning, and the launch spec for its runtime; ``command`` is the argv
    with ``<prompt>`` where the prompt goes."""

    level: str
    profile_id: str | None
    project: str | None
    task: str | None
    profile: Annotated[dict[str, Any], Meta(description="the effective profile's JSON form")]
    origins: dict[str, Origin]
    servers: list[dict[str, Any]]
    warnings: list[str]
    launch: Annotated[dict[str, Any], Meta(description="runtime, argv, env, files, tools")]
    command: list[str]
    config: Annotated[
        list[Diagnostic],
        Meta(
            description="roster.toml's problems; with an error, built-in defaults stand in "
            "for what it could not say"
        ),
    ] = []
    notes: Annotated[
        list[str],
        Meta(description="why a profile resolved from its last synced version, or without it"),
    ] = []


def resolve_profile(ctx: RosterContext, params: ResolveProfileParams) -> ResolvedProfile:
    """Resolve a task or profile to its effective profile and launch spec, with origins."""
    resolved = resolve_for(ctx, task=params.task, profile=params.profile, project=params.project)
    r, spec = resolved.resolution, resolved.launch
    return ResolvedProfile(
        level=r.level,
        profile_id=r.profile_id,
        project=r.project,
        task=r.task,
        profile=r.profile.to_json_dict(),
        origins={k: Origin(path=v.path, section=v.section) for k, v in sorted(r.origins.items())},
        servers=[server_dict(s) for s in r.servers],
        warnings=list(r.warnings),
        launch=spec.to_dict(),
        command=spec.command("<prompt>"),
        config=list(resolved.config),
        notes=list(resolved.notes),
    )


def resolve_for(
    ctx: RosterContext,
    *,
    task: str | None = None,
    profile: str | None = None,
    project: str | None = None,
) -> Resolved:
    """Resolve against the context's index; while ``roster up`` runs, a launch spec attaches
    its embedded server. In the daemon the index is its live one (roster.toml's problems
    are its sync events: the last good configuration stays in force). Run alone, it is the
    vault read now and the database only read (issue 13 item 3), roster.toml's problems
    come along, and a profile asked for by name whose file fails now with no synced
    version is refused rather than resolved to another one."""
    if ctx.live is not None:
        return resolve_launch(
            ctx.live.index(),
            ctx.vault,
            task=task,
            profile=profile,
            project=project,
            daemon=ctx.live.daemon(),
        )
    view = ctx.view()
    if profile is not None:
        problem = view.unusable(profile, project)
        if problem is not None:
            raise problem
    resolved = resolve_launch(
        view.index,
        ctx.vault,
        task=task,
        profile=profile,
        project=project,
        daemon=ctx.daemon(),
        config=view.config.diagnostics,
    )
    found = resolved.resolution
    return resolved._replace(notes=tuple(view.notes_for(found.profile_id, found.project)))


def state_dir(vault: str | os.PathLike[str]) -> Path:
    """Where generated launch files go: the ``.roster`` folder beside the vault."""
    return _state_dir(os.fspath(vault), os.getcwd())


@functools.lru_cache(maxsize=64)
def _state_dir(vault: str, cwd: str) -> Path:
    # Cached: path arithmetic costs more than a warm resolution (issue 4 item 8). ``cwd`` is
    # part of the key because a relative vault path resolves against it.
    return _state_dir_of(vault)


def running_daemon(vault: str | os.PathLike[str]) -> Attachment | None:
    """The ``roster up`` serving ``vault`` now (found by its lock file), for launch specs
    to attach; ``None`` when none runs."""
    from agent_roster.resolve.attach import find

    return find(state_dir(vault))


def build_index(
    store: Store, vault: str | os.PathLike[str], loaded: LoadedConfig | None = None
) -> ProfileIndex:
    """Sync the vault, then load the index from the store (one query per table)."""
    loaded = loaded or load_config(vault)
    embedded = loaded.config.embedded
    SyncEngine(store, vault, embedded=embedded.name, commands=embedded.commands).sync()
    return ProfileIndex(
        loaded.config,
        store.all_profiles(),
        store.all_mcp_servers(),
        project_defaults={p.id: p.default_profile_id for p in store.list_projects()},
        task_profiles={t.id: (t.project_id, t.profile_id) for t in store.list_tasks()},
    )


def resolve_launch(
    index: ProfileIndex,
    vault: str | os.PathLike[str],
    *,
    task: str | None = None,
    profile: str | None = None,
    project: str | None = None,
    daemon: Attachment | None = None,
    config: tuple[Diagnostic, ...] = (),
) -> Resolved:
    """Resolve a task (the cascade) or one profile, and build its launch spec; with
    ``daemon`` (the running ``roster up``, :func:`running_daemon`) a
    claude_sdk spec attaches its embedded server, with this launch's own token. ``config``
    is roster.toml's problems, carried along to be shown."""
    if (task is None) == (profile is None):
        raise UsageError("give exactly one of --task and --profile")
    if task is not None:
        if project is not None:
            raise UsageError("--project goes with --profile; a task has its own project")
        resolution = resolve_task(index, task)
    else:
        resolution = resolve(index, project=project, profile=profile)
    if daemon is None:
        spec = build_cached(index, resolution, state_dir(vault))
        return Resolved(resolution, spec, config)
    spec = build_cached(index, resolution, state_dir(vault), daemon.mcp_url)
    if any(TOKEN_ENV in text for text in spec.files.values()):
        spec = spec._replace(env={**spec.env, TOKEN_ENV: daemon.token(resolution)})
    return Resolved(resolution, spec, config)


def run_launch(resolved: Resolved, prompt: str, *, cwd: str | None = None) -> int:
    """Write the launch files and run the runtime's CLI with ``prompt``; returns its exit
    code. Raises UsageError, with the install command, when the CLI is not installed."""
    errors = [d for d in resolved.config if d.is_error]
    if errors:
        # Never launch with a configuration roster could not read: the built-in defaults
        # standing in for it may allow more than the file meant to (permission_mode).
        raise InvalidDocumentError(
            f"{CONFIG_FILE} has errors; roster run does not launch until they are fixed",
            errors,
        )
    spec = resolved.launch
    argv = spec.command(prompt)
    if not argv:
        raise UsageError(
            "the supervisor runtime runs in-process inside the roster daemon; "
            "'roster run' can only launch claude_sdk and acpx profiles"
        )
    check_runnable(argv)
    executable = shutil.which(argv[0])
    if executable is None:
        raise UsageError(
            f"{argv[0]!r} is not installed (or not on PATH)",
            hint=f"install it with: {INSTALL_HINTS.get(argv[0], argv[0])}",
        )
    for path, content in spec.files.items():
        atomic_write(path, content, mode=0o600)
    env = {**os.environ, **spec.env}
    return subprocess.run([executable, *argv[1:]], env=env, cwd=cwd, check=False).returncode
