"""The ``[sources.<name>]`` tables of roster.toml: what the vault's owner asked for. Read
with tomllib; written with tomlkit so every comment and key of the file stays as it was."""

from __future__ import annotations

from typing import Any

import tomlkit

from agent_roster.errors import UsageError
from agent_roster.sources.lock import Declared
from agent_roster.vault.guard import exists_in_vault, read_in_vault
from agent_roster.vault.paths import VaultLayout
from agent_roster.vault.toml_syntax import TomlProblem, parse_toml
from agent_roster.vault.writer import write_in_vault


def declared_sources(layout: VaultLayout) -> dict[str, Declared]:
    table = _read(layout).get("sources", {})
    if not isinstance(table, dict):
        raise UsageError("roster.toml [sources] must be a table of [sources.<name>] tables")
    found: dict[str, Declared] = {}
    for name, entry in table.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("url"), str):
            raise UsageError(f'roster.toml [sources.{name}] needs url = "..."')
        only = entry.get("only", [])
        found[name] = Declared(
            url=entry["url"],
            ref=str(entry.get("ref", "")),
            path=str(entry.get("path", "")),
            only=tuple(str(item) for item in only) if isinstance(only, list) else (),
        )
    return found


def write_declaration(layout: VaultLayout, name: str, declared: Declared | None) -> None:
    """Add, replace (``declared``) or remove (``None``) ``[sources.<name>]``."""
    path = layout.config_path
    text = read_in_vault(layout, path).decode("utf-8") if exists_in_vault(layout, path) else ""
    document = tomlkit.parse(text)
    sources = document.get("sources")
    if sources is None:
        if declared is None:
            return
        sources = tomlkit.table(is_super_table=True)
        document["sources"] = sources
    if declared is None:
        sources.pop(name, None)
        if not sources:
            document.pop("sources")
    else:
        entry = tomlkit.table()
        entry["url"] = declared.url
        for key, value in (("ref", declared.ref), ("path", declared.path)):
            if value:
                entry[key] = value
        if declared.only:
            entry["only"] = list(declared.only)
        sources[name] = entry
    write_in_vault(layout, path, tomlkit.dumps(document), overwrite=True)


def _read(layout: VaultLayout) -> dict[str, Any]:
    path = layout.config_path
    if not exists_in_vault(layout, path):
        return {}
    try:
        found = parse_toml(read_in_vault(layout, path).decode("utf-8"))
    except UnicodeDecodeError:
        found = TomlProblem(1, 1, "not UTF-8", "")
    if isinstance(found, TomlProblem):  # deep nesting and long numbers included (issue 11)
        raise UsageError(
            f"roster.toml cannot be read: {found.message} at line {found.line}, column "
            f"{found.column}",
            hint="'roster validate' shows where",
        )
    return found
