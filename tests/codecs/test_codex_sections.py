"""A Codex role file's server tables are written from text kept per table (codex/render.py
``_server_section``); the role must come out byte for byte as tomlkit writes the whole
document, and still parse to the same tables."""

from __future__ import annotations

import tomllib
from typing import Any

import tomlkit
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from agent_roster.codecs.base import RenderRequest
from agent_roster.codecs.codex.render import (
    AGENTS_DIR,
    _multiline,
    _plain_head_text,
    _server_section,
    _table,
    render_profile,
)
from agent_roster.codecs.native_md import recalled_reading, remembering_written
from agent_roster.codecs.toml_text import plain_table, tomlkit_document
from agent_roster.model.profile import AgentProfile, PromptSection

from .test_codex import SERVERS  # a stdio server with env, an HTTP one with headers

_NAMES = st.from_regex(r"[A-Za-z0-9_-]{1,12}", fullmatch=True)
_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20)
_SCALARS = st.one_of(_TEXT, st.booleans(), st.integers(-(2**40), 2**40))
_VALUES = st.one_of(
    _SCALARS,
    st.lists(_TEXT, max_size=4),
    st.dictionaries(_NAMES, _TEXT, max_size=3),
    # Shapes toml_text.plain_table leaves to tomlkit: a float, a list of numbers, a key
    # that needs quotes, a nested mapping.
    st.floats(allow_nan=False, allow_infinity=False),
    st.lists(st.integers(-5, 5), min_size=1, max_size=3),
    st.dictionaries(st.text(max_size=4), _TEXT, min_size=1, max_size=2),
    st.dictionaries(_NAMES, st.dictionaries(_NAMES, _TEXT, max_size=2), min_size=1, max_size=2),
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
    assert loaded["developer_instructions"] == prompt + tail


def test_a_table_tomlkit_builds_is_not_rebuilt() -> None:
    # A table of a shape written without tomlkit is written at once; one tomlkit has to
    # build (a float here) is built once per content.
    table = {"command": "npx", "args": ["-y", "server"], "startup_timeout_sec": 2.5}
    first = _server_section(("docs", table))
    again = _server_section(("docs", dict(table)))
    assert first is again  # the kept text, not a new build
    other = _server_section(("docs", {**table, "enabled_tools": ["b"]}))
    assert other != first and 'enabled_tools = ["b"]' in other
    plain = {"command": "npx", "args": ["-y", "server"], "enabled_tools": ["a"]}
    assert plain_table(("mcp_servers", "docs"), plain) == _server_section(("docs", plain))
    assert plain_table(("mcp_servers", "docs"), table) is None


_PASSED = st.dictionaries(
    st.sampled_from(["model_reasoning_effort", "nickname_candidates", "web_search"]),
    st.one_of(_TEXT, st.lists(_TEXT, max_size=3)),
    max_size=2,
)


@settings(max_examples=200, deadline=None)
@given(
    body=_ANY_TEXT,
    mode=st.sampled_from(["", "plan", "acceptEdits", "bypassPermissions"]),
    servers=st.lists(st.sampled_from(["tool", "docs"]), unique=True),
    allowed=st.lists(
        st.sampled_from(["Read", "Bash", "mcp__tool__run", "mcp__docs__search", "mcp__docs__*"]),
        unique=True,
    ),
    passed=_PASSED,
)
def test_the_render_check_reads_each_role_as_tomllib_does(
    body: str, mode: str, servers: list[str], allowed: list[str], passed: dict[str, Any]
) -> None:
    # The render check takes a role it just wrote from what render_profile remembered
    # (the role as written, or parsed with an empty prompt), not from parsing the role
    # again: the two must be the same mapping but for the prompt, for any prompt, with
    # tomlkit's document (keys passed through) or without.
    assume(body.strip())  # Codex requires a prompt: a blank one is refused
    agent = AgentProfile(
        id="helper",
        name="helper",
        description="Helps.",
        permission_mode=mode,
        mcp_servers=tuple(servers),
        allowed_tools=tuple(allowed),
        harness={"codex": passed} if passed else {},
        sections=(PromptSection(heading="Role", body=body),),
    )
    request = RenderRequest(profiles=(agent,), servers=SERVERS)
    with remembering_written():
        rendered = render_profile(agent, request, [], [])
        assert rendered is not None
        content = rendered[0]
        found, reading = recalled_reading(content, f"{AGENTS_DIR}/helper.toml")
    assert found
    parsed = tomllib.loads(content)
    # The remembered reading is the role as Codex reads it, less the prompt no decision reads.
    assert "developer_instructions" not in reading
    assert reading == {k: v for k, v in parsed.items() if k != "developer_instructions"}
