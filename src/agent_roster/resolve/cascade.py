"""The resolution cascade (seed 001): task → project default → system default.

Pure lookups in a :class:`ProfileIndex`, no queries and no LLM. A reference to a profile
that does not exist (its file deleted, never synced, or broken from the start) is reported
with the reason, and resolution falls through to the next level. Every resolution is
logged with the profile, tools and MCP servers applied.
"""

from __future__ import annotations

import logging
from typing import Any, NamedTuple

from agent_roster.errors import NotFoundError
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile
from agent_roster.resolve.index import Effective, ProfileIndex
from agent_roster.resolve.merge import Origin, Origins, origins_of, with_defaults

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

    def to_dict(self) -> dict[str, Any]:
        from agent_roster.cli.output import server_json

        return {
            "level": self.level,
            "profile_id": self.profile_id,
            "project": self.project,
            "task": self.task,
            "profile": self.profile.to_json_dict(),
            "origins": {k: v.to_dict() for k, v in sorted(self.origins.items())},
            "servers": [server_json(s) for s in self.servers],
            "warnings": list(self.warnings),
        }


def _default(index: ProfileIndex) -> tuple[AgentProfile, Origins]:
    defaults = index.config.defaults
    return with_defaults(defaults, {"id": Origin(defaults.source, "[defaults]")}, defaults)


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
    warnings: list[str] = []
    candidates: list[tuple[str, str | None, str]] = []
    if profile is not None:
        candidates.append((EXPLICIT, profile, f"profile {profile!r}"))
    else:
        if task_profile is not None:
            candidates.append((TASK, task_profile, f"task {task!r} names profile"))
        if project is not None:
            default_id = index.project_defaults.get(project)
            if default_id is not None:
                candidates.append((PROJECT, default_id, f"project {project!r} defaults to"))
    for level, profile_id, what in candidates:
        assert profile_id is not None
        found: Effective | None = index.effective(profile_id, project)
        if found is None:
            if level == EXPLICIT:
                raise NotFoundError(
                    f"no profile {profile_id!r}" + (f" in project {project!r}" if project else ""),
                    hint="check the id with 'roster validate'",
                )
            warnings.append(
                f"{what} {profile_id!r}, which does not exist (its file is missing "
                "or never synced); falling through to the next level"
            )
            continue
        warnings.extend(found.warnings)
        return _finish(
            index, level, profile_id, project, task, found.profile, found.origins, warnings
        )
    effective, origins = _default(index)
    return _finish(index, DEFAULT, None, project, task, effective, origins, warnings)


def _finish(
    index: ProfileIndex,
    level: str,
    profile_id: str | None,
    project: str | None,
    task: str | None,
    profile: AgentProfile,
    origins: Origins,
    warnings: list[str],
) -> Resolution:
    servers: list[McpServer] = []
    for name in profile.mcp_servers:
        server = index.server(name, project)
        if server is None:
            warnings.append(
                f"MCP server {name!r} is not in the registry"
                + (f" of project {project!r} or the system" if project else "")
                + "; it is left out"
            )
        else:
            servers.append(server)
    log.info(
        "resolved %s for %s: profile=%s tools=%s servers=%s",
        level,
        f"task {task}" if task else f"project {project}" if project else "system",
        profile_id or "(system default)",
        ",".join(profile.allowed_tools),
        ",".join(s.name for s in servers),
    )
    return Resolution(
        level, profile_id, project, task, profile, origins, tuple(servers), tuple(warnings)
    )


__all__ = ["Resolution", "origins_of", "resolve", "resolve_task"]
