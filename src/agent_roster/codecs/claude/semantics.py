"""What Claude Code decides for a subagent's tool call (docs/codecs/claude.md §5).

A subagent has a tool only when its ``tools`` list names it (no list: every tool, MCP tools
included) and ``disallowedTools`` does not; a tool it has is then decided by its
``permissionMode`` (no mode: ``default``), following Claude Code's permission table
(code.claude.com/docs/en/iam, "Tools available to Claude": read-only tools need no
approval; edits, shell commands, web access and MCP tools ask in ``default``):

| mode | read-only tools | Edit, Write, NotebookEdit | Bash | everything else |
|---|---|---|---|---|
| ``default``, ``auto`` | allow | ask | ask | ask |
| ``acceptEdits`` | allow | allow | ask | ask |
| ``plan`` | allow | deny | deny | ask |
| ``dontAsk`` | allow | deny | deny | deny |
| ``bypassPermissions`` | allow | allow | allow | allow |

``auto`` lets a classifier approve some calls; it is taken as ``default`` (asks), which
under-states it. Session-wide rules in ``.claude/settings.json`` are the session's, not the
agent's (the import reports them). A file Claude Code would not load gives no tools.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from functools import lru_cache
from typing import Any, NamedTuple

from agent_roster.codecs.base import NativeAgent, Probe
from agent_roster.codecs.native_md import read_written
from agent_roster.codecs.semantics import ALLOW, ASK, DENY, agent_text, remembered
from agent_roster.codecs.tool_names import opencode_key, split_ref
from agent_roster.known_tools import (
    CLAUDE_BUILTIN_TOOLS,
    DEFAULT_EMBEDDED_SERVER,
    strip_embedded_prefix,
)
from agent_roster.model.profile import PermissionAction, PermissionRule

#: Claude Code's permission modes (``OM`` in the 2.1.197 bundle).
PERMISSION_MODES = ("acceptEdits", "auto", "bypassPermissions", "default", "dontAsk", "plan")


_SEPARATOR = re.compile("[, ]")


def split_tools(value: str) -> list[str]:
    """Claude's list splitting: commas and spaces separate, except inside parentheses."""
    if "(" not in value:  # no parentheses: every comma and space separates
        return [name for name in (piece.strip() for piece in _SEPARATOR.split(value)) if name]
    return split_by_characters(value)


def split_by_characters(value: str) -> list[str]:
    """:func:`split_tools` character by character, as Claude Code's loop reads a list (the
    reference its shortcut is tested against)."""
    out: list[str] = []
    current = ""
    depth = False
    for char in value:
        if char == "(":
            depth = True
        elif char == ")":
            depth = False
        if char in ", " and not depth:
            if current.strip():
                out.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        out.append(current.strip())
    return out


def tool_list(value: Any) -> list[str] | None:
    """``tools`` as Claude reads it: ``None`` = every tool, else the (maybe empty) list."""
    if value is None:
        return None
    items: tuple[str, ...] = ()
    if isinstance(value, str):
        items = (value,)
    elif isinstance(value, list):
        items = tuple(v for v in value if isinstance(v, str))
    names = _split_items(items)
    return None if names is None else list(names)


@lru_cache(maxsize=4096)
def _split_items(items: tuple[str, ...]) -> tuple[str, ...] | None:
    # The render check asks a dozen probes of each agent, and each reads its lists: they
    # are split once per distinct value (issue 12 item 8).
    names = tuple(name for item in items for name in split_tools(item))
    return None if "*" in names else names


#: Tools Claude Code runs without asking in every mode (no "permission required").
READ_ONLY = frozenset(
    {
        "Read",
        "Grep",
        "Glob",
        "LS",
        "NotebookRead",
        "TodoWrite",
        "TodoRead",
        "Task",
        "Agent",
        "AskUserQuestion",
        "EnterPlanMode",
        "TaskCreate",
        "TaskGet",
        "TaskList",
        "TaskUpdate",
        "TaskOutput",
        "TaskStop",
        "ToolSearch",
        "ListMcpResourcesTool",
        "ReadMcpResourceTool",
        "ReadMcpResourceDir",
        "LSP",
        "BashOutput",
        "KillShell",
        "SendMessage",
        "Brief",
        "CronList",
    }
)
#: File edits: ``acceptEdits`` allows them, ``plan`` and ``dontAsk`` deny them.
EDITS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
#: Shell tools: ``plan`` denies them.
SHELL = frozenset({"Bash", "PowerShell"})
#: Another name of the same tool.
_SAME = {"Task": "Agent", "Agent": "Task"}


def mode_decision(mode: str, tool: str) -> PermissionAction:
    """What ``mode`` decides for a tool the agent has (table above)."""
    if mode == "bypassPermissions":
        return ALLOW
    if tool in READ_ONLY:
        return ALLOW
    if mode == "dontAsk":
        return DENY
    if tool in EDITS:
        return {"acceptEdits": ALLOW, "plan": DENY}.get(mode, ASK)
    if tool in SHELL and mode == "plan":
        return DENY
    return ASK


def covers(entries: list[str], tool: str, argument: str | None = None) -> bool:
    """Whether a ``tools``/``disallowedTools`` list names ``tool``: by name (an entry with
    an argument pattern, ``Bash(git log:*)``, names the whole tool, except ``Agent(a, b)``,
    which Claude Code enforces: with ``argument``, only the subagents it names), ``Task`` and
    ``Agent`` as one tool, ``mcp__<server>`` or ``mcp__<server>__*`` for a whole server."""
    return _covered(_entries(tuple(entries)), tool, argument)


#: A list's entries as :func:`covers` reads them: the bases naming a whole tool, and the
#: enforced-argument entries (``Agent(a, b)``) with what follows their "(".
_Entries = tuple[AbstractSet[str], Sequence[tuple[str, str]]]


def _covered(entries: _Entries, tool: str, argument: str | None) -> bool:
    whole, enforced = entries
    same = _SAME.get(tool)
    if tool in whole or (same is not None and same in whole):
        return True
    for base, rest in enforced:
        if base in (tool, same):
            if argument is None:
                return True
            if argument in [n for n in re.split(r"[\s,]+", rest.rstrip(") ")) if n]:
                return True
    ref = split_ref(tool)
    return ref.server is not None and (
        f"mcp__{ref.server}" in whole or f"mcp__{ref.server}__*" in whole
    )


@lru_cache(maxsize=4096)
def _entries(entries: tuple[str, ...]) -> _Entries:
    # A list's entries read once (render and its check ask about each list dozens of
    # times): the bases that name a whole tool, and the enforced-argument entries
    # (``Agent(a, b)``) with what follows their "(".
    coverage = Coverage(entries)
    return frozenset(coverage.whole), tuple(coverage.enforced)


class Coverage:
    """:func:`covers` for a list that grows entry by entry (Claude's render decides tool
    after tool, asking about its ``tools`` and ``disallowedTools`` lists as they grow):
    each entry is read once, as it is added, instead of the whole list at every question."""

    __slots__ = ("enforced", "entries", "whole")

    def __init__(self, entries: Iterable[str] = ()) -> None:
        #: The list as written, in order.
        self.entries: list[str] = []
        self.whole: set[str] = set()
        self.enforced: list[tuple[str, str]] = []
        for entry in entries:
            self.append(entry)

    def append(self, entry: str) -> None:
        self.entries.append(entry)
        base, paren, rest = entry.partition("(")
        base = base.strip()
        if paren and base in ENFORCED_ARGUMENT:
            self.enforced.append((base, rest))
        else:
            self.whole.add(base)

    def covers(self, tool: str, argument: str | None = None) -> bool:
        """:func:`covers` of :attr:`entries`."""
        return _covered((self.whole, self.enforced), tool, argument)


def agent_data(agent: NativeAgent) -> dict[str, Any] | None:
    """The frontmatter of the agent file, or ``None`` when Claude Code would not load it."""
    text = agent_text(agent)
    if text is None:
        return None
    return _agent_data(text, agent.paths[0] if agent.paths else "")


def _read_data(text: str, path: str) -> dict[str, Any] | None:
    from agent_roster.codecs.claude.read import RECOVERY  # read imports this module

    doc = read_written(text, path, [], RECOVERY)
    if doc is None or not doc.has_frontmatter:
        return None
    data = doc.data
    name, description = data.get("name"), data.get("description")
    if not isinstance(name, str) or not name or name.startswith("-"):
        return None
    if not isinstance(description, str) or not description:
        return None
    return data


# A render check asks a dozen probes of each agent: its file is parsed once (callers only
# read the mapping). The check itself keeps what it read in the agent's memo, and reads
# each text once: it calls the uncached readers, which need not hash a long prompt.
_agent_data = lru_cache(maxsize=1024)(_read_data)


def mode_of(data: dict[str, Any]) -> str:
    """The agent's permission mode; an absent or invalid one is ``default``."""
    mode = data.get("permissionMode")
    return mode if isinstance(mode, str) and mode in PERMISSION_MODES else "default"


class _View(NamedTuple):
    """What Claude Code decides a subagent's calls by: its ``tools`` list read (``None``:
    every tool), its ``disallowedTools`` list read, and its permission mode."""

    tools: _Entries | None
    denied: _Entries
    mode: str


def decide(agent: NativeAgent, probe: Probe) -> PermissionAction:
    """Claude Code's decision for ``probe`` made by the subagent ``agent``."""
    view = remembered(agent, "claude view", lambda: _agent_view(agent))
    if view is None:
        return DENY
    tool = _tool_of(probe.tool)
    if view.tools is not None and not _covered(view.tools, tool, probe.argument):
        return DENY
    if _covered(view.denied, tool, None):
        return DENY
    return mode_decision(view.mode, tool)


def _agent_view(agent: NativeAgent) -> _View | None:
    text = agent_text(agent)
    if text is None:
        return None
    path = agent.paths[0] if agent.paths else ""
    # With a memo each text is read once: the uncached reader, which need not hash it.
    return _view(text, path) if agent.memo is None else _view_of(_read_data(text, path))


@lru_cache(maxsize=1024)
def _view(text: str, path: str) -> _View | None:
    # A render check asks a dozen probes of each agent: its lists are read once, not once
    # per probe (issue 12 item 8).
    return _view_of(_agent_data(text, path))


def _view_of(data: dict[str, Any] | None) -> _View | None:
    if data is None:
        return None
    tools = tool_list(data["tools"]) if "tools" in data else None
    denied = (tool_list(data["disallowedTools"]) or []) if "disallowedTools" in data else []
    return _View(
        None if tools is None else _entries(tuple(tools)),
        _entries(tuple(denied)),
        mode_of(data),
    )


@lru_cache(maxsize=1024)
def _tool_of(name: str) -> str:
    return split_ref(name).tool


#: Tools an import gives an explicit rule when the agent has no ``tools`` list: the ones
#: whose mode decision differs from the catch-all (``*``) and that other harnesses know.
IMPORT_TOOLS = (
    "Read",
    "Grep",
    "Glob",
    "TodoWrite",
    "Task",
    "AskUserQuestion",
    "EnterPlanMode",
    "LSP",
    "Edit",
    "Write",
    "Bash",
)
#: Subagent tools whose argument Claude Code does enforce (``Agent(reviewer)``).
ENFORCED_ARGUMENT = frozenset({"Agent", "Task"})


def import_rules(mode: str, tools: list[str] | None) -> tuple[PermissionRule, ...]:
    """The permission rules that make the canonical model decide as Claude Code does for an
    agent with ``tools`` (``None``: every tool) in ``mode`` (issue 12 item 2: import writes
    every default explicitly). With a list, the list becomes ``allowed_tools`` and these
    rules say what the mode makes of each listed tool (``Bash`` asks in ``default``; an
    entry with an argument pattern grants its whole tool); without one, a catch-all and the
    tools the mode decides otherwise. Keys are Claude Code names (``Edit`` is not ``Write``)
    and MCP keys."""
    if tools is None:
        catch = mode_decision(mode, "mcp__any__tool")
        found = [PermissionRule(permission="*", action=catch)]
        for tool in IMPORT_TOOLS:
            decided = mode_decision(mode, tool)
            if decided is not catch:
                found.append(PermissionRule(permission=tool, action=decided))
        return tuple(found)
    out: dict[str, PermissionAction] = {}
    for entry in tools:
        base = entry.split("(", 1)[0].strip()
        narrowed = base != entry.strip()
        if narrowed and base in ENFORCED_ARGUMENT:
            continue
        decided = mode_decision(mode, base)
        if narrowed or decided is not ALLOW:
            out[_rule_key(base)] = decided
    return tuple(PermissionRule(permission=k, action=a) for k, a in out.items())


def _rule_key(name: str) -> str:
    """The permission key a rule about Claude tool ``name`` is written under: a Claude Code
    tool's own name (decided for that tool alone), else its OpenCode key (an MCP tool, the
    embedded server's command, any other name), the key the Tools list puts it under."""
    canonical = strip_embedded_prefix(name, DEFAULT_EMBEDDED_SERVER)
    if canonical in CLAUDE_BUILTIN_TOOLS:
        return canonical
    return opencode_key(canonical, embedded=DEFAULT_EMBEDDED_SERVER)
