"""Helpers for the resolution tests: write profiles and servers, build indexes two ways
(straight from the vault files, or through the real store and sync), find the Claude CLI."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest

from agent_roster.resolve.config import load_config
from agent_roster.resolve.index import ProfileIndex
from agent_roster.resolve.launch import LaunchSpec
from agent_roster.vault.loader import load_vault

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_VAULT = REPO / "examples" / "vault"
FENCE = "```"


def profile_md(
    ident: str | None,
    *,
    name: str | None = None,
    extends: str | None = None,
    frontmatter: dict[str, Any] | None = None,
    prose: Sequence[tuple[str, str]] = (),
    config: dict[str, Any] | None = None,
    tools: dict[str, list[str]] | None = None,
    mcp: list[str] | None = None,
    install: dict[str, list[str]] | None = None,
) -> str:
    """A profile.md: frontmatter, the prose sections in order, then the JSON blocks given."""
    lines = ["---"]
    if ident is not None:
        lines.append(f"id: {ident}")
    if name is not None:
        lines.append(f"name: {name}")
    if extends is not None:
        lines.append(f"extends: {extends}")
    lines += [f"{key}: {json.dumps(value)}" for key, value in (frontmatter or {}).items()]
    lines += ["---", ""]
    for heading, body in prose:
        lines += [f"## {heading}", "", body, ""]
    for heading, value in (
        ("Config", config),
        ("Tools", tools),
        ("MCP Servers", mcp),
        ("Install", install),
    ):
        if value is not None:
            lines += [f"## {heading}", "", FENCE + "json", json.dumps(value), FENCE, ""]
    return "\n".join(lines)


def server_md(name: str, **settings: Any) -> str:
    """An ``mcp-servers/<name>.md``; ``settings`` go into the frontmatter as JSON values."""
    lines = ["---", f"name: {name}"]
    lines += [f"{key}: {json.dumps(value)}" for key, value in settings.items()]
    return "\n".join([*lines, "---", "", f"# {name}", ""])


def system(ident: str) -> str:
    return f"agent-types/{ident}/profile.md"


def override(project: str, ident: str) -> str:
    return f"projects/{project}/agent-types/{ident}/profile.md"


def index_of(root: Path, **kwargs: Any) -> ProfileIndex:
    """An index straight from the files (the loader, no database): for merge rules."""
    loaded = load_config(root)
    snapshot = load_vault(root, embedded=loaded.config.embedded.name)
    profiles = [p.profile for p in snapshot.profiles.values() if p.profile is not None]
    servers = [s.server for s in snapshot.servers.values() if s.server is not None]
    return ProfileIndex(loaded.config, profiles, servers, **kwargs)


def origin(index: ProfileIndex, ident: str, field: str, project: str | None = None) -> str:
    """``path (section)`` of one field of an effective profile, as the CLI prints it."""
    found = index.effective(ident, project)
    assert found is not None, ident
    where = found.origins[field]
    return f"{where.path} ({where.section})"


def copy_example(dest: Path) -> Path:
    return Path(shutil.copytree(EXAMPLE_VAULT, dest))


def write_launch_files(spec: LaunchSpec) -> None:
    for path, text in spec.files.items():
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(text, encoding="utf-8")


def env_references(texts: Iterable[str]) -> set[str]:
    """Environment variables named as ``${VAR}`` in MCP configs (the launcher provides them)."""
    import re

    found: set[str] = set()
    for text in texts:
        found.update(re.findall(r"\$\{([A-Za-z_][A-Za-z0-9_]*)", text))
    return found


def claude_binary() -> str | None:
    """The Claude Code CLI: ``node_modules/.bin/claude`` under ``$ROSTER_CLAUDE_BIN`` when
    set, else ``claude`` on PATH, else the copy ``make test`` installs in ``.tools/npm``
    (``scripts/harness-clis``)."""
    roots = [Path(os.environ["ROSTER_CLAUDE_BIN"])] if os.environ.get("ROSTER_CLAUDE_BIN") else []
    for root in roots:
        for candidate in (root / "node_modules" / ".bin" / "claude", root / "claude"):
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    found = shutil.which("claude")
    if found is not None:
        return found
    local = REPO / ".tools" / "npm" / "node_modules" / ".bin" / "claude"
    return str(local) if os.access(local, os.X_OK) else None


def need_claude() -> str:
    found = claude_binary()
    if found is not None:
        return found
    reason = (
        "the Claude Code CLI is not installed (npm install --prefix .tools/npm "
        "@anthropic-ai/claude-code, then put .tools/npm/node_modules/.bin on PATH or set "
        "ROSTER_CLAUDE_BIN=.tools/npm)"
    )
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but {reason}")
    pytest.skip(reason)


def option_index(argv: Sequence[str], name: str) -> int:
    """Where ``name=VALUE`` is in ``argv`` (roster glues every value to its option)."""
    return next(i for i, arg in enumerate(argv) if arg.startswith(f"{name}="))


def option_value(argv: Sequence[str], name: str) -> str:
    """The value of ``name=VALUE`` in ``argv``."""
    return argv[option_index(argv, name)].partition("=")[2]
