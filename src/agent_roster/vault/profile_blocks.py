"""Validation of a profile's JSON blocks: Config here, the list-shaped blocks (Tools, MCP
Servers, Install) in ``profile_lists``, re-exported below.

Each function takes the decoded block, reports every problem (with the position of the
offending key or value) and returns only the values that passed, as typed Python values
ready for the immutable model. Nothing is dropped silently: unknown keys are reported and
kept (``extra_config``), and names are checked, never guessed.
"""

from __future__ import annotations

import math
from typing import Any

from agent_roster.argv import CODE as ARGV_CODE
from agent_roster.argv import option_problem, word_problem
from agent_roster.diagnostics import did_you_mean
from agent_roster.model.profile import (
    PERMISSION_MODES,
    NativeForm,
    PermissionAction,
    PermissionRule,
    Runtime,
)
from agent_roster.vault.document import Reporter, describe
from agent_roster.vault.jsonblock import JsonBlock, json_type
from agent_roster.vault.paths import segment_problem
from agent_roster.vault.profile_lists import COMMAND as COMMAND
from agent_roster.vault.profile_lists import INSTALL_KEYS as INSTALL_KEYS
from agent_roster.vault.profile_lists import NPM_NAME as NPM_NAME
from agent_roster.vault.profile_lists import PIP_REQ as PIP_REQ
from agent_roster.vault.profile_lists import TOOLS_KEYS as TOOLS_KEYS
from agent_roster.vault.profile_lists import json_object
from agent_roster.vault.profile_lists import validate_install as validate_install
from agent_roster.vault.profile_lists import validate_mcp_servers as validate_mcp_servers
from agent_roster.vault.profile_lists import validate_tools as validate_tools

CONFIG_KEYS: dict[str, str] = {
    "model": "model id, for example claude-sonnet-4-6",
    "provider": "model provider, for example anthropic",
    "permission_mode": "one of: " + ", ".join(PERMISSION_MODES),
    "max_tokens_per_task": "positive integer token budget per task",
    "max_turns": "positive integer limit on agent turns",
    "temperature": "sampling temperature, 0 to 2",
    "top_p": "nucleus sampling, 0 to 1",
    "runtime": "one of: " + ", ".join(r.value for r in Runtime),
    "agent_name": "the ACP agent acpx runs (acpx runtime only)",
    "mode": "primary, subagent or all",
    "color": "display colour, for harnesses that show one",
    "permission": "ordered permission rules: {tool: action} or {tool: {pattern: action}}",
    "harness": "per-harness pass-through settings: {harness: {...}}",
    "native": "the imported file's exact text around the prompt: {harness: {head, tail, model}}",
}
MODES = ("primary", "subagent", "all")
ACTIONS = tuple(a.value for a in PermissionAction)
_RUNTIMES = {r.value: r for r in Runtime}
_STRING_KEYS = frozenset(("model", "provider", "color"))
_COUNT_KEYS = frozenset(("max_tokens_per_task", "max_turns"))
_ACTIONS = {a.value: a for a in PermissionAction}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    # math.isfinite only for floats: an int of 309+ digits is finite but overflows a float.
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, int) and not isinstance(value, bool)


def validate_config(block: JsonBlock, r: Reporter) -> dict[str, Any]:
    """Config: returns model field name → value for every key that passed."""
    data = json_object(block, r, "Config", 'write {"model": "...", "permission_mode": "..."}')
    if data is None:
        return {}
    out: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in data.items():
        where = (key,)
        if key in _STRING_KEYS:
            if not isinstance(value, str) or not value.strip():
                r.at(
                    block,
                    where,
                    "field-type",
                    f"Config {key!r} must be a non-empty string, got {describe(value)}",
                    f"remove {key!r} to use the default, or give a value",
                )
            elif key == "model" and option_problem(value.strip()) is not None:
                # The model reaches `claude --model=...` (issue 11 item 2).
                r.at(
                    block,
                    where,
                    ARGV_CODE,
                    f"Config 'model' {value!r} {option_problem(value.strip())}",
                    'name the model, for example "claude-sonnet-4-6"',
                )
            else:
                out[key] = value.strip()
        elif key == "permission_mode":
            if not isinstance(value, str):
                r.at(
                    block,
                    where,
                    "field-type",
                    f"Config 'permission_mode' must be a string, got {json_type(value)}",
                    "use one of: " + ", ".join(PERMISSION_MODES),
                )
            elif value not in PERMISSION_MODES:
                hint = did_you_mean(value, PERMISSION_MODES) or (
                    "use one of: " + ", ".join(PERMISSION_MODES)
                )
                r.at(
                    block,
                    where,
                    "field-value",
                    f"Config 'permission_mode' {value!r} is not one of "
                    + ", ".join(PERMISSION_MODES),
                    hint,
                )
            else:
                out[key] = value
        elif key in _COUNT_KEYS:
            if type(value) is int and value > 0:
                out[key] = value  # the usual case, settled without the checks below
            elif not _is_int(value) or value <= 0:
                r.at(
                    block,
                    where,
                    "field-value" if _is_int(value) else "field-type",
                    f"Config {key!r} must be a positive integer, got {describe(value)}",
                    "write a whole number above zero, for example 100000",
                )
            else:
                out[key] = value
        elif key in ("temperature", "top_p"):
            upper = 2.0 if key == "temperature" else 1.0
            if not _is_number(value):
                r.at(
                    block,
                    where,
                    "field-type",
                    f"Config {key!r} must be a number, got {describe(value)}",
                    f"write a number from 0 to {upper:g}",
                )
            elif not 0 <= value <= upper:
                r.at(
                    block,
                    where,
                    "field-value",
                    f"Config {key!r} must be between 0 and {upper:g}, got {value}",
                    f"write a number from 0 to {upper:g}",
                )
            else:
                out[key] = float(value)
        elif key == "runtime":
            member = _RUNTIMES.get(value) if type(value) is str else None
            if member is None:
                choices = list(_RUNTIMES)
                hint = (did_you_mean(value, choices) if isinstance(value, str) else "") or (
                    "use one of: " + ", ".join(choices)
                )
                r.at(
                    block,
                    where,
                    "field-value" if isinstance(value, str) else "field-type",
                    f"Config 'runtime' must be one of {', '.join(choices)}, got {describe(value)}",
                    hint,
                )
            else:
                out[key] = member
        elif key == "agent_name":
            problem = segment_problem(value)
            if isinstance(value, str) and value and word_problem(value) is not None:
                # acpx takes it as a positional word: "--approve-all" would be its flag,
                # and an unknown name with spaces is run as a command line (issue 11).
                r.at(
                    block,
                    where,
                    ARGV_CODE,
                    f"Config 'agent_name' {value!r} {word_problem(value)}",
                    'name the ACP agent, for example "codex" or "gemini"',
                )
            elif problem is not None:
                r.at(
                    block,
                    where,
                    "field-type" if not isinstance(value, str) else "field-value",
                    f"Config 'agent_name' {problem}",
                    'name the ACP agent, for example "codex" or "gemini"',
                )
            else:
                out[key] = value
        elif key == "mode":
            if value not in MODES:
                r.at(
                    block,
                    where,
                    "field-value",
                    f"Config 'mode' must be one of {', '.join(MODES)}, got {describe(value)}",
                    did_you_mean(str(value), MODES) or "subagent is the usual choice",
                )
            else:
                out[key] = value
        elif key == "permission":
            rules = _permission_rules(block, value, r)
            if rules is not None:
                out[key] = rules
        elif key == "harness":
            harness = _harness(block, value, r)
            if harness is not None:
                out[key] = harness
        elif key == "native":
            native = native_forms(value)
            if native is None:
                r.at(
                    block,
                    where,
                    "field-type",
                    "Config 'native' must map harness names to objects of strings "
                    "(head, tail, model)",
                    "roster import writes this key; remove it to render the agent afresh",
                )
            else:
                out[key] = native
        else:
            hint = did_you_mean(key, CONFIG_KEYS) or (
                "known keys: " + ", ".join(CONFIG_KEYS) + "; the key is kept as extra config"
            )
            r.at(block, where, "field-unknown", f"unknown Config key {key!r}", hint, key=True)
            extra[key] = value
    runtime = out.get("runtime")
    if runtime is Runtime.ACPX and "agent_name" not in out and "agent_name" not in data:
        r.at(
            block,
            ("runtime",),
            "runtime-agent-name",
            "runtime 'acpx' needs 'agent_name', the ACP agent to run",
            'add "agent_name": "codex" (or claude, gemini, opencode, cursor...)',
        )
    if "agent_name" in out and runtime is not None and runtime is not Runtime.ACPX:
        r.at(
            block,
            ("agent_name",),
            "agent-name-ignored",
            f"'agent_name' has no effect with runtime {runtime.value!r}",
            'remove it, or set "runtime": "acpx"',
            key=True,
        )
    if extra:
        out["extra_config"] = extra
    return out


def _permission_rules(
    block: JsonBlock, value: Any, r: Reporter
) -> tuple[PermissionRule, ...] | None:
    hint = 'write {"edit": "ask", "bash": {"*": "ask", "git status": "allow"}}'
    if isinstance(value, str):
        if value in ACTIONS:
            return (PermissionRule(permission="*", action=PermissionAction(value)),)
        r.at(
            block,
            ("permission",),
            "field-value",
            f"Config 'permission' action must be allow, ask or deny, got {value!r}",
            hint,
        )
        return None
    if not isinstance(value, dict):
        r.at(
            block,
            ("permission",),
            "field-type",
            f"Config 'permission' must be an object, got {json_type(value)}",
            hint,
        )
        return None
    rules: list[PermissionRule] = []
    ok = True
    for tool, setting in value.items():
        if isinstance(setting, str) and setting in ACTIONS:
            rules.append(PermissionRule(permission=tool, action=PermissionAction(setting)))
        elif isinstance(setting, dict):
            for pattern, action in setting.items():
                if action in ACTIONS:
                    rules.append(
                        PermissionRule(
                            permission=tool, pattern=pattern, action=PermissionAction(action)
                        )
                    )
                else:
                    ok = False
                    r.at(
                        block,
                        ("permission", tool, pattern),
                        "field-value",
                        f"permission {tool!r} pattern {pattern!r}: action must be allow, ask "
                        f"or deny, got {describe(action)}",
                        hint,
                    )
        else:
            ok = False
            r.at(
                block,
                ("permission", tool),
                "field-value",
                f"permission {tool!r} must be allow, ask, deny or an object of "
                f"pattern → action, got {describe(setting)}",
                hint,
            )
    return tuple(rules) if ok else None


def native_forms(value: Any) -> dict[str, NativeForm] | None:
    """Config ``native`` as the model holds it, or None when its shape is wrong."""
    if type(value) is not dict:
        return None
    forms: dict[str, NativeForm] = {}
    for name, form in value.items():
        if (
            not name
            or type(form) is not dict
            or not NATIVE_KEYS.issuperset(form)
            or not all(type(text) is str for text in form.values())
        ):
            return None
        forms[name] = NativeForm(**form)
    return forms


NATIVE_KEYS = frozenset(("head", "tail", "model"))


def _harness(block: JsonBlock, value: Any, r: Reporter) -> dict[str, dict[str, Any]] | None:
    if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
        r.at(
            block,
            ("harness",),
            "field-type",
            "Config 'harness' must map harness names to objects",
            'write {"opencode": {"steps": 40}}',
        )
        return None
    return value
