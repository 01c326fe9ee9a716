"""Validation of a profile's JSON blocks: Config, Tools, MCP Servers and Install.

Each function takes the decoded block, reports every problem (with the position of the
offending key or value) and returns only the values that passed, as typed Python values
ready for the immutable model. Nothing is dropped silently: unknown keys are reported and
kept (``extra_config``), and names are checked, never guessed.
"""

from __future__ import annotations

import math
import re
from typing import Any

from agent_roster.diagnostics import did_you_mean
from agent_roster.known_tools import DEFAULT_EMBEDDED_SERVER, KnownTools, strip_embedded_prefix
from agent_roster.model.profile import (
    PERMISSION_MODES,
    InstallManifest,
    PermissionAction,
    PermissionRule,
    Runtime,
)
from agent_roster.vault.document import Reporter, describe
from agent_roster.vault.jsonblock import JsonBlock, json_type
from agent_roster.vault.paths import segment_problem

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
}
TOOLS_KEYS = ("allowed", "denied")
INSTALL_KEYS = ("npm", "pip", "commands")
MODES = ("primary", "subagent", "all")
ACTIONS = tuple(a.value for a in PermissionAction)

NPM_NAME = re.compile(
    r"^(?:@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9~][a-z0-9._~-]*(?:@[A-Za-z0-9._^~<>=*|+ -]+)?$"
)
PIP_REQ = re.compile(
    r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?"
    r"(?:\[[A-Za-z0-9._, -]+\])?"
    r"(?:\s*(?:===|==|!=|~=|<=|>=|<|>)\s*[A-Za-z0-9.*+!_-]+"
    r"(?:\s*,\s*(?:===|==|!=|~=|<=|>=|<|>)\s*[A-Za-z0-9.*+!_-]+)*)?$"
)
COMMAND = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._+-]*$")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def validate_config(block: JsonBlock, r: Reporter) -> dict[str, Any]:
    """Config: returns model field name → value for every key that passed."""
    data = block.value
    if not isinstance(data, dict):
        r.at(
            block,
            (),
            "json-type",
            f"## Config must hold a JSON object, got {json_type(data)}",
            'write {"model": "...", "permission_mode": "..."}',
        )
        return {}
    out: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in data.items():
        where = (key,)
        if key in ("model", "provider", "color"):
            if not isinstance(value, str) or not value.strip():
                r.at(
                    block,
                    where,
                    "field-type",
                    f"Config {key!r} must be a non-empty string, got {describe(value)}",
                    f"remove {key!r} to use the default, or give a value",
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
        elif key in ("max_tokens_per_task", "max_turns"):
            if not _is_int(value) or value <= 0:
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
            choices = [x.value for x in Runtime]
            if value not in choices:
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
                out[key] = Runtime(value)
        elif key == "agent_name":
            problem = segment_problem(value)
            if problem is not None:
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


def validate_tools(
    block: JsonBlock, r: Reporter, known: KnownTools | None
) -> dict[str, tuple[str, ...]]:
    """Tools: ``allowed``/``denied`` lists of names, canonicalised to bare names."""
    data = block.value
    if not isinstance(data, dict):
        r.at(
            block,
            (),
            "json-type",
            f"## Tools must hold a JSON object, got {json_type(data)}",
            'write {"allowed": ["Read", "Grep"], "denied": []}',
        )
        return {}
    out: dict[str, tuple[str, ...]] = {}
    embedded = known.embedded if known else DEFAULT_EMBEDDED_SERVER
    for key, value in data.items():
        if key not in TOOLS_KEYS:
            r.at(
                block,
                (key,),
                "field-unknown",
                f"unknown Tools key {key!r}",
                did_you_mean(key, TOOLS_KEYS) or "Tools takes 'allowed' and 'denied'",
                key=True,
            )
            continue
        fast = _clean_names(value, embedded)
        if fast is not None:
            # The usual case: strings, already canonical, no repeats. Only names need checking.
            if known is not None:
                for index, name in enumerate(fast):
                    if not known.is_known(name):
                        _unknown_tool(block, r, known, key, index, name)
            out["allowed_tools" if key == "allowed" else "denied_tools"] = fast
            continue
        names = _string_list(block, (key,), value, r, f"Tools {key!r}")
        if names is None:
            continue
        seen: dict[str, int] = {}
        canonical: list[str] = []
        for index, raw in enumerate(names):
            name = strip_embedded_prefix(raw.strip(), embedded)
            if not name:  # the bare prefix "mcp__agent-queue__" names nothing
                r.at(
                    block,
                    (key, index),
                    "field-value",
                    f"Tools {key!r}[{index}] {raw!r} names no tool",
                    f"write the tool's name after the prefix, or just the name: {key} "
                    '["create_task"]',
                )
                continue
            if name in seen:
                r.at(
                    block,
                    (key, index),
                    "tool-duplicate",
                    f"tool {name!r} is listed twice in Tools {key!r}",
                    "remove one",
                )
                continue
            seen[name] = index
            canonical.append(name)
            if known is not None and not known.is_known(name):
                _unknown_tool(block, r, known, key, index, name)
        out["allowed_tools" if key == "allowed" else "denied_tools"] = tuple(canonical)
    both = set(out.get("allowed_tools", ())) & set(out.get("denied_tools", ()))
    denied = data.get("denied")
    for index, raw in enumerate(denied if isinstance(denied, list) else ()):
        tool = strip_embedded_prefix(raw.strip(), embedded) if isinstance(raw, str) else None
        if tool in both:
            both.discard(tool)  # once per tool, at its first place in 'denied'
            r.at(
                block,
                ("denied", index),
                "tool-conflict",
                f"tool {tool!r} is both allowed and denied; denied wins",
                "remove it from one of the lists",
            )
    return out


def _clean_names(value: Any, embedded: str) -> tuple[str, ...] | None:
    """``value`` as a tuple when it is a list of distinct, stripped, non-empty names with no
    embedded-server prefix; None when the careful path must look at it."""
    if type(value) is not list:
        return None
    for item in value:
        if (
            type(item) is not str
            or not item
            or item != item.strip()
            or (item.startswith("mcp__") and item.startswith(f"mcp__{embedded}__"))
        ):
            return None
    names = tuple(value)
    return names if len(set(names)) == len(names) else None


def _unknown_tool(
    block: JsonBlock, r: Reporter, known: KnownTools, key: str, index: int, name: str
) -> None:
    hint = did_you_mean(name, known.bare) or (
        "kept as written; check the spelling, or add the server that provides it to mcp-servers/"
    )
    r.at(block, (key, index), "tool-unknown", f"tool {name!r} is not a known tool", hint)


def _string_list(
    block: JsonBlock, where: tuple[str | int, ...], value: Any, r: Reporter, label: str
) -> list[str] | None:
    if not isinstance(value, list):
        r.at(
            block,
            where,
            "field-type",
            f"{label} must be an array of strings, got {json_type(value)}",
            'write ["a", "b"]; use [] for none',
        )
        return None
    ok = True
    for index, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            ok = False
            r.at(
                block,
                (*where, index),
                "field-type",
                f"{label}[{index}] must be a non-empty string, got {describe(item)}",
                "write a name in double quotes, or remove the item",
            )
    return list(value) if ok else None


def validate_mcp_servers(block: JsonBlock, r: Reporter) -> tuple[str, ...] | None:
    """MCP Servers: a list of registry names; the legacy inline object still works."""
    data = block.value
    if isinstance(data, dict):
        r.at(
            block,
            (),
            "mcp-inline-deprecated",
            "inline MCP server configs are deprecated; the server names are used",
            "run 'roster migrate-mcp' to move them into mcp-servers/<name>.md",
        )
        names: list[str] = []
        for name, config in data.items():
            problem = segment_problem(name)
            if problem is not None:
                r.at(
                    block,
                    (name,),
                    "name-unsafe",
                    f"MCP server name {name!r} {problem}",
                    "use the file name of an entry in mcp-servers/, without .md",
                    key=True,
                )
            elif not isinstance(config, dict):
                r.at(
                    block,
                    (name,),
                    "field-type",
                    f"inline MCP server {name!r} must be an object, got {json_type(config)}",
                    'better: list registry names, ["github", "playwright"]',
                )
            else:
                names.append(name)
        return tuple(names)
    if not isinstance(data, list):
        r.at(
            block,
            (),
            "json-type",
            f"## MCP Servers must hold a JSON array of server names, got {json_type(data)}",
            'write ["github", "playwright"]',
        )
        return None
    result: list[str] = []
    for index, name in enumerate(data):
        problem = segment_problem(name)
        if not isinstance(name, str):
            problem = f"must be a string, got {json_type(name)}"
        if problem is not None:
            r.at(
                block,
                (index,),
                "field-type" if not isinstance(name, str) else "name-unsafe",
                f"MCP server name at index {index} {problem}",
                "use the file name of an entry in mcp-servers/, without .md",
            )
        elif name in result:
            r.at(
                block,
                (index,),
                "tool-duplicate",
                f"MCP server {name!r} is listed twice",
                "remove one",
            )
        else:
            result.append(name)
    return tuple(result)


_INSTALL_PATTERNS = {"npm": NPM_NAME, "pip": PIP_REQ, "commands": COMMAND}
# A vault names the same few packages in many profiles; remember each verdict. (Bounded so
# a hostile vault cannot grow it without limit.)
_PACKAGE_VERDICTS: dict[tuple[str, str], bool] = {}


def _valid_package(key: str, pattern: re.Pattern[str], name: str) -> bool:
    verdict = _PACKAGE_VERDICTS.get((key, name))
    if verdict is None:
        verdict = pattern.match(name) is not None
        if len(_PACKAGE_VERDICTS) < 10_000:
            _PACKAGE_VERDICTS[(key, name)] = verdict
    return verdict


def validate_install(block: JsonBlock, r: Reporter) -> InstallManifest | None:
    """Install: ``npm``, ``pip`` and ``commands`` lists with package names checked, since
    these names later reach ``npm install`` and ``pip install``."""
    data = block.value
    if not isinstance(data, dict):
        r.at(
            block,
            (),
            "json-type",
            f"## Install must hold a JSON object, got {json_type(data)}",
            'write {"npm": [], "pip": [], "commands": []}',
        )
        return None
    lists: dict[str, tuple[str, ...]] = {}
    for key, value in data.items():
        if key not in INSTALL_KEYS:
            r.at(
                block,
                (key,),
                "field-unknown",
                f"unknown Install key {key!r}",
                did_you_mean(key, INSTALL_KEYS) or "Install takes npm, pip and commands",
                key=True,
            )
            continue
        names = _string_list(block, (key,), value, r, f"Install {key!r}")
        if names is None:
            continue
        pattern = _INSTALL_PATTERNS[key]
        good = []
        for index, name in enumerate(names):
            if not _valid_package(key, pattern, name.strip()):
                r.at(
                    block,
                    (key, index),
                    "package-name-invalid",
                    f"Install {key!r}: {name!r} is not a valid "
                    f"{'command name' if key == 'commands' else key + ' package name'}",
                    "a program name such as git; no path, option or argument"
                    if key == "commands"
                    else "a package name, optionally with a version; never an option or a URL",
                )
            else:
                good.append(name.strip())
        lists[key] = tuple(good)
    return InstallManifest(**lists)
