"""The flat-frontmatter fast path agrees exactly with the full YAML 1.2 loader."""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_roster.vault.fastyaml import load_flat
from agent_roster.vault.frontmatter import _load_full

KEYS = st.sampled_from(
    [
        "id",
        "name",
        "description",
        "tags",
        "extends",
        "true",
        "null",
        "memory_scope_id",
        "aliases",
        "a-b",
        "x_1",
    ]
)
#: Keys of the nested maps rendered OpenCode agents write (permission keys), and near
#: misses a plain key may not be.
NESTED_KEYS = st.one_of(
    KEYS,
    st.sampled_from(
        [
            "'*'",
            "'a b'",
            "'it''s'",
            "''",
            "'true'",
            "'1'",
            "github_*",
            "mcp.x/y*",
            "a*b",
            "*x",
            "-x",
            "1x",
            "Yes",
            "'x:y'",
            "'#'",
        ]
    ),
)
WORDS = st.text(
    alphabet=string.ascii_letters + string.digits + " -_.,:#'\"[]{}!&*?|>%@`/\\é",
    min_size=0,
    max_size=20,
)
SCALARS = st.one_of(
    WORDS,
    st.sampled_from(
        [
            "yes",
            "no",
            "on",
            "off",
            "true",
            "False",
            "NULL",
            "~",
            "",
            "017",
            "0o17",
            "0x1F",
            "-5",
            "+3",
            "1.5",
            "1e5",
            ".5",
            ".inf",
            "-.inf",
            ".nan",
            "2024-01-01",
            "12:30",
            "C#",
            "a # b",
            "a: b",
            "http://x/y",
            "'q'",
            '"q"',
            '"a\\nb"',
            "'it''s'",
            "[a, b]",
            "[]",
            "[1, true, ~, x y]",
            "[a, [b]]",
            "[a,]",
            "{a: 1}",
            "&x a",
            "*x",
            "!!str 5",
            "- a",
            "|",
        ]
    ),
    WORDS.map(lambda w: f'"{w}"'),
    WORDS.map(lambda w: f"'{w}'"),
    st.lists(WORDS, max_size=4).map(lambda items: "[" + ", ".join(items) + "]"),
)
#: Indented lines under a key with no value: the one level of nesting the fast path reads
#: (``env:``/``headers:`` in MCP server files), and shapes it must leave to libyaml.
NESTED = st.one_of(
    st.tuples(st.sampled_from(["  ", "    ", " "]), NESTED_KEYS, SCALARS).map(
        lambda t: f"{t[0]}{t[1]}: {t[2]}".rstrip()
    ),
    st.sampled_from(["  A: ${TOKEN}", "   B: x", "  - a", "  # c", "  ", "\tC: 1", "  D:"]),
)
LINES = st.one_of(
    st.tuples(KEYS, SCALARS).map(lambda kv: f"{kv[0]}: {kv[1]}".rstrip()),
    st.tuples(KEYS, SCALARS).map(lambda kv: f"{kv[0]}:  {kv[1]}  "),
    st.sampled_from(["# comment", "", "  - nested", "key:\n  - a", "\tx: 1", "a:b", "k:"]),
    st.tuples(KEYS, st.lists(NESTED, min_size=1, max_size=4)).map(
        lambda t: "\n".join([f"{t[0]}:", *t[1]])
    ),
    NESTED,
)


@settings(max_examples=3000, deadline=None)
@given(st.lists(LINES, max_size=8))
def test_fast_path_matches_libyaml_whenever_it_answers(lines: list[str]) -> None:
    _check_against_libyaml(lines)


def _check_against_libyaml(lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    fast = load_flat(text, 2)
    if fast is None:
        return
    out: list[object] = []
    full = _load_full(text, 2, "x.md", out)  # type: ignore[arg-type]
    assert out == [], (text, out)
    data, key_marks, value_marks = fast
    assert data == full[0], text
    assert load_flat(text, 2, positions=False) == (data, {}, {}), text
    assert {k: tuple(v) for k, v in full[1].items()} == key_marks, text
    assert {k: tuple(v) for k, v in full[2].items()} == value_marks, text


def test_mcp_server_frontmatter_takes_the_fast_path() -> None:
    text = 'name: docs\ntransport: http\nheaders:\n  Authorization: "Bearer ${T}"\ntags: [mcp]\n'
    fast = load_flat(text, 2)
    assert fast is not None
    assert fast[0]["headers"] == {"Authorization": "Bearer ${T}"}
    assert fast[2]["headers"] == (5, 3)  # where libyaml puts the mapping: its first key


def test_typical_frontmatter_takes_the_fast_path() -> None:
    text = 'id: coding\nname: Coding Agent\ndescription: "Writes code"\ntags: [a, b]\n'
    fast = load_flat(text, 2)
    assert fast is not None
    assert fast[0] == {
        "id": "coding",
        "name": "Coding Agent",
        "description": "Writes code",
        "tags": ["a", "b"],
    }
    assert fast[2]["description"] == (4, 14)


def test_anything_unusual_steps_aside() -> None:
    for text in [
        "a:\n  - b\n    - c\n",
        "a:\n  - b\n# c\n",
        "a:\n- b\n-c\n",
        "a:\n-  b\n",
        "a:\n- [b]\n",
        "a:\n- b: c\n",
        "a: b: c\n",
        'a: "x\\ty"\n',
        "a: 1\na: 2\n",
        "true: 1\n",
        "a: &x b\n",
        "a: [b, [c]]\n",
        "? a\n",
        "a: 0x1F\n",
        "a: b # c\n",
    ]:
        assert load_flat(text, 2) is None, text


PLAIN = st.text(alphabet=string.ascii_letters + string.digits + " -_./${}", min_size=1, max_size=12)


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(
        st.tuples(
            KEYS,
            st.sampled_from(["  ", "    ", " "]),
            st.lists(
                st.tuples(NESTED_KEYS, st.one_of(PLAIN, PLAIN.map(lambda w: f'"{w}"'))),
                max_size=3,
            ),
        ),
        min_size=1,
        max_size=3,
    )
)
def test_nested_mappings_match_libyaml(
    blocks: list[tuple[str, str, list[tuple[str, str]]]],
) -> None:
    lines = []
    for key, indent, items in blocks:
        lines.append(f"{key}:")
        lines.extend(f"{indent}{k}: {v}".rstrip() for k, v in items)
    _check_against_libyaml(lines)


def test_claude_agent_lists_take_the_fast_path() -> None:
    # Rendered Claude Code agents list tools as block sequences; a render check reads every
    # one back, so libyaml (ten times slower) must not be needed for them.
    text = "name: a\ntools:\n- Read\n- mcp__gh__*\n- Bash(git push:*)\nmodel: opus\n"
    fast = load_flat(text, 2)
    assert fast is not None
    assert fast[0]["tools"] == ["Read", "mcp__gh__*", "Bash(git push:*)"]
    assert fast[2]["tools"] == (4, 1)  # where libyaml puts the list: its first "-"
    _check_against_libyaml(text.splitlines())


ITEMS = st.one_of(SCALARS, st.sampled_from(["", " x", "- y", "a: b", "# c", "[d]", "*e"]))


@settings(max_examples=2000, deadline=None)
@given(
    st.lists(
        st.tuples(
            KEYS,
            st.sampled_from(["", "  ", " ", "    "]),
            st.lists(ITEMS, max_size=4),
            st.sampled_from(["", "  ", "# c", "  # c", "-", "  -"]),
        ),
        min_size=1,
        max_size=3,
    )
)
def test_block_lists_match_libyaml(blocks: list[tuple[str, str, list[str], str]]) -> None:
    lines = []
    for key, indent, items, after in blocks:
        lines.append(f"{key}:")
        lines.extend(f"{indent}- {item}".rstrip() for item in items)
        if after:
            lines.append(after)
    _check_against_libyaml(lines)


def test_a_long_permission_map_is_read_whole_and_matches_libyaml() -> None:
    # A rendered OpenCode agent in a vault with a thousand servers ends its permission map
    # with a deny per server; a render check reads it back for every agent, by the fast path.
    keys = [f"srv-{i:04d}_*" for i in range(1000)]
    lines = ["description: x", "permission:", "  '*': deny", "  bash: allow"]
    lines += [f"  {key}: deny" for key in keys]
    lines.append("model: m")
    _check_against_libyaml(lines)
    fast = load_flat("\n".join(lines) + "\n", 2)
    assert fast is not None
    permission = fast[0]["permission"]
    assert list(permission) == ["*", "bash", *keys] and fast[0]["model"] == "m"


def test_maps_read_again_in_runs_of_known_lines_still_match_libyaml() -> None:
    # Lines read before are taken in runs (issue 12 item 8): a run must end at an unknown
    # line, a top-level key or a line of another indent, and a key twice across a run and
    # a new line still steps aside.
    known = [f"  srv-{i:03d}_*: deny" for i in range(50)]
    for lines in (
        ["permission:", *known, "model: m"],  # every line read here first, then known
        ["permission:", *known, "model: m"],
        ["permission:", *known[:20], "  new-key: ask", *known[20:], "model: m"],
        ["permission:", "  fresh: allow", *known, "tools:", *known[:3]],
        ["env:", "    deeper: x", "permission:", *known[5:9]],
        ["permission:", *known[:10], "  other: deny", *known[10:12]],
    ):
        assert load_flat("\n".join(lines) + "\n", 2) is not None, lines
        _check_against_libyaml(lines)
    for lines in (
        ["permission:", *known[:10], *known[5:6]],  # a known key twice within the runs
        ["permission:", *known[:3], "  'srv-001_*': allow"],  # a known key, then quoted
        ["permission:", *known[:3], "", *known[3:6]],  # a blank line inside
        ["permission:", *known[:3], "    " + known[3].strip()],  # deeper after a run
    ):
        assert load_flat("\n".join(lines) + "\n", 2) is None, lines


def test_a_nested_map_the_fast_path_cannot_settle_is_left_to_libyaml() -> None:
    for body in (
        ["  'a': deny", "  a: allow"],  # one key twice, quoted once
        ["  a: deny", "  a: allow"],  # one key twice
        ["  null: deny"],  # a key that is no string
        ["  a: deny", "    b: allow"],  # deeper nesting
        ["  a: deny", "  b: allow # why"],  # a comment
    ):
        lines = ["permission:", *body]
        assert load_flat("\n".join(lines) + "\n", 2) is None, body
    # Values YAML reads as booleans or null stay what libyaml makes of them.
    _check_against_libyaml(["permission:", "  a: true", "  b: null", "  c: Yes"])


def test_every_character_outside_plain_ascii_is_checked() -> None:
    # The plain-ASCII shortcut (space to tilde and newlines) must not let through what the
    # fast path cannot read as libyaml does: each C0 control but tab, DEL, the C1 controls,
    # and the line breaks other than "\n" (carriage return, NEL, U+2028, U+2029: libyaml
    # ends the line there) leave the text to libyaml; what the fast path does read agrees
    # with libyaml.
    for code in [*range(0x00, 0xA0), 0xE9, 0x2028, 0x2029, 0xFEFF, 0xFFFE, 0x1F600]:
        char = chr(code)
        text = f"a: x{char}y\nb: plain\n"
        if code in (0x2028, 0x2029, 0xFFFE) or (
            (code < 0x20 or 0x7F <= code < 0xA0) and char not in "\t\n"
        ):
            assert load_flat(text, 2) is None, hex(code)
        else:
            _check_against_libyaml([f"a: x{char}y", "b: plain"])


def test_the_non_printable_class_is_the_complement_of_the_printable_set() -> None:
    # fastyaml writes the class as the complement itself (a negated class of the
    # printable ranges took milliseconds to compile); every code point decides the same.
    import re

    from agent_roster.vault.fastyaml import _NON_PRINTABLE

    printable = re.compile(
        "[\x09\x0a\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
    )
    text = "".join(map(chr, range(0x110000)))
    found = {m.start() for m in _NON_PRINTABLE.finditer(text)}
    kept = {m.start() for m in printable.finditer(text)}
    assert found.isdisjoint(kept)
    assert len(found) + len(kept) == 0x110000
