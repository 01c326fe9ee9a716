"""Helpers shared by the markdown-frontmatter codecs (Claude Code, Cursor, Copilot).

Listing agent folders, reading one file with positions, turning a native prompt into
canonical sections, and reporting the canonical fields a target has no key for.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from agent_roster.codecs.base import Loss, LossOutcome
from agent_roster.codecs.native_io import read_text
from agent_roster.codecs.native_md import (
    NativeDocument,
    Recovery,
    harness_diagnostic,
    native_form,
    read_native_recovering,
    split_layout,
)
from agent_roster.codecs.prompt import import_body
from agent_roster.codecs.unloaded import report_not_loaded
from agent_roster.diagnostics import Diagnostic
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile, NativeForm, PromptSection


def list_files(folder: Path, suffix: str, *, recursive: bool) -> list[Path]:
    """Regular files under ``folder`` whose name ends with ``suffix`` (case-sensitive, as
    the harnesses glob), sorted; symlinks are followed, hidden files included."""
    if not folder.is_dir():
        return []
    candidates = folder.rglob("*") if recursive else folder.iterdir()
    return sorted(p for p in candidates if p.name.endswith(suffix) and p.is_file())


def list_agent_files(
    folder: Path, out: list[Diagnostic], *, harness: str, recursive: bool
) -> list[Path]:
    """The ``*.md`` agent files of ``folder`` (:func:`list_files`), with a
    ``harness-ignored`` warning in ``out`` for everything else there (README D13)."""
    files = list_files(folder, ".md", recursive=recursive)
    report_not_loaded(
        folder,
        files,
        out,
        harness=harness,
        rule="only *.md files are agents",
        hint="name it <agent>.md" + ("" if recursive else ", directly in the agents folder"),
        recursive=recursive,
    )
    return files


class AgentFile(NamedTuple):
    """One native agent file: its path (as text, for diagnostics) and parsed content."""

    path: str
    doc: NativeDocument


def read_agent_file(
    path: Path, out: list[Diagnostic], recovery: Recovery | None = None
) -> AgentFile | None:
    """Read and split ``path``; ``None`` with diagnostics when it cannot be read or its
    frontmatter is broken (after the harness's own ``recovery``, where it has one)."""
    where = str(path)
    text = read_text(path, out)
    if text is None:
        return None
    doc = read_native_recovering(text, where, out, recovery)
    return AgentFile(where, doc) if doc is not None else None


def key_position(doc: NativeDocument, key: str) -> tuple[int, int]:
    """1-based line and column of ``key`` in the frontmatter (1, 1 when absent)."""
    mark = doc.key_marks.get(key)
    return (mark.line, mark.column) if mark is not None else (1, 1)


def diag_at(
    doc: NativeDocument,
    path: str,
    key: str,
    code: str,
    message: str,
    hint: str,
    *,
    warning: bool = False,
) -> Diagnostic:
    """A harness diagnostic pointing at ``key`` of ``doc``."""
    line, column = key_position(doc, key)
    return harness_diagnostic(
        code, message, path=path, line=line, column=column, hint=hint, warning=warning
    )


def import_prompt(text: str, ident: str) -> tuple[tuple[PromptSection, ...], list[Loss]]:
    """A native prompt as canonical prose (D6: kept whole, byte for byte), with what import
    had to change."""
    imported = import_body(text)
    losses = [
        Loss(profile=ident, field="prompt", outcome=LossOutcome.TRANSLATED, detail=note)
        for note in imported.notes
    ]
    return imported.sections, losses


class ImportedDocument(NamedTuple):
    """A native markdown agent's prompt as canonical sections, the losses import reports
    for it, and the file's layout around it to remember (``AgentProfile.native``)."""

    sections: tuple[PromptSection, ...]
    losses: list[Loss]
    native: NativeForm


def import_document(doc: NativeDocument, ident: str, model: str = "") -> ImportedDocument:
    """The prompt of a native markdown agent file and what to remember of the file (with
    ``model``, the file's model string when the canonical one does not give it back)."""
    layout = split_layout(doc)
    sections, losses = import_prompt(layout.prompt, ident)
    return ImportedDocument(sections, losses, native_form(layout, model))


#: Canonical fields no markdown-agent harness has a key for, and why.
COMMON_DROPS: dict[str, str] = {
    "provider": "no model-vendor key; the model id is written as is",
    "temperature": "no sampling settings per agent",
    "top_p": "no sampling settings per agent",
    "mode": "no primary/subagent mode key (every file is a subagent)",
    "max_tokens_per_task": "no token budget per agent",
    "runtime": "the runtime is roster's launcher choice, not an agent setting",
    "agent_name": "the ACP agent name applies to the acpx runtime only",
}


def is_set(value: Any) -> bool:
    """Whether a canonical field holds something (empty values mean "default")."""
    if value is None or value is False:
        return False
    if isinstance(value, (str, tuple, list, dict)):
        return bool(value)
    return True


def dropped(profile: AgentProfile, fields: Mapping[str, str], title: str) -> list[Loss]:
    """A ``dropped`` loss for each field of ``fields`` that ``profile`` sets."""
    out = []
    for field, why in fields.items():
        value = getattr(profile, field)
        if field == "install":
            value = not profile.install.is_empty
        if is_set(value):
            out.append(
                Loss(
                    profile=profile.id,
                    field=field,
                    outcome=LossOutcome.DROPPED,
                    detail=f"{title}: {why}",
                )
            )
    return out


def name_loss(profile: AgentProfile, title: str) -> list[Loss]:
    """Display names are dropped where the id is the only name (D7)."""
    if profile.name and profile.name != profile.id:
        return [
            Loss(
                profile=profile.id,
                field="name",
                outcome=LossOutcome.DROPPED,
                detail=f"{title} names an agent by its id only; import sets name = id",
            )
        ]
    return []


def dedupe(items: Iterable[str]) -> list[str]:
    """``items`` without repeats, first occurrence kept."""
    return list(dict.fromkeys(items))


def referenced_servers(
    profiles: Iterable[AgentProfile], servers: Mapping[str, McpServer]
) -> tuple[dict[str, McpServer], dict[str, list[str]]]:
    """The registry servers the profiles reference, and the names they reference that the
    registry lacks (name → profile ids)."""
    found: dict[str, McpServer] = {}
    missing: dict[str, list[str]] = {}
    for profile in profiles:
        for name in profile.mcp_servers:
            if name in servers:
                found.setdefault(name, servers[name])
            else:
                missing.setdefault(name, []).append(profile.id)
    return found, missing


def read_settings_text(path: Path, out: list[Diagnostic]) -> str | None:
    """The text of a JSON settings or MCP file; ``None`` when it does not exist, or (with
    a located error in ``out``) when it cannot be read as UTF-8 text."""
    if not path.is_file():
        return None
    return read_text(path, out)
