"""OpenCode's agent schema: which keys exist, their types, and the ``normalize`` step.

Checked against opencode 1.18.33 (the bundled ``AgentConfig`` schema and the
``config-agent`` loader; docs/codecs/opencode.md §3). A frontmatter that fails the schema
makes OpenCode refuse the *whole* configuration ("Configuration is invalid at <file>"), so
each error message here quotes OpenCode's own wording: ``Expected <type>, got <value>
<path>``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from agent_roster.codecs.opencode.js import js_object
from agent_roster.codecs.permissions import ACTION_ONLY_KEYS

#: Keys the schema knows; every other key is moved into ``options`` and sent to the model
#: provider with each request.
KNOWN_KEYS = frozenset(
    {
        "name",
        "model",
        "variant",
        "prompt",
        "description",
        "temperature",
        "top_p",
        "mode",
        "hidden",
        "color",
        "steps",
        "maxSteps",
        "options",
        "permission",
        "disable",
        "tools",
    }
)
MODES = ("subagent", "primary", "all")
THEME_COLORS = ("primary", "secondary", "accent", "success", "warning", "error", "info")
_HEX_COLOR = re.compile(r"^#[0-9a-fA-F]{6}$")
ACTIONS = ("ask", "allow", "deny")
#: Permission keys whose schema takes only an action (1.18.33 ``PermissionConfig``); the
#: canonical permission module owns the list.
ACTION_ONLY = ACTION_ONLY_KEYS

_STRING_KEYS = ("model", "variant", "prompt", "description")
#: String keys a fork's schema adds (Kilo 7.7.9 ``AgentConfig``); checked when ``extra``
#: names them.
_FORK_STRINGS = frozenset({"displayName", "source"})
_NUMBER_KEYS = ("temperature", "top_p")
_BOOL_KEYS = ("hidden", "disable")
_STEP_KEYS = ("steps", "maxSteps")


class SchemaError(NamedTuple):
    """One schema violation: the top-level key it is under, and OpenCode's message line."""

    key: str
    message: str


def show(value: Any) -> str:
    """A value as OpenCode prints it in an error (JSON, compact)."""
    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def _expected(expected: str, value: Any, path: str) -> str:
    return f"Expected {expected}, got {show(value)} {path}"


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def check_color(value: Any) -> list[str]:
    """OpenCode's messages for an invalid ``color`` (empty when valid)."""
    if isinstance(value, str) and (_HEX_COLOR.match(value) or value in THEME_COLORS):
        return []
    literals = " | ".join(f'"{c}"' for c in THEME_COLORS)
    return [
        _expected("a string matching the RegExp ^#[0-9a-fA-F]{6}$", value, "color"),
        _expected(literals, value, "color"),
    ]


_ACTION_SET = frozenset(ACTIONS)


def check_permission(value: Any) -> list[str]:
    """OpenCode's messages for an invalid ``permission`` value (empty when valid)."""
    if isinstance(value, str):
        return (
            [] if value in ACTIONS else [_expected("PermissionActionConfig", value, "permission")]
        )
    if not isinstance(value, Mapping):
        return [_expected("PermissionConfig | undefined", value, "permission")]
    try:
        # Only a string equals an action's name: one pass settles the usual map, a bare
        # action per key (hundreds of keys when rendered); a pattern map is unhashable.
        if set(value.values()) <= _ACTION_SET:
            return []
    except TypeError:
        pass
    problems: list[str] = []
    for key, item in value.items():
        where = f"permission.{key}"
        if isinstance(item, str):
            if item not in ACTIONS:
                problems.append(_expected("PermissionActionConfig", item, where))
        elif key in ACTION_ONLY:
            problems.append(_expected("PermissionActionConfig | undefined", item, where))
        elif isinstance(item, Mapping):
            for pattern, action in item.items():
                if action not in ACTIONS:
                    problems.append(
                        _expected("PermissionActionConfig", action, f"{where}.{pattern}")
                    )
        else:
            problems.append(_expected("PermissionRuleConfig", item, where))
    return problems


def check_agent(data: Mapping[str, Any], extra: frozenset[str] = frozenset()) -> list[SchemaError]:
    """Every schema violation in one agent object (frontmatter or ``agent.<name>``);
    ``extra``: string keys a fork's schema adds (Kilo's ``displayName``, ``source``)."""
    errors: list[SchemaError] = []

    def add(key: str, message: str) -> None:
        errors.append(SchemaError(key, message))

    for key, value in data.items():
        if (key in _STRING_KEYS or key in extra & _FORK_STRINGS) and not isinstance(value, str):
            add(key, _expected("string | undefined", value, key))
        elif key in _NUMBER_KEYS:
            if not _is_number(value):
                add(key, _expected("number | undefined", value, key))
            elif not math.isfinite(value):
                add(key, _expected("a finite number", value, key))
        elif key in _BOOL_KEYS and not isinstance(value, bool):
            add(key, _expected("boolean | undefined", value, key))
        elif key in _STEP_KEYS:
            if not _is_number(value):
                add(key, _expected("number | undefined", value, key))
            elif not math.isfinite(value) or value != int(value):
                add(key, _expected("an integer", value, key))
            elif value <= 0:
                add(key, _expected("a value greater than 0", value, key))
        elif key == "mode" and value not in MODES:
            add(key, _expected(" | ".join(f'"{m}"' for m in MODES), value, key))
        elif key == "color":
            errors.extend(SchemaError(key, m) for m in check_color(value))
        elif key == "options" and not isinstance(value, Mapping):
            add(key, _expected("an object", value, key))
        elif key == "tools":
            if not isinstance(value, Mapping):
                add(key, _expected("an object", value, key))
            else:
                for tool, flag in value.items():
                    if not isinstance(flag, bool):
                        add(key, _expected("boolean", flag, f"tools.{tool}"))
        elif key == "permission":
            errors.extend(SchemaError(key, m) for m in check_permission(value))
    return errors


def permission_map(value: Any) -> dict[str, Any]:
    """``normalizeInput``: a bare action means ``{"*": action}``."""
    if isinstance(value, str):
        return {"*": value}
    return js_object(value) if isinstance(value, Mapping) else {}


def agent_permission(data: Mapping[str, Any]) -> dict[str, Any]:
    """The ``permission`` :func:`normalize` gives an agent: its ``permission`` map, with
    the deprecated ``tools`` map folded in first (``write``/``edit``/``patch`` → ``edit``;
    ``permission`` assigned over it), in JavaScript's key order. Alone, for the render
    check, which needs nothing else of the agent."""
    permission = permission_map(data.get("permission", {}))
    tools = data.get("tools")
    if not tools:
        return permission  # already in JavaScript's order
    folded: dict[str, Any] = {}
    for tool, flag in tools.items():
        action = "allow" if flag else "deny"
        folded["edit" if tool in ("write", "edit", "patch") else tool] = action
    folded.update(permission)
    return js_object(folded)


def normalize(data: Mapping[str, Any], extra: frozenset[str] = frozenset()) -> dict[str, Any]:
    """OpenCode's per-file ``normalize``: unknown keys copied into ``options``, the
    deprecated ``tools`` map folded into ``permission`` (``write``/``edit``/``patch`` →
    ``edit``; ``permission`` assigned over it), ``steps`` taken from ``maxSteps``.
    ``extra``: keys a fork's schema knows besides OpenCode's (kept out of ``options``)."""
    options = dict(data.get("options") or {})
    for key, value in data.items():
        if key not in KNOWN_KEYS and key not in extra:
            options[key] = value
    out = dict(data)
    out["options"] = js_object(options)
    out["permission"] = agent_permission(data)
    steps = data.get("steps", data.get("maxSteps"))
    if steps is not None:
        out["steps"] = steps
    return out


# Model families whose provider is unambiguous, used only when a profile names a model
# without a provider: OpenCode needs "provider/model" (a bare id loads as provider <id>
# with an empty model id and fails when the agent runs). Data, not string munging.
_PROVIDER_BY_PREFIX: tuple[tuple[str, str], ...] = (
    ("claude-", "anthropic"),
    ("gpt-", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("codex-", "openai"),
    ("gemini-", "google"),
)


def infer_provider(model: str) -> str:
    """The provider a bare model id obviously belongs to, or ``""``."""
    for prefix, provider in _PROVIDER_BY_PREFIX:
        if model.startswith(prefix):
            return provider
    return ""


def split_model(value: str) -> tuple[str, str]:
    """OpenCode's ``parseModel``: ``(provider, model)``, split at the first ``/``."""
    provider, sep, model = value.partition("/")
    return (provider, model) if sep else ("", value)
