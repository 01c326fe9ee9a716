"""Field-by-field merging of profiles, with the origin of every field.

One rule set serves both inheritance paths of issue 4: a project override over the system
profile of the same id, and ``extends: <id>`` between system profiles. Only what the upper
file sets explicitly (``fields_set``) replaces the lower value:

* each Config key, and each frontmatter field, on its own;
* a list set in the upper file replaces the whole list (tools, MCP servers, tags, rules);
* mappings (``harness``, ``extra_config``, ``metadata``) merge key by key;
* each Install list on its own;
* each prose section replaces its namesake; the others are inherited, in order, and new
  ones are appended.

Then the base configuration (roster.toml ``[defaults]``) fills whatever is still empty
(seed 001 "Config merging": empty profile fields fall through).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import msgspec

from agent_roster.model.profile import AgentProfile, InstallManifest, PromptSection


class Origin(NamedTuple):
    """Where a field's value comes from: a file, and the part of it (frontmatter, Config,
    Tools, MCP Servers, Install, ``## Heading``, or roster.toml's [defaults])."""

    path: str
    section: str

    def to_dict(self) -> dict[str, str]:
        return {"path": self.path, "section": self.section}


Origins = dict[str, Origin]

#: The origin of a default that roster.toml does not set (the runtime: claude_sdk).
BUILT_IN = Origin("(built-in)", "default")

FRONTMATTER = ("name", "description", "tags", "extends")
CONFIG = (
    "model",
    "provider",
    "permission_mode",
    "runtime",
    "agent_name",
    "max_tokens_per_task",
    "max_turns",
    "temperature",
    "top_p",
    "mode",
    "color",
    "permission",
    "native",
)
REPLACED = (
    *FRONTMATTER,
    *CONFIG,
    "allowed_tools",
    "tools_exact",
    "denied_tools",
    "mcp_servers",
)
#: ``allowed`` and ``exact`` say together what the tool set is: a file that sets either
#: replaces both (an override's ``"allowed": ["Read"]`` over an exact parent is not exact).
TOOL_SET = frozenset({"allowed_tools", "tools_exact"})
MAPPINGS = {"harness": "Config", "extra_config": "Config", "metadata": "frontmatter"}
INSTALL_KEYS = ("npm", "pip", "commands")
#: What roster.toml [defaults] may fill in when a profile leaves it empty.
DEFAULTABLE = (
    "model",
    "provider",
    "permission_mode",
    "runtime",
    "allowed_tools",
    "denied_tools",
    "max_turns",
    "max_tokens_per_task",
)


def section_of(field: str) -> str:
    if field in FRONTMATTER or field == "metadata":
        return "frontmatter"
    if field in CONFIG or field in ("harness", "extra_config"):
        return "Config"
    if field in ("allowed_tools", "denied_tools", "tools_exact"):
        return "Tools"
    if field == "mcp_servers":
        return "MCP Servers"
    return "Install"


def set_fields(profile: AgentProfile) -> frozenset[str]:
    """What ``profile``'s file sets. The parser keeps unknown frontmatter keys in ``metadata``
    without naming it in ``fields_set``, so a non-empty ``metadata`` counts as set here."""
    if profile.metadata and "metadata" not in profile.fields_set:
        return profile.fields_set | {"metadata"}
    return profile.fields_set


def origins_of(profile: AgentProfile) -> Origins:
    """The origins of everything ``profile`` sets itself."""
    found: Origins = {}
    # Fields share a handful of origins (one per section): make each once, not per field.
    made: dict[str, Origin] = {}

    def origin(section: str) -> Origin:
        value = made.get(section)
        if value is None:
            value = made[section] = Origin(profile.source, section)
        return value

    for field in set_fields(profile):
        if field == "sections":
            continue
        if field in MAPPINGS:
            value = getattr(profile, field)
            for key in value:
                found[f"{field}.{key}"] = origin(MAPPINGS[field])
        elif field == "install":
            continue
        else:
            found[field] = origin(section_of(field))
    for section in profile.sections:
        found[f"sections.{section.heading}"] = Origin(profile.source, f"## {section.heading}")
    if "id" not in found:
        found["id"] = origin("path")
    return found


def overlay(
    base: AgentProfile, base_origins: Origins, top: AgentProfile
) -> tuple[AgentProfile, Origins]:
    """``top`` merged over ``base``; returns the result and the merged origins."""
    changes: dict[str, Any] = {}
    origins = dict(base_origins)
    top_set = set_fields(top)
    if top_set & TOOL_SET:
        top_set = top_set | TOOL_SET
    for field in top_set:
        if field in REPLACED:
            changes[field] = getattr(top, field)
            origins[field] = Origin(top.source, section_of(field))
        elif field in MAPPINGS:
            merged = dict(getattr(base, field))
            for key, value in getattr(top, field).items():
                merged[key] = value
                origins[f"{field}.{key}"] = Origin(top.source, MAPPINGS[field])
            changes[field] = merged
    install = {k: getattr(base.install, k) for k in INSTALL_KEYS}
    for key in INSTALL_KEYS:
        if f"install.{key}" in top_set:
            install[key] = getattr(top.install, key)
            origins[f"install.{key}"] = Origin(top.source, "Install")
    changes["install"] = InstallManifest(**install)
    if top.sections:
        by_key = {s.key: s for s in top.sections}
        sections: list[PromptSection] = []
        for section in base.sections:
            sections.append(by_key.pop(section.key, section))
        sections.extend(s for s in top.sections if s.key in by_key)
        changes["sections"] = tuple(sections)
        for section in top.sections:
            origins[f"sections.{section.heading}"] = Origin(top.source, f"## {section.heading}")
    changes["id"] = top.id
    origins["id"] = Origin(top.source, "path")
    changes["project"] = top.project
    changes["source"] = top.source
    changes["fields_set"] = set_fields(base) | top_set
    return msgspec.structs.replace(base, **changes), origins


def with_defaults(
    profile: AgentProfile, origins: Origins, defaults: AgentProfile
) -> tuple[AgentProfile, Origins]:
    """Fill empty fields from roster.toml's [defaults] (seed 001: empty falls through). A
    value roster.toml does not set is the built-in default, and its origin says so."""
    changes: dict[str, Any] = {}
    merged = dict(origins)
    for field in DEFAULTABLE:
        if field == "allowed_tools" and profile.tools_exact:
            continue  # the tool set is exact: [] means no tools, not "use the default"
        current = getattr(profile, field)
        fallback = getattr(defaults, field)
        if current in ("", None, ()) and fallback not in ("", None, ()):
            changes[field] = fallback
            merged[field] = (
                Origin(defaults.source, "[defaults]") if field in defaults.fields_set else BUILT_IN
            )
    if not changes:
        return profile, merged
    return msgspec.structs.replace(profile, **changes), merged
