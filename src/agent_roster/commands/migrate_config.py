"""``migrate-config``: move a legacy ``config.yaml`` ``agent_profiles:`` section into the vault.

Seed 001 "Backward Compatibility": profiles once lived in config.yaml. Each entry becomes
``agent-types/<id>/profile.md``. A file that already exists is never touched (hand-written
files win), so the migration is idempotent; every entry is reported as written, skipped (and
why) or failed (with the diagnostics of the markdown it would have produced).

A profile names its MCP servers; seed 001's entries may define them inline
(``mcp_servers: {name: {command...}}``). Those become registry files in the same run (the
rules of ``migrate-mcp``), so the profile written never points at a server the registry
lacks (issue 13): when one cannot be migrated (malformed, or a different server of that name
is already there), the profile is not written and its diagnostic says what to fix and what
to run again. A name given without its config that the registry lacks is a warning, with
the command that adds it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, NamedTuple

import msgspec
import yaml

from agent_roster.commands.migrate_mcp import InlineMigration
from agent_roster.diagnostics import Diagnostic, Severity, make
from agent_roster.errors import UsageError
from agent_roster.model.profile import AgentProfile, InstallManifest, PromptSection, Runtime
from agent_roster.vault.paths import VaultLayout, segment_problem
from agent_roster.vault.profile_parser import parse_profile
from agent_roster.vault.render import render_profile
from agent_roster.vault.writer import write_in_vault

_MARKER = re.compile(r"^## (Role|Rules|Reflection)[ \t]*$", re.M | re.I)
_KNOWN = {
    "name",
    "description",
    "model",
    "permission_mode",
    "allowed_tools",
    "denied_tools",
    "mcp_servers",
    "system_prompt_suffix",
    "install",
    "tags",
    "max_tokens_per_task",
    "runtime",
    "agent_name",
}


class MigrationReport(NamedTuple):
    #: Vault files written: registry entries (``mcp-servers/<name>.md``) and profiles.
    written: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...]
    failed: tuple[tuple[str, tuple[Diagnostic, ...]], ...]
    #: Warnings about profiles that were written (a server name the registry lacks).
    warnings: tuple[Diagnostic, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "written": list(self.written),
            "skipped": [{"path": p, "reason": r} for p, r in self.skipped],
            "failed": [
                {"id": i, "diagnostics": [d.to_dict() for d in ds]} for i, ds in self.failed
            ],
            "warnings": [d.to_dict() for d in self.warnings],
        }


def split_suffix(text: str) -> tuple[PromptSection, ...]:
    """Seed 001's ``system_prompt_suffix`` back into sections: ``## Role``/``## Rules``/
    ``## Reflection`` markers split it; text without markers is the Role."""
    text = text.strip()
    if not text:
        return ()
    markers = list(_MARKER.finditer(text))
    if not markers:
        return (PromptSection(heading="Role", body=text),)
    sections = []
    lead = text[: markers[0].start()].strip()
    if lead:
        sections.append(PromptSection(heading="Role", body=lead))
    for index, match in enumerate(markers):
        end = markers[index + 1].start() if index + 1 < len(markers) else len(text)
        body = text[match.end() : end].strip()
        sections.append(PromptSection(heading=match.group(1).capitalize(), body=body))
    return tuple(sections)


def _build(
    profile_id: str, entry: dict[str, Any], servers: list[Any], install: dict[str, Any]
) -> AgentProfile:
    runtime = entry.get("runtime")
    return AgentProfile(
        id=profile_id,
        name=str(entry.get("name") or profile_id),
        description=str(entry.get("description") or ""),
        tags=tuple(str(t) for t in entry.get("tags") or ()),
        model=str(entry.get("model") or ""),
        permission_mode=str(entry.get("permission_mode") or ""),
        runtime=Runtime(runtime) if runtime in {r.value for r in Runtime} else None,
        allowed_tools=tuple(str(t) for t in entry.get("allowed_tools") or ()),
        denied_tools=tuple(str(t) for t in entry.get("denied_tools") or ()),
        mcp_servers=tuple(str(s) for s in servers),
        max_tokens_per_task=entry.get("max_tokens_per_task"),
        agent_name=str(entry.get("agent_name") or ""),
        sections=split_suffix(str(entry.get("system_prompt_suffix") or "")),
        install=InstallManifest(
            npm=tuple(install.get("npm") or ()),
            pip=tuple(install.get("pip") or ()),
            commands=tuple(install.get("commands") or ()),
        ),
        extra_config={k: v for k, v in entry.items() if k not in _KNOWN},
    )


def migrate_config(
    config_path: str | os.PathLike[str], vault: str | os.PathLike[str]
) -> MigrationReport:
    """Write one profile.md per ``agent_profiles`` entry that has no file yet."""
    path = Path(config_path)
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise UsageError(f"{path} is not valid YAML: {exc}") from None
    section = (document or {}).get("agent_profiles") if isinstance(document, dict) else None
    if section is None:
        return MigrationReport((), (), ())
    if not isinstance(section, dict):
        raise UsageError(f"{path}: 'agent_profiles' must map profile ids to settings")
    layout = VaultLayout(vault)
    lines = _entry_positions(path.read_text(encoding="utf-8"))
    servers = InlineMigration(vault, dry_run=False)
    written: list[str] = []
    skipped: list[tuple[str, str]] = []
    failed: list[tuple[str, tuple[Diagnostic, ...]]] = []
    warnings: list[Diagnostic] = []
    for profile_id, entry in section.items():
        problem = segment_problem(profile_id)
        if problem is not None:
            skipped.append((str(profile_id), f"unsafe id: {problem}"))
            continue
        if not isinstance(entry, dict):
            skipped.append((profile_id, "settings are not a mapping"))
            continue
        target = layout.profile_path(profile_id)
        rel = target.relative_to(layout.root).as_posix()
        if target.exists():
            skipped.append((rel, "a profile file already exists; it was left as it is"))
            continue
        install = entry.get("install")
        text = render_profile(
            _build(profile_id, entry, _servers(entry), install if isinstance(install, dict) else {})
        )
        parsed = parse_profile(text, path=rel, expected_id=profile_id)
        if not parsed.ok:
            line, column = lines.get(profile_id, (1, 1))
            failed.append(
                (
                    profile_id,
                    tuple(
                        msgspec.structs.replace(
                            d,
                            path=path.as_posix(),
                            line=line,
                            column=column,
                            message=f"agent_profiles.{profile_id}: {d.message}",
                        )
                        for d in parsed.diagnostics
                        if d.is_error
                    ),
                )
            )
            continue
        inline = entry.get("mcp_servers")
        unresolved: list[Diagnostic] = []
        for name, config in inline.items() if isinstance(inline, dict) else ():
            before = len(servers.failed)
            source = f"{path.name} agent_profiles.{profile_id}.mcp_servers"
            reason = servers.entry(source, name, config, None)
            if reason is None:
                continue
            detail = servers.failed[-1][1] if len(servers.failed) > before else reason
            line, column = lines.get((profile_id, name), lines.get(profile_id, (1, 1)))
            unresolved.append(
                make(
                    "mcp-server-unknown",
                    f"agent_profiles.{profile_id}.mcp_servers.{name}: not migrated ({detail}); "
                    f"{rel} was not written, so that no profile names a server the registry "
                    "lacks",
                    path=path.as_posix(),
                    line=line,
                    column=column,
                    severity=Severity.ERROR,
                    hint=_fix_hint(reason, name, path, os.fspath(vault)),
                )
            )
        if unresolved:
            failed.append((profile_id, tuple(unresolved)))
            continue
        write_in_vault(layout, target, text)
        if isinstance(inline, list):
            warnings.extend(_unknown(layout, servers.embedded, profile_id, inline, path, lines))
        written.append(rel)
    written[:0] = servers.written  # the registry files first: the profiles name them
    skipped[:0] = servers.skipped
    # A literal secret of an inline server went into the registry as a ${VAR} reference.
    warnings[:0] = [
        make(
            "literal-secret",
            note,
            path=rel,
            severity=Severity.WARNING,
            hint="the rendered files reference it",
        )
        for rel, note in servers.secrets
    ]
    return MigrationReport(tuple(written), tuple(skipped), tuple(failed), tuple(warnings))


def _servers(entry: dict[str, Any]) -> list[Any]:
    servers = entry.get("mcp_servers") or []
    return list(servers) if isinstance(servers, dict | list) else []


def _fix_hint(reason: str, name: str, config: Path, vault: str) -> str:
    if reason.startswith("conflict"):
        fix = (
            f"mcp-servers/{name}.md already defines a different {name!r}: make the two agree "
            f"(or rename the server in {config})"
        )
    elif reason.endswith("has errors"):
        fix = f"fix mcp-servers/{name}.md ('roster validate' names its problems)"
    else:
        fix = f"fix the server's settings in {config}"
    return f"{fix}, then run: roster --vault {vault} migrate-config {config}"


def _unknown(
    layout: VaultLayout,
    embedded: str,
    profile_id: str,
    names: list[Any],
    config: Path,
    lines: dict[str | tuple[str, str], tuple[int, int]],
) -> list[Diagnostic]:
    """A warning per listed server name the registry does not have."""
    found = []
    for name in names:
        name = str(name)
        if name == embedded or segment_problem(name) is not None:
            continue
        if layout.mcp_server_path(name, None).is_file():
            continue
        line, column = lines.get(profile_id, (1, 1))
        found.append(
            make(
                "mcp-server-unknown",
                f"agent_profiles.{profile_id}.mcp_servers: {name!r} is not in the registry "
                f"(config.yaml names it without its settings)",
                path=config.as_posix(),
                line=line,
                column=column,
                hint=f"add it: roster --vault {layout.root} mcp add {name} --command CMD "
                "--arg ARG... (or --url URL)",
            )
        )
    return found


def _entry_positions(text: str) -> dict[str | tuple[str, str], tuple[int, int]]:
    """Line and column of each ``agent_profiles`` entry, so failures point into config.yaml."""
    node = yaml.compose(text, Loader=yaml.SafeLoader)
    positions: dict[str | tuple[str, str], tuple[int, int]] = {}
    if not isinstance(node, yaml.MappingNode):
        return positions
    for key, value in node.value:
        if key.value == "agent_profiles" and isinstance(value, yaml.MappingNode):
            for entry_key, entry in value.value:
                mark = entry_key.start_mark
                positions[str(entry_key.value)] = (mark.line + 1, mark.column + 1)
                for field, servers in entry.value if isinstance(entry, yaml.MappingNode) else ():
                    if field.value == "mcp_servers" and isinstance(servers, yaml.MappingNode):
                        for server_key, _ in servers.value:
                            mark = server_key.start_mark
                            where = (str(entry_key.value), str(server_key.value))
                            positions[where] = (mark.line + 1, mark.column + 1)
    return positions
