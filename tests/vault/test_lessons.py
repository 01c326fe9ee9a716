"""Regression tests for the weak spots of the system we replace
(../shared/research/agent-queue-lessons.md, sections 2 and 5): each must be impossible here."""

from __future__ import annotations

import pytest

from agent_roster.known_tools import KnownTools
from agent_roster.vault.loader import load_vault
from agent_roster.vault.paths import VaultLayout

from .helpers import FENCE, block, codes, doc, parse


@pytest.mark.parametrize(
    ("lines", "expected", "model"),
    [
        (["```JSON", '{"model": "m"}', FENCE], [], "m"),
        ([FENCE, '{"model": "m"}', FENCE], ["json-fence-untagged"], ""),
        (['```json {"model": "m"}```'], ["json-block-missing"], ""),
    ],
)
def test_5_1_json_fences_are_never_ignored_silently(
    lines: list[str], expected: list[str], model: str
) -> None:
    parsed = parse(doc("## Config", *lines))
    assert codes(parsed) == expected
    assert parsed.profile is not None and parsed.profile.model == model


def test_5_2_a_heading_inside_a_fence_does_not_split_the_section() -> None:
    parsed = parse(doc("## Role", "Example:", FENCE + "markdown", "## Tools", FENCE, "Done."))
    assert parsed.ok and parsed.profile is not None
    assert parsed.profile.role == "Example:\n```markdown\n## Tools\n```\nDone."
    assert parsed.profile.allowed_tools == ()


@pytest.mark.parametrize("key", ["id", "name"])
def test_5_3_null_id_or_name_never_becomes_the_string_none(key: str) -> None:
    fields = {"id": "id: coding", "name": "name: Coding"}
    fields[key] = f"{key}:"
    parsed = parse(f"---\n{fields['id']}\n{fields['name']}\n---\n")
    assert codes(parsed) == ["field-type"]
    assert parsed.profile is not None
    assert "None" not in (parsed.profile.id, parsed.profile.name)


def test_5_4_denied_max_tokens_and_unknown_config_keys_are_kept() -> None:
    text = (
        block("Config", '{"max_tokens_per_task": 5000, "provider_region": "eu"}')
        + "## Tools\n```json\n"
        + '{"allowed": ["Read"], "denied": ["Bash"]}'
        + "\n```\n"
    )
    parsed = parse(text)
    assert parsed.profile is not None
    assert parsed.profile.max_tokens_per_task == 5000
    assert parsed.profile.denied_tools == ("Bash",)
    assert parsed.profile.extra_config == {"provider_region": "eu"}
    data = parsed.profile.to_json_dict()
    assert (data["max_tokens_per_task"], data["denied_tools"]) == (5000, ["Bash"])


def test_section_2_tags_extras_unknown_sections_and_prose_are_kept() -> None:
    text = (
        "---\nid: coding\nname: C\ntags: [profile]\nmemory_scope_id: shared\n---\n"
        "## Config\nWhy these settings.\n```json\n{}\n```\n## Checklist\n- one\n"
    )
    parsed = parse(text)
    assert parsed.ok and parsed.profile is not None
    p = parsed.profile
    assert (p.tags, p.metadata) == (("profile",), {"memory_scope_id": "shared"})
    assert p.section("checklist") == "- one"
    assert "Why these settings." in parsed.document.text  # type: ignore[union-attr]


def test_5_5_agent_queue_and_registered_server_tools_are_known() -> None:
    tools = '{"allowed": ["create_task", "list_profiles", "Read", "mcp__github__get_issue"]}'
    parsed = parse(block("Tools", tools), known_tools=KnownTools(["github"]))
    assert parsed.diagnostics == ()


def test_5_9_a_project_override_cannot_claim_another_id(make_tree) -> None:  # type: ignore[no-untyped-def]
    root = make_tree(
        {
            "agent-types/coding/profile.md": "---\nid: coding\nname: Coding\n---\n",
            "projects/web/agent-types/coding/profile.md": "---\nid: qa\n---\n",
            "projects/web/agent-types/qa/profile.md": "---\nid: qa\n---\n",
        }
    )
    snapshot = load_vault(root)
    assert set(snapshot.profiles) == {(None, "coding"), ("web", "coding"), ("web", "qa")}
    override = snapshot.profiles[("web", "coding")]
    assert [d.code for d in override.diagnostics] == ["id-mismatch"]
    assert override.profile is not None
    assert (override.profile.id, override.profile.project) == ("coding", "web")
    assert snapshot.profiles[(None, "coding")].profile.name == "Coding"  # type: ignore[union-attr]


def test_5_8_and_5_10_flat_scoped_and_nested_files_are_not_profiles(make_tree) -> None:  # type: ignore[no-untyped-def]
    root = make_tree(
        {
            "agent-types/project:web:coding/profile.md": "---\nid: x\n---\n",
            "agent-types/coding/memory/profile.md": "---\nid: x\n---\n",
            "agent-types/coding/subdir/profile.md": "---\nid: x\n---\n",
            "orchestrator/profile.md": "---\nid: orchestrator\n---\n",
        }
    )
    assert list(VaultLayout(root).iter_entries()) == []


def test_5_16_server_name_must_match_its_file(make_tree) -> None:  # type: ignore[no-untyped-def]
    root = make_tree(
        {"mcp-servers/github.md": "---\nname: gh\ntransport: stdio\ncommand: x\n---\n"}
    )
    snapshot = load_vault(root)
    parsed = snapshot.servers[(None, "github")]
    assert parsed.server is None
    assert [d.code for d in parsed.diagnostics] == ["id-mismatch"]


def test_2_invalid_frontmatter_is_an_error_not_no_frontmatter() -> None:
    parsed = parse("---\nid: coding\nname: [unclosed\n---\n## Role\nHi\n")
    assert codes(parsed) == ["yaml-invalid"]
    unterminated = parse("---\nid: coding\nname: C\n## Role\nHi\n")
    assert codes(unterminated) == ["frontmatter-unterminated"]
