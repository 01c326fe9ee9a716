"""```json blocks in structured sections: tags, fence errors, JSON errors at file positions."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_roster.vault.jsonblock import JsonBlock, JsonIndex, find_token, items_index

from .helpers import FENCE, block, codes, doc, json_block, one, parse, where


@pytest.mark.parametrize(
    "opener", ["```json", "```JSON", "```Json", "``` json", "```json {.x}", "~~~json", "````json"]
)
def test_json_tag_in_any_case(opener: str) -> None:
    closer = opener.split("json", 1)[0].split("JSON")[0].split("Json")[0].strip()
    parsed = parse(doc("## Config", opener, '{"model": "m"}', closer))
    assert parsed.ok, parsed.diagnostics
    assert parsed.profile is not None and parsed.profile.model == "m"


def test_untagged_fence() -> None:
    parsed = parse(doc("## Tools", FENCE, '{"allowed": ["Read"]}', FENCE))
    d = one(parsed, "json-fence-untagged")
    assert (d.line, d.column, d.severity.value) == (6, 1, "error")
    assert d.message == "the code fence in ## Tools has no language tag, so it is not read"
    assert d.hint == "tag the opening fence: ```json"
    assert codes(parsed) == ["json-fence-untagged"]
    assert parsed.profile is not None and parsed.profile.allowed_tools == ()


@pytest.mark.parametrize("lang", ["yaml", "jsonc", "json5", "js"])
def test_other_language_fence(lang: str) -> None:
    parsed = parse(doc("## Config", "  " + FENCE + lang, "model: m", "  " + FENCE))
    d = one(parsed, "json-fence-language")
    assert (d.line, d.column) == (6, 3)
    assert d.message == (
        f"the code fence in ## Config is tagged '{lang}'; structured sections are read only "
        "from ```json"
    )
    assert d.hint == "use ```json with plain JSON (no comments, no trailing commas)"


def test_second_json_block() -> None:
    parsed = parse(
        doc(
            "## Config",
            FENCE + "json",
            '{"model": "a"}',
            FENCE,
            "and",
            FENCE + "json",
            '{"model": "b"}',
            FENCE,
        )
    )
    d = one(parsed, "json-block-duplicate")
    assert (d.line, d.column) == (10, 1)
    assert d.message == "## Config has more than one ```json block (the first is on line 6)"
    assert parsed.profile is not None and parsed.profile.model == ""  # ambiguous: neither used


def test_trailing_comma_is_reported_at_its_file_position() -> None:
    text = doc(
        "## Role",  # 5
        "Hi",  # 6
        "## Config",  # 7
        "Settings for the coding agent:",  # 8
        "",  # 9
        FENCE + "json",  # 10
        "{",  # 11
        '  "harness": {',  # 12
        '    "opencode": {"steps": 40},',  # 13: the trailing comma, column 30
        "  }",  # 14
        "}",  # 15
        FENCE,  # 16
    )
    parsed = parse(text)
    d = one(parsed, "json-invalid")
    assert (d.line, d.column) == (13, 30)
    assert d.message == "invalid JSON in ## Config: trailing comma before '}'"
    assert d.hint == "the last item takes no trailing comma"
    assert parsed.profile is not None and parsed.profile.role == "Hi"


@pytest.mark.parametrize(
    ("payload", "line", "column", "message", "hint"),
    [
        (
            '{"model": "m"\n "runtime": "acpx"}',
            8,
            2,
            "expected ',' or '}' after a member",
            "a comma is missing between items, or a quote is not closed",
        ),
        (
            "{\n  // comment\n}",
            8,
            3,
            "expected a key in double quotes",
            "keys need double quotes; comments are not JSON",
        ),
        (
            "{\"model\": 'm'}",
            7,
            11,
            "expected a value",
            "write a JSON value here; comments and single quotes are not JSON",
        ),
        (
            "",
            8,
            1,
            "expected a value",  # end of the (empty) block: the closing fence
            "write a JSON value here; comments and single quotes are not JSON",
        ),
        (
            "{}\n{}",
            8,
            1,
            "more text after the JSON value",
            "a block holds one JSON value: wrap several in [...] or remove the rest",
        ),
    ],
)
def test_json_syntax_errors(payload: str, line: int, column: int, message: str, hint: str) -> None:
    parsed = parse(block("Config", payload))
    d = one(parsed, "json-invalid")
    assert (d.line, d.column, d.message, d.hint) == (
        line,
        column,
        f"invalid JSON in ## Config: {message}",
        hint,
    )


def test_duplicate_json_keys_are_reported_where_they_repeat() -> None:
    payload = '{\n  "model": "a",\n  "harness": {"x": {"s": 1, "s": 2}},\n  "model": "b"\n}'
    parsed = parse(block("Config", payload))
    assert where(parsed.diagnostics) == [(9, 29, "json-invalid"), (10, 3, "json-invalid")]
    assert [d.message for d in parsed.diagnostics] == [
        "key 's' appears more than once in ## Config",
        "key 'model' appears more than once in ## Config",
    ]
    assert parsed.diagnostics[0].hint == "keep one; JSON objects must not repeat keys"


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_rejected(constant: str) -> None:
    parsed = parse(block("Config", f'{{\n  "note": "NaN",\n  "temperature": {constant}\n}}'))
    d = one(parsed, "json-invalid")
    assert (d.line, d.column) == (9, 18)
    assert d.message == f"invalid JSON in ## Config: {constant} is not valid JSON"
    assert d.hint == "NaN and Infinity are not JSON; write a number or null"


def test_oversized_numbers_and_deep_nesting_are_errors() -> None:
    huge = parse(block("Config", '{"max_turns": ' + "9" * 5000 + "}"))
    d = one(huge, "json-invalid")
    assert (d.line, d.column, d.message) == (
        7,
        15,
        "invalid JSON in ## Config: a number has too many digits",
    )
    deep = parse(block("Config", "[" * 100_000 + "]" * 100_000))
    d = one(deep, "json-invalid")
    assert d.message == "invalid JSON in ## Config: arrays or objects nest too deeply"


@pytest.mark.parametrize(
    ("heading", "payload", "message"),
    [
        ("Config", "[1]", "## Config must hold a JSON object, got an array"),
        ("Tools", '"Read"', "## Tools must hold a JSON object, got a string"),
        ("Install", "null", "## Install must hold a JSON object, got null"),
        (
            "MCP Servers",
            "42",
            "## MCP Servers must hold a JSON array of server names, got a number",
        ),
    ],
)
def test_wrong_json_type(heading: str, payload: str, message: str) -> None:
    parsed = parse(block(heading, payload))
    d = one(parsed, "json-type")
    assert (d.line, d.column, d.message) == (7, 1, message)
    assert d.hint


def test_prose_around_the_block_is_allowed_and_kept() -> None:
    text = doc(
        "## Config",
        "The runtime field selects the runtime.",
        "",
        FENCE + "json",
        '{"runtime": "supervisor"}',
        FENCE,
        "",
        "- claude_sdk: the default",
    )
    parsed = parse(text)
    assert parsed.ok and parsed.profile is not None
    assert parsed.profile.runtime is not None and parsed.profile.runtime.value == "supervisor"
    document = parsed.document
    assert document is not None
    (section,) = document.structure.sections
    body = document.text[section.body_start : section.body_end]
    assert body.startswith("The runtime field selects the runtime.\n")
    assert body.endswith("- claude_sdk: the default\n")
    assert parsed.profile.prompt == ""  # structured prose is documentation, not prompt


def test_inline_json_on_one_line_is_not_a_block() -> None:
    parsed = parse(doc("## Config", '```json {"model": "m"}```'))
    d = one(parsed, "json-block-missing")
    assert (d.line, d.column) == (5, 4)
    assert d.message == "## Config has no ```json block"
    assert d.hint == "put the settings in a fenced block that starts with ```json"


def test_prose_only_structured_section() -> None:
    assert codes(parse(doc("## Tools", "allowed: Read, Grep"))) == ["json-block-missing"]


@pytest.mark.parametrize("body", [(), ("",), ("   ", "\t")])
def test_empty_structured_section_is_a_warning(body: tuple[str, ...]) -> None:
    parsed = parse(doc("## Install", *body, "## Role", "Hi"))
    d = one(parsed, "section-empty")
    assert (d.line, d.column, d.severity.value) == (5, 4, "warning")
    assert (d.message, d.hint) == (
        "## Install is empty",
        "add a ```json block or remove the heading",
    )
    assert parsed.ok


def test_unclosed_json_fence_reports_only_the_fence() -> None:
    parsed = parse(doc("## Config", FENCE + "json", '{"model": "m"}'))
    assert where(parsed.diagnostics) == [(6, 1, "fence-unclosed")]


def test_every_broken_block_is_reported() -> None:
    text = doc(
        "## Config",
        FENCE + "json",
        "{,}",
        FENCE,
        "## Tools",
        FENCE + "json",
        "[",
        FENCE,
        "## Install",
        FENCE,
        "{}",
        FENCE,
    )
    parsed = parse(text)
    assert where(parsed.diagnostics) == [
        (7, 2, "json-invalid"),
        (12, 1, "json-invalid"),
        (14, 1, "json-fence-untagged"),
    ]


def test_block_positions() -> None:
    text = '{\n  "a": [10, {"b": true}],\n  "c": "x"\n}'
    b = json_block(text, first_line=20)
    assert b.position() == (20, 1)
    assert b.position(("a",)) == (21, 8)
    assert b.position(("a",), key=True) == (21, 3)
    assert b.position(("a", 1)) == (21, 13)
    assert b.position(("a", 1, "b")) == (21, 19)
    assert b.position(("a", 1, "b"), key=True) == (21, 14)
    assert b.position(("c",)) == (22, 8)
    # Missing paths fall back to the nearest enclosing value.
    assert b.position(("a", 7)) == (21, 8)
    assert b.position(("zzz",), key=True) == (20, 1)
    assert b.position(("c", "deeper")) == (22, 8)


def test_block_positions_with_escapes_and_empty_containers() -> None:
    text = '  {"k\\"ey": [], "e": {}, "s": "a,b:]}", "n": [1, [2, 3], 4]}'
    b = JsonBlock(text, 1, None)
    assert b.position(('k"ey',), key=True) == (1, 4)
    assert b.position(("e",)) == (1, 22)
    assert b.position(("n", 2)) == (1, 58)
    assert b.position(("n", 1, 1)) == (1, 54)
    assert b.index.duplicates == []


def test_find_token_skips_strings() -> None:
    text = '{"NaN": "NaN", "x": NaN}'
    assert find_token(text, lambda t: t == "NaN") == text.rindex("NaN")
    assert find_token(text, lambda t: t == "Infinity") is None


@pytest.mark.parametrize("key", ["temperature", "top_p"])
def test_huge_integer_sampling_value_is_a_diagnostic_not_a_crash(key: str) -> None:
    # An int past float range is finite; math.isfinite on it raised OverflowError once.
    parsed = parse(block("Config", f'{{"{key}": {"9" * 400}}}'))
    d = one(parsed, "field-value")
    assert d.message.startswith(f"Config {key!r} must be between 0 and")


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.text(min_size=1, max_size=6), max_size=6, unique=True),
    st.lists(st.text(min_size=1, max_size=6), max_size=6, unique=True),
    st.booleans(),
    st.sampled_from([None, 1, 2]),
)
def test_items_index_agrees_with_the_full_index(
    allowed: list[str], denied: list[str], ascii_only: bool, indent: int | None
) -> None:
    denied = [name for name in denied if name not in allowed]
    value = {"allowed": allowed, "denied": denied}
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent)
    wanted = [(key, i, item) for key, items in value.items() for i, item in enumerate(items)]
    quick = items_index(text, value, wanted)
    if quick is not None:  # else the caller builds the full index
        full = JsonIndex(text)
        assert quick.values == {path: full.values[path] for path in quick.values}
        assert len(quick.values) == len(wanted)


def test_items_index_steps_aside_where_it_cannot_be_sure() -> None:
    value = {"allowed": ["Read", ","], "denied": ["x"]}
    text = '{"allowed": ["Read", ","], "denied": ["x"]}'
    quick = items_index(text, value, [("allowed", 0, "Read"), ("denied", 0, "x")])
    assert quick is not None and quick.values == {("allowed", 0): 13, ("denied", 0): 38}
    # '","' also appears between two strings; the quote count tells the two apart.
    assert items_index(text, value, [("allowed", 1, ",")]) is not None
    assert items_index('{"allowed": ["\\u0052ead"]}', {"allowed": ["Read"]}, []) is None
    assert items_index('{"allowed": ["denied"]}', {"allowed": ["denied"]}, []) is not None
    assert (
        items_index(
            '{"allowed": ["denied"], "denied": []}',
            {"allowed": ["denied"], "denied": []},
            [("allowed", 0, "denied")],
        )
        is None
    )  # an item spelt like a key


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=20,
)


def _paths(value: object, path: tuple[object, ...] = ()) -> dict[tuple[object, ...], object]:
    found = {path: value}
    if isinstance(value, dict):
        for key, item in value.items():
            found.update(_paths(item, (*path, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.update(_paths(item, (*path, index)))
    return found


@settings(max_examples=500, deadline=None)
@given(JSON_VALUES, st.sampled_from([None, 2]), st.booleans())
def test_index_places_every_value_and_key(value: object, indent: int | None, ascii: bool) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ascii)
    index = JsonIndex(text)
    decoder = json.JSONDecoder()
    paths = _paths(value)
    assert set(index.values) == set(paths)
    for path, expected in paths.items():
        assert decoder.raw_decode(text, index.values[path])[0] == expected, (text, path)
    assert set(index.keys) == {p for p in paths if p and isinstance(p[-1], str)}
    for path, offset in index.keys.items():
        assert decoder.raw_decode(text, offset)[0] == path[-1], (text, path)
    assert index.duplicates == []
