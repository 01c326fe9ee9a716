"""Qoder CLI tool names ↔ canonical ones (docs/codecs/tool-names.md, the ``qoder`` column).

Qoder names its tools as Claude Code does (``Read``, ``Bash``, ``Agent``…), so a canonical
name is written as it is, except where the table says otherwise (``Task`` is ``Agent``;
Qoder has no ``LS``, ``MultiEdit`` is its ``Edit``). MCP tools are ``mcp__<server>__<tool>``
and a tools list takes ``mcp__<server>__*`` for a whole server. Names are exact and
case-sensitive: ``read`` gives nothing.

:data:`TOOLS` is what the 1.1.52 CLI registers (the ``tools`` of its ``stream-json`` init
message, plus the tools only an interactive session has); a ``tools`` entry naming
anything else gives the agent nothing.
"""

from __future__ import annotations

from functools import lru_cache

from agent_roster.codecs.claude.rules import native_tool
from agent_roster.codecs.tool_names import canonical_tools, to_native
from agent_roster.known_tools import (
    CLAUDE_BUILTIN_TOOLS,
    DEFAULT_EMBEDDED_SERVER,
    strip_embedded_prefix,
)

#: Qoder 1.1.52's built-in tools: ``qodercli -p x --output-format stream-json``'s init
#: message, and those an interactive session adds.
TOOLS = frozenset(
    {
        "Agent",
        "Bash",
        "CreateGoal",
        "CronCreate",
        "CronDelete",
        "CronList",
        "Edit",
        "EnterWorktree",
        "ExitWorktree",
        "GetGoal",
        "Glob",
        "Grep",
        "ImageGen",
        "ImageSearch",
        "Monitor",
        "NotebookEdit",
        "Read",
        "ScheduleWakeup",
        "Skill",
        "TaskCreate",
        "TaskGet",
        "TaskList",
        "TaskStop",
        "TaskUpdate",
        "UpdateGoal",
        "VideoGen",
        "VideoGenRetrieve",
        "WebFetch",
        "WebSearch",
        "Workflow",
        "Write",
        # interactive sessions only
        "AskUserQuestion",
        "EnterPlanMode",
        "ExitPlanMode",
        "TodoWrite",
        "BashOutput",
    }
)
_TABLE = frozenset(canonical_tools())


@lru_cache(maxsize=8192)  # pure, and profiles repeat the same names
def qoder_tool(name: str, embedded: str, commands: frozenset[str]) -> str | None:
    """A canonical tool name as Qoder names it: MCP names as they are, the embedded
    server's bare commands under its prefix, built-ins through the table (``None`` when
    Qoder has no such tool), any other name as written."""
    name = native_tool(name, embedded, commands)
    if name.startswith("mcp__") or name not in _TABLE:
        return name
    native = to_native("qoder", name)
    return native.name if native is not None else None


def honoured(native: str) -> bool:
    """Whether a ``tools`` entry gives the agent anything: a Qoder tool, ``*``,
    ``Agent(<types>)``, or an MCP name (``mcp__*``, ``mcp__<server>__*``,
    ``mcp__<server>__<tool>``)."""
    if native in TOOLS or native in ("*", "mcp__*"):
        return True
    server, sep, tool = native.removeprefix("mcp__").partition("__")
    if native.startswith("mcp__"):
        return bool(server and sep and tool)
    return native.startswith("Agent(") and native.endswith(")")


def canonical_tool(native: str) -> str:
    """A Qoder tool name as the canonical one: Claude Code's names as they are, the
    embedded server's tools as bare commands, anything else as written."""
    if native in CLAUDE_BUILTIN_TOOLS:
        return native
    return strip_embedded_prefix(native, DEFAULT_EMBEDDED_SERVER)
