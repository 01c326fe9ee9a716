"""Convert between :class:`AgentProfile` and ``agent_profiles`` rows.

Lists and mappings are JSON text; reading goes back through ``msgspec.convert``, so a row
comes back as the same immutable, validated object that was written (tuples, enums,
nested Structs), and a row that no longer fits the model fails loudly instead of leaking
raw dicts downstream (STYLE habit 4).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from agent_roster.model import AgentProfile
from agent_roster.store.common import dumps, loads, scoped_key

#: Model fields with a JSON text column of the same name.
JSON_FIELDS = (
    "tags",
    "permission",
    "harness",
    "extra_config",
    "allowed_tools",
    "denied_tools",
    "mcp_servers",
    "sections",
    "install",
    "metadata",
)
#: Model fields stored as-is in a column of the same name.
PLAIN_FIELDS = (
    "id",
    "project",
    "name",
    "description",
    "extends",
    "model",
    "provider",
    "permission_mode",
    "agent_name",
    "max_tokens_per_task",
    "max_turns",
    "temperature",
    "top_p",
    "mode",
    "color",
    "created_at",
    "updated_at",
)


def coerce_mcp_servers(value: Any) -> list[str]:
    """Seed 001's read rule for ``mcp_servers``: the column default is the legacy literal
    ``'{}'`` and old rows may hold inline configs, so a dict yields its keys, a list its
    string items, and anything else nothing."""
    if isinstance(value, dict):
        return [str(name) for name in value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    return []


def profile_to_row(
    profile: AgentProfile,
    *,
    at: float,
    content_hash: str = "",
    present: bool = True,
    synced_at: float | None = None,
) -> dict[str, Any]:
    """The full column mapping for ``profile``. Missing timestamps become ``at``."""
    row: dict[str, Any] = {name: getattr(profile, name) for name in PLAIN_FIELDS}
    for name in JSON_FIELDS:
        row[name] = dumps(getattr(profile, name))
    row["key"] = scoped_key(profile.id, profile.project, "profile id")
    row["runtime"] = profile.runtime.value if profile.runtime is not None else None
    # Stored for readers that only know seed 001's columns; the model derives it from
    # ``sections``, which is what is read back.
    row["system_prompt_suffix"] = profile.system_prompt_suffix
    row["fields_set"] = dumps(sorted(profile.fields_set))
    row["source_path"] = profile.source
    row["content_hash"] = content_hash
    row["present"] = present
    row["last_synced_at"] = synced_at
    if row["created_at"] is None:
        row["created_at"] = at
    if row["updated_at"] is None:
        row["updated_at"] = at
    return row


def row_to_profile(row: Mapping[Any, Any]) -> AgentProfile:
    """The profile a row holds (``row`` is a result row's ``_mapping``)."""
    data: dict[str, Any] = {name: row[name] for name in PLAIN_FIELDS}
    for name in JSON_FIELDS:
        data[name] = loads(row[name])
    data["mcp_servers"] = coerce_mcp_servers(data["mcp_servers"])
    if not isinstance(data["install"], dict):
        data["install"] = {}
    data["runtime"] = row["runtime"]
    data["fields_set"] = loads(row["fields_set"]) or []
    data["source"] = row["source_path"]
    # None in a JSON column (NULL, '' or 'null') means "not set": let the model default it.
    return msgspec.convert({k: v for k, v in data.items() if v is not None}, AgentProfile)


def merge_fields(profile: AgentProfile, fields: Mapping[str, Any]) -> AgentProfile:
    """``profile`` with ``fields`` replaced, validated as a whole (raises
    ``msgspec.ValidationError`` when a value does not fit the model)."""
    data = msgspec.to_builtins(profile)
    data.update(msgspec.to_builtins(dict(fields)))
    return msgspec.convert(data, AgentProfile)
