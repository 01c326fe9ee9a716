"""Reading Qwen Code subagent files and MCP settings the way Qwen Code 0.24.4 does.

``parseSubagentContent`` and ``SubagentValidator`` (``packages/core/src/subagents/``,
read from the bundled ``chunks/`` of the npm package): the file must start with ``---``
frontmatter (after a byte order mark is dropped and line ends become LF); ``name`` and
``description`` are required, the name is checked (2 to 50 letters, digits, ``-``/``_``, not
at either end, not a reserved word) and the prompt must be at least 10 characters. A file
that fails is skipped without a word (a debug log line); the messages below are Qwen's own
(docs/codecs/qwen.md §3).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from agent_roster import diagnostics as dx
from agent_roster.codecs import native_io
from agent_roster.codecs.claude import mcp as claude_mcp
from agent_roster.codecs.native_md import cut_layout, harness_diagnostic, read_written
from agent_roster.codecs.opencode.js import JsoncError, load_jsonc
from agent_roster.codecs.prompt import blank, stripped_shorter_than
from agent_roster.diagnostics import Diagnostic
from agent_roster.model.mcp import McpServer, Transport

AGENTS_DIR = ".qwen/agents"
SETTINGS_FILE = ".qwen/settings.json"
#: Claude Code's project MCP file, which Qwen Code reads too (``loadProjectMcpServers``).
PROJECT_MCP = ".mcp.json"
#: ``BuiltinAgentRegistry.BUILTIN_AGENTS``: a file of the same name takes its place.
BUILTIN_AGENTS = frozenset(
    {"general-purpose", "Explore", "statusline-setup", "review-agent", "claude-code", "codex"}
)
RESERVED_NAMES = frozenset({"self", "system", "user", "model", "tool", "config", "default", "main"})
#: ``APPROVAL_MODES`` plus ``bubble`` (a subagent's approvalMode).
APPROVAL_MODES = ("plan", "default", "auto-edit", "auto", "yolo", "bubble")
#: ``COLOR_VALUES``: Claude Code's colours (``auto`` is accepted too); others are dropped.
COLORS = ("red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan")
#: ``AuthType`` values a model selector may start with (``<authType>:<model>``).
AUTH_TYPES = ("openai", "openai-responses", "anthropic", "qwen-oauth", "gemini", "vertex-ai")
# Qwen's own pattern ends in ``\n---\n([\s\S]*)$``; that tail matches whatever follows,
# so only the fences decide whether a file has frontmatter, and matching the body too
# cost 280 µs for a 60 KB prompt (a fifth of a Qwen render of long prompts).
_NAME = re.compile(r"^[\w-]+$")  # \p{L}\p{N}_- : Python's \w is letters, digits and _


class QwenAgent(NamedTuple):
    """A subagent file Qwen would load: its frontmatter, its prompt exactly (Qwen trims
    it; roster keeps it whole) and the file's layout around it."""

    name: str
    data: dict[str, Any]
    head: str
    prompt: str
    tail: str
    path: Path


def _name_errors(name: str) -> list[str]:
    """``SubagentValidator.validateName``."""
    trimmed = name.strip()
    if not trimmed:
        return ["Name is required and cannot be empty"]
    errors = []
    if len(trimmed) < 2:
        errors.append("Name must be at least 2 characters long")
    if len(trimmed) > 50:
        errors.append("Name must be 50 characters or less")
    if not _NAME.match(trimmed):
        errors.append("Name can only contain letters, numbers, hyphens, and underscores")
    if trimmed[0] in "-_":
        errors.append("Name cannot start with a hyphen or underscore")
    if trimmed[-1] in "-_":
        errors.append("Name cannot end with a hyphen or underscore")
    if trimmed.lower() in RESERVED_NAMES:
        errors.append(f'"{trimmed}" is a reserved name and cannot be used')
    return errors


def name_problem(name: str) -> str:
    """Why Qwen would refuse ``name`` as an agent name ("" when it takes it)."""
    return ", ".join(_name_errors(name))


def tool_list(value: Any) -> list[str] | None:
    """``tools``/``disallowedTools``: a list (its strings) or a comma-separated string."""
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return None


def _validate(data: dict[str, Any], name: str, prompt: str) -> list[str]:
    """``SubagentValidator.validateConfig``: every error, in Qwen's order."""
    errors = []
    if "executionBackend" in data and data["executionBackend"] != "container":
        errors.append('executionBackend must be "container" when provided')
    errors += _name_errors(name)
    if not str(data["description"]).strip():
        errors.append("Description is required and cannot be empty")
    if blank(prompt):
        errors.append("System prompt is required and cannot be empty")
    elif stripped_shorter_than(prompt, 10):
        errors.append("System prompt must be at least 10 characters long")
    for key in ("tools", "disallowedTools"):
        if any(not tool.strip() for tool in tool_list(data.get(key)) or ()):
            errors.append("Tool name cannot be empty")
    model = model_of(data)
    if model:
        head, colon, rest = model.strip().partition(":")
        if colon and head.strip() in AUTH_TYPES and not rest.strip():
            errors.append("Model selector must include a model ID after the authType")
    run = data.get("runConfig")
    if isinstance(run, dict):
        minutes, turns = run.get("max_time_minutes"), run.get("max_turns")
        if minutes is not None and not _number(minutes):
            errors.append("max_time_minutes must be a number")
        elif minutes is not None and minutes <= 0:
            errors.append("max_time_minutes must be greater than 0")
        if turns is not None and not _number(turns):
            errors.append("max_turns must be a number")
        elif turns is not None and turns <= 0:
            errors.append("max_turns must be greater than 0")
        elif turns is not None and turns != int(turns):
            errors.append("max_turns must be an integer")
    return errors


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def model_of(data: dict[str, Any]) -> str:
    """The model selector a file gives (``model``, else the legacy ``modelConfig.model``)."""
    model = data.get("model")
    if model is not None and model != "":
        return str(model)
    legacy = data.get("modelConfig")
    return (
        str(legacy["model"])
        if isinstance(legacy, dict) and isinstance(legacy.get("model"), str)
        else ""
    )


def _positive_int(value: Any) -> int | None:
    if isinstance(value, str) and value:
        try:
            value = float(value)
        except ValueError:
            return None
    if _number(value) and value == int(value) and value > 0:
        return int(value)
    return None


def max_turns(data: dict[str, Any]) -> int | None:
    """``parseMaxTurns`` of the top-level ``maxTurns`` (a positive integer, or a string of
    one), else ``runConfig.max_turns``: the turn limit the agent runs with."""
    turns = _positive_int(data.get("maxTurns"))
    run = data.get("runConfig")
    if turns is None and isinstance(run, dict) and not isinstance(run.get("max_turns"), str):
        turns = _positive_int(run.get("max_turns"))
    return turns


def parse_agent(text: str, path: Path) -> tuple[QwenAgent | None, str]:
    """One subagent file: the agent Qwen loads from it, or ``None`` and Qwen's reason for
    skipping it (``Failed to parse subagent file: …``)."""
    prefix = "Failed to parse subagent file: "
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    normalized = text[len(bom) :]
    if "\r" in normalized:  # a two-character search is 100x slower than this one
        normalized = normalized.replace("\r\n", "\n").replace("\r", "\n")
    # ---\n, then (possibly nothing and) a \n---\n line: the pattern Qwen matches, told by
    # a substring search (the lazy pattern stepped through every character of the frontmatter).
    if not normalized.startswith("---\n") or normalized.find("\n---\n", 4) < 0:
        return None, prefix + "Invalid format: missing YAML frontmatter"
    found: list[Diagnostic] = []
    # A file this render just wrote is read from the frontmatter it was written from
    # (the render check parses every agent otherwise: a fifth of a Qwen render).
    doc = read_written(text, str(path), found)
    if doc is None:
        first = next((d for d in found if d.is_error), None)
        return None, prefix + (first.message if first else "the frontmatter does not parse")
    data = doc.data
    for key in ("name", "description"):
        if data.get(key) is None or data.get(key) == "":
            return None, prefix + f'Missing "{key}" in frontmatter'
    mode = data.get("approvalMode")
    if mode is not None and not isinstance(mode, str):
        return None, (
            prefix + f'Invalid "approvalMode" value: expected a string, got '
            f"{type(mode).__name__}. Valid values: {', '.join(APPROVAL_MODES)}"
        )
    if mode and mode not in APPROVAL_MODES:
        return None, (
            prefix
            + f'Invalid "approvalMode" value "{mode}". Valid values: '
            + ", ".join(APPROVAL_MODES)
        )
    name = _js_string(data["name"])
    head, body, tail = cut_layout(doc.head, doc.body)
    errors = _validate(data, name, body)
    if errors:
        return None, prefix + "Validation failed: " + ", ".join(errors)
    return QwenAgent(name, data, head, body, tail, path), ""


def _js_string(value: Any) -> str:
    """``String(value)`` for a YAML scalar."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value == int(value):
        return str(int(value))
    return str(value)


def read_agents(folder: Path, out: list[Diagnostic]) -> list[QwenAgent]:
    """``listSubagentsAtLevel``: every ``*.md`` directly in ``folder`` (in name order, as
    Qwen lists them), each it refuses reported as an error."""
    if not folder.is_dir():
        return []
    agents = []
    for path in sorted(p for p in folder.iterdir() if p.name.endswith(".md") and p.is_file()):
        text = native_io.read_text(path, out)
        if text is None:
            continue
        agent, problem = parse_agent(text, path)
        if agent is None:
            out.append(
                harness_diagnostic(
                    "harness-invalid",
                    problem,
                    path=str(path),
                    hint="Qwen Code skips this file without a word (a debug log line)",
                )
            )
            continue
        agents.append(agent)
    return agents


# --- MCP servers ------------------------------------------------------------------------


def server_from_settings(name: str, entry: Any, source: str) -> McpServer | None:
    """A ``mcpServers`` entry of ``settings.json`` (or an agent's inline one): ``httpUrl``
    is streamable HTTP, ``url`` is SSE, ``command`` is stdio (``createTransport``)."""
    if not isinstance(entry, dict):
        return None

    def strings(key: str) -> dict[str, str]:
        value = entry.get(key) or {}
        return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}

    if isinstance(entry.get("httpUrl"), str):
        return McpServer(
            name=name,
            transport=Transport.HTTP,
            url=entry["httpUrl"],
            headers=strings("headers"),
            source=source,
        )
    if isinstance(entry.get("url"), str):
        return McpServer(
            name=name,
            transport=Transport.SSE,
            url=entry["url"],
            headers=strings("headers"),
            source=source,
        )
    if isinstance(entry.get("command"), str):
        return McpServer(
            name=name,
            transport=Transport.STDIO,
            command=entry["command"],
            args=tuple(str(a) for a in entry.get("args") or ()),
            env=strings("env"),
            source=source,
        )
    return None


def read_json(path: Path, out: list[Diagnostic]) -> dict[str, Any]:
    """A settings file (comments allowed, as Qwen strips them); empty when absent or
    broken (a warning: Qwen reports it and goes on without it)."""
    if not path.is_file():
        return {}
    found: list[Diagnostic] = []
    text = native_io.read_text(path, found)
    out.extend(msgspec.structs.replace(d, severity=dx.Severity.WARNING) for d in found)
    if text is None:
        return {}
    try:
        value, _ = load_jsonc(text)
    except JsoncError as exc:
        line, column = exc.line, exc.column
        out.append(
            harness_diagnostic(
                "harness-invalid",
                f"{path}: {exc}",
                path=str(path),
                line=line,
                column=column,
                hint="Qwen Code reports invalid settings and goes on without them",
                warning=True,
            )
        )
        return {}
    return value if isinstance(value, dict) else {}


def settings_servers(workspace: Path, home: Path, out: list[Diagnostic]) -> dict[str, McpServer]:
    """``assembleMcpServers``: the user's ``settings.json`` servers, then the project's
    ``.mcp.json``, then the project's ``settings.json`` (the later wins a name). The
    project's servers start only once the user approved each one (``qwen`` asks; the
    approvals are hashes in ``~/.qwen/mcpApprovals.json``): said, not checked."""
    servers: dict[str, McpServer] = {}
    user = home / SETTINGS_FILE
    block = read_json(user, out).get("mcpServers")
    for name, entry in block.items() if isinstance(block, dict) else ():
        server = server_from_settings(name, entry, str(user))
        if server is not None:
            servers[name] = server
    project_servers: list[str] = []
    mcp_json = workspace / PROJECT_MCP
    block = read_json(mcp_json, out).get("mcpServers") if mcp_json.is_file() else None
    for name, entry in block.items() if isinstance(block, dict) else ():
        read = claude_mcp.server_from_native(name, entry, claude_mcp.CLAUDE, str(mcp_json))
        if read.server is not None:
            servers[name] = read.server
            project_servers.append(name)
    project = workspace / SETTINGS_FILE
    block = read_json(project, out).get("mcpServers") if workspace != home else None
    for name, entry in block.items() if isinstance(block, dict) else ():
        server = server_from_settings(name, entry, str(project))
        if server is not None:
            servers[name] = server
            project_servers.append(name)
    for name in dict.fromkeys(project_servers):
        out.append(
            harness_diagnostic(
                "harness-ignored",
                f"project MCP server {name!r} starts only after the user approves it in Qwen "
                "Code (again whenever its entry changes)",
                path=servers[name].source,
                hint="run qwen in the project and approve the server",
                warning=True,
            )
        )
    return servers


def settings_entry(server: McpServer) -> dict[str, Any]:
    """A server as a Qwen ``mcpServers`` entry: ``command``/``args``/``env`` for stdio,
    ``httpUrl`` for streamable HTTP, ``url`` for SSE (``headers`` for both). ``${VAR}``
    values are kept: Qwen expands them when it loads settings."""
    entry: dict[str, Any] = {}
    if server.transport is Transport.STDIO:
        entry["command"] = server.command
        if server.args:
            entry["args"] = list(server.args)
        if server.env:
            entry["env"] = dict(server.env)
        return entry
    entry["httpUrl" if server.transport is Transport.HTTP else "url"] = server.url
    if server.headers:
        entry["headers"] = dict(server.headers)
    return entry


def dumps(data: dict[str, Any]) -> str:
    return native_io.json_text(data)
