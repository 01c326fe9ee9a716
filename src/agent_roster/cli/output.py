"""Rendering command results for terminals, JSON and GitHub workflow annotations."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import Any, TextIO

from agent_roster.diagnostics import Diagnostic, Severity
from agent_roster.model.profile import AgentProfile


def emit_json(data: Any, stream: TextIO | None = None) -> None:
    (stream or sys.stdout).write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotation(d: Diagnostic) -> str:
    """A GitHub Actions workflow command that annotates the line in the PR diff."""
    level = "error" if d.severity is Severity.ERROR else "warning"
    message = d.message + (f" (hint: {d.hint})" if d.hint else "")
    return (
        f"::{level} file={_escape_property(d.path)},line={d.line},col={d.column},"
        f"title={_escape_property(d.code)}::{_escape_data(message)}"
    )


def print_diagnostics(diagnostics: Iterable[Diagnostic], fmt: str, stream: TextIO) -> None:
    for d in diagnostics:
        stream.write((github_annotation(d) if fmt == "github" else d.format()) + "\n")


def profile_text(profile: AgentProfile) -> str:
    """A readable summary of a profile for ``roster show``."""
    rows: list[tuple[str, str]] = [
        ("id", profile.id),
        ("name", profile.name),
        ("description", profile.description),
        ("source", profile.source),
        ("project", profile.project or ""),
        ("extends", profile.extends or ""),
        ("tags", ", ".join(profile.tags)),
        ("model", profile.model),
        ("provider", profile.provider),
        ("permission_mode", profile.permission_mode),
        ("runtime", profile.runtime.value if profile.runtime else ""),
        ("agent_name", profile.agent_name),
        ("max_tokens_per_task", str(profile.max_tokens_per_task or "")),
        ("max_turns", str(profile.max_turns or "")),
        ("allowed_tools", ", ".join(profile.allowed_tools)),
        ("denied_tools", ", ".join(profile.denied_tools)),
        ("mcp_servers", ", ".join(profile.mcp_servers)),
        ("install.npm", ", ".join(profile.install.npm)),
        ("install.pip", ", ".join(profile.install.pip)),
        ("install.commands", ", ".join(profile.install.commands)),
    ]
    width = max(len(k) for k, _ in rows)
    lines = [f"{k.ljust(width)}  {v}" for k, v in rows if v]
    if profile.permission:
        lines.append("permission:")
        lines.extend(f"  {r.permission} {r.pattern} → {r.action.value}" for r in profile.permission)
    if profile.prompt:
        lines.append("")
        lines.append(profile.prompt)
    return "\n".join(lines) + "\n"
