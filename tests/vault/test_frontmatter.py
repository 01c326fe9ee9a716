"""Frontmatter: YAML 1.2 scalars, duplicate keys, newlines, and the id/name rules."""

from __future__ import annotations

import math
from typing import Any

import pytest

from agent_roster.diagnostics import Diagnostic
from agent_roster.vault.frontmatter import Mark, read_frontmatter

from .helpers import codes, doc, one, parse, where


def load(yaml_body: str) -> tuple[dict[str, Any], list[Diagnostic]]:
    out: list[Diagnostic] = []
    fm = read_frontmatter(f"---\n{yaml_body}---\n", "p.md", out)
    return fm.data, out


@pytest.mark.parametrize(
    ("literal", "expected"),
    [
        ("yes", "yes"),
        ("no", "no"),
        ("on", "on"),
        ("off", "off"),
        ("Yes", "Yes"),
        ("y", "y"),
        ("2024-01-01", "2024-01-01"),
        ("2024-01-01 10:00:00", "2024-01-01 10:00:00"),
        ("12:30", "12:30"),
        ("0o17", 15),
        ("0x1F", 31),
        ("017", 17),
        ("-5", -5),
        ("+5", 5),
        ("1_000", "1_000"),
        ("1.5", 1.5),
        ("1e3", 1000.0),
        ("true", True),
        ("True", True),
        ("false", False),
        ("FALSE", False),
        ("~", None),
        ("null", None),
        ("Null", None),
        ("", None),
        ("'null'", "null"),
        ('"true"', "true"),
        ("<<", "<<"),
    ],
)
def test_yaml_12_core_scalars(literal: str, expected: object) -> None:
    data, out = load(f"value: {literal}\n")
    assert out == []
    assert data["value"] == expected
    assert type(data["value"]) is type(expected)


def test_special_floats() -> None:
    data, out = load("a: .inf\nb: -.Inf\nc: .nan\n")
    assert out == []
    assert data["a"] == math.inf and data["b"] == -math.inf and math.isnan(data["c"])


def test_keys_and_values_keep_their_positions() -> None:
    out: list[Diagnostic] = []
    fm = read_frontmatter("---\nid: coding\nname:   Coding\n---\n# Title\n", "p.md", out)
    assert fm.key_marks == {"id": Mark(2, 1), "name": Mark(3, 1)}
    assert fm.value_marks == {"id": Mark(2, 5), "name": Mark(3, 9)}
    assert (fm.present, fm.end_line, fm.body_line) == (True, 4, 5)
    assert fm.body_offset == len("---\nid: coding\nname:   Coding\n---\n")


def test_duplicate_key_is_reported_at_the_second_key() -> None:
    parsed = parse(doc(frontmatter="---\nid: coding\nname: A\ntags: []\n  \nname: B\n---\n"))
    d = one(parsed, "yaml-duplicate-key")
    assert (d.line, d.column) == (6, 1)
    assert d.message == "key 'name' appears more than once in the frontmatter"
    assert d.hint == "keep one of them; YAML does not allow repeated keys"


def test_nested_duplicate_key_is_reported_too() -> None:
    _, out = load("meta:\n  a: 1\n  a: 2\n")
    assert where(out) == [(4, 3, "yaml-duplicate-key")]


def test_bom_is_stripped() -> None:
    parsed = parse(("\ufeff" + doc("## Role", "Hi.")).encode("utf-8"))
    assert parsed.ok and parsed.profile is not None
    assert parsed.profile.id == "coding" and parsed.profile.role == "Hi."


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_crlf_and_lone_cr_keep_line_numbers(newline: str) -> None:
    text = "---\nid: coding\nname: A\nbad: [1,\n---\n## Role\nHi\n".replace("\n", newline)
    parsed = parse(text.encode())
    assert where(parsed.diagnostics) == [(5, 1, "yaml-invalid")]
    assert parsed.profile is not None and parsed.profile.role == "Hi"
    good = parse(doc("## Role", "line one", "line two").replace("\n", newline))
    assert good.ok and good.profile is not None
    assert good.profile.role == "line one\nline two"


def test_unterminated_frontmatter() -> None:
    parsed = parse("---\nid: coding\nname: A\n## Role\nHi\n")
    d = one(parsed, "frontmatter-unterminated")
    assert (d.line, d.column) == (1, 1)
    assert d.message == "the frontmatter opened on line 1 is never closed"
    assert d.hint == "add a line with just --- after the last frontmatter key"
    assert codes(parsed) == ["frontmatter-unterminated"]  # no cascade of "id is required"


def test_invalid_yaml_position_is_file_relative() -> None:
    text = "---\nid: coding\nname: A\ndescription: a: b\n---\n## Role\nHi\n"
    parsed = parse(text)
    d = one(parsed, "yaml-invalid")
    assert (d.line, d.column) == (4, 15)
    assert (
        d.message == "invalid YAML in frontmatter: mapping values are not allowed in this context"
    )
    assert d.hint == "check indentation and quoting; a value containing ': ' needs quotes"
    assert codes(parsed) == ["yaml-invalid"]
    # The body is still read: every problem in one pass.
    assert parsed.profile is not None and parsed.profile.role == "Hi"


def test_invalid_yaml_after_a_crlf_and_a_bom() -> None:
    text = "\ufeff---\r\nid: coding\r\nname: [a\r\n---\r\n"
    parsed = parse(text.encode())
    assert where(parsed.diagnostics) == [(4, 1, "yaml-invalid")]


@pytest.mark.parametrize(
    ("yaml_body", "found"), [("- a\n- b\n", "a list"), ("just text\n", "a plain string")]
)
def test_frontmatter_must_be_a_mapping(yaml_body: str, found: str) -> None:
    parsed = parse(f"---\n{yaml_body}---\n")
    d = one(parsed, "yaml-not-mapping")
    assert (d.line, d.column) == (2, 1)
    assert d.message == f"the frontmatter must be a mapping of keys to values, got {found}"
    assert codes(parsed) == ["yaml-not-mapping"]


def test_empty_frontmatter_is_not_an_error_in_itself() -> None:
    parsed = parse("---\n---\n## Role\nHi\n", expected_id=None)
    assert codes(parsed) == ["field-required", "field-required"]
    assert [d.message for d in parsed.diagnostics] == ["'id' is required", "'name' is required"]


def test_null_id_is_an_error_never_the_string_none() -> None:
    parsed = parse("---\nid:\nname: A\n---\n")
    d = one(parsed, "field-type")
    assert (d.line, d.column) == (2, 4)
    assert d.message == "'id' must be a string, got nothing (null)"
    assert d.hint == "write the profile's folder name, for example 'id: coding'"
    assert parsed.profile is not None and parsed.profile.id == "coding"  # from the path
    alone = parse("---\nid: ~\nname: A\n---\n", expected_id=None)
    assert alone.profile is None  # no id from anywhere: no profile, and never "None"
    assert codes(alone) == ["field-type"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("id: 123", "'id' must be a string, got the number 123"),
        ("id: true", "'id' must be a string, got the boolean true"),
        ("id: [a]", "'id' must be a string, got a list"),
        ("id: {a: 1}", "'id' must be a string, got a mapping"),
    ],
)
def test_non_string_id(line: str, message: str) -> None:
    parsed = parse(f"---\n{line}\nname: A\n---\n")
    d = one(parsed, "field-type")
    assert (d.line, d.column, d.message) == (2, 5, message)


@pytest.mark.parametrize(
    ("value", "found"),
    [
        ("5", "the number 5"),
        ("''", "''"),
        ("'  '", "'  '"),
        ("", "nothing (null)"),
        ("[a]", "a list"),
    ],
)
def test_name_must_be_a_non_empty_string(value: str, found: str) -> None:
    parsed = parse(f"---\nid: coding\nname: {value}\n---\n")
    d = one(parsed, "field-type")
    assert d.line == 3
    assert d.message == f"'name' must be a non-empty string, got {found}"


def test_missing_name_defaults_to_nothing_but_is_required() -> None:
    parsed = parse("---\nid: coding\n---\n")
    assert [(d.code, d.message) for d in parsed.diagnostics] == [
        ("field-required", "'name' is required")
    ]
    assert parsed.profile is not None and parsed.profile.name == "coding"
    override = parse("---\nid: coding\n---\n", project="web")
    assert override.diagnostics == ()  # a project override sets only what it changes


def test_id_must_match_the_path() -> None:
    parsed = parse("---\nid: code-review\nname: A\n---\n")
    d = one(parsed, "id-mismatch")
    assert (d.line, d.column) == (2, 5)
    assert d.message == (
        "frontmatter id 'code-review' does not match 'coding', the id this file's folder gives"
    )
    assert d.hint == (
        "change it to 'id: coding' or move the file to agent-types/code-review/profile.md"
    )
    assert parsed.profile is not None and parsed.profile.id == "coding"


@pytest.mark.parametrize("bad", ["../x", "a/b", ".x", "a:b"])
def test_unsafe_id_in_frontmatter(bad: str) -> None:
    parsed = parse(f"---\nid: '{bad}'\nname: A\n---\n", expected_id=None)
    assert codes(parsed) == ["name-unsafe"]
    assert parsed.profile is None


def test_frontmatter_not_on_line_one() -> None:
    parsed = parse("\n\n---\nid: coding\nname: A\n---\n## Role\nHi\n")
    d = one(parsed, "frontmatter-not-at-start")
    assert (d.line, d.column) == (3, 1)
    assert d.message == "the frontmatter's opening --- is not on the first line"
    assert codes(parsed) == ["frontmatter-not-at-start"]


def test_no_frontmatter_at_all() -> None:
    parsed = parse("# Coding\n\n## Role\nHi\n")
    d = one(parsed, "frontmatter-missing")
    assert (d.line, d.column, d.message) == (1, 1, "the profile has no frontmatter")
    assert parsed.profile is not None and parsed.profile.role == "Hi"


def test_dots_close_the_frontmatter_too() -> None:
    parsed = parse("---\nid: coding\nname: A\n...\n## Role\nHi\n")
    assert parsed.ok and parsed.profile is not None and parsed.profile.role == "Hi"


def test_tags_description_and_metadata() -> None:
    text = "---\nid: coding\nname: A\ndescription: ' Writes code '\ntags: [x, y]\nowner: me\n---\n"
    parsed = parse(text)
    assert parsed.ok and parsed.profile is not None
    p = parsed.profile
    assert (p.description, p.tags, p.metadata) == ("Writes code", ("x", "y"), {"owner": "me"})
    assert parse("---\nid: coding\nname: A\ntags: solo\n---\n").profile.tags == ("solo",)  # type: ignore[union-attr]
    assert parse("---\nid: coding\nname: A\ntags:\n---\n").profile.tags == ()  # type: ignore[union-attr]
    bad = parse("---\nid: coding\nname: A\ntags: [a, 1]\ndescription: [x]\n---\n")
    assert sorted(where(bad.diagnostics)) == [(4, 7, "field-type"), (5, 14, "field-type")]
    assert sorted(d.message for d in bad.diagnostics) == [
        "'description' must be a string, got a list",
        "'tags' must be a list of strings, got ['a', 1]",
    ]


def test_unknown_key_close_to_a_known_one_warns() -> None:
    parsed = parse("---\nid: coding\nnmae: A\n---\n", project="web")
    d = one(parsed, "field-unknown")
    assert (d.line, d.column, d.severity.value) == (3, 1, "warning")
    assert (d.message, d.hint) == ("unknown frontmatter key 'nmae'", "did you mean 'name'?")


def test_non_string_keys_are_reported() -> None:
    parsed = parse("---\nid: coding\nname: A\n1: x\nnull: y\n---\n")
    assert where(parsed.diagnostics) == [(4, 1, "field-type"), (5, 1, "field-type")]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("extends: coding", "profile 'coding' cannot extend itself"),
        ("extends: ../base", "'extends' must not contain '..'"),
        ("extends: 3", "'extends' must be a string, got the number 3"),
    ],
)
def test_extends_is_checked(line: str, message: str) -> None:
    parsed = parse(f"---\nid: coding\nname: A\n{line}\n---\n")
    assert [(d.line, d.message) for d in parsed.diagnostics] == [(4, message)]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            "!!python/object/apply:os.system [ls]",
            "could not determine a constructor for the "
            "tag 'tag:yaml.org,2002:python/object/apply:os.system'",
        ),
        (
            "!!binary aGk=",
            "could not determine a constructor for the tag 'tag:yaml.org,2002:binary'",
        ),
        ("!!int abc", "'abc' is not an integer"),
        ("!!float abc", "'abc' is not a number"),
        ("9" * 5000, "'" + "9" * 37 + "...' is not an integer"),
    ],
)
def test_unsafe_or_impossible_values_are_yaml_errors(value: str, message: str) -> None:
    parsed = parse(f"---\nid: coding\nname: A\nx: {value}\n---\n")
    d = one(parsed, "yaml-invalid")
    assert (d.line, d.column) == (4, 4)
    assert d.message == f"invalid YAML in frontmatter: {message}"


def test_aliases_are_rejected() -> None:
    parsed = parse("---\nid: coding\nname: A\na: &x [1, 2]\nb: *x\n---\n")
    d = one(parsed, "yaml-invalid")
    assert (d.line, d.column) == (4, 4)  # the anchored value
    assert (
        d.message == "invalid YAML in frontmatter: aliases (*name) are not supported in frontmatter"
    )
    cyclic = parse("---\nid: coding\nname: A\na: &x [*x]\n---\n")
    assert codes(cyclic) == ["yaml-invalid"]
    assert codes(parse("---\nid: coding\nname: &n A\n---\n")) == []  # an anchor alone is fine


def test_control_characters_are_located_by_character() -> None:
    parsed = parse("---\nid: coding\nname: éé\x01\n---\n")
    d = one(parsed, "yaml-invalid")
    assert (d.line, d.column) == (3, 9)
    assert d.message == "invalid YAML in frontmatter: control character U+0001 is not allowed"


def test_very_deep_nesting_is_an_error_not_a_crash() -> None:
    deep = "[" * 50_000 + "]" * 50_000
    parsed = parse(f"---\nid: coding\nname: A\nx: {deep}\n---\n")
    d = one(parsed, "yaml-invalid")
    assert d.line == 4
    assert d.message == "invalid YAML in frontmatter: collections nest more than 1000 deep"


def test_invalid_utf8_is_reported_with_its_position() -> None:
    parsed = parse(b"---\nid: coding\nname: A\xff\n---\n")
    assert parsed.profile is None
    d = one(parsed, "encoding-invalid")
    assert (d.line, d.column, d.message) == (3, 8, "byte 0xff is not valid UTF-8")
