"""Fast paths agree with the exact rules they shortcut."""

from __future__ import annotations

import gc
import json
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_roster.known_tools import KnownTools
from agent_roster.perf import paused_gc
from agent_roster.vault import (
    fastyaml,
    json_section,
    markdown,
    paths,
    profile_fast,
    profile_lists,
    profile_parser,
)
from agent_roster.vault.profile_parser import parse_profile

from . import reference_scan

SEGMENTS = st.one_of(
    st.text(max_size=140),
    st.text(alphabet="ab.-_ /\\:\t\x00\x85\u00a0é", max_size=8),
    st.sampled_from(
        [
            "coding",
            ".hidden",
            "a..b",
            "..",
            "a b",
            " a",
            "a ",
            "x" * 128,
            "x" * 129,
            "a:b",
            "a\x7fb",
            "\u2003a",
        ]
    ),
)


@settings(max_examples=2000, deadline=None)
@given(SEGMENTS)
def test_segment_regex_agrees_with_the_rules(value: str) -> None:
    fast = paths._SAFE_SEGMENT.match(value) is not None
    slow = _slow_problem(value) is None
    assert fast == slow, repr(value)


def _slow_problem(value: str) -> str | None:
    # The rules written out longhand, as the issue states them.
    if not value:
        return "empty"
    if ".." in value:
        return "dots"
    if value.startswith("."):
        return "leading dot"
    for char in value:
        if char in "/\\:" or ord(char) < 32 or 127 <= ord(char) < 160:
            return "bad char"
    if value != value.strip():
        return "whitespace"
    if len(value) > paths.MAX_SEGMENT:
        return "long"
    return None


# --- the profile parser's fast paths ---------------------------------------------------------

#: Pieces of markdown that reach every rule of the scanner: headings at every indent, fences
#: of both characters and several lengths, info strings, inline code, odd whitespace.
MARKDOWN = st.lists(
    st.sampled_from(
        [
            "\n",
            "## ",
            "##",
            "###",
            " ",
            "   ",
            "    ",
            "#",
            "`",
            "```",
            "````",
            "~~~",
            "~~~~",
            "json",
            "JSON yaml",
            "\t",
            "x",
            "##\t",
            "```json\n",
            "\n```\n",
            "\n## Role\n",
            "\n## Config ##\n",
            "é",
            "\u2003",
            "\x0b",
            "\x85",
            "`x`",
            "\n~~~\n",
            "```` \n",
            '{"a": 1}',
        ]
    ),
    max_size=40,
).map("".join)


@settings(max_examples=1500, deadline=None)
@given(MARKDOWN, st.integers(min_value=0, max_value=400), st.integers(min_value=1, max_value=9))
def test_scanner_agrees_with_the_line_by_line_reference(
    text: str, cut: int, first_line: int
) -> None:
    # The body starts at a line start (after the frontmatter) or at the very beginning.
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    offset = starts[cut % len(starts)]
    assert markdown.scan(text, offset, first_line) == reference_scan.scan(
        text, offset, first_line
    ), (text, offset)


@settings(max_examples=1500, deadline=None)
@given(MARKDOWN, st.integers(min_value=0, max_value=400))
def test_outline_is_the_scan_without_positions(text: str, cut: int) -> None:
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    offset = starts[cut % len(starts)]
    structure = markdown.scan(text, offset)
    expected = None
    if structure.unclosed is None:
        expected = [
            (
                s.heading,
                s.key,
                s.body_start,
                s.body_end,
                [(f.lang, f.content_start, f.content_end) for f in s.fences],
            )
            for s in structure.sections
        ]
    assert markdown.outline(text, offset) == expected, (text, offset)


JSON_PIECES = st.lists(
    st.sampled_from(
        [
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            '"a"',
            '"b"',
            '"a:b"',
            "1",
            "-",
            "0",
            ".",
            "e",
            "E",
            "+",
            "true",
            "null",
            "NaN",
            "Infinity",
            " ",
            "\n",
            '"\\u00e9"',
            '"\\ud800"',
            '"\\n"',
            '"x\\"y"',
            "\\",
            '"',
            "01",
            "1e400",
            "9" * 25,
            "9" * 4400,
            '"\x01"',
            '"é"',
        ]
    ),
    min_size=1,
    max_size=14,
).map("".join)


def _exact(content: str) -> object:
    """The careful reading: repeated keys and NaN/Infinity are errors."""

    def pairs(items: list[tuple[str, object]]) -> dict[str, object]:
        result = dict(items)
        if len(result) != len(items):
            raise ValueError("repeated key")
        return result

    def constant(name: str) -> object:
        raise ValueError(name)

    return json.loads(content, object_pairs_hook=pairs, parse_constant=constant)


@settings(max_examples=3000, deadline=None)
@given(
    st.one_of(
        JSON_PIECES,
        st.recursive(
            st.none()
            | st.booleans()
            | st.integers()
            | st.floats(allow_nan=False)
            | st.text(max_size=5),
            lambda inner: (
                st.lists(inner, max_size=4)
                | st.dictionaries(st.text(max_size=3), inner, max_size=4)
            ),
            max_leaves=12,
        ).map(json.dumps),
    )
)
def test_fast_json_decoding_agrees_with_the_exact_decoder(content: str) -> None:
    fast = json_section.decode_fast(content)
    if fast is json_section.SLOW:
        return  # the careful path reads it and reports what is wrong
    exact = _exact(content)
    # repr tells 1 from 1.0 and True from 1, which == does not.
    assert repr(fast) == repr(exact), content


DOCUMENTS = st.lists(
    st.sampled_from(
        [
            "---\n",
            "id: coding\n",
            "name: Coding\n",
            "tags: [a, b]\n",
            "tags: [a, '']\n",
            "nmae: x\n",
            "extends: base\n",
            "## Config\n",
            "## Tools\n",
            "## MCP Servers\n",
            "## Install\n",
            "## Role\n",
            "```json\n",
            "```\n",
            "Some prose.\n",
            '{"model": "m", "runtime": "acpx", "max_turns": 3, "temperature": 1}\n',
            '{"max_tokens_per_task": 0, "runtime": 1, "mode": "x"}\n',
            '{"allowed": ["Read", "Raed", " Read"], "denied": ["Read"]}\n',
            '{"allowed": ["mcp__agent-queue__x", "Bash(git *)"], "denied": [[1]]}\n',
            # Clean names, some unknown: the fast path reports those itself.
            '{"allowed": ["Read", "shell", "mcp__nope__y"],\n "denied": ["Raed"]}\n',
            # A probed server's tool it does not offer, beside a name no registry knows.
            '{"allowed": ["shell",\n  "mcp__github__get_isue", "Grep"], "denied": ["x"]}\n',
            '["github", "github", "../x"]\n',
            '{"npm": ["eslint", "-e ."], "pip": ["x>=1", " ruff"], "commands": ["git"]}\n',
            '{"a": 1, "a": 2}\n',
            '{"a": {"b": 1, "b": 2}}\n',
            '{"url": "http://x:1"}\n',
            "[1,\n",
            "\n",
            # Verbatim prose blocks and the native-file memory (issue 12 item 1).
            "````markdown roster-verbatim\n",
            "```markdown roster-verbatim crlf\n",
            "```markdown roster-verbatim json\n",
            "```text roster-verbatim bogus\n",
            '"a\\rb"\n',
            "````\n",
            '{"native": {"claude": {"head": "---\\n", "tail": ""}}}\n',
            '{"native": {"claude": {"head": 1}}}\n',
        ]
    ),
    max_size=30,
).map("".join)


@settings(max_examples=600, deadline=None)
@given(DOCUMENTS, st.sampled_from([None, "coding"]), st.sampled_from([None, "web"]))
def test_parse_profile_fast_paths_agree_with_the_exact_paths(
    text: str, expected: str | None, project: str | None
) -> None:
    known = KnownTools(["github"], catalog={"github": frozenset({"get_issue"})})

    def parse() -> tuple[object, ...]:
        parsed = parse_profile(text, expected_id=expected, project=project, known_tools=known)
        return parsed.profile, parsed.diagnostics, parsed.document

    fast = parse()
    again = parse()  # now with every memo warm
    with _exact_paths():
        exact = parse()
    assert fast == again == exact


@contextmanager
def _exact_paths() -> Iterator[None]:
    """Every fast path of the profile parser switched off: the whole-profile fast path
    steps aside, msgspec declines every block, and the memos start empty (and are put back
    afterwards)."""
    memos: list[Any] = [
        profile_lists._CLEAN_NAMES,
        profile_lists._GOOD_PACKAGES,
        profile_lists._PACKAGE_VERDICTS,
        profile_parser._GOOD_TAGS,
        profile_parser._KEY_HINTS,
        profile_parser._FIELD_SETS,
        fastyaml._FLOW_LISTS,
        markdown._HEADINGS,
        markdown._INFOS,
    ]
    saved = [memo.copy() for memo in memos]
    decode = json_section._msgspec_decode

    def decline(content: str) -> object:
        raise ValueError("declined")

    try:
        for memo in memos:
            memo.clear()
        profile_lists._GOOD_PACKAGES.update({key: set() for key in profile_lists.INSTALL_KEYS})
        setattr(json_section, "_msgspec_decode", decline)  # noqa: B010
        setattr(profile_parser, "fast_fields", lambda *args: None)  # noqa: B010
        yield
    finally:
        setattr(json_section, "_msgspec_decode", decode)  # noqa: B010
        setattr(profile_parser, "fast_fields", profile_fast.fast_fields)  # noqa: B010
        for memo, old in zip(memos, saved, strict=True):
            memo.clear()
            memo.update(old)


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["Read", "Raed", "Bash(git *)", "mcp__github__x", "mcp__nope__y", "create_task", ""]
        ),
        max_size=6,
    )
)
def test_all_known_agrees_with_each_name(names: list[str]) -> None:
    known = KnownTools(["github"])
    first = known.all_known(names)
    assert first == all(known.is_known(n) for n in names) == known.all_known(names)


def test_paused_gc_promotes_survivors_and_still_collects_cycles() -> None:
    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
        cycle: list[object] = []
        cycle.append(cycle)
        probe = weakref.ref(_Node(cycle))
        survivor = [object()]
        del cycle
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0
    # The survivor went straight to the oldest generation, on every Python (3.12 starts
    # with frozen objects of its own, and the promotion used to be skipped there).
    assert any(o is survivor for o in gc.get_objects(generation=2))
    gc.collect()
    assert probe() is None  # a cycle made during the pause is still found by a collection


def test_paused_gc_leaves_the_callers_frozen_objects_frozen() -> None:
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with paused_gc():
            pass
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


class _Node:
    def __init__(self, other: object) -> None:
        self.other = other
        self.me = self


def test_unknown_tools_are_reported_by_the_fast_path_as_the_careful_path_does() -> None:
    text = (
        "---\nid: coding\nname: Coding\n---\n\n## Role\nWork.\n\n## Tools\n```json\n"
        '{"allowed": ["Read", "shell", "mcp__nope__y"],\n "denied": ["Raed"]}\n```\n'
    )
    known = KnownTools(["github"])
    calls: list[object] = []
    real = profile_fast.fast_fields

    def spy(*args: Any) -> Any:
        result = real(*args)
        calls.append(result)
        return result

    setattr(profile_parser, "fast_fields", spy)  # noqa: B010
    try:
        fast = parse_profile(text, expected_id="coding", known_tools=known)
    finally:
        setattr(profile_parser, "fast_fields", real)  # noqa: B010
    assert calls and calls[0] is not None  # the fast path took it
    with _exact_paths():
        exact = parse_profile(text, expected_id="coding", known_tools=known)
    assert (fast.profile, fast.diagnostics, fast.document) == (
        exact.profile,
        exact.diagnostics,
        exact.document,
    )
    assert [(d.line, d.column, d.code) for d in fast.diagnostics] == [
        (11, 22, "tool-unknown"),
        (11, 31, "tool-unknown"),
        (12, 13, "tool-unknown"),
    ]


@settings(max_examples=1500, deadline=None)
@given(MARKDOWN, st.integers(min_value=0, max_value=400))
def test_finding_line_candidates_agrees_with_finditer(text: str, cut: int) -> None:
    # Long texts look for their heading and fence lines with ``find`` (issue 12 item 8);
    # ``long=0`` takes that road whatever the length.
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    start = max(0, starts[cut % len(starts)] - 1)

    def seen(matches: Iterator[Any]) -> list[tuple[tuple[int, int], tuple[Any, ...]]]:
        return [(m.span(), m.groups()) for m in matches]

    assert seen(markdown._line_matches(text, start, long=0)) == seen(
        markdown._LINE.finditer(text, start)
    ), (text, start)


@settings(max_examples=100, deadline=None)
@given(MARKDOWN, MARKDOWN)
def test_a_long_text_scans_as_the_reference_does(head: str, tail: str) -> None:
    prose = "All prose, no marks.\n\n" * (markdown.LONG_TEXT // 20)
    text = head + "\n" + prose + tail
    assert markdown.scan(text) == reference_scan.scan(text, 0, 1)
