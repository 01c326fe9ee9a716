"""Reading Factory Droid custom droids and MCP files the way ``droid`` 0.225.2 does.

Read in the 0.225.2 binary (its JavaScript is readable) and checked with ``droid exec``
against the fake model (tests/codecs/test_droid_cli.py):

* every ``*.md`` entry directly in ``.factory/droids/`` is read (hidden names, names
  starting with ``_`` and symlinks too; subfolders are not looked into);
* the frontmatter is ``^---\\r?\\n(…)\\r?\\n---\\r?\\n?`` on the raw text: a byte order
  mark or no frontmatter makes the whole file the prompt; YAML that does not parse (or is
  not a mapping) is read again by Droid's line parser (:func:`fallback_parse`);
* a value of the wrong type for ``name``, ``description``, ``model``, ``reasoningEffort``,
  ``tools`` or ``mcpServers`` drops the **whole frontmatter**: the droid is named after its
  file and gets every tool;
* the name is the ``name`` key, else the file name; the body, trimmed, is the prompt.

Droid lists every such file (its validation runs only in the ``/droids`` menu), so
nothing here is refused: a file whose frontmatter Droid drops is a warning, since the
droid it makes has every tool.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, NamedTuple

from agent_roster.codecs import native_io
from agent_roster.codecs.native_md import NativeDocument, cut_layout, read_native
from agent_roster.diagnostics import Diagnostic

AGENTS_DIR = ".factory/droids"
MCP_FILE = ".factory/mcp.json"
#: Droid's own subagents (``worker``, ``explorer``); a custom droid of one of those names
#: takes its place.
BUILTIN_DROIDS = frozenset({"worker", "explorer"})
#: Droid's rule for a name (``/droids`` refuses others; the Task tool does not check).
NAME = re.compile(r"[a-z0-9_-]+")
_FRONTMATTER = re.compile(r"---\r?\n([\s\S]*?)\r?\n---\r?\n?")
_LIST_KEYS = frozenset({"tools", "mcpServers"})


class DroidFile(NamedTuple):
    """One droid file as Droid reads it: its frontmatter (``{}`` when there is none or
    Droid dropped it), the prompt exactly (Droid trims it) with the text around it, and
    whether the frontmatter was dropped for a wrong type (``dropped`` says which key)."""

    name: str
    data: dict[str, Any]
    head: str
    prompt: str
    tail: str
    path: Path
    dropped: str
    doc: NativeDocument | None


def fallback_parse(text: str) -> dict[str, Any]:
    """Droid's line parser for frontmatter its YAML parser refused: ``key: value`` lines
    (the first ``:`` splits), surrounding quotes taken off, ``[…]``/``{…}`` read as JSON,
    ``true``/``false`` as booleans, and ``tools``/``mcpServers`` as lists (``- item``
    lines under an empty value, or a comma-separated value)."""
    data: dict[str, Any] = {}
    current: str | None = None
    for line in text.split("\n"):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if current is not None and stripped.startswith("- "):
            item = _unquote(stripped[2:].strip())
            data[current].append(item)
            continue
        colon = stripped.find(":")
        if colon < 0:
            continue
        key, value = stripped[:colon].strip(), _unquote(stripped[colon + 1 :].strip())
        current = None
        if value.startswith(("[", "{")):
            try:
                data[key] = json.loads(value)
                continue
            except ValueError:
                pass
        if value in ("true", "false"):
            data[key] = value == "true"
        elif key in _LIST_KEYS and not value:
            data[key] = []
            current = key
        elif key in _LIST_KEYS and not value.startswith("["):
            data[key] = [part.strip() for part in value.split(",")]
        else:
            data[key] = value
    return data


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def schema_problem(data: dict[str, Any]) -> str:
    """Droid's frontmatter schema (0.225.2): the first key whose value has the wrong type
    ("" when none has). ``mcpServers`` may also be a comma-separated string."""
    for key in ("name", "description", "model", "reasoningEffort"):
        if key in data and not isinstance(data[key], str):
            return f"{key} must be a string"
    if "tools" in data and not (isinstance(data["tools"], str) or _strings(data["tools"])):
        return "tools must be a string or a list of strings"
    if "mcpServers" in data and not (
        isinstance(data["mcpServers"], str) or _strings(data["mcpServers"])
    ):
        return "mcpServers must be a list of server names"
    return ""


def mcp_servers_value(value: Any) -> list[str]:
    """``mcpServers`` as Droid reads it (a string is split at commas)."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return list(value or ())


def parse_droid(text: str, path: Path) -> DroidFile:
    """The droid Droid makes of ``text`` (see the module docstring)."""
    found = _FRONTMATTER.match(text)
    stem = path.name[: -len(".md")] if path.name.endswith(".md") else path.stem
    if found is None:
        head, prompt, tail = cut_layout("", text, blank_line=False)
        return DroidFile(stem, {}, head, prompt, tail, path, "", None)
    frontmatter = found.group(1)
    doc = read_native(f"---\n{frontmatter}\n---\n", str(path), [])
    data: dict[str, Any] = doc.data if doc is not None and doc.has_frontmatter else {}
    if doc is None or not isinstance(data, dict) or not _yaml_mapping(frontmatter):
        data = fallback_parse(frontmatter)
        doc = None
    dropped = schema_problem(data)
    if dropped:
        data = {}
    name = data.get("name") or stem
    head, prompt, tail = cut_layout(text[: found.end()], text[found.end() :])
    return DroidFile(name, data, head, prompt, tail, path, dropped, doc)


def _yaml_mapping(frontmatter: str) -> bool:
    # An empty frontmatter is YAML null, which Droid hands to its line parser (an empty
    # mapping either way).
    return bool(frontmatter.strip())


def droid_files(folder: Path) -> list[Path]:
    """The entries Droid reads in ``folder``: every name ending in ``.md`` directly in it
    (symlinks followed), in name order; a folder so named is read and fails (skipped)."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.name.endswith(".md"))


def read_droid(path: Path, out: list[Diagnostic]) -> DroidFile | None:
    """One droid file (``None`` when it cannot be read: Droid logs "Failed to load droid
    file" and goes on)."""
    if not path.is_file():
        return None
    text = native_io.read_text(path, out)
    if text is None:
        return None
    return parse_droid(text, path)
