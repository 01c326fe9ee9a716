"""Reading CLI option values into command parameters: ``KEY=VALUE`` pairs, values that are
JSON when they parse as JSON, and the ``base_hash`` a write is based on."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_roster.errors import UsageError

if TYPE_CHECKING:
    from agent_roster.vault.paths import VaultLayout


def pairs(values: Iterable[str], what: str) -> dict[str, str]:
    """Repeated ``KEY=VALUE`` options as a mapping."""
    found: dict[str, str] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"{what} {item!r} is not KEY=VALUE")
        found[key] = value
    return found


def json_value(text: str) -> Any:
    """An option value that is JSON when it parses as JSON, else the text as a string."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def base_hash(layout: VaultLayout, path: Path, given: str | None) -> str:
    """The ``base_hash`` of a write from the terminal: the one given (``--base-hash``), else
    the file's as it is now, since a person at a terminal edits what is on disk; empty when
    the file does not exist (the command then says so in its own words)."""
    if given is not None:
        return given
    from agent_roster.commands.writes import current_hash
    from agent_roster.errors import NotFoundError

    try:
        return current_hash(layout, path)
    except NotFoundError:
        return ""
