"""Where the Copilot CLI finds agents and MCP servers, and which one wins (issue 16 item 2).

Everything here was seen with the real CLI (``@github/copilot`` 1.0.102, the oracle tests
in ``tests/codecs/test_copilot_cli.py``), and differs from what the docs led us to assume:

* **Agent layers**, first wins: the user's ``~/.copilot/agents/``, then the project's
  ``.github/agents/``, then the project's ``.claude/agents/``. The user's agent wins over a
  project agent of the same id, trusted folder or not.
* **Recursive**: ``.github/agents/sub/x.agent.md`` is the agent ``sub--x``. Hidden files
  and folders are passed over; ``*.md`` is case-sensitive. In one layer, ``x.agent.md``
  wins over ``x.md``, and ``sub--x.agent.md`` over ``sub/x.agent.md`` (the first in
  path order).
* **MCP files**: the user's ``~/.copilot/mcp-config.json``, then the workspace's
  ``.mcp.json``, or ``.github/mcp.json`` when there is no ``.mcp.json``; a workspace
  server replaces a user server of the same name. The workspace files are read only in a
  trusted folder (``trustedFolders`` / ``trusted_folders`` in ``~/.copilot/config.json``
  naming the folder or one above it, or ``COPILOT_ALLOW_ALL=true``). ``.vscode/mcp.json``
  is never read by the CLI (VS Code reads it).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from agent_roster.codecs.native_io import parse_json, read_text
from agent_roster.codecs.unloaded import report_not_loaded
from agent_roster.diagnostics import Diagnostic

USER_AGENTS = ".copilot/agents"
PROJECT_AGENTS = ".github/agents"
CLAUDE_AGENTS = ".claude/agents"
USER_MCP = ".copilot/mcp-config.json"
WORKSPACE_MCP = ".mcp.json"
GITHUB_MCP = ".github/mcp.json"
VSCODE_MCP = ".vscode/mcp.json"
USER_CONFIG = ".copilot/config.json"
#: ``COPILOT_ALLOW_ALL`` trusts the folder only when it is exactly this (``copilot help
#: environment``); other true spellings only approve tools.
ALLOW_ALL_TRUSTS = "true"


class Layer(NamedTuple):
    """One folder of agent files, in precedence order (``rank`` 0 wins)."""

    rank: int
    label: str  # user / project / claude
    folder: Path


class AgentPath(NamedTuple):
    """One agent file the CLI loads and the id it gives it."""

    ident: str
    path: Path
    layer: Layer


def layers(home: Path, workspace: Path) -> tuple[Layer, ...]:
    """The agent folders in the order the CLI lets them win."""
    return (
        Layer(0, "user", home / USER_AGENTS),
        Layer(1, "project", workspace / PROJECT_AGENTS),
        Layer(2, "claude", workspace / CLAUDE_AGENTS),
    )


def agent_id(relative: Path) -> str:
    """``sub/x.agent.md`` → ``sub--x``; ``x.md`` → ``x``."""
    stem = relative.name.removesuffix(".md").removesuffix(".agent")
    return "--".join((*relative.parent.parts, stem))


def _walk(folder: Path) -> Iterator[Path]:
    """Every ``*.md`` file below ``folder``, hidden files and folders left out."""
    for root, dirs, files in os.walk(folder, followlinks=True):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            path = Path(root, name)
            if not name.startswith(".") and name.endswith(".md") and path.is_file():
                yield path


def agent_files(layer: Layer, out: list[Diagnostic]) -> list[AgentPath]:
    """The layer's agent files in the order the CLI reads them (path order), with a
    ``harness-ignored`` warning for every other visible file there (README D13)."""
    folder = layer.folder
    if not folder.is_dir():
        return []
    found = sorted(_walk(folder), key=lambda p: p.relative_to(folder).as_posix())
    report_not_loaded(
        folder,
        found,
        out,
        harness="Copilot",
        rule="only *.md files are agents",
        hint="name it <agent>.agent.md",
        recursive=True,
    )
    return [AgentPath(agent_id(p.relative_to(folder)), p, layer) for p in found]


# --- trust ------------------------------------------------------------------------------

_LINE_COMMENT = re.compile(r"^\s*//.*$", re.M)


def trusted(workspace: Path, home: Path, environ: dict[str, str] | None = None) -> bool:
    """Whether the CLI trusts ``workspace``: ``COPILOT_ALLOW_ALL=true``, or a trusted folder
    in ``~/.copilot/config.json`` that is the workspace or one of its parents."""
    env = os.environ if environ is None else environ
    if env.get("COPILOT_ALLOW_ALL", "").strip() == ALLOW_ALL_TRUSTS:
        return True
    path = home / USER_CONFIG
    # The CLI's own settings, not agent content: a broken file trusts nothing, quietly.
    text = read_text(path, []) if path.is_file() else None
    config = parse_json(_LINE_COMMENT.sub("", text)) if text is not None else None
    if not isinstance(config, dict):
        return False
    here = workspace.resolve()
    for key in ("trustedFolders", "trusted_folders"):
        folders = config.get(key)
        if not isinstance(folders, list):
            continue
        for entry in folders:
            if isinstance(entry, str) and entry.strip():
                try:
                    folder = Path(entry).expanduser().resolve()
                except (OSError, RuntimeError, ValueError):  # ~nobody/, a NUL byte
                    continue
                if here == folder or folder in here.parents:
                    return True
    return False


def workspace_mcp(workspace: Path) -> Path | None:
    """The workspace MCP file the CLI reads: ``.mcp.json``, else ``.github/mcp.json``."""
    for rel in (WORKSPACE_MCP, GITHUB_MCP):
        path = workspace / rel
        if path.is_file():
            return path
    return None
