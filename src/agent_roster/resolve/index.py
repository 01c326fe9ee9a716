"""The in-memory index every resolution reads from.

Seed 001 wants resolution to be "a pure dict lookup", and the system it comes from ran up to
five queries per launch. The index holds system profiles, project overrides, the MCP
registry, projects' default profiles and tasks' profile ids in dicts, and memoises each
effective profile (the merged ``extends`` chain, the override, the defaults) the first time
it is asked for, together with the MCP servers its names resolve to in that scope. Launch
specs built from it are memoised here too (``specs``, see ``launch.build_cached``), so a warm
resolution plus launch spec is a handful of dict lookups (issue 4, item 8). Sync calls
:meth:`ProfileIndex.apply` with what changed; every memo is then dropped, since one file can
feed many effective profiles through ``extends``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Hashable, Iterable
from typing import Any, NamedTuple

from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import AgentProfile
from agent_roster.resolve.config import RosterConfig
from agent_roster.resolve.merge import Origin, Origins, origins_of, overlay, with_defaults

log = logging.getLogger(__name__)


class Effective(NamedTuple):
    """A profile as it applies in one scope, with the origin of every field, and the MCP
    servers its names resolve to in that scope (project first); ``warnings`` covers both the
    ``extends`` chain and names missing from the registry."""

    profile: AgentProfile
    origins: Origins
    warnings: tuple[str, ...]
    has_override: bool
    has_system: bool
    servers: tuple[McpServer, ...] = ()


class ProfileIndex:
    """Dict lookups for resolution. Thread-safe for one writer and many readers."""

    def __init__(
        self,
        config: RosterConfig,
        profiles: Iterable[AgentProfile] = (),
        servers: Iterable[McpServer] = (),
        *,
        project_defaults: dict[str, str | None] | None = None,
        task_profiles: dict[str, tuple[str, str | None]] | None = None,
        origins: bool = True,
    ) -> None:
        self.config = config
        #: Whether ``Effective.origins`` is filled in; without it (bulk jobs that only need
        #: the merged profiles, such as render) a profile that extends nothing costs a
        #: dict lookup, and origins of merged chains are partial.
        self.track_origins = origins
        self.system: dict[str, AgentProfile] = {}
        self.overrides: dict[tuple[str, str], AgentProfile] = {}
        self.servers: dict[tuple[str | None, str], McpServer] = {}
        #: project id → default profile id
        self.project_defaults: dict[str, str | None] = dict(project_defaults or {})
        #: task id → (project id, profile id)
        self.task_profiles: dict[str, tuple[str, str | None]] = dict(task_profiles or {})
        self._memo: dict[tuple[str | None, str], Effective | None] = {}
        self._default: Effective | None = None
        #: Memo for values derived from effective profiles (launch specs); dropped by apply.
        self.specs: dict[Hashable, Any] = {}
        self._lock = threading.Lock()
        self.apply(profiles=profiles, servers=servers)

    # -- keeping current ----------------------------------------------------------------------
    def apply(
        self,
        *,
        profiles: Iterable[AgentProfile] = (),
        servers: Iterable[McpServer] = (),
        removed_profiles: Iterable[tuple[str, str | None]] = (),
        removed_servers: Iterable[tuple[str, str | None]] = (),
    ) -> None:
        """Add or replace profiles and servers, and drop removed ones (``(id, project)``)."""
        with self._lock:
            for profile in profiles:
                if profile.project is None:
                    self.system[profile.id] = profile
                else:
                    self.overrides[(profile.project, profile.id)] = profile
            for ident, project in removed_profiles:
                if project is None:
                    self.system.pop(ident, None)
                else:
                    self.overrides.pop((project, ident), None)
            for server in servers:
                self.servers[(server.project, server.name)] = server
            for name, project in removed_servers:
                self.servers.pop((project, name), None)
            self._memo = {}
            self.specs = {}

    def reconfigure(self, config: RosterConfig) -> None:
        """Apply another roster.toml (``roster up`` reloads it): every memo goes, since the
        defaults and the embedded server feed every effective profile and launch spec."""
        with self._lock:
            self.config = config
            self._memo = {}
            self._default = None
            self.specs = {}

    # -- lookups --------------------------------------------------------------------------------
    def exists(self, profile_id: str, project: str | None = None) -> bool:
        return profile_id in self.system or (
            project is not None and (project, profile_id) in self.overrides
        )

    def embedded_server(self) -> McpServer:
        """The built-in registry entry for our own command server; never replaceable."""
        embedded = self.config.embedded
        return McpServer(
            name=embedded.name,
            transport=Transport.HTTP,
            url=embedded.url,
            description="Agent Roster's embedded command server",
            builtin=True,
        )

    def server(self, name: str, project: str | None) -> McpServer | None:
        """Project scope first, then system (seed 001); the embedded name is built in."""
        if name == self.config.embedded.name:
            return self.embedded_server()
        if project is not None:
            found = self.servers.get((project, name))
            if found is not None:
                return found
        return self.servers.get((None, name))

    def effective(self, profile_id: str, project: str | None = None) -> Effective | None:
        """The profile ``profile_id`` as it applies in ``project`` (None: system scope)."""
        key = (project, profile_id)
        memo = self._memo
        if key in memo:
            return memo[key]
        result = self._build(profile_id, project)
        memo[key] = result
        return result

    def default(self) -> Effective:
        """The system default: roster.toml's [defaults], every field's origin that file."""
        found = self._default
        if found is None:
            defaults = self.config.defaults
            # Fill an empty profile, so every field gets the origin with_defaults gives it.
            empty = AgentProfile(id=defaults.id, name=defaults.name, source=defaults.source)
            origins = {"id": Origin(defaults.source, "[defaults]")}
            profile, origins = with_defaults(empty, origins, defaults)
            found = self._default = Effective(profile, origins, (), False, False)
        return found

    def servers_for(
        self, profile: AgentProfile, project: str | None
    ) -> tuple[tuple[McpServer, ...], list[str]]:
        """The registry entries ``profile``'s MCP server names resolve to in ``project``,
        and a warning for each name that resolves to nothing (that server is left out)."""
        servers: list[McpServer] = []
        warnings: list[str] = []
        for name in profile.mcp_servers:
            server = self.server(name, project)
            if server is None:
                warnings.append(
                    f"MCP server {name!r} is not in the registry"
                    + (f" of project {project!r} or the system" if project else "")
                    + "; it is left out"
                )
            else:
                servers.append(server)
        return tuple(servers), warnings

    def defined(self, profile_id: str, project: str | None = None) -> AgentProfile | None:
        """The profile as the vault defines it: its ``extends`` chain and the project
        override merged, but not roster.toml's defaults (those belong to the vault, not to
        the profile; export carries this form)."""
        base = self._system_chain(profile_id, [])
        override = self.overrides.get((project, profile_id)) if project else None
        if base is not None and override is not None:
            return overlay(base[0], base[1], override)[0]
        if base is not None:
            return base[0]
        return override

    def _build(self, profile_id: str, project: str | None) -> Effective | None:
        warnings: list[str] = []
        base = self._system_chain(profile_id, warnings)
        override = self.overrides.get((project, profile_id)) if project else None
        if base is None and override is None:
            return None
        if base is not None and override is not None:
            profile, origins = overlay(base[0], base[1], override)
        elif base is not None:
            profile, origins = base
        else:
            assert override is not None
            profile, origins = override, origins_of(override) if self.track_origins else {}
        profile, origins = with_defaults(profile, origins, self.config.defaults)
        servers, missing = self.servers_for(profile, project)
        warnings.extend(missing)
        return Effective(
            profile,
            origins,
            tuple(warnings),
            override is not None,
            base is not None,
            servers,
        )

    def _system_chain(
        self, profile_id: str, warnings: list[str]
    ) -> tuple[AgentProfile, Origins] | None:
        chain: list[AgentProfile] = []
        current: str | None = profile_id
        seen: set[str] = set()
        while current is not None:
            if current in seen:
                warnings.append(
                    "'extends' forms a cycle: "
                    + " → ".join([p.id for p in chain] + [current])
                    + "; the chain is cut there"
                )
                break
            seen.add(current)
            profile = self.system.get(current)
            if profile is None:
                if chain:
                    warnings.append(
                        f"profile {chain[-1].id!r} extends {current!r}, which does "
                        "not exist; nothing is inherited from it"
                    )
                break
            chain.append(profile)
            current = profile.extends
        if not chain:
            return None
        root = chain[-1]
        merged, origins = root, origins_of(root) if self.track_origins else {}
        for child in reversed(chain[:-1]):
            merged, origins = overlay(merged, origins, child)
        return merged, origins
