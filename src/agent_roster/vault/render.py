"""Rendering a profile as profile.md text: the inverse of the parser.

Used where a whole new file is written (``init``, ``migrate-config``, creating or importing a
profile). Edits to existing files patch spans in place instead (positions are kept by the
parser), so a user's formatting is never re-rendered away. ``parse(render(p))`` gives back
``p`` for every field the format holds; a test checks this on generated profiles.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import yaml

from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile, PromptSection
from agent_roster.vault import verbatim

_LEADING_PROSE = ("role",)


def _yaml(data: dict[str, Any]) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def to_json(value: Any, indent: str = "") -> str:
    """Pretty JSON that keeps short arrays of scalars on one line, as people write them."""
    if isinstance(value, list) and all(not isinstance(v, dict | list) for v in value):
        flat = json.dumps(value, ensure_ascii=False)
        if len(flat) + len(indent) <= 90:
            return flat
    if isinstance(value, dict) and value:
        inner = indent + "  "
        items = [
            f"{inner}{json.dumps(k, ensure_ascii=False)}: {to_json(v, inner)}"
            for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    if isinstance(value, list) and value:
        inner = indent + "  "
        items = [f"{inner}{to_json(v, inner)}" for v in value]
        return "[\n" + ",\n".join(items) + f"\n{indent}]"
    return json.dumps(value, ensure_ascii=False)


def _block(heading: str, value: Any) -> str:
    return f"## {heading}\n```json\n{to_json(value)}\n```\n"


def _prose(section: PromptSection) -> str:
    # A body plain prose would change (an imported native prompt with its own ## lines, an
    # open fence, CRLF...) is written as a verbatim block (issue 12 item 1).
    body = verbatim.encode(section.body)
    return f"## {section.heading}\n{body}\n" if body else f"## {section.heading}\n"


def config_block(profile: AgentProfile) -> dict[str, Any]:
    """The Config JSON object for a profile: only the keys that are set."""
    config: dict[str, Any] = {}
    for key in ("model", "provider", "permission_mode"):
        if getattr(profile, key):
            config[key] = getattr(profile, key)
    if profile.max_tokens_per_task is not None:
        config["max_tokens_per_task"] = profile.max_tokens_per_task
    if profile.max_turns is not None:
        config["max_turns"] = profile.max_turns
    if profile.temperature is not None:
        config["temperature"] = profile.temperature
    if profile.top_p is not None:
        config["top_p"] = profile.top_p
    if profile.runtime is not None:
        config["runtime"] = profile.runtime.value
    for key in ("agent_name", "mode", "color"):
        if getattr(profile, key):
            config[key] = getattr(profile, key)
    if profile.permission:
        rules: dict[str, Any] = {}
        for rule in profile.permission:
            if rule.pattern == "*" and rule.permission not in rules:
                rules[rule.permission] = rule.action.value
            else:
                current = rules.get(rule.permission)
                if isinstance(current, str):
                    current = {"*": current}
                current = dict(current or {})
                current[rule.pattern] = rule.action.value
                rules[rule.permission] = current
        config["permission"] = rules
    if profile.harness:
        config["harness"] = profile.harness
    if profile.native:
        config["native"] = {name: msgspec.to_builtins(f) for name, f in profile.native.items()}
    config.update(profile.extra_config)
    return config


def render_profile(profile: AgentProfile) -> str:
    """A complete profile.md for ``profile``."""
    front: dict[str, Any] = {"id": profile.id, "name": profile.name}
    if profile.description:
        front["description"] = profile.description
    if profile.tags:
        front["tags"] = list(profile.tags)
    if profile.extends:
        front["extends"] = profile.extends
    front.update(profile.metadata)
    parts = [f"---\n{_yaml(front)}---\n\n# {profile.name}\n"]
    leading = [s for s in profile.sections if s.key in _LEADING_PROSE]
    trailing = [s for s in profile.sections if s.key not in _LEADING_PROSE]
    parts.extend(_prose(s) for s in leading)
    config = config_block(profile)
    if config:
        parts.append(_block("Config", config))
    if profile.allowed_tools or profile.denied_tools or profile.tools_exact:
        tools: dict[str, Any] = {
            "allowed": list(profile.allowed_tools),
            "denied": list(profile.denied_tools),
        }
        if profile.tools_exact:
            tools["exact"] = True
        parts.append(_block("Tools", tools))
    if profile.mcp_servers:
        parts.append(_block("MCP Servers", list(profile.mcp_servers)))
    parts.extend(_prose(s) for s in trailing)
    if not profile.install.is_empty:
        install = {
            k: list(v)
            for k, v in (
                ("npm", profile.install.npm),
                ("pip", profile.install.pip),
                ("commands", profile.install.commands),
            )
            if v
        }
        parts.append(_block("Install", install))
    return "\n".join(parts)


def render_mcp_server(server: McpServer) -> str:
    """A complete ``mcp-servers/<name>.md`` for ``server``."""
    front: dict[str, Any] = {"name": server.name, "transport": server.transport.value}
    if server.description:
        front["description"] = server.description
    if server.command:
        front["command"] = server.command
    if server.args:
        front["args"] = list(server.args)
    if server.env:
        front["env"] = dict(server.env)
    if server.url:
        front["url"] = server.url
    if server.headers:
        front["headers"] = dict(server.headers)
    body = f"\n{server.notes}\n" if server.notes else ""
    return f"---\n{_yaml(front)}---\n{body}"
