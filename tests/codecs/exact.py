"""Native agents through the whole product: a harness's files are imported into a fresh
vault (``roster import``), the vault is rendered back to that harness (``roster render``)
and resolved (the runtime prompt ``roster resolve`` builds). Shared by the exact-prompt
tests (issue 12 items 1 and 4)."""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

import tomlkit

from agent_roster.argv import ArgvValueError
from agent_roster.commands.discover import ImportReport, import_agents
from agent_roster.commands.harness import RenderReport, render_agents
from agent_roster.resolve.cascade import resolve
from agent_roster.resolve.launch import build_cached

from ..resolve.helpers import index_of
from ..trees import build_tree

AGENT = "probe"
DESCRIPTION = "Probes things."


def _toml(**values: str) -> str:
    return tomlkit.dumps(values)


#: Each markdown harness's agent file for ``probe``: its path and its frontmatter.
_MARKDOWN = {
    "claude": (f".claude/agents/{AGENT}.md", f"name: {AGENT}\ndescription: {DESCRIPTION}\n"),
    "cursor": (f".cursor/agents/{AGENT}.md", f"name: {AGENT}\ndescription: {DESCRIPTION}\n"),
    "gemini": (f".gemini/agents/{AGENT}.md", f"name: {AGENT}\ndescription: {DESCRIPTION}\n"),
    "copilot": (f".github/agents/{AGENT}.agent.md", f"description: {DESCRIPTION}\n"),
    "opencode": (f".opencode/agents/{AGENT}.md", f"description: {DESCRIPTION}\nmode: subagent\n"),
    "kilo": (f".kilo/agents/{AGENT}.md", f"description: {DESCRIPTION}\nmode: subagent\n"),
    "qwen": (f".qwen/agents/{AGENT}.md", f"name: {AGENT}\ndescription: {DESCRIPTION}\n"),
    "qoder": (f".qoder/agents/{AGENT}.md", f"name: {AGENT}\ndescription: {DESCRIPTION}\n"),
    "droid": (f".factory/droids/{AGENT}.md", f"name: {AGENT}\ndescription: {DESCRIPTION}\n"),
    "agh": (f".agh/agents/{AGENT}/AGENT.md", f"name: {AGENT}\n"),
}


def native_files(harness: str, body: str) -> tuple[dict[str, str], str]:
    """The files of one agent ``probe`` of ``harness`` whose prompt is ``body``, laid out
    as people write them (frontmatter, a blank line, the body, a final line end), and the
    path of the file that holds the prompt."""
    if harness in _MARKDOWN:
        rel, front = _MARKDOWN[harness]
        return {rel: f"---\n{front}---\n\n{body}\n"}, rel
    if harness == "defect":
        folder = f".defect/agents/{AGENT}"
        files = {
            f"{folder}/config.toml": _toml(description=DESCRIPTION),
            f"{folder}/system.md": f"{body}\n",
            ".git/HEAD": "ref: refs/heads/main\n",
        }
        return files, f"{folder}/system.md"
    if harness == "codex":
        text = _toml(name=AGENT, description=DESCRIPTION, developer_instructions=f"{body}\n")
        return {f".codex/agents/{AGENT}.toml": text}, f".codex/agents/{AGENT}.toml"
    raise ValueError(harness)


class RoundTrip(NamedTuple):
    """What one trip did: the import and render reports, the vault's profile.md, the
    rendered text of every file (by path), and the runtime prompt of the imported profile."""

    imported: ImportReport
    rendered: RenderReport
    profile_md: str
    files: dict[str, str]
    #: None when the prompt holds a NUL: no argv can carry one, so roster refuses the launch
    runtime_prompt: str | None


def round_trip(
    harness: str,
    files: Mapping[str, str],
    *,
    edit: tuple[str, str] | None = None,
    root: Path | None = None,
) -> RoundTrip:
    """Import ``files`` (a workspace) into a new vault, optionally replace ``edit[0]`` by
    ``edit[1]`` in the imported profile.md, and render the vault back to ``harness``."""
    base = root or Path(tempfile.mkdtemp(prefix=f"exact-{harness}-"))
    workspace, home, vault, out = (base / name for name in ("ws", "home", "vault", "out"))
    for folder in (workspace, home, vault / "agent-types", out):
        folder.mkdir(parents=True, exist_ok=True)
    build_tree(workspace, {path: text.encode("utf-8") for path, text in files.items()})
    imported = import_agents(vault, harness, workspace=workspace, home=home)
    paths = sorted(vault.glob("agent-types/*/profile.md"))
    assert len(paths) == 1, [d.format() for d in imported.diagnostics]
    text = paths[0].read_bytes().decode("utf-8")
    if edit is not None:
        assert edit[0] in text
        text = text.replace(edit[0], edit[1], 1)
        paths[0].write_bytes(text.encode("utf-8"))
    rendered = render_agents(vault, [harness], out=out)
    written = {
        path.relative_to(out).as_posix(): path.read_bytes().decode("utf-8")
        for path in out.rglob("*")
        if path.is_file()
    }
    index = index_of(vault)
    ident = paths[0].parent.name
    try:
        prompt: str | None = build_cached(
            index, resolve(index, profile=ident), base / "state"
        ).system_prompt
    except ArgvValueError:
        prompt = None
    return RoundTrip(imported, rendered, text, written, prompt)
