"""Line-level edits of YAML frontmatter, shared by profile and MCP server files.

A top-level key owns its own line and every following line up to the next top-level key
(continuation lines of a block list, a mapping or a multi-line string); comment and blank
lines right before the next key or the closing ``---`` stay where they are. New keys go just
before the closing ``---``. A value is written in the first of three spellings that our
YAML 1.2 loader reads back as exactly that value (flow list, PyYAML block style, JSON), so
YAML 1.1 surprises (``no``, ``0o17``, ``1e3``) can never change what was asked for.
"""

from __future__ import annotations

import json
import re
from enum import Enum
from typing import Any

import yaml

from agent_roster.diagnostics import Diagnostic
from agent_roster.errors import InvalidDocumentError, UsageError
from agent_roster.vault.frontmatter import Frontmatter, read_frontmatter


class Delete(Enum):
    DELETE = "delete"


DELETE = Delete.DELETE
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")
_WIDTH = 1 << 16


def check_key(key: str) -> str:
    """A frontmatter key we can write as a plain YAML key."""
    if not isinstance(key, str) or not _KEY.match(key):
        raise UsageError(
            f"{key!r} is not a frontmatter key that can be edited",
            hint="keys are letters, digits, '_' and '-', starting with a letter",
        )
    return key


def read(text: str, path: str) -> Frontmatter:
    """The frontmatter of ``text``; InvalidDocumentError when it is not readable YAML."""
    out: list[Diagnostic] = []
    fm = read_frontmatter(text, path, out)
    if out or not fm.present:
        raise InvalidDocumentError(
            f"cannot edit {path}: its frontmatter cannot be read; fix it first",
            out,
            hint="the file must start with a --- line, YAML keys, and a closing --- line",
        )
    return fm


def set_key(text: str, fm: Frontmatter, key: str, value: Any, *, path: str) -> str:
    """``text`` with frontmatter ``key`` set to ``value`` (or removed, for DELETE)."""
    if not fm.present:
        return text if value is DELETE else "---\n" + entry(key, value) + "---\n" + text
    marks = fm.key_marks
    if any(m.column != 1 for m in marks.values()) or len({m.line for m in marks.values()}) < len(
        marks
    ):
        raise UsageError(
            f"cannot edit the frontmatter of {path}: it is not one 'key: value' per line",
            hint="rewrite it as a block mapping, one key per line",
        )
    lines = text.splitlines(keepends=True)
    if key not in marks:
        if value is DELETE:
            return text
        at = fm.end_line - 1  # the closing --- line, 0-based
        return "".join([*lines[:at], entry(key, value), *lines[at:]])
    start = marks[key].line
    stop = min((m.line for m in marks.values() if m.line > start), default=fm.end_line)
    while stop - 1 > start and _kept(lines[stop - 2]):
        stop -= 1
    new = [] if value is DELETE else [entry(key, value)]
    return "".join([*lines[: start - 1], *new, *lines[stop - 1 :]])


def _kept(line: str) -> bool:
    """Blank lines and column-1 comments between keys belong to no key."""
    return not line.strip() or line.startswith("#")


def entry(key: str, value: Any) -> str:
    """``key: value`` as one frontmatter entry (with its newline) that reads back exactly."""
    value = _plain(value)
    candidates = []
    if isinstance(value, list) and all(not isinstance(v, list | dict) for v in value):
        flow = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=_WIDTH)
        candidates.append(f"{key}: {flow.strip()}\n")
    candidates.append(
        yaml.safe_dump(
            {key: value},
            default_flow_style=False,
            sort_keys=False,
            allow_unicode=True,
            width=_WIDTH,
        )
    )
    candidates.append(f"{key}: {json.dumps(value, ensure_ascii=False)}\n")
    wanted = json.dumps(value, sort_keys=True)
    for candidate in candidates:
        out: list[Diagnostic] = []
        fm = read_frontmatter(f"---\n{candidate}---\n", "entry", out)
        if not out and set(fm.data) == {key} and json.dumps(fm.data[key], sort_keys=True) == wanted:
            return candidate
    raise UsageError(f"cannot write {key!r}: {value!r} has no exact YAML spelling")


def _plain(value: Any) -> Any:
    """Tuples to lists, recursively; anything that is not JSON-like is refused."""
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if value is None or isinstance(value, str | bool | int | float):
        return value
    raise UsageError(f"cannot write {value!r} into frontmatter: not a plain value")
