"""Seed 001's export format: a ``# Agent Profile: <name>`` comment, then one
``agent_profile:`` mapping holding only the fields that are set, and the registry servers
the profile uses (``mcp_server_definitions``), so the file is self-contained.

The prose is carried as ``sections`` (heading and body, byte for byte) so that an export
imported again gives the same profile; a file with only seed 001's ``system_prompt_suffix``
imports it as the Role section. Secret values in server env and headers never leave: each
becomes a ``${VAR}`` reference (:func:`secret_free`).
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
import yaml

from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile, InstallManifest, PromptSection
from agent_roster.redact import redact_value

#: Profile fields the format carries, in the order they are written.
PROFILE_FIELDS = (
    "id",
    "name",
    "description",
    "tags",
    "model",
    "provider",
    "runtime",
    "permission_mode",
    "agent_name",
    "max_turns",
    "max_tokens_per_task",
    "temperature",
    "top_p",
    "mode",
    "color",
    "permission",
    "harness",
    "extra_config",
    "allowed_tools",
    "denied_tools",
    "mcp_servers",
    "sections",
    "install",
)
SERVER_FIELDS = ("transport", "description", "command", "args", "env", "url", "headers")
#: Keys of ``agent_profile`` that import reads besides :data:`PROFILE_FIELDS`.
EXTRA_KEYS = ("system_prompt_suffix", "mcp_server_definitions")
_ENV_NAME = re.compile(r"[^A-Z0-9]+")


class _Dumper(yaml.SafeDumper):
    """Multi-line strings as literal blocks, so prompts stay readable in the file."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_Dumper.add_representer(str, _str)


def export_text(profile: AgentProfile, servers: list[McpServer]) -> str:
    """The YAML file for ``profile`` and the registry ``servers`` it uses."""
    data = profile.to_json_dict()
    body: dict[str, Any] = {}
    for field in PROFILE_FIELDS:
        value = data.get(field)
        if field == "install" and isinstance(value, dict):
            value = {k: v for k, v in value.items() if v}
        if field == "runtime" and value is None:
            continue
        if value in ("", None, [], {}, ()):
            continue
        body[field] = value
    if servers:
        body["mcp_server_definitions"] = {
            server.name: server_entry(server) for server in sorted(servers, key=lambda s: s.name)
        }
    text = yaml.dump(
        {"agent_profile": body},
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=100,
    )
    return f"# Agent Profile: {_one_line(profile.name)}\n{text}"


def server_entry(server: McpServer) -> dict[str, Any]:
    data = secret_free(server).to_json_dict()
    return {key: data[key] for key in SERVER_FIELDS if data.get(key) not in ("", [], {}, None)}


def secret_free(server: McpServer) -> McpServer:
    """``server`` with every secret env value and header replaced by a ``${VAR}`` reference
    naming the variable the importer must set (the env key itself; for a header,
    ``<SERVER>_<HEADER>``)."""
    env = {
        key: value if redact_value(key, value) == value else f"${{{_env_name(key)}}}"
        for key, value in server.env.items()
    }
    headers = {
        key: value
        if redact_value(key, value) == value
        else f"${{{_env_name(server.name + '_' + key)}}}"
        for key, value in server.headers.items()
    }
    return msgspec.structs.replace(server, env=env, headers=headers)


def _env_name(text: str) -> str:
    name = _ENV_NAME.sub("_", text.upper()).strip("_")
    return name if name and not name[0].isdigit() else f"V_{name}"


def _one_line(text: str) -> str:
    return " ".join(text.split())


class ImportProblem(Exception):
    """The text is not an export file; ``message`` says where."""


def read_export(text: str) -> tuple[dict[str, Any], list[str]]:
    """The ``agent_profile`` mapping of an export file, and the keys it has that this
    format does not know (reported, not imported)."""
    try:
        data = yaml.load(text, Loader=yaml.CSafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ImportProblem(f"not valid YAML{where}") from None
    if not isinstance(data, dict) or not isinstance(data.get("agent_profile"), dict):
        raise ImportProblem("no 'agent_profile:' mapping at the top of the file")
    body: dict[str, Any] = data["agent_profile"]
    unknown = [k for k in body if k not in PROFILE_FIELDS and k not in EXTRA_KEYS]
    return body, unknown


def profile_from(body: dict[str, Any], profile_id: str) -> AgentProfile:
    """An AgentProfile from an export's mapping (types checked by msgspec; the vault
    parser checks everything else when the rendered file is parsed)."""
    fields = {k: v for k, v in body.items() if k in PROFILE_FIELDS}
    fields["id"] = profile_id
    fields.setdefault("name", profile_id)
    suffix = body.get("system_prompt_suffix")
    if "sections" not in fields and isinstance(suffix, str) and suffix:
        fields["sections"] = [{"heading": "Role", "body": suffix}]
    try:
        profile = msgspec.convert(fields, AgentProfile, strict=False)
    except msgspec.ValidationError as exc:
        raise ImportProblem(f"agent_profile: {exc}") from None
    if not isinstance(profile.install, InstallManifest) or not all(
        isinstance(s, PromptSection) for s in profile.sections
    ):
        raise ImportProblem("agent_profile: sections and install have the wrong shape")
    return profile


def servers_from(body: dict[str, Any]) -> list[McpServer]:
    definitions = body.get("mcp_server_definitions") or {}
    if not isinstance(definitions, dict):
        raise ImportProblem("agent_profile.mcp_server_definitions must be a mapping")
    servers = []
    for name, entry in definitions.items():
        if not isinstance(entry, dict):
            raise ImportProblem(f"mcp_server_definitions.{name} must be a mapping")
        fields = {k: v for k, v in entry.items() if k in SERVER_FIELDS}
        try:
            servers.append(msgspec.convert({"name": name, **fields}, McpServer, strict=False))
        except msgspec.ValidationError as exc:
            raise ImportProblem(f"mcp_server_definitions.{name}: {exc}") from None
    return servers
