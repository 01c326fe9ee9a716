"""Validation of a profile's list-shaped JSON blocks: Tools, MCP Servers and Install.

Like ``profile_blocks`` (Config), each function takes the decoded block, reports every
problem with the position of the offending value, and returns only what passed. The usual
block (a list of clean, distinct, known names) is recognised with set operations that run
in C; anything else takes the item-by-item path that reports each problem.
"""

from __future__ import annotations

import re
from typing import Any

from agent_roster.argv import CODE as ARGV_CODE
from agent_roster.argv import option_problem
from agent_roster.diagnostics import did_you_mean
from agent_roster.known_tools import (
    DEFAULT_EMBEDDED_COMMANDS,
    DEFAULT_EMBEDDED_SERVER,
    KnownTools,
    strip_embedded_prefix,
)
from agent_roster.model.profile import InstallManifest
from agent_roster.vault.document import Reporter, describe
from agent_roster.vault.jsonblock import JsonBlock, json_type
from agent_roster.vault.paths import segment_problem

TOOLS_KEYS = ("allowed", "denied", "exact")
INSTALL_KEYS = ("npm", "pip", "commands")

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

# Memo bounds: a vault repeats a few hundred names, a hostile one must not grow these forever.
_MEMO_LIMIT = 10_000


def json_object(block: JsonBlock, r: Reporter, section: str, example: str) -> dict[str, Any] | None:
    """The block's JSON object, or ``None`` once it is reported that ``## section`` must
    hold one (``example`` is the hint)."""
    if isinstance(block.value, dict):
        return block.value
    got = json_type(block.value)
    r.at(block, (), "json-type", f"## {section} must hold a JSON object, got {got}", example)
    return None


def known_key(
    block: JsonBlock, r: Reporter, section: str, key: str, keys: tuple[str, ...], hint: str
) -> bool:
    """Whether ``key`` is one of ``section``'s ``keys``; reported (with a suggestion, else
    ``hint``) when not."""
    if key in keys:
        return True
    message = f"unknown {section} key {key!r}"
    r.at(block, (key,), "field-unknown", message, did_you_mean(key, keys) or hint, key=True)
    return False


def validate_tools(
    block: JsonBlock, r: Reporter, known: KnownTools | None
) -> dict[str, tuple[str, ...] | bool]:
    """Tools: ``allowed``/``denied`` lists of names, canonicalised to bare names, and
    ``exact`` (``tools_exact``: ``allowed`` is the whole tool set, ``[]`` meaning none)."""
    data = json_object(block, r, "Tools", 'write {"allowed": ["Read", "Grep"], "denied": []}')
    if data is None:
        return {}
    out: dict[str, tuple[str, ...] | bool] = {}
    embedded = known.embedded if known else DEFAULT_EMBEDDED_SERVER
    commands = known.commands if known else DEFAULT_EMBEDDED_COMMANDS
    for key, value in data.items():
        if not known_key(
            block, r, "Tools", key, TOOLS_KEYS, "Tools takes 'allowed', 'denied' and 'exact'"
        ):
            continue
        if key == "exact":
            if isinstance(value, bool):
                out["tools_exact"] = value
            else:
                r.at(
                    block,
                    (key,),
                    "field-type",
                    f"Tools 'exact' must be true or false, got {json_type(value)}",
                    '"exact": true makes "allowed" the whole tool set ([] = no tools)',
                )
            continue
        fast = clean_names(value, embedded)
        if fast is not None:
            # The usual case: strings, already canonical, no repeats. Only names need checking.
            if known is not None and not known.all_known(fast):
                for index, name in enumerate(fast):
                    if not known.is_known(name):
                        unknown_tool(block, r, known, key, index, name)
            out["allowed_tools" if key == "allowed" else "denied_tools"] = fast
            continue
        names = _string_list(block, (key,), value, r, f"Tools {key!r}")
        if names is None:
            continue
        seen: dict[str, int] = {}
        canonical: list[str] = []
        for index, raw in enumerate(names):
            name = strip_embedded_prefix(raw.strip(), embedded, commands)
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
            problem = option_problem(name)
            if problem is not None:
                # Tool names reach `claude --allowed-tools A B ...` (issue 11 item 2).
                r.at(
                    block,
                    (key, index),
                    ARGV_CODE,
                    f"Tools {key!r}[{index}] {raw!r} {problem}",
                    'write the tool\'s name, for example "Read" or "Bash(git status:*)"',
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
                unknown_tool(block, r, known, key, index, name)
        out["allowed_tools" if key == "allowed" else "denied_tools"] = tuple(canonical)
    both = set(_names(out, "allowed_tools")) & set(_names(out, "denied_tools"))
    denied = data.get("denied") if both else None
    for index, raw in enumerate(denied if isinstance(denied, list) else ()):
        tool = (
            strip_embedded_prefix(raw.strip(), embedded, commands) if isinstance(raw, str) else None
        )
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


#: Per embedded-server name, tool names already seen to be clean: strings, stripped,
#: non-empty and without that server's prefix.
_CLEAN_NAMES: dict[str, set[str]] = {}


def _names(found: dict[str, tuple[str, ...] | bool], field: str) -> tuple[str, ...]:
    value = found.get(field, ())
    return value if isinstance(value, tuple) else ()


def clean_names(value: Any, embedded: str) -> tuple[str, ...] | None:
    """``value`` as a tuple when it is a list of distinct, stripped, non-empty names with no
    embedded-server prefix; None when the careful path must look at it."""
    if type(value) is not list:
        return None
    clean = _CLEAN_NAMES.get(embedded)
    if clean is None:
        clean = _CLEAN_NAMES.setdefault(embedded, set())
    try:
        seen_all = clean.issuperset(value)
    except TypeError:  # an unhashable item (a list or an object)
        return None
    if not seen_all:
        prefix = f"mcp__{embedded}__"
        for item in value:
            if (
                type(item) is not str
                or not item
                or item != item.strip()
                or option_problem(item) is not None  # the careful path reports it
                or (item.startswith("mcp__") and item.startswith(prefix))
            ):
                return None
        if len(clean) < _MEMO_LIMIT:
            clean.update(value)
    names = tuple(value)
    return names if len(set(names)) == len(names) else None


#: The hint of a tool name no registry knows and no suggestion fits.
UNKNOWN_TOOL_HINT = (
    "kept as written; check the spelling, or add the server that provides it to mcp-servers/"
)


def unknown_tool_text(known: KnownTools, name: str) -> tuple[str, str] | None:
    """The ``tool-unknown`` message and hint for ``name``, once per distinct name per load
    (a real vault repeats a few unknown names in thousands of profiles: issue 12 item 8);
    None when ``name`` is a tool of a probed server, whose hint :func:`unknown_tool` makes."""
    texts = known.unknown_texts
    if name in texts:
        return texts[name]
    text: tuple[str, str] | None = None
    if known.probed_tools(name) is None:
        text = (f"tool {name!r} is not a known tool", known.suggest(name) or UNKNOWN_TOOL_HINT)
    texts[name] = text
    return text


def unknown_tool(
    block: JsonBlock, r: Reporter, known: KnownTools, key: str, index: int, name: str
) -> None:
    text = unknown_tool_text(known, name)
    if text is not None:
        r.at(block, (key, index), "tool-unknown", *text)
        return
    probed = known.probed_tools(name)
    if probed is not None:
        server, tool = name.split("(", 1)[0].removeprefix("mcp__").split("__", 1)
        full = [f"mcp__{server}__{offered}" for offered in probed]
        hint = did_you_mean(name.split("(", 1)[0], full) or (
            f"the server {server!r} offered {len(probed)} tools when last probed "
            "('roster mcp catalog' shows them)"
        )
        message = f"tool {name!r}: server {server!r} has no tool {tool!r}"
        r.at(block, (key, index), "tool-unknown", message, hint)


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
    seen: set[str] = set()
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
        elif name in seen:
            r.at(
                block,
                (index,),
                "tool-duplicate",
                f"MCP server {name!r} is listed twice",
                "remove one",
            )
        else:
            seen.add(name)
            result.append(name)
    return tuple(result)


_INSTALL_PATTERNS = {"npm": NPM_NAME, "pip": PIP_REQ, "commands": COMMAND}
# A vault names the same few packages in many profiles; remember each verdict.
_PACKAGE_VERDICTS: dict[tuple[str, str], bool] = {}
#: Per Install key, names already seen valid exactly as written (strings, stripped).
_GOOD_PACKAGES: dict[str, set[str]] = {key: set() for key in INSTALL_KEYS}


def _valid_package(key: str, pattern: re.Pattern[str], name: str) -> bool:
    verdict = _PACKAGE_VERDICTS.get((key, name))
    if verdict is None:
        verdict = _valid_requirement(name) if key == "pip" else pattern.match(name) is not None
        if len(_PACKAGE_VERDICTS) < _MEMO_LIMIT:
            _PACKAGE_VERDICTS[(key, name)] = verdict
    return verdict


def _valid_requirement(text: str) -> bool:
    """A PEP 508 requirement (extras, specifiers, markers, ``name @ url``), parsed by
    ``packaging`` as pip will; whether a URL may be installed is roster.toml's decision,
    made by ``roster install``. Names the regex accepts need no parser."""
    if PIP_REQ.match(text):
        return True
    if not text or not text[0].isalnum():  # an option or a path never parses: no parser
        return False
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        Requirement(text)
    except InvalidRequirement:
        return False
    return True


def good_packages(key: str, value: Any) -> tuple[str, ...] | None:
    """``value`` as a tuple when every item is a name already seen valid as written."""
    if type(value) is not list:
        return None
    try:
        return tuple(value) if _GOOD_PACKAGES[key].issuperset(value) else None
    except TypeError:  # an unhashable item
        return None


def validate_install(block: JsonBlock, r: Reporter) -> InstallManifest | None:
    """Install: ``npm``, ``pip`` and ``commands`` lists with package names checked, since
    these names later reach ``npm install`` and ``pip install``."""
    data = json_object(block, r, "Install", 'write {"npm": [], "pip": [], "commands": []}')
    if data is None:
        return None
    lists: dict[str, tuple[str, ...]] = {}
    for key, value in data.items():
        hint = "Install takes npm, pip and commands"
        if not known_key(block, r, "Install", key, INSTALL_KEYS, hint):
            continue
        fast = good_packages(key, value)
        if fast is not None:
            lists[key] = fast
            continue
        names = _string_list(block, (key,), value, r, f"Install {key!r}")
        if names is None:
            continue
        pattern = _INSTALL_PATTERNS[key]
        good = []
        for index, name in enumerate(names):
            stripped = name.strip()
            if stripped.startswith("-"):
                # Names reach `npm install` / `pip install` (issue 11 item 2).
                r.at(
                    block,
                    (key, index),
                    ARGV_CODE,
                    f"Install {key!r}: {name!r} {option_problem(stripped)}",
                    "a program name such as git; no path, option or argument"
                    if key == "commands"
                    else "a package name, optionally with a version; never an option or a URL",
                )
            elif not _valid_package(key, pattern, stripped):
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
                good.append(stripped)
                if stripped == name and len(_GOOD_PACKAGES[key]) < _MEMO_LIMIT:
                    _GOOD_PACKAGES[key].add(name)
        lists[key] = tuple(good)
    return InstallManifest(**lists)
