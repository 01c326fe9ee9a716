"""Reading Gemini CLI agent files and MCP settings the way Gemini CLI 0.61.0 does.

``parseAgentMarkdown`` (``packages/core/src/agents/agentLoader.ts``) validates the
frontmatter with a zod ``.strict()`` schema; a file that fails is skipped with ``Agent
loading error: Failed to load agent from <path>: <message>`` while the other agents load.
Messages below reproduce zod's text for each check (docs/codecs/gemini.md §3).
"""

from __future__ import annotations

import hashlib
import math
import re
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from agent_roster.codecs.gemini.schema import (
    AGENT_SERVER,
    SETTINGS_SERVER,
    dotted,
    zod_issues,
    zod_type,
)
from agent_roster.codecs.native_io import JsonProblem, parse_json, read_json_file, read_text
from agent_roster.codecs.native_md import (
    harness_diagnostic,
    native_form,
    native_model,
    read_native,
    split_layout,
)
from agent_roster.diagnostics import Diagnostic, Severity
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import NativeForm
from agent_roster.vault.frontmatter import Mark
from agent_roster.vault.jsonblock import JsonIndex, text_lines

SLUG = re.compile(r"^[a-z0-9-_]+$")
LOCAL_KEYS = (
    "kind",
    "name",
    "description",
    "display_name",
    "tools",
    "mcp_servers",
    "model",
    "temperature",
    "max_turns",
    "timeout_mins",
)
#: Gemini CLI 0.61.0 ``ALL_BUILTIN_TOOL_NAMES`` (``tool-names.ts``), plus the legacy alias.
BUILTIN_TOOLS = frozenset(
    {
        "glob",
        "write_todos",
        "write_file",
        "google_web_search",
        "web_fetch",
        "replace",
        "run_shell_command",
        "grep_search",
        "read_many_files",
        "read_file",
        "list_directory",
        "activate_skill",
        "ask_user",
        "tracker_create_task",
        "tracker_update_task",
        "tracker_get_task",
        "tracker_list_tasks",
        "tracker_add_dependency",
        "tracker_visualize",
        "get_internal_docs",
        "enter_plan_mode",
        "exit_plan_mode",
        "update_topic",
        "complete_task",
        "invoke_agent",
        "read_mcp_resource",
        "list_mcp_resources",
        "search_file_content",
    }
)
#: Built-in subagents registered before any file; a file cannot replace them (first wins).
BUILTIN_AGENTS = frozenset({"codebase_investigator", "cli_help", "generalist", "browser_agent"})
_MCP_PART = re.compile(r"^[a-z0-9_.:-]+$", re.I)


def valid_tool_name(name: str) -> bool:
    """``isValidToolName(name, {allowWildcards: true})`` of Gemini CLI 0.61.0."""
    if name in BUILTIN_TOOLS or name.startswith("discovered_tool_") or name in ("*", "mcp_*"):
        return True
    if not name.startswith("mcp_") or name.startswith("mcp__"):
        return False
    server, sep, tool = name[4:].partition("_")
    if not sep or not server or not tool or not _MCP_PART.match(server):
        return False
    if tool == "*":
        return True
    return not re.fullmatch(r"_*", tool) and bool(_MCP_PART.match(tool))


def split_mcp_tool(name: str) -> tuple[str, str] | None:
    """``mcp_<server>_<tool>`` → (server, tool) with Gemini's rule: the server is ``[^_]+``."""
    match = re.match(r"^mcp_([^_]+)_(.+)$", name)
    return (match[1], match[2]) if match else None


class AgentFile(NamedTuple):
    """A local agent file Gemini would accept: its frontmatter, its prompt exactly (Gemini
    trims it; roster keeps it whole, issue 12 item 1), the file's layout around it, and
    its hash."""

    name: str
    data: dict[str, Any]
    body: str
    path: Path
    sha256: str
    native: NativeForm = NativeForm()


def read_agent(path: Path, out: list[Diagnostic]) -> AgentFile | None:
    """One agent file, or ``None`` with an error in ``out`` when Gemini would skip it."""
    prefix = f"Agent loading error: Failed to load agent from {path}: "
    text = read_text(path, out, hint=f"Gemini CLI skips the agent ({prefix.strip()})")
    if text is None:
        return None
    return parse_agent(text, path, out)


def parse_agent(text: str, path: Path, out: list[Diagnostic]) -> AgentFile | None:
    """:func:`read_agent` on a file's ``text``."""
    where = str(path)
    prefix = f"Agent loading error: Failed to load agent from {path}: "
    if not re.match(r"^---\r?\n[\s\S]*?\r?\n---(?:\r?\n|$)", text):
        out.append(
            harness_diagnostic(
                "harness-invalid",
                prefix + "Invalid agent definition: Missing mandatory YAML frontmatter.",
                path=where,
                hint="start the file with YAML frontmatter between --- lines",
            )
        )
        return None
    found: list[Diagnostic] = []
    doc = read_native(text, where, found)
    if doc is None:
        for problem in found:
            out.append(
                harness_diagnostic(
                    "harness-invalid",
                    f"{prefix}YAML frontmatter parsing failed: {problem.message}",
                    path=where,
                    line=problem.line,
                    column=problem.column,
                    hint=problem.hint,
                )
            )
        return None
    data, marks = doc.data, doc.key_marks

    def fail(code: str, issue: str, key: str, hint: str) -> None:
        mark: Mark | None = marks.get(key)
        out.append(
            harness_diagnostic(
                code,
                f"{prefix}Validation failed: Agent Definition:\n{issue}",
                path=where,
                line=mark.line if mark else 1,
                column=mark.column if mark else 1,
                hint=hint,
            )
        )

    if data.get("kind") == "remote" or "agent_card_url" in data or "agent_card_json" in data:
        out.append(
            harness_diagnostic(
                "harness-ignored",
                f"{path} defines a remote (A2A) agent; roster imports only local agents",
                path=where,
                hint="remote agents have no prompt or tools to carry over",
                warning=True,
            )
        )
        return None
    unknown = [key for key in data if key not in LOCAL_KEYS]
    if unknown:
        fail(
            "harness-field-unknown",
            "Unrecognized key(s) in object: " + ", ".join(f"'{k}'" for k in unknown),
            unknown[0],
            "Gemini refuses unknown frontmatter keys; remove them"
            + (" (the key is mcp_servers, not mcpServers)" if "mcpServers" in unknown else ""),
        )
        return None
    issue = _check(data)
    if issue is not None:
        fail(issue[1], issue[2], issue[0], issue[3])
        return None
    layout = split_layout(doc)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    model = data.get("model")
    native = native_form(layout, native_model(model, "" if model in (None, "inherit") else model))
    return AgentFile(data["name"], data, layout.prompt, path, digest, native)


#: The optional keys of the local agent schema and the type zod names for each.
_NULLABLE = {
    "display_name": "string",
    "tools": "array",
    "mcp_servers": "object",
    "model": "string",
    "temperature": "number",
    "max_turns": "number",
    "timeout_mins": "number",
}


def _check(data: dict[str, Any]) -> tuple[str, str, str, str] | None:
    """The first zod issue for a local agent: (key, diagnostic code, zod message, hint)."""
    for key, expected in _NULLABLE.items():
        # ``.optional()`` takes a missing key, not null.
        if key in data and data[key] is None:
            return key, "harness-field-type", f"{key}: Expected {expected}, received null", ""
    if data.get("kind", "local") != "local":
        return "kind", "harness-field-type", 'kind: Invalid literal value, expected "local"', ""
    name = data.get("name")
    if name is None:
        return "name", "harness-invalid", "name: Required", "add name: <slug>"
    if not isinstance(name, str):
        return "name", "harness-field-type", "name: Expected string", "quote the name"
    if not SLUG.match(name):
        return (
            "name",
            "harness-name-invalid",
            "name: Name must be a valid slug",
            "use lowercase letters, digits, '-' and '_' only",
        )
    description = data.get("description")
    if description is None:
        return "description", "harness-invalid", "description: Required", "add a description"
    if not isinstance(description, str):
        return "description", "harness-field-type", "description: Expected string", ""
    if not description:
        return (
            "description",
            "harness-invalid",
            "description: String must contain at least 1 character(s)",
            "write a one-line description",
        )
    for key in ("display_name", "model"):
        if key in data and not isinstance(data[key], str):
            return key, "harness-field-type", f"{key}: Expected string", f"quote {key}"
    tools = data.get("tools")
    if tools is not None:
        if not isinstance(tools, list):
            return "tools", "harness-field-type", "tools: Expected array", "write tools as a list"
        for index, tool in enumerate(tools):
            if not isinstance(tool, str) or not valid_tool_name(tool):
                return (
                    "tools",
                    "harness-field-type",
                    f"tools.{index}: Invalid tool name",
                    "use Gemini tool names (read_file, run_shell_command, mcp_<server>_<tool>)",
                )
    temperature = data.get("temperature")
    if temperature is not None and (
        isinstance(temperature, bool) or not isinstance(temperature, int | float)
    ):
        return "temperature", "harness-field-type", "temperature: Expected number", ""
    if isinstance(temperature, float) and math.isnan(temperature):  # YAML .nan
        return "temperature", "harness-field-type", "temperature: Expected number, received nan", ""
    for key in ("max_turns", "timeout_mins"):
        value = data.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            return key, "harness-field-type", f"{key}: Expected number", ""
        if isinstance(value, float) and math.isnan(value):
            return key, "harness-field-type", f"{key}: Expected number, received nan", ""
        if not math.isfinite(value) or value != int(value):  # .inf is no integer either
            return key, "harness-field-type", f"{key}: Expected integer, received float", ""
        if value <= 0:
            return key, "harness-field-type", f"{key}: Number must be greater than 0", ""
    servers = data.get("mcp_servers")
    if servers is not None and (
        not isinstance(servers, dict) or not all(isinstance(v, dict) for v in servers.values())
    ):
        return "mcp_servers", "harness-field-type", "mcp_servers: Expected object", ""
    for name, entry in (servers or {}).items():
        for where, message in zod_issues(entry, AGENT_SERVER, ("mcp_servers", str(name))):
            hint = "fix the inline server; Gemini skips the agent until it validates"
            return "mcp_servers", "harness-field-type", f"{dotted(where)}: {message}", hint
    return None


def server_from_settings(name: str, entry: Any, source: str, *, snake: bool) -> McpServer | None:
    """A ``mcpServers`` entry (camelCase) or an agent's inline ``mcp_servers`` entry
    (snake_case) as a canonical server; ``None`` for a TCP server or a broken entry."""
    if not isinstance(entry, dict):
        return None
    http_url = entry.get("http_url" if snake else "httpUrl")

    def strings(key: str) -> dict[str, str]:
        value = entry.get(key) or {}
        return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}

    args = entry.get("args")

    description = str(entry.get("description", ""))
    if isinstance(entry.get("command"), str):
        return McpServer(
            name=name,
            transport=Transport.STDIO,
            command=entry["command"],
            args=tuple(str(a) for a in args) if isinstance(args, list) else (),
            env=strings("env"),
            description=description,
            source=source,
        )
    url = entry.get("url") or http_url
    if not isinstance(url, str):
        return None
    sse = entry.get("type") == "sse" and not http_url
    return McpServer(
        name=name,
        transport=Transport.SSE if sse else Transport.HTTP,
        url=url,
        headers=strings("headers"),
        description=description,
        source=source,
    )


class Settings(NamedTuple):
    """A ``settings.json``: its text (for positions) and its top-level object."""

    text: str
    data: dict[str, Any]


_SETTINGS_HINT = "Gemini CLI reports invalid settings at startup and ignores them"


def read_settings(path: Path, out: list[Diagnostic]) -> Settings:
    """A ``settings.json`` (empty when absent; with a warning when Gemini cannot read it)."""
    if not path.is_file():
        return Settings("", {})
    found: list[Diagnostic] = []
    text = read_text(path, found, hint=_SETTINGS_HINT)
    if text is None:
        out.extend(msgspec.structs.replace(d, severity=Severity.WARNING) for d in found)
        return Settings("", {})
    data = parse_json(text)
    if isinstance(data, JsonProblem):
        out.append(
            harness_diagnostic(
                "harness-invalid",
                f"Error in {path}: {data.message} at line {data.line} column {data.column}",
                path=str(path),
                line=data.line,
                column=data.column,
                hint=_SETTINGS_HINT,
                warning=True,
            )
        )
        return Settings(text, {})
    return Settings(text, data if isinstance(data, dict) else {})


def settings_servers(path: Path, out: list[Diagnostic]) -> dict[str, McpServer]:
    """The valid ``mcpServers`` entries of one ``settings.json``; every zod issue of the
    settings schema is an error at its value (Gemini reports them as invalid
    configuration; roster imports only the entries it can read exactly)."""
    settings = read_settings(path, out)
    block = settings.data.get("mcpServers")
    if block is None:
        return {}
    index: JsonIndex | None = None

    def report(issue_path: tuple[str | int, ...], message: str) -> None:
        nonlocal index
        index = index or JsonIndex(settings.text)
        where = ("mcpServers", *issue_path)
        offset = index.values.get(where, index.keys.get(where, 0))
        line, column = text_lines(settings.text).line_column(offset)
        unknown = message.startswith("Unrecognized")
        out.append(
            harness_diagnostic(
                "harness-field-unknown" if unknown else "harness-field-type",
                f"Invalid configuration in {path}: {dotted(where)}: {message}",
                path=str(path),
                line=line,
                column=column,
                hint="fix the entry; Gemini CLI reports it at startup and roster does not "
                "import it",
            )
        )

    if not isinstance(block, dict):
        report((), f"Expected object, received {zod_type(block)}")
        return {}
    servers: dict[str, McpServer] = {}
    for name, entry in block.items():
        issues = zod_issues(entry, SETTINGS_SERVER, (name,))
        for issue_path, message in issues:
            report(issue_path, message)
        if not issues:
            server = server_from_settings(name, entry, str(path), snake=False)
            if server is not None:
                servers[name] = server
    return servers


def trusted_folder(workspace: Path, home: Path, out: list[Diagnostic]) -> bool:
    """Whether ``~/.gemini/trustedFolders.json`` trusts ``workspace`` (``TRUST_FOLDER`` on it
    or an ancestor, ``TRUST_PARENT`` on a child of an ancestor)."""
    path = home / ".gemini" / "trustedFolders.json"
    hint = "Gemini CLI cannot read it, so no folder counts as trusted"
    rules = read_json_file(path, out, title="Gemini CLI", hint=hint, warning=True)
    if not isinstance(rules, dict):
        return False
    resolved = workspace.resolve()
    for folder, level in rules.items():
        target = Path(folder)
        if level == "TRUST_PARENT":
            target = target.parent
        if level in ("TRUST_FOLDER", "TRUST_PARENT") and (
            resolved == target or target in resolved.parents
        ):
            return True
    return False


def acknowledgments(workspace: Path, home: Path, out: list[Diagnostic]) -> dict[str, Any]:
    """The agent hashes the user acknowledged in ``workspace`` (agent name → SHA-256)."""
    path = home / ".gemini" / "acknowledgments" / "agents.json"
    hint = "Gemini CLI cannot read it, so it asks again for every project agent"
    data = read_json_file(path, out, title="Gemini CLI", hint=hint, warning=True)
    project = data.get(str(workspace.resolve())) if isinstance(data, dict) else None
    return project if isinstance(project, dict) else {}
