"""``schema``: JSON Schema for the frontmatter and each JSON block.

The schemas are built from the same constants the validators use (Config keys, permission
modes, runtimes, package-name patterns), and the copies committed under ``schemas/`` are
compared with this output in CI, so the published schema cannot drift from the code.
Keys the validator accepts with a warning (unknown Config keys are kept as extra config,
other frontmatter keys as metadata) are allowed here too: a schema validator must not reject
what Roster accepts.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from agent_roster.model.mcp import Transport
from agent_roster.model.profile import PERMISSION_MODES, Runtime
from agent_roster.vault import profile_blocks
from agent_roster.vault.paths import MAX_SEGMENT
from agent_roster.vault.writer import atomic_write

DIALECT = "https://json-schema.org/draft/2020-12/schema"
BASE_ID = "https://agent-roster.dev/schemas/"

# The same rule as vault.paths.segment_problem, in ECMA-262 regex syntax.
SEGMENT_PATTERN = (
    r"^(?!\.)(?!.*\.\.)(?!\s)[^/\\:\x00-\x1f\x7f-\x9f]{0,"
    + str(MAX_SEGMENT - 1)
    + r"}[^/\\:\x00-\x1f\x7f-\x9f\s]$"
)


def _segment(description: str) -> dict[str, Any]:
    return {"type": "string", "pattern": SEGMENT_PATTERN, "description": description}


#: A value that reaches a command line: its first character is not an option's '-'
#: (``argv-option-value``, issue 11 item 2).
NOT_OPTION = r"^\s*[^\s-]"


def _names(description: str, pattern: str | None = None) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "string", "minLength": 1, "pattern": pattern or NOT_OPTION}
    return {"type": "array", "items": item, "description": description}


def _schema(name: str, title: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"$schema": DIALECT, "$id": f"{BASE_ID}{name}.schema.json", "title": title, **body}


def _action() -> dict[str, Any]:
    return {"enum": list(profile_blocks.ACTIONS)}


def build_schemas() -> dict[str, dict[str, Any]]:
    """Every schema, keyed by its file stem."""
    config_properties: dict[str, Any] = {
        "model": {"type": "string", "minLength": 1, "pattern": NOT_OPTION},
        "provider": {"type": "string", "minLength": 1},
        "color": {"type": "string", "minLength": 1},
        "permission_mode": {"enum": list(PERMISSION_MODES)},
        "max_tokens_per_task": {"type": "integer", "minimum": 1},
        "max_turns": {"type": "integer", "minimum": 1},
        "temperature": {"type": "number", "minimum": 0, "maximum": 2},
        "top_p": {"type": "number", "minimum": 0, "maximum": 1},
        "runtime": {"enum": [r.value for r in Runtime]},
        "agent_name": {
            "type": "string",
            "allOf": [{"pattern": SEGMENT_PATTERN}, {"pattern": r"^[^\s-]\S*$"}],
        },
        "mode": {"enum": list(profile_blocks.MODES)},
        "permission": {
            "oneOf": [
                _action(),
                {
                    "type": "object",
                    "additionalProperties": {
                        "oneOf": [
                            _action(),
                            {"type": "object", "additionalProperties": _action()},
                        ]
                    },
                },
            ]
        },
        "harness": {"type": "object", "additionalProperties": {"type": "object"}},
        "native": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "properties": {
                    key: {"type": "string"} for key in sorted(profile_blocks.NATIVE_KEYS)
                },
                "additionalProperties": False,
            },
        },
    }
    for key, description in profile_blocks.CONFIG_KEYS.items():
        config_properties[key]["description"] = description
    return {
        "profile-frontmatter": _schema(
            "profile-frontmatter",
            "profile.md frontmatter",
            {
                "type": "object",
                "properties": {
                    "id": _segment("profile id; must equal the profile's folder name"),
                    "name": {"type": "string", "minLength": 1, "description": "display name"},
                    "description": {"type": "string"},
                    "tags": {
                        "oneOf": [
                            {"type": "string"},
                            {"type": "array", "items": {"type": "string", "minLength": 1}},
                            {"type": "null"},
                        ]
                    },
                    "extends": _segment("id of a system profile this one inherits from"),
                },
                "additionalProperties": True,
            },
        ),
        "profile-config": _schema(
            "profile-config",
            "profile.md ## Config block",
            {
                "type": "object",
                "properties": config_properties,
                "additionalProperties": True,
                "if": {"properties": {"runtime": {"const": "acpx"}}, "required": ["runtime"]},
                "then": {"required": ["agent_name"]},
            },
        ),
        "profile-tools": _schema(
            "profile-tools",
            "profile.md ## Tools block",
            {
                "type": "object",
                "properties": {
                    "allowed": _names("tools the agent may use; bare names are canonical"),
                    "denied": _names("tools the agent must not use"),
                    "exact": {
                        "type": "boolean",
                        "description": "allowed is the whole tool set, even when empty "
                        "([] = no tools); roster.toml's default list does not fill it",
                    },
                },
                "additionalProperties": True,
            },
        ),
        "profile-mcp-servers": _schema(
            "profile-mcp-servers",
            "profile.md ## MCP Servers block",
            {
                "oneOf": [
                    {
                        "type": "array",
                        "items": {"type": "string", "pattern": SEGMENT_PATTERN},
                        "uniqueItems": True,
                        "description": "names of entries in the MCP server registry",
                    },
                    {
                        "type": "object",
                        "additionalProperties": {"type": "object"},
                        "deprecated": True,
                        "description": "legacy inline configs; run 'roster migrate-mcp'",
                    },
                ]
            },
        ),
        "profile-install": _schema(
            "profile-install",
            "profile.md ## Install block",
            {
                "type": "object",
                "properties": {
                    "npm": _names("npm packages", profile_blocks.NPM_NAME.pattern),
                    "pip": _names("pip requirements", profile_blocks.PIP_REQ.pattern),
                    "commands": _names(
                        "commands that must be on PATH", profile_blocks.COMMAND.pattern
                    ),
                },
                "additionalProperties": True,
            },
        ),
        "mcp-server": _schema(
            "mcp-server",
            "MCP server file frontmatter (mcp-servers/<name>.md)",
            {
                "type": "object",
                "properties": {
                    "name": _segment("server name; must equal the file name without .md"),
                    "transport": {"enum": [t.value for t in Transport]},
                    "command": {"type": "string", "minLength": 1, "pattern": NOT_OPTION},
                    "args": {"type": ["array", "null"], "items": {"type": "string"}},
                    "env": {"type": ["object", "null"], "additionalProperties": {"type": "string"}},
                    "url": {"type": "string", "minLength": 1},
                    "headers": {
                        "type": ["object", "null"],
                        "additionalProperties": {"type": "string"},
                    },
                    "description": {"type": "string"},
                    "tags": {},
                },
                "required": ["transport"],
                "additionalProperties": False,
                "allOf": [
                    {
                        "if": {"properties": {"transport": {"const": "stdio"}}},
                        "then": {
                            "required": ["command"],
                            "not": {"anyOf": [{"required": ["url"]}, {"required": ["headers"]}]},
                        },
                    },
                    {
                        "if": {"properties": {"transport": {"enum": ["http", "sse"]}}},
                        "then": {
                            "required": ["url"],
                            "not": {
                                "anyOf": [
                                    {"required": ["command"]},
                                    {"required": ["args"]},
                                    {"required": ["env"]},
                                ]
                            },
                        },
                    },
                ],
            },
        ),
    }


def render(schema: dict[str, Any]) -> str:
    """The exact text committed under schemas/ (sorted keys would hide the logical order)."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def write_schemas(out_dir: str | os.PathLike[str]) -> list[Path]:
    """Write every schema as ``<stem>.schema.json`` into ``out_dir``."""
    written = []
    for stem, schema in build_schemas().items():
        path = Path(out_dir) / f"{stem}.schema.json"
        atomic_write(path, render(schema))
        written.append(path)
    return written


def stale_schemas(folder: str | os.PathLike[str]) -> list[str]:
    """The schemas (by name) whose file in ``folder`` is missing or differs from the code's;
    an empty list when the folder is current (``roster schema --check``, CI)."""
    root = Path(folder)
    stale = []
    for stem, body in build_schemas().items():
        path = root / f"{stem}.schema.json"
        if not path.is_file() or path.read_text(encoding="utf-8") != render(body):
            stale.append(stem)
    return stale
