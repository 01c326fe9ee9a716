"""Secret redaction for anything we print: values of secret-looking keys are masked
unless they are only a reference such as ``${GITHUB_TOKEN}``."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from agent_roster.model.mcp import McpServer

_SECRET_KEY = re.compile(
    r"(token|secret|password|passwd|api[_-]?key|auth|credential|private)", re.I
)
_REFERENCE = re.compile(r"^\$\{[A-Za-z_][A-Za-z0-9_]*\}$|^\{env:[A-Za-z_][A-Za-z0-9_]*\}$")
MASK = "***"


def redact_value(key: str, value: str) -> str:
    if _SECRET_KEY.search(key) and value and not _REFERENCE.match(value.strip()):
        return MASK
    return value


def redact_mapping(values: Mapping[str, str]) -> dict[str, str]:
    return {key: redact_value(key, value) for key, value in values.items()}


def server_dict(server: McpServer) -> dict[str, Any]:
    """A registry entry as JSON output, secrets in env and headers masked."""
    data = server.to_json_dict()
    data["env"] = redact_mapping(data["env"])
    data["headers"] = redact_mapping(data["headers"])
    return data
