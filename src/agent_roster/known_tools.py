"""The known-tools registry: which tool names a profile may mention without a warning.

Three sources (seed 001 "Known Tools Registry", done better than the original's 18 names):
the Claude Code built-in tools, the commands of our embedded MCP server (written bare in
profiles), and ``mcp__<server>__<tool>`` names whose server is in the vault's MCP registry.
Unknown names are warnings, never errors: a tool may come from a server not probed yet.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import NamedTuple

from agent_roster.catalog import NAMES
from agent_roster.diagnostics import closest


class ClaudeTool(NamedTuple):
    """One Claude Code built-in tool: its name (as ``tools``, ``--allowed-tools`` and
    permission rules take it), what it does, and whether the current CLI still has it."""

    name: str
    description: str
    #: "current"; "interactive" (only an interactive session has it: ``claude -p`` answers
    #: "matches no known tool"); "retired" (no current CLI has it).
    status: str


# Claude Code 2.1.197, checked against the CLI itself: the tools offered to the model in a
# ``claude -p`` request against a loopback fake endpoint, the names its permission rules
# accept (``--disallowed-tools X`` prints "matches no known tool" for the others), and the
# tools reference (code.claude.com/docs/en/tools-reference) for tools that exist only in
# interactive sessions or behind a flag. Descriptions are ours. The one table: known-tool
# checks, the launcher and ``roster tools`` all read it (issue 12 item 4).
CLAUDE_CODE_TOOLS: tuple[ClaudeTool, ...] = tuple(
    ClaudeTool(name, description, status)
    for name, status, description in (
        ("Agent", "current", "Start a subagent with its own context for a task"),
        ("Artifact", "current", "Publish an HTML or markdown file as a claude.ai artifact"),
        ("AskUserQuestion", "current", "Ask the user multiple-choice questions"),
        ("Bash", "current", "Run a shell command"),
        ("BashOutput", "current", "Read the output of a background shell (older name)"),
        ("Brief", "current", "Send the user a short status message"),
        ("CronCreate", "current", "Schedule a prompt to run later or on a schedule"),
        ("CronDelete", "current", "Cancel a scheduled prompt"),
        ("CronList", "current", "List scheduled prompts"),
        ("Edit", "current", "Replace exact text in a file"),
        ("EnterPlanMode", "current", "Switch to plan mode before changing anything"),
        ("EnterWorktree", "current", "Create a git worktree and work in it"),
        ("ExitPlanMode", "current", "Present a plan and leave plan mode"),
        ("ExitWorktree", "current", "Leave a worktree session"),
        ("Glob", "current", "Find files by name pattern"),
        ("Grep", "current", "Search file contents with regular expressions"),
        ("KillShell", "current", "Stop a background shell (older name)"),
        ("LSP", "current", "Code intelligence from language servers"),
        ("ListMcpResourcesTool", "current", "List the resources of connected MCP servers"),
        ("Monitor", "current", "Run a command in the background and stream its output"),
        ("NotebookEdit", "current", "Change a cell of a Jupyter notebook"),
        ("PowerShell", "current", "Run a PowerShell command (opt-in)"),
        ("PushNotification", "current", "Send the user a push notification"),
        ("REPL", "current", "Run code in a persistent interpreter session"),
        ("Read", "current", "Read a file (text, images, PDFs, notebooks)"),
        ("ReadMcpResourceDir", "current", "List a directory of MCP resources"),
        ("ReadMcpResourceTool", "current", "Read one MCP resource by URI"),
        ("RemoteTrigger", "current", "Start a remote agent run"),
        ("ReportFindings", "current", "Report code-review findings as a typed list"),
        ("ScheduleWakeup", "current", "Choose when a /loop session resumes"),
        ("SendMessage", "current", "Message a teammate or resume a subagent"),
        ("Skill", "current", "Run a skill in the conversation"),
        ("Task", "current", "Start a subagent (the older name of Agent)"),
        ("TaskCreate", "current", "Add a task to the session's task list"),
        ("TaskGet", "current", "Show one task of the task list"),
        ("TaskList", "current", "List the session's tasks"),
        ("TaskOutput", "current", "Read the output of a background task"),
        ("TaskStop", "current", "Stop a background task"),
        ("TaskUpdate", "current", "Change a task's status or details"),
        ("TeamCreate", "interactive", "Create an agent team (agent teams on)"),
        ("TeamDelete", "interactive", "Disband an agent team (agent teams on)"),
        ("TodoWrite", "current", "Write the session's todo list"),
        ("ToolSearch", "current", "Load deferred tools by searching for them (tool search on)"),
        ("WebFetch", "current", "Fetch a URL and answer a prompt about it"),
        ("WebSearch", "current", "Search the web"),
        ("Workflow", "current", "Run a script that orchestrates several subagents"),
        ("Write", "current", "Create or overwrite a file"),
        ("LS", "retired", "List a directory (removed; use Glob or Bash)"),
        ("MultiEdit", "retired", "Several edits to one file at once (removed; use Edit)"),
        ("NotebookRead", "retired", "Read a notebook (removed; Read reads notebooks)"),
        ("SlashCommand", "retired", "Run a slash command (removed; now Skill)"),
        ("TodoRead", "retired", "Read the todo list (removed)"),
    )
)

#: Every Claude Code tool name roster knows, retired ones included: a profile may still
#: deny one for older CLIs, so it is known, not a typo.
CLAUDE_BUILTIN_TOOLS: frozenset[str] = frozenset(tool.name for tool in CLAUDE_CODE_TOOLS)
#: Names Claude Code has dropped (its deny rules for them print "matches no known tool").
RETIRED_CLAUDE_TOOLS: frozenset[str] = frozenset(
    tool.name for tool in CLAUDE_CODE_TOOLS if tool.status == "retired"
)

#: The name under which our own command layer is served over MCP (roster.toml
#: ``[embedded_server] name``).
DEFAULT_EMBEDDED_SERVER = "agent-queue"
#: The embedded server's commands when roster.toml declares no more (``commands``).
DEFAULT_EMBEDDED_COMMANDS: frozenset[str] = NAMES


def embedded_commands(extra: Iterable[str] = ()) -> frozenset[str]:
    """The embedded server's command names: the catalog plus those roster.toml declares."""
    extra = frozenset(extra)
    return DEFAULT_EMBEDDED_COMMANDS | extra if extra else DEFAULT_EMBEDDED_COMMANDS


def to_claude(
    name: str,
    embedded: str = DEFAULT_EMBEDDED_SERVER,
    commands: frozenset[str] = DEFAULT_EMBEDDED_COMMANDS,
) -> str:
    """A canonical tool name as Claude Code names it: a bare command of the embedded server
    gets the server's prefix (seed 001); every other name is written as it is. A bare name
    that is no command (``TeamCreate``, a subagent's name, a typo) is not the embedded
    server's: prefixing it would name a tool that does not exist (issue 12 item 4)."""
    if name.split("(", 1)[0] in commands and not name.startswith("mcp__"):
        return f"mcp__{embedded}__{name}"
    return name


_MCP_NAME = re.compile(r"^mcp__(?P<server>[^_]+(?:_[^_]+)*?)__(?P<tool>.+)$")


def strip_embedded_prefix(
    name: str,
    embedded: str = DEFAULT_EMBEDDED_SERVER,
    commands: frozenset[str] = DEFAULT_EMBEDDED_COMMANDS,
) -> str:
    """``mcp__<embedded>__x`` → ``x`` when ``x`` is one of the server's commands (seed 001:
    bare names are canonical for them); any other name stays as written, so the inverse,
    :func:`to_claude`, gives it back."""
    if not name.startswith("mcp__"):
        return name
    prefix = f"mcp__{embedded}__"
    if not name.startswith(prefix):
        return name
    rest = name[len(prefix) :]
    # "" (the prefix alone names nothing) is returned for the parser to report.
    return rest if not rest or rest.split("(", 1)[0] in commands else name


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
        commands: Iterable[str] = (),
        catalog: Mapping[str, frozenset[str]] | None = None,
        suggestions: dict[str, str] | None = None,
    ) -> None:
        self.embedded = embedded
        #: The tools probed servers reported (``list_mcp_tool_catalog``): for these servers
        #: ``mcp__<server>__<tool>`` is checked against what the server really offers.
        self.catalog: Mapping[str, frozenset[str]] = catalog or {}
        #: The embedded server's commands: the catalog plus roster.toml's extra names.
        self.commands = embedded_commands(commands)
        self.bare = CLAUDE_BUILTIN_TOOLS | self.commands
        self.servers = frozenset(mcp_servers) | {embedded}
        # A vault repeats a few hundred tool names across thousands of profiles.
        self._verdicts: dict[str, bool] = {}
        self._known: set[str] = set()
        #: The hint for each unknown name seen in this load (``suggestions``: shared by the
        #: load's scopes, whose built-ins and commands are the same).
        self._suggestions: dict[str, str] = {} if suggestions is None else suggestions
        #: The ``tool-unknown`` message and hint of each unknown name seen in this load
        #: (``vault.profile_lists.unknown_tool_text``); None for a probed server's tool.
        self.unknown_texts: dict[str, tuple[str, str] | None] = {}

    def is_known(self, name: str) -> bool:
        """True when ``name`` (optionally with a ``(pattern)`` rule suffix) is known."""
        verdict = self._verdicts.get(name)
        if verdict is None:
            base = name.split("(", 1)[0]
            parts = split_mcp_name(base) if base not in self.bare else None
            verdict = base in self.bare or (parts is not None and self._server_has(*parts))
            self._verdicts[name] = verdict
            if verdict:
                self._known.add(name)
        return verdict

    def _server_has(self, server: str, tool: str) -> bool:
        # Any tool of a registry server may exist (it may not be probed yet); the embedded
        # server's commands are all known, so another name there is not one of them.
        if server == self.embedded:
            return tool == "*" or tool in self.commands
        probed = self.catalog.get(server)
        if probed is not None and server in self.servers:
            return tool == "*" or tool in probed
        return server in self.servers

    def probed_tools(self, name: str) -> frozenset[str] | None:
        """For ``mcp__<server>__<tool>`` of a probed server, the tools it offers."""
        parts = split_mcp_name(name.split("(", 1)[0])
        if parts is None or parts[0] == self.embedded or parts[0] not in self.servers:
            return None
        return self.catalog.get(parts[0])

    def all_known(self, names: Collection[str]) -> bool:
        """True when every name is known; one set operation once the names have been seen."""
        if self._known.issuperset(names):
            return True
        return all([self.is_known(name) for name in names])

    def unknown(self, names: Sequence[str]) -> list[int]:
        """The indexes of the names in ``names`` that are not known (usually none: one set
        operation once the names have been seen)."""
        known = self._known
        if known.issuperset(names):
            return []
        is_known = self.is_known
        return [i for i, name in enumerate(names) if name not in known and not is_known(name)]

    def suggest(self, name: str) -> str:
        """The hint for an unknown tool name: the canonical tool another harness's name
        stands for (``shell`` → ``Bash``), else the closest known name (a swap of two
        letters is one edit), else "". Computed once per distinct name: a vault repeats
        the same unknown names in thousands of profiles (issue 12 item 7)."""
        hint = self._suggestions.get(name)
        if hint is None:
            hint = self._suggestions[name] = tool_hint(name, self.bare)
        return hint

    def names(self) -> list[str]:
        return sorted(self.bare)


def tool_hint(name: str, known: Iterable[str]) -> str:
    """See :meth:`KnownTools.suggest` (uncached)."""
    # Imported here: the tool-name table imports this module for the embedded commands.
    from agent_roster.codecs.tool_names import synonym

    base = name.split("(", 1)[0]
    found = synonym(base)
    if found is not None:
        canonical, harnesses = found
        return f"did you mean {canonical!r}? ({base!r} is {_names(harnesses)} name for it)"
    match = closest(base, known)
    return f"did you mean {match!r}?" if match is not None else ""


def _names(harnesses: tuple[str, ...]) -> str:
    owners = [f"{harness}'s" for harness in harnesses]
    return owners[0] if len(owners) == 1 else ", ".join(owners[:-1]) + " and " + owners[-1]
