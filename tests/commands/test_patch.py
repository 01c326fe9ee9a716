"""In-place profile edits: only the edited span changes, and broken parts are never rewritten."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_roster.errors import ConflictError, InvalidDocumentError, UsageError, VaultError
from agent_roster.vault import patch, patch_json
from agent_roster.vault.paths import VaultLayout
from agent_roster.vault.profile_parser import parse_profile

F = "```"

PROFILE = f"""---
id: coding
name: Coding Agent
# a comment the user wrote
description: Writes code.
tags:
  - profile
  - engineering

memory_scope_id: shared-42
---

# Coding Agent

Free prose before any section.

## Role

You write code.

## Config

Sonnet is enough here.

{F}json
{{
  "model": "claude-sonnet-4-6",
  "max_tokens_per_task": 200000,
  "harness": {{"opencode": {{"x": [1, 2]}}}},
  "runtime": "claude_sdk"
}}
{F}

Text after the block.

## Tools

{F}json
{{
  "allowed": [
    "Read", "Glob", "Grep",
    "Bash"
  ],
  "denied": ["Bash(rm -rf:*)"]
}}
{F}

## Team Notes

An unknown section, kept verbatim.

## Rules

- be careful
"""


def edit(text: str, *edits: patch.Edit, project: str | None = None) -> patch.Patched:
    return patch.apply_edits(
        text,
        list(edits),
        path="agent-types/coding/profile.md",
        expected_id="coding",
        project=project,
    )


def replaced(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


# -- Config ---------------------------------------------------------------------------------
def test_setting_a_config_key_rewrites_only_its_value() -> None:
    result = edit(PROFILE, patch.set_config({"model": "claude-opus-4-1"}))
    assert result.changed
    assert result.text == replaced(PROFILE, '"claude-sonnet-4-6"', '"claude-opus-4-1"')


def test_adding_and_removing_config_keys_keeps_the_other_members_as_written() -> None:
    result = edit(PROFILE, patch.set_config({"max_turns": 40, "runtime": patch.REMOVE}))
    expected = replaced(
        PROFILE,
        '{"opencode": {"x": [1, 2]}},\n  "runtime": "claude_sdk"\n}',
        '{"opencode": {"x": [1, 2]}},\n  "max_turns": 40\n}',
    )
    assert result.text == expected


def test_removing_the_first_key_of_a_one_line_object() -> None:
    text = (
        f'---\nid: coding\nname: C\n---\n## Config\n{F}json\n{{"model": "m", "max_turns": 3}}\n'
        f"{F}\n"
    )
    result = edit(text, patch.set_config({"model": patch.REMOVE, "top_p": 0.5}))
    assert result.text == replaced(
        text, '{"model": "m", "max_turns": 3}', '{"max_turns": 3, "top_p": 0.5}'
    )


def test_removing_the_only_key_leaves_an_empty_object() -> None:
    text = f'---\nid: coding\nname: C\n---\n## Config\n{F}json\n{{"model": "m"}}\n{F}\n'
    assert edit(text, patch.set_config({"model": patch.REMOVE})).text == replaced(
        text, '{"model": "m"}', "{}"
    )


def test_a_missing_config_section_is_created_in_canonical_order() -> None:
    text = PROFILE[: PROFILE.index("## Config")] + PROFILE[PROFILE.index("## Tools") :]
    result = edit(text, patch.set_config({"model": "m"}))
    block = f'## Config\n\n{F}json\n{{\n  "model": "m"\n}}\n{F}\n\n'
    assert result.text == replaced(text, "## Tools", block + "## Tools")


def test_an_empty_config_section_gets_a_block() -> None:
    text = "---\nid: coding\nname: C\n---\n## Config\n\n## Rules\nx\n"
    result = edit(text, patch.set_config({"max_turns": 3}))
    assert result.text == (
        f'---\nid: coding\nname: C\n---\n## Config\n\n{F}json\n{{\n  "max_turns": 3\n}}\n{F}\n'
        "\n## Rules\nx\n"
    )


def test_a_change_of_json_type_alone_is_a_change() -> None:
    config = '{"harness": {"oc": {"x": 1}}}'
    text = f"---\nid: coding\nname: C\n---\n## Config\n{F}json\n{config}\n{F}\n"
    result = edit(
        text,
        patch.set_config({"harness": {"oc": {"x": True}}}),
        patch.set_frontmatter("tags", ("a",)),
    )
    assert '{"harness": {"oc": {"x": true}}}' in result.text and "tags: [a]" in result.text


def test_an_unchanged_value_is_not_rewritten() -> None:
    text = PROFILE.replace('"max_tokens_per_task": 200000', '"max_tokens_per_task":200000')
    result = edit(text, patch.set_config({"max_tokens_per_task": 200000, "top_p": patch.REMOVE}))
    assert not result.changed
    assert result.text == text


# -- frontmatter ----------------------------------------------------------------------------
def test_frontmatter_keys_are_replaced_added_and_removed_line_by_line() -> None:
    result = edit(
        PROFILE,
        patch.set_frontmatter("description", "no"),
        patch.set_frontmatter("tags", ["a", "b"]),
        patch.set_frontmatter("color_hint", "0o17"),
        patch.remove_frontmatter("memory_scope_id"),
    )
    expected = replaced(
        PROFILE,
        "description: Writes code.\ntags:\n  - profile\n  - engineering\n\n"
        "memory_scope_id: shared-42\n---\n",
        "description: 'no'\ntags: [a, b]\n\ncolor_hint: 0o17\n---\n",
    )
    # 0o17 is an int in YAML 1.2: it must have been quoted to stay the string asked for.
    assert result.text != expected
    assert result.text == expected.replace("color_hint: 0o17", 'color_hint: "0o17"')


def test_a_frontmatter_value_that_needs_quotes_reads_back_exactly() -> None:
    for value in ("a: b", "# not a comment", "true", "", "multi\nline", "ünï"):
        result = edit(PROFILE, patch.set_frontmatter("description", value))
        parsed = parse_profile(result.text, expected_id="coding")
        assert parsed.profile is not None and parsed.profile.description == value.strip()


def test_a_profile_without_frontmatter_gets_one() -> None:
    text = "# Override\n\n## Rules\n\nx\n"
    result = edit(text, patch.set_frontmatter("description", "d"), project="web")
    assert result.text == "---\ndescription: d\n---\n" + text


# -- lists and sections ---------------------------------------------------------------------
def test_tool_lists_and_mcp_servers_and_install() -> None:
    result = edit(
        PROFILE,
        patch.set_tools(denied=[]),
        patch.set_mcp_servers(["github"]),
        patch.set_install({"npm": ["eslint"]}),
    )
    text = replaced(PROFILE, '"denied": ["Bash(rm -rf:*)"]', '"denied": []')
    # New sections go after the structured section that precedes them in the canonical
    # order (Config, Tools, MCP Servers, Install), so before the prose that follows.
    mcp = f'## MCP Servers\n\n{F}json\n["github"]\n{F}\n\n'
    install = f'## Install\n\n{F}json\n{{\n  "npm": ["eslint"]\n}}\n{F}\n\n'
    text = replaced(text, "## Team Notes", mcp + install + "## Team Notes")
    assert result.text == text


def test_legacy_inline_mcp_block_becomes_a_list_keeping_the_prose() -> None:
    text = (
        "---\nid: coding\nname: C\n---\n## MCP Servers\n\nLegacy.\n\n"
        f'{F}json\n{{"github": {{"command": "npx"}}}}\n{F}\n\nAfter.\n'
    )
    result = edit(text, patch.set_mcp_servers(["github"]))
    assert result.text == replaced(text, '{"github": {"command": "npx"}}', '["github"]')
    assert [d.code for d in result.diagnostics] == []


def test_prose_sections_are_replaced_added_and_removed() -> None:
    result = edit(
        PROFILE,
        patch.set_section("Rules", "- be bold\n- be kind"),
        patch.set_section("Reflection", "Think."),
        patch.remove_section("Team Notes"),
        patch.remove_section("Tools"),
    )
    text = replaced(PROFILE, "- be careful\n", "- be bold\n- be kind\n\n## Reflection\n\nThink.\n")
    text = replaced(text, "## Team Notes\n\nAn unknown section, kept verbatim.\n\n", "")
    start, end = text.index("## Tools"), text.index("## Rules")
    assert result.text == text[:start] + text[end:]


def test_a_body_that_would_open_a_new_section_is_refused() -> None:
    with pytest.raises(UsageError, match="does not read back as written"):
        edit(PROFILE, patch.set_section("Rules", "x\n\n## Sneaky\ny"))


def test_structured_headings_are_not_prose() -> None:
    with pytest.raises(UsageError, match="structured section"):
        patch.set_section("config", "x")


# -- refusals -------------------------------------------------------------------------------
BROKEN_CONFIG = replaced(PROFILE, '"runtime": "claude_sdk"', '"runtime": "claude_sdk",')


def test_a_broken_part_is_never_edited() -> None:
    with pytest.raises(InvalidDocumentError) as caught:
        edit(BROKEN_CONFIG, patch.set_config({"model": "m"}))
    assert "cannot edit ## Config of agent-types/coding/profile.md: it has errors" in str(
        caught.value
    )
    assert [d.code for d in caught.value.diagnostics] == ["json-invalid"]


def test_other_parts_of_a_file_with_a_broken_part_can_be_edited() -> None:
    result = edit(BROKEN_CONFIG, patch.set_section("Rules", "- new"))
    assert result.text == replaced(BROKEN_CONFIG, "- be careful", "- new")


def test_an_edit_that_would_add_an_error_is_refused_with_its_diagnostics() -> None:
    with pytest.raises(InvalidDocumentError) as caught:
        edit(PROFILE, patch.set_config({"permission_mode": "sometimes"}))
    assert "would leave errors; nothing was written" in caught.value.message
    (diagnostic,) = caught.value.diagnostics
    # Reported where the value would have been: the appended member, line 31.
    assert (diagnostic.code, diagnostic.line, diagnostic.column) == ("field-value", 31, 22)


def test_an_unclosed_fence_blocks_every_edit() -> None:
    text = "---\nid: coding\nname: C\n---\n## Rules\n\n```\nno end\n"
    with pytest.raises(InvalidDocumentError, match="never closed"):
        edit(text, patch.set_frontmatter("description", "d"))


def test_broken_frontmatter_blocks_frontmatter_edits_only() -> None:
    text = PROFILE.replace("description: Writes code.", "description: [unclosed")
    with pytest.raises(InvalidDocumentError) as caught:
        edit(text, patch.set_frontmatter("name", "X"))
    assert caught.value.diagnostics[0].code == "yaml-invalid"
    assert edit(text, patch.set_config({"max_turns": 2})).changed


def test_a_misplaced_frontmatter_blocks_adding_one() -> None:
    text = "\n---\nid: coding\n---\n## Rules\nx\n"
    with pytest.raises(InvalidDocumentError) as caught:
        edit(text, patch.set_frontmatter("description", "d"), project="web")
    assert [d.code for d in caught.value.diagnostics] == ["frontmatter-not-at-start"]


def test_values_that_are_not_json_are_refused() -> None:
    with pytest.raises(UsageError, match="not a JSON value"):
        patch.set_config({"model": object()})
    with pytest.raises(UsageError, match="list of names"):
        patch.set_mcp_servers("github")
    with pytest.raises(UsageError, match="'npmm' is not an Install list"):
        patch.set_install({"npmm": ["x"]})


# -- files ----------------------------------------------------------------------------------
def write_profile(tmp_path: Path, raw: bytes) -> tuple[VaultLayout, Path]:
    layout = VaultLayout(tmp_path)
    path = layout.profile_path("coding")
    path.parent.mkdir(parents=True)
    path.write_bytes(raw)
    return layout, path


def test_a_refused_edit_leaves_the_file_untouched(tmp_path: Path) -> None:
    raw = BROKEN_CONFIG.encode()
    layout, path = write_profile(tmp_path, raw)
    with pytest.raises(InvalidDocumentError):
        patch.patch_profile(layout, "coding", [patch.set_config({"model": "m"})])
    assert path.read_bytes() == raw
    assert [p.name for p in path.parent.iterdir()] == ["profile.md"]  # no temp file left


def test_crlf_and_bom_survive_an_edit(tmp_path: Path) -> None:
    raw = b"\xef\xbb\xbf" + PROFILE.replace("\n", "\r\n").encode()
    layout, path = write_profile(tmp_path, raw)
    patch.patch_profile(layout, "coding", [patch.set_config({"model": "m"})])
    assert path.read_bytes() == raw.replace(b'"claude-sonnet-4-6"', b'"m"')


def test_a_no_op_edit_does_not_touch_the_file(tmp_path: Path) -> None:
    layout, path = write_profile(tmp_path, PROFILE.encode())
    before = path.stat().st_mtime_ns
    result = patch.patch_profile(layout, "coding", [patch.set_config({"top_p": patch.REMOVE})])
    assert not result.changed
    assert path.stat().st_mtime_ns == before


# -- JSON members ---------------------------------------------------------------------------
def test_json_members_with_tricky_strings() -> None:
    text = '{"a": "x,}]", "b": {"c": [1, {"d": "}"}]}, "e": null}\n'
    assert patch_json.set_member(text, "b", 1) == '{"a": "x,}]", "b": 1, "e": null}\n'
    assert patch_json.remove_member(text, "e") == '{"a": "x,}]", "b": {"c": [1, {"d": "}"}]}}\n'
    assert patch_json.remove_member(text, "a") == '{"b": {"c": [1, {"d": "}"}]}, "e": null}\n'
    assert patch_json.set_member("{}", "k", [1]) == '{\n  "k": [1]\n}'


def test_a_file_changed_during_the_edit_is_not_overwritten(tmp_path: Path) -> None:
    layout, path = write_profile(tmp_path, PROFILE.encode())
    text, source = patch.read_text(layout, path)
    path.write_text(PROFILE + "\nAn editor saved this.\n")
    with pytest.raises(ConflictError, match="changed while it was being edited"):
        patch.write_text(text.replace("Coding", "Other"), source)
    assert path.read_text().endswith("An editor saved this.\n")


def test_a_symlink_leading_outside_the_vault_is_not_edited(tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text(PROFILE)
    layout = VaultLayout(tmp_path / "vault")
    path = layout.profile_path("coding")
    path.parent.mkdir(parents=True)
    path.symlink_to(outside)
    with pytest.raises(VaultError, match="leads outside the vault"):
        patch.patch_profile(layout, "coding", [patch.set_config({"model": "m"})])
    assert outside.read_text() == PROFILE


EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "vault"


@pytest.mark.parametrize(
    "path",
    sorted(EXAMPLES.glob("**/agent-types/*/profile.md")),
    ids=lambda p: p.relative_to(EXAMPLES).as_posix(),
)
def test_example_profiles_keep_every_untouched_section_byte_identical(path: Path) -> None:
    rel = path.relative_to(EXAMPLES).as_posix()
    project = rel.split("/")[1] if rel.startswith("projects/") else None
    text = path.read_text(encoding="utf-8")
    result = patch.apply_edits(
        text,
        [patch.set_config({"max_turns": 7}), patch.set_section("Rules", "- one rule")],
        path=rel,
        expected_id=path.parent.name,
        project=project,
    )

    def parts(source: str) -> dict[str, str]:
        doc = parse_profile(source, expected_id=path.parent.name, project=project).document
        assert doc is not None
        found = {"(before sections)": source[: doc.structure.preamble_end]}
        for s in doc.structure.sections:
            found[s.key] = source[s.start : s.body_end]
        return found

    before, after = parts(text), parts(result.text)
    for key, value in before.items():
        if key not in ("config", "rules"):
            assert after[key] == value, key
    assert set(after) - set(before) <= {"config", "rules"}
    config = after["config"]
    assert '"max_turns": 7' in config
    if "config" in before:  # only the new member differs
        assert config.replace(',\n  "max_turns": 7', "") == before["config"]
