"""Native frontmatter writing: the fast layout is exactly PyYAML's safe dump."""

from __future__ import annotations

from typing import Any

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from agent_roster.codecs.native_md import (
    Tailed,
    dump_yaml,
    entry_lines,
    read_native,
    read_written,
    recalled_reading,
    remember_reading,
    remembering_written,
    write_native,
)
from agent_roster.codecs.yaml_dump import full_dump as _full_dump

_scalars = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["*", "yes", "on", "null", "~", "123", "1.5", "a: b", "#x", "- x", "é", "'q"]),
    st.integers(-5, 10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
)
_keys = st.one_of(st.text(max_size=10), st.sampled_from(["*", "bash", "git *", "on", "a" * 130]))
_values: st.SearchStrategy[Any] = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_keys, inner, max_size=4)),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(data=st.dictionaries(_keys, _values, min_size=1, max_size=6))
@example(data={"a": 0.0, "b": -0.0, "c": [1, True, 1.0]})  # equal as keys, not as YAML
def test_dump_yaml_is_pyyaml_safe_dump(data: dict[str, Any]) -> None:
    assert dump_yaml(data) == _full_dump(data)


@settings(max_examples=300, deadline=None)
@given(
    head=st.dictionaries(_keys, _values, max_size=4),
    tail=st.dictionaries(_keys, _scalars, min_size=1, max_size=6),
    after=st.dictionaries(_keys, _scalars, max_size=2),
)
def test_tailed_mapping_is_the_merged_mapping(
    head: dict[str, Any], tail: dict[str, Any], after: dict[str, Any]
) -> None:
    # Entries laid out in advance and joined after a head write exactly what PyYAML
    # writes for the merged mapping, on the fast path and when it falls back.
    tail = {k: v for k, v in tail.items() if k not in head}  # Tailed's keys are its own
    assume(tail)
    lines = entry_lines(tail, "  ")
    merged = {**head, **tail}
    text = "\n".join(lines) if lines is not None else ""
    value = Tailed(head, text, "  ", lambda: tail) if lines is not None else merged
    data = {"permission": value, **{k: v for k, v in after.items() if k != "permission"}}
    expected = _full_dump(
        {"permission": merged, **{k: v for k, v in after.items() if k != "permission"}}
    )
    assert dump_yaml(data) == expected


def test_tailed_mapping_at_the_wrong_indent_falls_back() -> None:
    tail = {"a_*": "deny", "b_*": "deny"}
    lines = entry_lines(tail, "    ")
    assert lines == ["    a_*: deny", "    b_*: deny"]
    data = {"permission": Tailed({"x": "allow"}, "\n".join(lines), "    ", lambda: tail)}
    assert dump_yaml(data) == _full_dump({"permission": {"x": "allow", **tail}})


@settings(max_examples=1500, deadline=None)
@given(
    st.from_regex(r"[A-Za-z][A-Za-z0-9 ,.()/_+'-]{0,30}", fullmatch=True)
    | st.sampled_from(["yes", "No", "TRUE", "off", "Null", "y", "N", "a ", "a  b", "it's", "x-"])
)
def test_plain_strings_are_written_as_pyyaml_writes_them(text: str) -> None:
    assert dump_yaml({"k": text, text: 1}) == _full_dump({"k": text, text: 1})


@settings(max_examples=500, deadline=None)
@given(
    data=st.dictionaries(_keys, _values, min_size=1, max_size=6),
    tail=st.dictionaries(_keys, _scalars, max_size=4),
    prompt=st.text(max_size=40) | st.sampled_from(["", "---", "x\n---\ny", "a\r", "\r\n"]),
)
@example(data={"a": "---", "---": 1, "b": "x\n---\ny"}, tail={}, prompt="")
def test_a_written_file_reads_back_as_the_data_it_was_written_from(
    data: dict[str, Any], tail: dict[str, Any], prompt: str
) -> None:
    # The render check takes what write_native was given for what a parse would find
    # (read_written): the two must be the same for every file it writes.
    assume(not any(isinstance(v, float) and v != v for v in _leaves(data) + list(tail.values())))
    tail = {k: v for k, v in tail.items() if k not in data}
    lines = entry_lines(tail, "  ") if tail else None
    if lines is not None:
        data = {**data, "permission": Tailed({}, "\n".join(lines), "  ", lambda: tail)}
        data = {k: v for k, v in data.items() if k != "permission" or v is not None}
    text = write_native(data, prompt)
    parsed = read_native(text, "x.md", [])
    with remembering_written():
        written = write_native(data, prompt)
        kept = read_written(written, "x.md", [])
    assert written == text
    assert parsed is not None and kept is not None
    assert kept.key_marks == {}  # taken from what was written, not parsed
    assert kept.data == parsed.data
    assert (kept.body, kept.body_line, kept.head, kept.has_frontmatter) == (
        parsed.body,
        parsed.body_line,
        parsed.head,
        parsed.has_frontmatter,
    )


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def test_read_written_parses_a_text_it_did_not_write() -> None:
    with remembering_written():
        write_native({"name": "a"}, "body")
        doc = read_written("---\nname: b\n---\n\nbody\n", "x.md", [])
    assert doc is not None and doc.data == {"name": "b"}


def test_a_reading_is_recalled_for_the_same_text_object_and_path_only() -> None:
    text = "---\nname: a\n---\nbody " + "x" * 50
    equal = "".join(list(text))  # the same characters, another object
    assert equal == text and equal is not text
    remember_reading(text, "a.md", {"outside": True})  # no block: nothing kept
    assert recalled_reading(text, "a.md") == (False, None)
    with remembering_written():
        remember_reading(text, "a.md", {"name": "a"})
        assert recalled_reading(text, "a.md") == (True, {"name": "a"})
        assert recalled_reading(text, "b.md") == (False, None)
        assert recalled_reading(equal, "a.md") == (False, None)
        remember_reading(equal, "a.md", None)  # a reader that refused the file
        assert recalled_reading(equal, "a.md") == (True, None)
    assert recalled_reading(text, "a.md") == (False, None)


def _layout_by_steps(head: str, body: str, blank_line: bool) -> tuple[str, str, str]:
    # The layout read step by step: one line end after the frontmatter (when there is
    # one), then one at the end, each taken off in turn (cut_layout must agree).
    if blank_line:
        for sep in ("\r\n", "\n"):
            if body.startswith(sep):
                head, body = head + sep, body[len(sep) :]
                break
    for end in ("\r\n", "\n"):
        if body.endswith(end):
            return head, body[: -len(end)], end
    return head, body, ""


_LAYOUT_PIECES = st.sampled_from(["", "\n", "\r\n", "\r", "---", "---\n", "x", "\n---\n", " "])


@settings(max_examples=500, deadline=None)
@given(st.lists(_LAYOUT_PIECES, max_size=6).map("".join), st.booleans())
def test_the_prompt_layout_takes_off_one_line_end_each_side(body: str, blank_line: bool) -> None:
    from agent_roster.codecs.native_md import cut_layout

    assert cut_layout("H", body, blank_line=blank_line) == _layout_by_steps("H", body, blank_line)
