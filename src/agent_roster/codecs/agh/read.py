"""Reading AGH agent folders the way AGH's loader does (docs/codecs/agh.md §1-§7).

``LoadWorkspaceAgentDefs`` scans the workspace root, then the global home, loads *every*
``<root>/agents/<dir>/AGENT.md`` (shadowed ones too), keeps the first agent of each name,
and returns an error for the whole load when any file fails: so one broken file anywhere
means AGH loads no agents at all (seed 002 "Discovery paths", "Common validation failures").
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from agent_roster.codecs.agh import rules
from agent_roster.codecs.native_io import (
    JsonProblem,
    TomlProblem,
    parse_json,
    parse_toml,
    read_text,
)
from agent_roster.codecs.native_md import (
    Layout,
    NativeDocument,
    harness_diagnostic,
    line_offset,
    native_form,
    split_layout,
)
from agent_roster.diagnostics import Diagnostic
from agent_roster.model.profile import NativeForm
from agent_roster.vault.frontmatter import Mark, read_frontmatter
from agent_roster.vault.jsonblock import text_lines

AGENT_FILE = "AGENT.md"
SIDECAR = "mcp.json"
CAPABILITY_FILES = ("capabilities.toml", "capabilities.json")
CAPABILITY_DIR = "capabilities"

_WHOLE_LOAD = "AGH refuses the whole agent load while any AGENT.md or sidecar is invalid"


class AghFile(NamedTuple):
    """One parsed agent folder: its frontmatter, prompt, servers (inline overridden by the
    sidecar, in file order) and capability files; ``ok`` is False when AGH refuses it."""

    dir_name: str
    path: Path
    data: dict[str, Any]
    prompt: str
    servers: dict[str, dict[str, Any]]
    capabilities: dict[str, str]
    ok: bool
    native: NativeForm = NativeForm()


def split_agent_md(text: str) -> tuple[str, str, int] | str:
    """AGH's ``frontmatter.Split``: (metadata, body, body line) or the error text."""
    if text.startswith("\ufeff"):
        return "config: UTF-8 BOM before YAML frontmatter"
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    first, _, rest = text.partition("\n")
    if first != "---":
        return "config: missing YAML frontmatter"
    # The first line of ``rest`` that is exactly "---", found without splitting the body
    # (a long prompt is thousands of lines).
    if rest == "---" or rest.startswith("---\n"):
        start = 0
    else:
        start = rest.find("\n---\n") + 1
        if not start:
            if not rest.endswith("\n---"):
                return "config: unterminated YAML frontmatter"
            start = len(rest) - 3
    meta = rest[:start]
    # The lines before it, each ended by a newline; none but empty ones is no metadata.
    return ("" if meta == "\n" else meta), rest[start + 4 :], rest.count("\n", 0, start) + 3


def _key_line(meta: str, key: str) -> int:
    # TOML frontmatter has no marks; the line of ``key =`` is good enough to point at.
    match = re.search(rf"^\s*{re.escape(key)}\s*=", meta, re.M)
    return 2 + meta.count("\n", 0, match.start()) if match else 1


def load_frontmatter(meta: str, path: str) -> tuple[dict[str, Any], dict[str, Mark]] | str:
    """YAML first (strict), TOML second, as ``decodeAgentFrontmatter``; the error otherwise."""
    for line in meta.split("\n"):
        key, sep, _ = line.partition(":")
        if sep and line.strip() and not line.strip().startswith("#") and "\t" in key:
            return "config: invalid YAML frontmatter key"
    found: list[Diagnostic] = []
    fm = read_frontmatter(f"---\n{meta}---\n", path, found)
    yaml_errors = [d.message for d in found if d.is_error]
    if not yaml_errors:
        return dict(fm.data), dict(fm.key_marks)
    data = parse_toml(meta)
    if isinstance(data, TomlProblem):
        toml = f"{data.message} (line {data.line}, column {data.column})"
        return f"decode agent frontmatter: yaml: {yaml_errors[0]}\ntoml: {toml}"
    return data, {key: Mark(_key_line(meta, key), 1) for key in data}


def check_fields(
    data: dict[str, Any], marks: dict[str, Mark], dir_name: str, path: str
) -> list[Diagnostic]:
    """Every reason AGH's parser and ``AgentDef.Validate`` refuse this frontmatter."""
    out: list[Diagnostic] = []

    def add(code: str, message: str, key: str = "", hint: str = "") -> None:
        mark = marks.get(key, Mark(1, 1))
        out.append(
            harness_diagnostic(
                code,
                message,
                path=path,
                line=mark.line,
                column=mark.column,
                hint=hint or _WHOLE_LOAD,
            )
        )

    for key in data:
        if key not in rules.FIELDS:
            hint = (
                "AGH rejects description (RFC 001 field, not implemented); keep it in the vault"
                if key == "description"
                else "remove it; AGH's frontmatter is strict"
            )
            add("harness-field-unknown", f'unknown field "{key}"', key, hint)
    for key in rules.STRING_FIELDS:
        if data.get(key) is not None and not isinstance(data[key], str):
            add("harness-field-type", f"agent.{key} must be a string", key)
    for key in rules.LIST_FIELDS:
        value = data.get(key)
        if value is not None and not (
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        ):
            add("harness-field-type", f"agent.{key} must be a list of strings", key)
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        add("harness-invalid", "agent name is required", "name")
    else:
        problem = rules.agent_name_error(name)
        if problem:
            add("harness-name-invalid", problem, "name")
        elif name.strip() != dir_name:
            add(
                "harness-name-invalid",
                f'agent file "{path}" defines name "{name.strip()}", expected "{dir_name}"',
                "name",
                "AGH loads an agent by its directory; rename the folder or the name key",
            )
    permissions = data.get("permissions")
    if isinstance(permissions, str) and permissions.strip():
        problem = rules.permissions_error(permissions)
        if problem:
            add("harness-field-type", problem, "permissions")
    for key in ("tools", "deny_tools"):
        for index, value in enumerate(_dedupe(data.get(key))):
            problem = rules.tool_pattern_error(value, f"agent.{key}[{index}]")
            if problem:
                add("harness-invalid", problem, key, "use mcp__<server>__* for whole servers")
    for index, value in enumerate(_dedupe(data.get("toolsets"))):
        problem = rules.toolset_error(value, f"agent.toolsets[{index}]")
        if problem:
            add("harness-invalid", problem, "toolsets")
    category = data.get("category_path")
    if isinstance(category, list):
        for index, segment in enumerate(category):
            problem = rules.category_segment_error(str(segment).strip(), index)
            if problem:
                add("harness-invalid", problem, "category_path")
    skills = data.get("skills")
    if skills is not None:
        if not isinstance(skills, dict):
            add("harness-field-type", "agent.skills must be a mapping", "skills")
        else:
            for key in skills:
                if key != "disabled":
                    add("harness-field-unknown", f'unknown field "skills.{key}"', "skills")
    for key in ("mcp_servers", "hooks"):
        value = data.get(key)
        if value is not None and not (
            isinstance(value, list) and all(isinstance(v, dict) for v in value)
        ):
            add("harness-field-type", f"agent.{key} must be a list of objects", key)
    for index, server in enumerate(_items(data.get("mcp_servers"))):
        if isinstance(server, dict):
            where = f"agent.mcp_servers[{index}]"
            for problem in rules.server_errors(server, where, inline=True):
                add("harness-invalid", problem, "mcp_servers")
    return out


def _items(value: Any) -> list[Any]:
    # A list field as a list; anything else (``mcp_servers: true``) is reported, not read.
    return value if isinstance(value, list) else []


def _dedupe(values: Any) -> list[str]:
    # AGH trims and de-duplicates tools before validating, so indexes count unique entries.
    if not isinstance(values, list):
        return []
    out: list[str] = []
    for value in values:
        trimmed = str(value).strip()
        if trimmed not in out:
            out.append(trimmed)
    return out


def read_sidecar(text: str, where: str, out: list[Diagnostic]) -> dict[str, dict[str, Any]] | None:
    """``ParseMCPServersJSON``: ``mcpServers`` then ``mcp_servers`` (same name replaces),
    strict server objects. ``None`` when AGH refuses the file."""
    root = parse_json(text)
    if isinstance(root, JsonProblem):
        found = root
        out.append(
            harness_diagnostic(
                "harness-invalid",
                f'config: decode MCP JSON "{where}": {found.message}',
                path=where,
                line=found.line,
                column=found.column,
                hint=_WHOLE_LOAD,
            )
        )
        return None
    if not isinstance(root, dict):
        out.append(
            harness_diagnostic(
                "harness-invalid",
                f'config: decode MCP JSON "{where}": not a JSON object',
                path=where,
                hint=_WHOLE_LOAD,
            )
        )
        return None
    servers: dict[str, dict[str, Any]] = {}
    ok = True

    def fail(message: str, line: int) -> None:
        nonlocal ok
        ok = False
        out.append(
            harness_diagnostic("harness-invalid", message, path=where, line=line, hint=_WHOLE_LOAD)
        )

    for key in root:
        if key not in ("mcpServers", "mcp_servers"):
            out.append(
                harness_diagnostic(
                    "harness-ignored",
                    f"mcp.json key {key!r} is not read by AGH (only mcpServers and mcp_servers)",
                    path=where,
                    warning=True,
                )
            )
    blocks: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for key in ("mcpServers", "mcp_servers"):
        block = root.get(key)
        if block is None:
            continue
        if not isinstance(block, dict) or not all(isinstance(v, dict) for v in block.values()):
            fail(f'config: decode MCP JSON "{where}" {key}: expected an object of servers', 1)
            continue
        for name in sorted(block):
            raw = block[name]
            unknown = [k for k in raw if k not in rules.SERVER_FIELDS[1:]]
            if unknown:
                # encoding/json with DisallowUnknownFields stops at the first one.
                fail(
                    f'config: decode MCP JSON "{where}" {key}: json: unknown field "{unknown[0]}"',
                    _json_line(text, name),
                )
                continue
            blocks.setdefault(key, []).append((name.strip(), raw))
    merged = list(blocks.get("mcpServers", []))
    for name, raw in blocks.get("mcp_servers", []):
        # OverrideMCPServers: mcp_servers replaces a same-name mcpServers entry in place.
        index = next((i for i, (n, _) in enumerate(merged) if n == name), None)
        if index is None:
            merged.append((name, raw))
        else:
            merged[index] = (name, raw)
    seen: dict[str, int] = {}
    for index, (name, raw) in enumerate(merged):
        if name in seen:
            fail(
                f'config: validate MCP JSON "{where}": duplicate MCP server name "{name}" after '
                f"normalization at indexes {seen[name]} and {index}",
                _json_line(text, name),
            )
        seen[name] = index
        for problem in rules.server_errors(raw, f'mcp.json "{where}"[{index}]', inline=False):
            fail(f'config: validate MCP JSON "{where}": {problem}', _json_line(text, name))
    # AGH orders servers by name; the order has no meaning there, so import keeps the order
    # the file was written in (render writes the profile's order), same-name replaced in place.
    for key in ("mcpServers", "mcp_servers"):
        block = root.get(key)
        if isinstance(block, dict):
            for name, raw in block.items():
                servers[name.strip()] = raw
    return servers if ok else None


def _json_line(text: str, key: str) -> int:
    return text_lines(text).locate(json.dumps(key))[0]


def read_capabilities(folder: Path, out: list[Diagnostic]) -> dict[str, str] | None:
    """The capability catalog files, verbatim by relative path; exactly one layout."""
    found: dict[str, str] = {}
    layouts = [name for name in CAPABILITY_FILES if (folder / name).is_file()]
    catalog_dir = folder / CAPABILITY_DIR
    if catalog_dir.is_dir():
        layouts.append(CAPABILITY_DIR + "/")
        for entry in sorted(catalog_dir.iterdir()):
            if entry.is_file() and entry.suffix in (".toml", ".json"):
                text = read_text(entry, out, hint=_WHOLE_LOAD)
                if text is None:
                    return None
                found[f"{CAPABILITY_DIR}/{entry.name}"] = text
    if len(layouts) > 1:
        out.append(
            harness_diagnostic(
                "harness-invalid",
                "capability catalog: use exactly one of " + ", ".join(layouts),
                path=str(folder),
                hint=_WHOLE_LOAD,
            )
        )
        return None
    for name in layouts:
        if name in CAPABILITY_FILES:
            text = read_text(folder / name, out, hint=_WHOLE_LOAD)
            if text is None:
                return None
            found[name] = text
    for name, text in found.items():
        problem = parse_json(text) if name.endswith(".json") else parse_toml(text)
        if isinstance(problem, JsonProblem | TomlProblem):
            out.append(
                harness_diagnostic(
                    "harness-invalid",
                    f"{name}: {problem.message}",
                    path=str(folder / name),
                    line=problem.line,
                    column=problem.column,
                    hint=f"{problem.hint}; {_WHOLE_LOAD}",
                )
            )
            return None
    return found


def _wrapped(found: list[Diagnostic], prefix: str) -> list[Diagnostic]:
    # LoadAgentDefFile wraps every error with the file it came from, as AGH prints it.
    return [
        msgspec.structs.replace(d, message=prefix + d.message)
        if d.is_error and not d.message.startswith('agent file "')
        else d
        for d in found
    ]


def read_agent(folder: Path, out: list[Diagnostic]) -> AghFile | None:
    """One agent folder as AGH's ``LoadAgentDefFile`` sees it; ``None`` when the folder has
    no ``AGENT.md`` (AGH skips it). Problems go to ``out``; ``ok`` says whether AGH accepts."""
    path = folder / AGENT_FILE
    if not path.is_file():
        return None
    where = str(path)
    refused = AghFile(folder.name, path, {}, "", {}, {}, False)
    text = read_text(path, out, hint=_WHOLE_LOAD)
    if text is None:
        return refused
    parse_prefix = f'parse agent file "{where}": '
    split = split_agent_md(text)
    if isinstance(split, str):
        message = parse_prefix + split
        out.append(harness_diagnostic("harness-invalid", message, path=where, hint=_WHOLE_LOAD))
        return refused
    meta, _, body_line = split
    loaded = load_frontmatter(meta, where)
    if isinstance(loaded, str):
        message = parse_prefix + loaded
        out.append(
            harness_diagnostic("harness-invalid", message, path=where, line=2, hint=_WHOLE_LOAD)
        )
        return refused
    data, marks = loaded
    found = check_fields(data, marks, folder.name, where)
    layout = exact_layout(text, body_line)
    if not layout.prompt.strip():
        found.append(
            harness_diagnostic(
                "harness-invalid",
                "agent prompt is required",
                path=where,
                line=body_line,
                hint="add the prompt after the closing ---",
            )
        )
    out.extend(_wrapped(found, parse_prefix))
    servers: dict[str, dict[str, Any]] = {}
    for raw in _items(data.get("mcp_servers")):
        if isinstance(raw, dict):
            servers[str(raw.get("name") or "").strip()] = {
                k: v for k, v in raw.items() if k != "name"
            }
    sidecar_path = folder / SIDECAR
    sidecar_found: list[Diagnostic] = []
    if sidecar_path.is_file():
        sidecar_text = read_text(sidecar_path, sidecar_found, hint=_WHOLE_LOAD)
        if sidecar_text is not None:
            sidecar = read_sidecar(sidecar_text, str(sidecar_path), sidecar_found)
            # OverrideMCPServers: a sidecar server replaces the inline one of the same name.
            servers.update(sidecar or {})
    out.extend(_wrapped(sidecar_found, f'load agent file "{where}" MCP JSON: '))
    catalog_found: list[Diagnostic] = []
    capabilities = read_capabilities(folder, catalog_found) or {}
    out.extend(_wrapped(catalog_found, f'load agent file "{where}" capability catalog: '))
    ok = not any(d.is_error for d in (*found, *sidecar_found, *catalog_found))
    return AghFile(
        folder.name, path, data, layout.prompt, servers, capabilities, ok, native_form(layout)
    )


def exact_layout(text: str, body_line: int) -> Layout:
    """The prompt of an ``AGENT.md`` exactly (AGH trims it; roster keeps it whole, issue 12
    item 1) and the file's text around it; ``body_line`` is where :func:`split_agent_md`
    found the body."""
    start = line_offset(text, body_line)
    doc = NativeDocument({}, text[start:], body_line, True, {}, text[:start])
    return split_layout(doc)
