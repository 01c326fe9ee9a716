"""Qwen Code tool names ↔ canonical ones (docs/codecs/tool-names.md, the ``qwen`` column).

Qwen's tool names are its ``ToolNames`` (``read_file``, ``run_shell_command``…); a tools
list may also use its display names (``ReadFile``, ``Shell``…) and legacy names, which
import reads. MCP tools are ``mcp__<server>__<tool>``, as in the canonical model.
"""

from __future__ import annotations

from agent_roster.codecs.claude.rules import native_tool
from agent_roster.codecs.tool_names import canonical_tools, to_canonical, to_native
from agent_roster.known_tools import DEFAULT_EMBEDDED_SERVER, strip_embedded_prefix

_CANONICAL = frozenset(canonical_tools())
#: Qwen's display names (``ToolDisplayNames`` and the legacy ones), which a tools list may
#: use, → tool names.
_DISPLAY = {
    "ReadFile": "read_file",
    "WriteFile": "write_file",
    "Edit": "edit",
    "Shell": "run_shell_command",
    "Grep": "grep_search",
    "SearchFiles": "grep_search",
    "Glob": "glob",
    "FindFiles": "glob",
    "ListFiles": "list_directory",
    "ReadFolder": "list_directory",
    "WebFetch": "web_fetch",
    "WebSearch": "web_search",
    "Agent": "agent",
    "Task": "agent",
    "TodoList": "todo_write",
    "TodoWrite": "todo_write",
    "Skill": "skill",
    "Lsp": "lsp",
    "AskUserQuestion": "ask_user_question",
    "EnterPlanMode": "enter_plan_mode",
    "ExitPlanMode": "exit_plan_mode",
    "NotebookEdit": "notebook_edit",
    "ReadMcpResource": "read_mcp_resource",
    "ToolSearch": "tool_search",
}


def canonical_tool(name: str) -> str:
    """A Qwen tool name (or display name) as the canonical one; a name with no canonical
    row is kept as written (it round-trips, and the vault warns about it)."""
    native = _DISPLAY.get(name, name)
    return to_canonical("qwen", native) or strip_embedded_prefix(name, DEFAULT_EMBEDDED_SERVER)


def qwen_tool(name: str, embedded: str, commands: frozenset[str]) -> str | None:
    """A canonical tool name as Qwen names it: MCP names as they are (the same grammar),
    the embedded server's bare commands under its prefix, built-ins through the tool table
    (``None`` when Qwen has no such tool), any other name as written."""
    name = native_tool(name, embedded, commands)
    if name.startswith("mcp__") or name not in _CANONICAL:
        return name
    native = to_native("qwen", name)
    return native.name if native is not None else None
