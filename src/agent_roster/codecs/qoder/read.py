"""Reading Qoder CLI agent files and MCP settings the way ``qodercli`` 1.1.52 does.

The agent loader (read in the 1.1.52 npm bundle, ``bundle/qodercli.js``): a file must
match ``^---\\r?\\n(…)\\r?\\n---(?:\\r?\\n(…))?`` (no byte order mark, nothing before the
fence); the frontmatter is YAML, and when that fails Qoder quotes values that need it and
tries once more (:func:`quote_values`); then a zod schema checks every key it knows
(:func:`schema_problems`: a wrong type refuses the whole file, unknown keys are dropped);
``name`` and ``description`` are required non-empty strings. The body, trimmed, is the
prompt (an empty one is allowed). A refused file is skipped with "N errors loading agent
configs" and the others load. Each rule was checked with the CLI (tests/codecs/test_qoder_cli.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from agent_roster.codecs import native_io
from agent_roster.codecs.native_md import (
    JS_WHITESPACE,
    NativeDocument,
    Recovery,
    cut_layout,
    harness_diagnostic,
    read_native_recovering,
)
from agent_roster.diagnostics import Diagnostic

AGENTS_DIR = ".qoder/agents"
#: MCP servers, lowest precedence first: the user's settings, the project's settings, the
#: project's ``.mcp.json`` (Claude Code's file), the project's private local settings.
USER_SETTINGS = ".qoder/settings.json"
PROJECT_SETTINGS = ".qoder/settings.json"
PROJECT_MCP = ".mcp.json"
LOCAL_SETTINGS = ".qoder/settings.local.json"
#: Qoder's own agents (``qodercli agents list``, "Built-in"); a file of one of these names
#: takes its place.
BUILTIN_AGENTS = frozenset(
    {"general-purpose", "Explore", "Plan", "statusline-setup", "qoder-guide"}
)
#: The ``color`` enum (any other value refuses the file).
COLORS = ("red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan")
EFFORTS = ("low", "medium", "high", "xhigh", "max")
MEMORY = ("user", "project", "local")
#: ``permissionMode`` values Qoder acts on (compared lower-cased without punctuation);
#: any other string loads and is ignored (the agent runs in its parent's mode).
PERMISSION_MODES = (
    "default",
    "acceptEdits",
    "bypassPermissions",
    "yolo",
    "dontAsk",
    "auto",
    "plan",
)

# Qoder's pattern captures the body as ``(?:\r?\n([\s\S]*))?``; the body is everything
# after that line end, so only the line end is matched here (capturing the body made the
# regex engine walk every character of a long prompt).
_FRONTMATTER = re.compile(r"---\r?\n([\s\S]*?)\r?\n---(\r?\n)?")
_WS = JS_WHITESPACE
#: Block scalar indicators Qoder's repair folds into one quoted line.
_BLOCK = frozenset({"|", ">", "|+", ">+", "|-", ">-", "|2", ">2"})
#: A first character that makes a plain YAML value need quotes.
_INDICATORS = frozenset("&*!?[{|>%@`'\"")
_MISSING_FRONTMATTER = (
    "Invalid agent definition: Missing mandatory YAML frontmatter. Agent Markdown files MUST "
    'start with YAML frontmatter enclosed in triple-dashes "---"'
)


class QoderAgent(NamedTuple):
    """A file Qoder loads: its name, frontmatter, the exact prompt (Qoder trims it; roster
    keeps it whole) with the file's text around it, and where its keys are."""

    name: str
    data: dict[str, Any]
    head: str
    prompt: str
    tail: str
    path: Path
    doc: NativeDocument


# --- the frontmatter repair ------------------------------------------------------------


def _key_value(line: str) -> tuple[str, str, str] | None:
    """``(key with indent, key, value)`` of a ``key: value`` line: the first ``:`` outside
    quotes followed by a space, a tab or the end of the line."""
    text = line.lstrip(_WS)
    if not text or text.startswith("#"):
        return None
    single = double = False
    for index, char in enumerate(text):
        if char == "'" and not double:
            single = not single
        elif char == '"' and not single:
            double = not double
        elif (
            char == ":"
            and not single
            and not double
            and (index + 1 >= len(text) or text[index + 1] in " \t")
        ):
            indent = line[: len(line) - len(line.lstrip(" \t"))]
            value = text[index + 1 :].strip(_WS)
            return indent + text[:index], text[:index], value
    return None


def _needs_quotes(value: str) -> bool:
    if not value or value.strip(_WS) in _BLOCK:
        return False
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return False
    for index, char in enumerate(value):
        if char == ":" and (index + 1 == len(value) or value[index + 1] == " "):
            return True
        if char == "#":
            return True
    return value[0] in _INDICATORS


def _quoted(value: str) -> str:
    escapes = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
    return '"' + "".join(escapes.get(c, c) for c in value) + '"'


def _indent_width(line: str) -> int:
    width = 0
    for char in line:
        if char == " ":
            width += 1
        elif char == "\t":
            width += 2
        else:
            break
    return width


def quote_values(frontmatter: str) -> str:
    """Qoder's second try at frontmatter its YAML parser refused (1.1.52): tabs become two
    spaces and trailing white space goes; a ``key: value`` line whose unquoted value holds
    ``": "``, ends with ``:``, holds ``#`` or starts with a YAML indicator (``&*!?[{|>%@```
    or a quote) gets the value in double quotes; a block scalar (``|``, ``>``…) is folded
    with its more-indented lines into one quoted line. Comments and other lines stay."""
    out: list[str] = []
    key = indent = acc = ""
    block_width = 0
    in_block = False

    def flush() -> None:
        nonlocal key, acc, in_block
        if key:
            value = acc.strip(_WS)
            out.append(f"{indent}{key}: {_quoted(value) if value else chr(34) * 2}")
        key = acc = ""
        in_block = False

    for raw in frontmatter.split("\n"):
        line = raw.replace("\t", "  ").rstrip(_WS)
        if not line.strip(_WS):
            if in_block:
                acc += " "
            else:
                out.append(line)
            continue
        if line.lstrip(_WS).startswith("#"):
            if in_block:
                flush()
            out.append(line)
            continue
        width = _indent_width(line)
        if in_block:
            if width > block_width:
                acc = f"{acc} {line.strip(_WS)}" if acc else line.strip(_WS)
                continue
            flush()
        found = _key_value(line)
        if found is None:
            out.append(line)
            continue
        with_indent, name, value = found
        if value.strip(_WS) in _BLOCK:
            key, indent, block_width, in_block = (
                name.strip(_WS),
                line[: len(line) - len(line.lstrip(" \t"))],
                width,
                True,
            )
        elif _needs_quotes(value):
            out.append(f"{with_indent}: {_quoted(value)}")
        else:
            out.append(line)
    flush()
    return "\n".join(out)


RECOVERY = Recovery(
    "Qoder CLI",
    quote_values,
    "parses it again with values holding ': ', '#' or a leading YAML indicator quoted",
)


# --- the schema --------------------------------------------------------------------------


def _type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _strings(value: Any) -> bool:
    """zod ``union([string(), array(string())])``."""
    return isinstance(value, str) or (
        isinstance(value, list) and all(isinstance(v, str) for v in value)
    )


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _server_problem(entry: Any) -> str:
    if not isinstance(entry, dict):
        return f"Expected object, received {_type(entry)}"
    checks: dict[str, Callable[[Any], bool]] = {
        "command": lambda v: isinstance(v, str),
        "cwd": lambda v: isinstance(v, str),
        "url": lambda v: isinstance(v, str),
        "http_url": lambda v: isinstance(v, str),
        "tcp": lambda v: isinstance(v, str),
        "description": lambda v: isinstance(v, str),
        "args": lambda v: isinstance(v, list) and all(isinstance(i, str) for i in v),
        "include_tools": lambda v: isinstance(v, list) and all(isinstance(i, str) for i in v),
        "exclude_tools": lambda v: isinstance(v, list) and all(isinstance(i, str) for i in v),
        "env": lambda v: isinstance(v, dict) and all(isinstance(i, str) for i in v.values()),
        "headers": lambda v: isinstance(v, dict) and all(isinstance(i, str) for i in v.values()),
        "type": lambda v: v in ("sse", "http"),
        "timeout": lambda v: _type(v) == "number",
        "trust": lambda v: isinstance(v, bool),
    }
    for key, ok in checks.items():
        if key in entry and not ok(entry[key]):
            return f"{key}: Invalid value ({_type(entry[key])})"
    return ""


def _servers_problem(value: Any) -> str:
    if isinstance(value, dict):
        for name, entry in value.items():
            problem = _server_problem(entry)
            if problem:
                return f"{name}.{problem}"
        return ""
    if not isinstance(value, list):
        return f"Expected array or object, received {_type(value)}"
    for index, item in enumerate(value):
        if isinstance(item, str):
            continue
        if not isinstance(item, dict):
            return f"{index}: Expected string or object, received {_type(item)}"
        for name, entry in item.items():
            problem = _server_problem(entry)
            if problem:
                return f"{index}.{name}.{problem}"
    return ""


def _hooks_problem(value: Any) -> str:
    if not isinstance(value, dict):
        return f"Expected object, received {_type(value)}"
    for event, matchers in value.items():
        if not isinstance(matchers, list) or not all(
            isinstance(m, dict) and isinstance(m.get("hooks"), list) for m in matchers
        ):
            return f"{event}: Expected an array of {{matcher, hooks}} objects"
    return ""


def schema_problems(data: dict[str, Any]) -> list[str]:
    """Qoder's agent schema (zod, 1.1.52): ``key: message`` for each value of the wrong
    type, in key order. A YAML ``null`` (``key:`` with nothing after it) is a wrong type
    too. Unknown keys are not problems (Qoder drops them)."""
    problems: list[str] = []

    def need(key: str, ok: bool, what: str) -> None:
        if key in data and not ok:
            problems.append(f"{key}: Expected {what}, received {_type(data[key])}")

    for key in ("name", "description"):
        value = data.get(key)
        if key not in data:
            problems.append(f"{key}: Required")
        elif not isinstance(value, str):
            problems.append(f"{key}: Expected string, received {_type(value)}")
        elif not value:
            problems.append(
                f"{key}: "
                + (
                    "Name must be a non-empty string"
                    if key == "name"
                    else "String must contain at least 1 character(s)"
                )
            )
    value = data.get
    for key in ("tools", "disallowedTools", "skills"):
        need(key, _strings(value(key)), "string or array of strings")
    for key in ("model", "initialPrompt", "permissionMode"):
        need(key, isinstance(value(key), str), "string")
    need("temperature", _type(value("temperature")) == "number", "number")
    for key in ("maxTurns", "timeoutMins"):
        need(key, _positive_int(value(key)), "a positive integer")
    if "effort" in data:
        effort = value("effort")
        need("effort", effort in EFFORTS or _positive_int(effort), " | ".join(EFFORTS))
    need("color", value("color") in COLORS, " | ".join(f"'{c}'" for c in COLORS))
    need("memory", value("memory") in MEMORY, " | ".join(f"'{m}'" for m in MEMORY))
    need("isolation", value("isolation") == "worktree", "'worktree'")
    need("kind", value("kind") == "local", "'local'")
    need("background", value("background") in (True, False, "true", "false"), "boolean")
    if "mcpServers" in data:
        problem = _servers_problem(data["mcpServers"])
        if problem:
            problems.append(f"mcpServers.{problem}")
    if "hooks" in data:
        problem = _hooks_problem(data["hooks"])
        if problem:
            problems.append(f"hooks.{problem}")
    return problems


# --- one file ----------------------------------------------------------------------------


def parse_agent(text: str, path: Path) -> tuple[QoderAgent | None, str, list[Diagnostic]]:
    """The agent Qoder loads from ``text``, or ``None`` and Qoder's reason for refusing it
    (``Failed to load agent from <path>: …``); the warnings reading it gave (a repaired
    frontmatter)."""
    prefix = f"Failed to load agent from {path}: "
    found = _FRONTMATTER.match(text)
    if found is None:
        return None, prefix + _MISSING_FRONTMATTER, []
    frontmatter = found.group(1)
    # Parsed from a copy with plain fences (its lines are the file's), so positions hold.
    notes: list[Diagnostic] = []
    doc = read_native_recovering(f"---\n{frontmatter}\n---\n", str(path), notes, RECOVERY)
    if doc is None:
        first = next((d for d in notes if d.is_error), None)
        reason = first.message if first else "the frontmatter does not parse"
        return None, prefix + f"YAML frontmatter parsing failed: {reason}", []
    data = doc.data
    problems = schema_problems(data)
    if problems:
        return None, prefix + "Validation failed: Agent Definition:\n" + "\n".join(problems), []
    start = found.end() if found.group(2) is not None else len(text)
    head, body, tail = cut_layout(text[:start], text[start:])
    agent = QoderAgent(data["name"], data, head, body, tail, path, doc)
    return agent, "", [d for d in notes if not d.is_error]


def tool_list(value: Any) -> list[str] | None:
    """``tools``/``disallowedTools`` as Qoder splits them (commas and spaces outside
    parentheses, as Claude Code does); ``None`` for no list at all: absent, ``""``, ``[]``
    or a list without strings (Qoder then gives every tool)."""
    if value is None:
        return None
    items = [value] if isinstance(value, str) else [v for v in value if isinstance(v, str)]
    if isinstance(value, str) and value.strip(_WS) == "*":
        return ["*"]
    out: list[str] = []
    for item in items:
        current, depth = "", 0
        for char in item:
            if char == "(":
                depth += 1
                current += char
            elif char == ")":
                depth = max(0, depth - 1)
                current += char
            elif char in ", " and depth == 0:
                if current.strip(_WS):
                    out.append(current.strip(_WS))
                current = ""
            else:
                current += char
        if current.strip(_WS):
            out.append(current.strip(_WS))
    return out or None


def read_file(path: Path, out: list[Diagnostic]) -> QoderAgent | None:
    """One agent file, its refusal an error in ``out`` (Qoder counts it in "N errors
    loading agent configs" and loads the others)."""
    text = native_io.read_text(path, out)
    if text is None:
        return None
    agent, problem, notes = parse_agent(text, path)
    out.extend(notes)
    if agent is None:
        out.append(
            harness_diagnostic(
                "harness-invalid",
                problem,
                path=str(path),
                hint="Qoder skips this file (qodercli prints 'errors loading agent configs')",
            )
        )
    return agent
