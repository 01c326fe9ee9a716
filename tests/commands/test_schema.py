"""The published JSON Schema agrees with the validator, on real files and on bad values."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from agent_roster.commands.schema import build_schemas
from agent_roster.vault import profile_blocks
from agent_roster.vault.loader import load_vault
from agent_roster.vault.profile_parser import parse_profile

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = build_schemas()
BLOCK_SCHEMA = {
    "config": "profile-config",
    "tools": "profile-tools",
    "mcp servers": "profile-mcp-servers",
    "install": "profile-install",
}


def check(stem: str, value: Any) -> list[str]:
    validator = jsonschema.Draft202012Validator(SCHEMAS[stem])
    return [error.message for error in validator.iter_errors(value)]


def test_every_schema_is_a_valid_2020_12_schema() -> None:
    for schema in SCHEMAS.values():
        jsonschema.Draft202012Validator.check_schema(schema)


def test_config_schema_names_exactly_the_validated_keys() -> None:
    assert set(SCHEMAS["profile-config"]["properties"]) == set(profile_blocks.CONFIG_KEYS)


@pytest.mark.parametrize("vault", ["examples/vault", "src/agent_roster/templates/vault"])
def test_real_vault_blocks_satisfy_the_schemas(vault: str) -> None:
    snapshot = load_vault(REPO / vault)
    assert snapshot.profiles, "the vault has profiles"
    checked = 0
    for parsed in snapshot.profiles.values():
        document = parsed.document
        assert document is not None
        assert check("profile-frontmatter", document.frontmatter.data) == []
        for section in document.structure.sections:
            stem = BLOCK_SCHEMA.get(section.key)
            if stem is None:
                continue
            (fence,) = [f for f in section.fences if f.lang == "json"]
            value = json.loads(document.text[fence.content_start : fence.content_end])
            assert check(stem, value) == [], (document.path, section.heading)
            checked += 1
    assert checked > 0
    for parsed_server in snapshot.servers.values():
        assert parsed_server.ok


@pytest.mark.parametrize(
    ("config", "code"),
    [
        ({"model": ""}, "field-type"),
        ({"permission_mode": "turbo"}, "field-value"),
        ({"max_tokens_per_task": 0}, "field-value"),
        ({"max_tokens_per_task": True}, "field-type"),
        ({"temperature": 3}, "field-value"),
        ({"runtime": "docker"}, "field-value"),
        ({"runtime": "acpx"}, "runtime-agent-name"),
        ({"mode": "boss"}, "field-value"),
        ({"permission": {"bash": "maybe"}}, "field-value"),
        ({"model": "--dangerously-skip-permissions"}, "argv-option-value"),
        ({"runtime": "acpx", "agent_name": "--approve-all"}, "argv-option-value"),
        ({"runtime": "acpx", "agent_name": "codex --approve-all"}, "argv-option-value"),
    ],
)
def test_values_the_validator_rejects_the_schema_rejects(config: dict[str, Any], code: str) -> None:
    text = "---\nid: a\nname: A\n---\n## Config\n```json\n" + json.dumps(config) + "\n```\n"
    parsed = parse_profile(text, expected_id="a")
    assert [d.code for d in parsed.diagnostics if d.is_error] == [code]
    assert check("profile-config", config) != []


@pytest.mark.parametrize(
    ("install", "valid"),
    [
        ({"npm": ["eslint", "@scope/pkg@^1.2"]}, True),
        ({"pip": ["requests>=2,<3", "black[jupyter]"]}, True),
        ({"npm": ["--registry=http://evil"]}, False),
        ({"pip": ["-e ."]}, False),
        ({"commands": ["rm -rf /"]}, False),
    ],
)
def test_install_names_agree(install: dict[str, Any], valid: bool) -> None:
    text = "---\nid: a\nname: A\n---\n## Install\n```json\n" + json.dumps(install) + "\n```\n"
    parsed = parse_profile(text, expected_id="a")
    assert parsed.ok is valid
    assert (check("profile-install", install) == []) is valid
