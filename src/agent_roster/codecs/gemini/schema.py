"""The zod schemas Gemini CLI 0.61.0 checks MCP server entries with, as data, and a checker
that words each issue as zod does (``Expected array, received number``).

Two shapes: an entry of ``mcpServers`` in ``settings.json`` (``MCPServerConfig`` of the
settings schema, ``additionalProperties: false``), which Gemini reports at startup as
``Invalid configuration in <file>: Error in: <path> <message>``; and an entry of an
agent's inline ``mcp_servers`` (``mcpServerSchema`` in the agent loader, snake_case keys,
unknown keys stripped), where an issue makes Gemini skip the agent. Issue 11 item 4: a
wrong type anywhere is a located diagnostic, never a crash.
"""

from __future__ import annotations

from typing import Any, Union

#: A type in a schema: a zod primitive (``"string"``, ``"number"``, ``"boolean"``,
#: ``"object"`` for any object), an enum (a tuple of its values), an array of one item
#: type (a one-item list), or an object (a dict of keys; ``"*"`` types every value of a
#: record, ``"strict"`` set to ``True`` refuses other keys).
Spec = Union[str, tuple[str, ...], list["Spec"], dict[str, Any]]  # noqa: UP007

_STRINGS: Spec = ["string"]
_RECORD: Spec = {"*": "string"}

SETTINGS_SERVER: dict[str, Any] = {
    "strict": True,
    "command": "string",
    "args": _STRINGS,
    "env": _RECORD,
    "cwd": "string",
    "url": "string",
    "httpUrl": "string",
    "headers": _RECORD,
    "tcp": "string",
    "type": ("stdio", "sse", "http"),
    "timeout": "number",
    "trust": "boolean",
    "description": "string",
    "includeTools": _STRINGS,
    "excludeTools": _STRINGS,
    "extension": "object",
    "oauth": "object",
    "authProviderType": "string",
    "targetAudience": "string",
    "targetServiceAccount": "string",
}
AGENT_SERVER: dict[str, Any] = {
    "command": "string",
    "args": _STRINGS,
    "env": _RECORD,
    "cwd": "string",
    "url": "string",
    "http_url": "string",
    "headers": _RECORD,
    "tcp": "string",
    "type": ("sse", "http"),
    "timeout": "number",
    "trust": "boolean",
    "description": "string",
    "include_tools": _STRINGS,
    "exclude_tools": _STRINGS,
    "auth": "object",
}

#: A zod issue: the path to the value (keys and array indexes) and zod's message.
Issue = tuple[tuple[str | int, ...], str]


def zod_type(value: Any) -> str:
    """The type name zod reports for a JSON or YAML value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "date"  # a YAML timestamp the vault loader keeps as text is a string already


def zod_issues(value: Any, spec: Spec, path: tuple[str | int, ...] = ()) -> list[Issue]:
    """Every issue zod finds in ``value`` against ``spec``, in its order."""
    if isinstance(spec, tuple):
        if isinstance(value, str) and value in spec:
            return []
        expected = " | ".join(f"'{v}'" for v in spec)
        if isinstance(value, str):
            return [(path, f"Invalid enum value. Expected {expected}, received '{value}'")]
        return [(path, f"Expected {expected}, received {zod_type(value)}")]
    if isinstance(spec, str):
        found = zod_type(value)
        return [] if found == spec else [(path, f"Expected {spec}, received {found}")]
    if isinstance(spec, list):
        if not isinstance(value, list):
            return [(path, f"Expected array, received {zod_type(value)}")]
        return [
            issue for i, item in enumerate(value) for issue in zod_issues(item, spec[0], (*path, i))
        ]
    if not isinstance(value, dict):
        return [(path, f"Expected object, received {zod_type(value)}")]
    issues: list[Issue] = []
    if "*" in spec:
        for key, item in value.items():
            issues.extend(zod_issues(item, spec["*"], (*path, str(key))))
        return issues
    unknown = [key for key in value if key not in spec or key == "strict"]
    if spec.get("strict") and unknown:
        listed = ", ".join(f"'{key}'" for key in unknown)
        issues.append((path, f"Unrecognized key(s) in object: {listed}"))
    for key, item in value.items():
        if key in spec and key != "strict" and item is not None:
            issues.extend(zod_issues(item, spec[key], (*path, key)))
        elif key in spec and key != "strict":
            # ``.optional()`` takes undefined, not null.
            issues.append(((*path, key), f"Expected {_name(spec[key])}, received null"))
    return issues


def _name(spec: Spec) -> str:
    if isinstance(spec, str):
        return spec
    if isinstance(spec, tuple):
        return " | ".join(f"'{v}'" for v in spec)
    return "array" if isinstance(spec, list) else "object"


def dotted(path: tuple[str | int, ...]) -> str:
    """A zod path as Gemini prints it: ``mcpServers.s.args[0]``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out
