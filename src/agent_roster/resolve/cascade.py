"""The resolution cascade (seed 001): task → project default → system default.

Pure lookups in a :class:`ProfileIndex`, no queries and no LLM. A reference to a profile
that does not exist (its file deleted, never synced, or broken from the start) is reported
with the reason, and resolution falls through to the next level. Every resolution is
logged with the profile, tools and MCP servers applied.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import NamedTuple

from agent_roster.diagnostics import list_profiles_hint
from agent_roster.errors import NotFoundError
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile
from agent_roster.resolve.index import Effective, ProfileIndex
from agent_roster.resolve.merge import Origins, origins_of

log = logging.getLogger(__name__)

TASK = "task"
PROJECT = "project"
DEFAULT = "default"
EXPLICIT = "profile"


class Resolution(NamedTuple):
    """The outcome: which level decided, the effective profile with the origin of every
    field, the MCP servers it gets (resolved project first), and every warning."""

    level: str
    profile_id: str | None
    project: str | None
    task: str | None
    profile: AgentProfile
    origins: Origins
    servers: tuple[McpServer, ...]
    warnings: tuple[str, ...]


def resolve_task(index: ProfileIndex, task_id: str) -> Resolution:
    """Resolve the profile for a task known to the index."""
    entry = index.task_profiles.get(task_id)
    if entry is None:
        raise NotFoundError(f"no task {task_id!r}", hint="create it first, or check the id")
    project, profile_id = entry
    return resolve(index, project=project, task_profile=profile_id, task=task_id)


def resolve(
    index: ProfileIndex,
    *,
    project: str | None = None,
    task_profile: str | None = None,
    task: str | None = None,
    profile: str | None = None,
) -> Resolution:
    """Run the cascade. ``profile`` asks for one profile explicitly (``roster resolve
    --profile``); otherwise the task's profile, then the project's default, then the
    system default from roster.toml."""
    # The warm path runs this for every launch (issue 4 item 8: >= 50,000/s with the launch
    # spec), so messages are only formatted when something is actually missing.
    if profile is not None:
        found = index.effective(profile, project)
        if found is None:
            raise NotFoundError(
                f"no profile {profile!r}" + (f" in project {project!r}" if project else ""),
                hint=list_profiles_hint(project)
                + ("; a profile added since the last 'roster sync' is not in the database yet"),
            )
        return _finish(EXPLICIT, profile, project, task, found, ())
    warnings: list[str] = []
    if task_profile is not None:
        found = index.effective(task_profile, project)
        if found is not None:
            return _finish(TASK, task_profile, project, task, found, warnings)
        warnings.append(_missing(f"task {task!r} names profile", task_profile))
    if project is not None:
        default_id = index.project_defaults.get(project)
        if default_id is not None:
            found = index.effective(default_id, project)
            if found is not None:
                return _finish(PROJECT, default_id, project, task, found, warnings)
            warnings.append(_missing(f"project {project!r} defaults to", default_id))
    return _finish(DEFAULT, None, project, task, index.default(), warnings)


def _missing(what: str, profile_id: str) -> str:
    return (
        f"{what} {profile_id!r}, which does not exist (its file is missing "
        "or never synced); falling through to the next level"
    )


def _finish(
    level: str,
    profile_id: str | None,
    project: str | None,
    task: str | None,
    found: Effective,
    warnings: Sequence[str],
) -> Resolution:
    profile = found.profile
    if log.isEnabledFor(logging.INFO):
        log.info(
            "resolved %s for %s: profile=%s tools=%s servers=%s",
            level,
            f"task {task}" if task else f"project {project}" if project else "system",
            profile_id or "(system default)",
            ",".join(profile.allowed_tools),
            ",".join(s.name for s in found.servers),
        )
    return Resolution(
        level,
        profile_id,
        project,
        task,
        profile,
        found.origins,
        found.servers,
        (*warnings, *found.warnings) if warnings else found.warnings,
    )


__all__ = ["Resolution", "origins_of", "resolve", "resolve_task"]
