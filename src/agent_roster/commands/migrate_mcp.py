"""``migrate-mcp``: move legacy inline MCP configs into the registry (issue 4, item 4).

Legacy profiles wrote ``## MCP Servers`` as a JSON object, name → ``{command, args, env}`` or
``{type: "http", url, headers}``. Each entry becomes ``mcp-servers/<name>.md`` (system
profiles) or ``projects/<pid>/mcp-servers/<name>.md`` (project overrides), and the profile's
block is then patched in place to the list of names. ``--config`` also reads a config.yaml
whose ``agent_profiles.<id>.mcp_servers`` is an inline object and writes system entries for
it (config.yaml itself is not changed; ``migrate-config`` turns its profiles into markdown).

Rules, decided so that nothing is clobbered and no name is left dangling:

* an existing registry file is never overwritten. When it describes the same server
  (transport, command, args, env, url, headers) the entry counts as migrated ("skipped");
  when it differs the entry is skipped as a conflict;
* an override's entry that is identical to a system entry needs no project copy;
* an entry named like the embedded server needs no file (the built-in entry answers);
* a malformed entry (not an object, unsafe name, unknown keys, wrong types, or content the
  registry parser rejects) is reported as failed;
* a profile is rewritten to names only when every one of its entries is in the registry;
  otherwise it is left unchanged and listed in ``failed``, so its inline config keeps
  working and the ``mcp-inline-deprecated`` warning keeps pointing at it.

Running it again finds nothing left to do. ``dry_run`` reports the same without writing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from agent_roster import literal_secrets
from agent_roster.diagnostics import Diagnostic
from agent_roster.errors import RosterError, UsageError
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.resolve.config import load_config
from agent_roster.vault import patch
from agent_roster.vault.guard import read_diagnostic
from agent_roster.vault.mcp_parser import TRANSPORTS, parse_mcp_server
from agent_roster.vault.paths import EntryKind, VaultLayout, segment_problem
from agent_roster.vault.profile_parser import parse_profile
from agent_roster.vault.render import render_mcp_server
from agent_roster.vault.writer import write_in_vault

INLINE_KEYS = ("type", "transport", "command", "args", "env", "url", "headers", "description")


class McpMigration(NamedTuple):
    written: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...]
    failed: tuple[tuple[str, str], ...]
    profiles: tuple[str, ...]
    dry_run: bool
    #: (file, what was done): a literal secret written as a ``${VAR}`` reference.
    secrets: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "written": list(self.written),
            "skipped": [{"path": p, "reason": r} for p, r in self.skipped],
            "failed": [{"where": w, "reason": r} for w, r in self.failed],
            "profiles": list(self.profiles),
            "secrets": [{"path": p, "note": n} for p, n in self.secrets],
        }


def _same(a: McpServer, b: McpServer) -> bool:
    keys = ("transport", "command", "args", "env", "url", "headers")
    return all(getattr(a, k) == getattr(b, k) for k in keys)


def from_inline(name: str, config: Any) -> McpServer | str:
    """A registry entry from one legacy inline config, or the reason it is malformed."""
    if not isinstance(config, dict):
        return f"must be an object, got {json.dumps(config)[:60]}"
    unknown = sorted(set(config) - set(INLINE_KEYS))
    if unknown:
        return f"unknown key(s) {', '.join(map(repr, unknown))}; known: {', '.join(INLINE_KEYS)}"
    kind = config.get("type", config.get("transport"))
    if kind is None:
        kind = "stdio" if "command" in config else "http" if "url" in config else None
    if kind is None:
        return "no transport: give 'type' (stdio, http, sse), or 'command' or 'url'"
    if kind not in TRANSPORTS:
        return f"transport {kind!r} is not one of {', '.join(TRANSPORTS)}"
    for key in ("command", "url", "description"):
        if not isinstance(config.get(key, ""), str):
            return f"{key!r} must be a string"
    args = config.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return "'args' must be a list of strings (quote numbers)"
    for key in ("env", "headers"):
        value = config.get(key, {})
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()
        ):
            return f"{key!r} must map names to string values"
    return McpServer(
        name=name,
        transport=Transport(kind),
        command=config.get("command", ""),
        args=tuple(args),
        env=dict(config.get("env", {})),
        url=config.get("url", ""),
        headers=dict(config.get("headers", {})),
        description=config.get("description", ""),
    )


class InlineMigration:
    """One migration run: inline configs put into the registry (``entry``), profiles patched
    to names (``profile``), and what was written, skipped and failed; ``migrate-config``
    uses ``entry`` for the servers of the profiles it writes."""

    def __init__(self, vault: str | os.PathLike[str], dry_run: bool) -> None:
        self.layout = VaultLayout(vault)
        self.embedded = load_config(vault).config.embedded.name
        self.dry_run = dry_run
        self.planned: dict[tuple[str | None, str], McpServer] = {}
        self.written: list[str] = []
        self.skipped: list[tuple[str, str]] = []
        self.failed: list[tuple[str, str]] = []
        self.profiles: list[str] = []
        self.secrets: list[tuple[str, str]] = []

    def existing(self, name: str, project: str | None) -> McpServer | str | None:
        """The entry at that exact scope (planned in this run, or on disk); a string when
        the file exists but cannot be read cleanly."""
        if (project, name) in self.planned:
            return self.planned[(project, name)]
        path = self.layout.mcp_server_path(name, project)
        if not path.is_file():
            return None
        rel = self.layout.relative(path)
        problems: list[Diagnostic] = []
        raw = read_diagnostic(self.layout, path, problems, missing_ok=True)
        if raw is None:
            return problems[0].message if problems else None
        parsed = parse_mcp_server(raw, path=rel, expected_name=name, project=project)
        return parsed.server if parsed.ok and parsed.server else "the file has errors"

    def entry(self, source: str, name: Any, config: Any, project: str | None) -> str | None:
        """Put one inline entry into the registry; None when the name now resolves, else
        a short reason (malformed entries are also reported in ``failed``)."""
        where = f"{source}: {name!r}"
        problem = segment_problem(name)
        if problem is not None:
            self.failed.append((where, f"the server name {problem}"))
            return "malformed"
        if name == self.embedded:
            return None  # the built-in entry answers to this name
        server = from_inline(name, config)
        if isinstance(server, str):
            self.failed.append((where, server))
            return "malformed"
        # Nothing literal is written into the vault (issue 13 item 4): a token in the inline
        # config becomes a ${VAR} reference, and the variable to set is reported.
        server, literals = literal_secrets.referenced(server)
        path = self.layout.mcp_server_path(name, project)
        rel = path.relative_to(self.layout.root).as_posix()
        if project is not None and self.existing(name, project) is None:
            system = self.existing(name, None)
            if isinstance(system, McpServer) and _same(system, server):
                self.skipped.append((rel, "not needed: the system entry is the same server"))
                return None
        found = self.existing(name, project)
        if isinstance(found, McpServer):
            if _same(found, server):
                self.skipped.append((rel, "already in the registry (the same server)"))
                return None
            self.skipped.append((rel, f"conflict: it differs from the inline config in {source}"))
            return f"conflict with {rel}"
        if found is not None:
            self.skipped.append((rel, f"the file has errors; not overwritten ({source})"))
            return f"{rel} has errors"

        notes = f"Migrated by `roster migrate-mcp` from {source}."
        server = McpServer(**{**_fields(server), "notes": notes})
        text = render_mcp_server(server)
        parsed = parse_mcp_server(text, path=rel, expected_name=name, project=project)
        if not parsed.ok:
            errors = "; ".join(d.message for d in parsed.diagnostics if d.is_error)
            self.failed.append((where, errors))
            return "malformed"
        if not self.dry_run:
            write_in_vault(self.layout, path, text)
        self.planned[(project, name)] = server
        self.written.append(rel)
        self.secrets.extend(
            (
                rel,
                f"{item.where} held a literal secret; written as {item.form}: set "
                f"{item.variable} where the harness runs",
            )
            for item in literals
        )
        return None

    def profile(self, rel: str, path: Path, ident: str, project: str | None) -> None:
        try:
            text, source = patch.read_text(self.layout, path)
        except RosterError as exc:
            self.failed.append((rel, exc.message))
            return
        parsed = parse_profile(text, path=rel, expected_id=ident, project=project)
        document = parsed.document
        if document is None:
            return
        section = next((s for s in document.structure.sections if s.key == "mcp servers"), None)
        if section is None:
            return
        fence = next((f for f in section.fences if f.lang == "json" and f.closed), None)
        if fence is None:
            return
        try:
            value = json.loads(document.text[fence.content_start : fence.content_end])
        except ValueError:
            self.failed.append((rel, "## MCP Servers is not valid JSON; fix it first"))
            return
        if not isinstance(value, dict):
            return  # already a list of names (or an error validate reports)
        reasons = {name: self.entry(rel, name, cfg, project) for name, cfg in value.items()}
        unresolved = [f"{name!r} ({why})" for name, why in reasons.items() if why is not None]
        if unresolved:
            listed = ", ".join(unresolved)
            self.failed.append((rel, f"left unchanged, its inline config kept: {listed}"))
            return
        try:
            patched = patch.apply_edits(
                text,
                [patch.set_mcp_servers(list(value))],
                path=rel,
                expected_id=ident,
                project=project,
            )
        except RosterError as exc:
            self.failed.append((rel, f"left unchanged: {exc.message}"))
            return
        if not self.dry_run:
            try:
                patch.write_text(patched.text, source)
            except RosterError as exc:
                self.failed.append((rel, f"left unchanged: {exc.message}"))
                return
        self.profiles.append(rel)

    def config_yaml(self, config: Path) -> None:
        try:
            document = yaml.safe_load(config.read_text(encoding="utf-8"))
        except OSError as exc:
            raise UsageError(f"cannot read {config}: {exc.strerror}") from None
        except yaml.YAMLError as exc:
            raise UsageError(f"{config} is not valid YAML: {exc}") from None
        section = document.get("agent_profiles") if isinstance(document, dict) else None
        if section is None:
            return
        if not isinstance(section, dict):
            raise UsageError(f"{config}: 'agent_profiles' must map profile ids to settings")
        for ident, entry in section.items():
            servers = entry.get("mcp_servers") if isinstance(entry, dict) else None
            if isinstance(servers, dict):
                source = f"{config.name} agent_profiles.{ident}.mcp_servers"
                for name, cfg in servers.items():
                    self.entry(source, name, cfg, None)


def _fields(server: McpServer) -> dict[str, Any]:
    return {f: getattr(server, f) for f in server.__struct_fields__}


def migrate_mcp(
    vault: str | os.PathLike[str],
    *,
    config: str | os.PathLike[str] | None = None,
    dry_run: bool = False,
) -> McpMigration:
    """Migrate every profile's inline ``## MCP Servers`` (and config.yaml's) into files."""
    run = InlineMigration(vault, dry_run)
    if config is not None:
        run.config_yaml(Path(config))
    for scanned in run.layout.iter_entries():
        entry = scanned.entry
        if entry.kind is EntryKind.PROFILE:
            run.profile(entry.rel_path, scanned.path, entry.id, entry.project)
    return McpMigration(
        tuple(run.written),
        tuple(run.skipped),
        tuple(run.failed),
        tuple(run.profiles),
        dry_run,
        tuple(run.secrets),
    )
