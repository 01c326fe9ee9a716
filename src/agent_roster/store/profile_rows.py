"""Convert between :class:`AgentProfile` and ``agent_profiles`` rows.

Lists and mappings are JSON text; reading goes back through ``msgspec.convert``, so a row
comes back as the same immutable, validated object that was written (tuples, enums,
nested Structs), and a row that no longer fits the model fails loudly instead of leaking
raw dicts downstream (STYLE habit 4).
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import attrgetter
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
    "tools_exact",
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


#: ``agent_profiles`` columns in the order :func:`profile_values` gives them.
ROW_COLUMNS: tuple[str, ...] = (
    "key",
    *PLAIN_FIELDS,
    *JSON_FIELDS,
    "runtime",
    "system_prompt_suffix",
    "fields_set",
    "source_path",
    "content_hash",
    "present",
    "last_synced_at",
)
_CREATED = PLAIN_FIELDS.index("created_at")
_UPDATED = PLAIN_FIELDS.index("updated_at")
_plain = attrgetter(*PLAIN_FIELDS)
_json = attrgetter(*JSON_FIELDS)


def profile_values(
    profile: AgentProfile,
    *,
    at: float,
    content_hash: str = "",
    present: bool = True,
    synced_at: float | None = None,
) -> tuple[Any, ...]:
    """The row for ``profile`` as values in :data:`ROW_COLUMNS` order; missing timestamps
    become ``at``. A tuple rather than a mapping: sync builds 10,000 of these and, when it
    parses in worker processes, sends them between processes."""
    plain = list(_plain(profile))
    if plain[_CREATED] is None:
        plain[_CREATED] = at
    if plain[_UPDATED] is None:
        plain[_UPDATED] = at
    runtime = profile.runtime
    return (
        scoped_key(profile.id, profile.project, "profile id"),
        *plain,
        *[dumps(value) for value in _json(profile)],
        runtime.value if runtime is not None else None,
        # Stored for readers that only know seed 001's columns; the model derives it from
        # ``sections``, which is what is read back.
        profile.system_prompt_suffix,
        dumps(sorted(profile.fields_set)),
        profile.source,
        content_hash,
        present,
        synced_at,
    )


def profile_to_row(
    profile: AgentProfile,
    *,
    at: float,
    content_hash: str = "",
    present: bool = True,
    synced_at: float | None = None,
) -> dict[str, Any]:
    """The full column mapping for ``profile``. Missing timestamps become ``at``."""
    values = profile_values(
        profile, at=at, content_hash=content_hash, present=present, synced_at=synced_at
    )
    return dict(zip(ROW_COLUMNS, values, strict=True))


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
