"""``migrate-config``: move a legacy ``config.yaml`` ``agent_profiles:`` section into the vault.

Seed 001 "Backward Compatibility": profiles once lived in config.yaml. Each entry becomes
``agent-types/<id>/profile.md``. A file that already exists is never touched (hand-written
files win), so the migration is idempotent; every entry is reported as written, skipped (and
why) or failed (with the diagnostics of the markdown it would have produced).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, NamedTuple

import msgspec
import yaml

from agent_roster.diagnostics import Diagnostic
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
    written: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...]
    failed: tuple[tuple[str, tuple[Diagnostic, ...]], ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "written": list(self.written),
            "skipped": [{"path": p, "reason": r} for p, r in self.skipped],
            "failed": [
                {"id": i, "diagnostics": [d.to_dict() for d in ds]} for i, ds in self.failed
            ],
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
    written: list[str] = []
    skipped: list[tuple[str, str]] = []
    failed: list[tuple[str, tuple[Diagnostic, ...]]] = []
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
        write_in_vault(layout, target, text)
        written.append(rel)
    return MigrationReport(tuple(written), tuple(skipped), tuple(failed))


def _servers(entry: dict[str, Any]) -> list[Any]:
    servers = entry.get("mcp_servers") or []
    return list(servers) if isinstance(servers, dict | list) else []


def _entry_positions(text: str) -> dict[str, tuple[int, int]]:
    """Line and column of each ``agent_profiles`` entry, so failures point into config.yaml."""
    node = yaml.compose(text, Loader=yaml.SafeLoader)
    positions: dict[str, tuple[int, int]] = {}
    if not isinstance(node, yaml.MappingNode):
        return positions
    for key, value in node.value:
        if key.value == "agent_profiles" and isinstance(value, yaml.MappingNode):
            for entry_key, _ in value.value:
                mark = entry_key.start_mark
                positions[str(entry_key.value)] = (mark.line + 1, mark.column + 1)
    return positions
