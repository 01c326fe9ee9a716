"""The known-tools registry: which tool names a profile may mention without a warning.

Three sources (seed 001 "Known Tools Registry", done better than the original's 18 names):
the Claude Code built-in tools, the commands of our embedded MCP server (written bare in
profiles), and ``mcp__<server>__<tool>`` names whose server is in the vault's MCP registry.
Unknown names are warnings, never errors: a tool may come from a server not probed yet.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from agent_roster.commands.catalog import EMBEDDED_COMMANDS

#: Claude Code's built-in tools (names as --allowed-tools takes them).
CLAUDE_BUILTIN_TOOLS: frozenset[str] = frozenset(
    {
        "Agent",
        "AskUserQuestion",
        "Bash",
        "BashOutput",
        "Edit",
        "EnterPlanMode",
        "ExitPlanMode",
        "Glob",
        "Grep",
        "KillShell",
        "LS",
        "ListMcpResourcesTool",
        "LSP",
        "MultiEdit",
        "NotebookEdit",
        "NotebookRead",
        "Read",
        "ReadMcpResourceTool",
        "Skill",
        "SlashCommand",
        "Task",
        "TaskOutput",
        "TaskStop",
        "TodoRead",
        "TodoWrite",
        "ToolSearch",
        "WebFetch",
        "WebSearch",
        "Write",
    }
)

#: The name under which our own command layer is served over MCP (configurable later).
DEFAULT_EMBEDDED_SERVER = "agent-queue"

_MCP_NAME = re.compile(r"^mcp__(?P<server>[^_]+(?:_[^_]+)*?)__(?P<tool>.+)$")


def strip_embedded_prefix(name: str, embedded: str = DEFAULT_EMBEDDED_SERVER) -> str:
    """``mcp__<embedded>__x`` → ``x`` (seed 001: bare names are canonical)."""
    if not name.startswith("mcp__"):
        return name
    prefix = f"mcp__{embedded}__"
    return name[len(prefix) :] if name.startswith(prefix) else name


def split_mcp_name(name: str) -> tuple[str, str] | None:
    """``mcp__server__tool`` → (server, tool); None for other names."""
    match = _MCP_NAME.match(name)
    return (match.group("server"), match.group("tool")) if match else None


class KnownTools:
    """A snapshot of the registry for one vault: built-ins, embedded commands, servers."""

    def __init__(
        self,
        mcp_servers: Iterable[str] = (),
        *,
        embedded: str = DEFAULT_EMBEDDED_SERVER,
        extra_tools: Iterable[str] = (),
    ) -> None:
        self.embedded = embedded
        self.bare = CLAUDE_BUILTIN_TOOLS | frozenset(EMBEDDED_COMMANDS) | frozenset(extra_tools)
        self.servers = frozenset(mcp_servers) | {embedded}
        # A vault repeats a few hundred tool names across thousands of profiles.
        self._verdicts: dict[str, bool] = {}
        self._known: set[str] = set()

    def is_known(self, name: str) -> bool:
        """True when ``name`` (optionally with a ``(pattern)`` rule suffix) is known."""
        verdict = self._verdicts.get(name)
        if verdict is None:
            base = name.split("(", 1)[0]
            parts = split_mcp_name(base) if base not in self.bare else None
            verdict = base in self.bare or (parts is not None and parts[0] in self.servers)
            self._verdicts[name] = verdict
            if verdict:
                self._known.add(name)
        return verdict

    def all_known(self, names: Collection[str]) -> bool:
        """True when every name is known; one set operation once the names have been seen."""
        if self._known.issuperset(names):
            return True
        return all([self.is_known(name) for name in names])

    def names(self) -> list[str]:
        return sorted(self.bare)
