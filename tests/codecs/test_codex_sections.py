"""A Codex role file's server tables are written from text kept per table (codex/render.py
``_server_section``); the role must come out byte for byte as tomlkit writes the whole
document, and still parse to the same tables."""

from __future__ import annotations

import tomllib
from typing import Any

import tomlkit
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_roster.codecs.codex.render import (
    _multiline,
    _plain_head_text,
    _server_section,
    _table,
)
from agent_roster.codecs.toml_text import tomlkit_document

_NAMES = st.from_regex(r"[A-Za-z0-9_-]{1,12}", fullmatch=True)
_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20)
_SCALARS = st.one_of(_TEXT, st.booleans(), st.integers(-(2**40), 2**40))
_VALUES = st.one_of(
    _SCALARS,
    st.lists(_TEXT, max_size=4),
    st.dictionaries(_NAMES, _TEXT, max_size=3),
)
_TABLES = st.dictionaries(_NAMES, st.dictionaries(_NAMES, _VALUES, min_size=1, max_size=5))


def _whole(keys: dict[str, Any], tables: dict[str, dict[str, Any]]) -> str:
    # What the render wrote before: every table built into the one tomlkit document.
    doc = tomlkit.document()
    for key, value in keys.items():
        doc[key] = value
    if tables:
        super_table = tomlkit.table(is_super_table=True)
        for name, table in tables.items():
            super_table[name] = _table(table)
        doc["mcp_servers"] = super_table
    return tomlkit.dumps(doc)


@settings(max_examples=200, deadline=None)
@given(description=_TEXT, prompt=_TEXT, tables=_TABLES)
def test_sections_join_to_the_whole_document(
    description: str, prompt: str, tables: dict[str, dict[str, Any]]
) -> None:
    keys = {
        "name": "role",
        "description": description,
        "developer_instructions": _multiline(prompt),
    }
    head = tomlkit.document()
    for key, value in keys.items():
        head[key] = value
    joined = tomlkit.dumps(head) + "".join(map(_server_section, tables.items()))
    whole = _whole(keys, tables)
    assert joined == whole
    assert tomllib.loads(joined).get("mcp_servers", {}) == tables


_ANY_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)


@settings(max_examples=300, deadline=None)
@given(
    name=_ANY_TEXT,
    description=_ANY_TEXT,
    model=st.one_of(st.none(), _ANY_TEXT),
    modes=st.sampled_from([(), ("read-only",), ("workspace-write", "on-request")]),
    prompt=_ANY_TEXT,
    tail=st.sampled_from(["\n", "", "\r\n", "\n\n"]),
)
def test_the_role_keys_are_written_as_tomlkit_writes_them(
    name: str,
    description: str,
    model: str | None,
    modes: tuple[str, ...],
    prompt: str,
    tail: str,
) -> None:
    # The role's keys are written without tomlkit unless harness.codex passes keys
    # through: byte for byte what tomlkit writes (control characters, quotes, backslashes,
    # DEL, unicode, literal and basic prompts alike), and TOML that reads back the same.
    keys: dict[str, Any] = {"name": name, "description": description}
    if model is not None:
        keys["model"] = model
    keys.update(zip(("sandbox_mode", "approval_policy"), modes, strict=False))
    keys["developer_instructions"] = _multiline(prompt, tail)
    fast = _plain_head_text(keys)
    assert fast == tomlkit_document(keys)
    loaded = tomllib.loads(fast)
    assert loaded["description"] == description and loaded["name"] == name


def test_a_table_seen_again_is_not_rebuilt() -> None:
    table = {"command": "npx", "args": ["-y", "server"], "enabled_tools": ["a"]}
    first = _server_section(("docs", table))
    again = _server_section(("docs", dict(table)))
    assert first is again  # the kept text, not a new build
    other = _server_section(("docs", {**table, "enabled_tools": ["b"]}))
    assert other != first and 'enabled_tools = ["b"]' in other
