"""Copilot ``tools`` entries ↔ canonical tool names, as the Copilot CLI applies them.

What each entry gives the model was seen in the requests the CLI (1.0.102) sends to a fake
model (``tests/codecs/test_copilot_cli.py``; docs/codecs/copilot.md §5): an alias names a
group of CLI tools, a Claude Code name or a CLI tool name only its own tools.

| entry | CLI tools |
|---|---|
| ``read``, ``Read``, ``view`` | ``view`` |
| ``search`` | ``grep``, ``glob`` |
| ``grep``/``Grep``, ``glob``/``Glob`` | that one |
| ``execute``, ``shell``, ``Bash`` | ``bash``, ``read_bash``, ``stop_bash``, ``list_bash`` |
| ``edit``, ``Edit``, ``Write``, ``MultiEdit`` | ``create``, ``edit`` |
| ``agent``, ``Task``, ``task`` | ``task``, ``read_agent``, ``list_agents``, ``write_agent`` |
| ``todo``, ``TodoWrite``, ``update_todo`` | ``update_todo`` |
| ``<server>/<tool>``, ``<server>/*`` | ``<server>-<tool>`` for each tool the server lists |

``skill`` and ``sql`` are always there. So render writes ``grep`` or ``glob`` for one of
the two, and ``search`` only when both are allowed: ``search`` for ``Grep`` alone would hand
the agent ``glob`` too.

The CLI keeps ``github/…`` for its built-in GitHub server: ``github/get_issue`` offers no
tool of a configured server named ``github``, ``github-get_issue`` does (``<server>-<tool>``
works for any server; there is no ``github-*``). So a tool of a server named ``github`` is
written both ways: ``github/<tool>`` for VS Code and the cloud agent, ``github-<tool>`` for
the CLI (the others ignore a name they do not know).
"""

from __future__ import annotations

from agent_roster.codecs.tool_names import split_ref, to_canonical, to_native
from agent_roster.known_tools import (
    CLAUDE_BUILTIN_TOOLS,
    DEFAULT_EMBEDDED_COMMANDS,
    DEFAULT_EMBEDDED_SERVER,
)

#: Primary alias → the canonical tools it covers (import yields all of them; a deny of
#: any one keeps the alias out of a rendered list).
ALIASES: dict[str, tuple[str, ...]] = {
    "execute": ("Bash",),
    "read": ("Read", "NotebookRead"),
    "edit": ("Edit", "Write", "MultiEdit", "NotebookEdit"),
    "search": ("Grep", "Glob"),
    "agent": ("Task", "Agent"),
    "web": ("WebFetch", "WebSearch"),
    "todo": ("TodoWrite", "TodoRead"),
}
#: What import makes of an alias: the canonical tools whose permission the alias grants
#: (``edit`` is the canonical ``edit`` permission, which covers Write; ``search`` is both
#: Grep and Glob).
IMPORTED: dict[str, tuple[str, ...]] = {
    "execute": ("Bash",),
    "read": ("Read",),
    "edit": ("Edit",),
    "search": ("Grep", "Glob"),
    "agent": ("Task",),
    "web": ("WebFetch", "WebSearch"),
    "todo": ("TodoWrite",),
}
#: Secondary aliases the docs list that are not Claude names.
SYNONYMS = {"shell": "Bash", "powershell": "Bash", "custom-agent": "Task"}
#: The one entry for Grep and Glob together.
SEARCH_PAIR = ("grep", "glob")
#: The server name the Copilot CLI keeps for its built-in GitHub MCP server.
CLI_RESERVED_SERVER = "github"


def canonical_tools(native: str) -> tuple[str, ...]:
    """A ``tools`` entry in canonical form (several for an alias that covers several), or
    ``()`` when Copilot knows no such tool."""
    server, sep, tool = native.partition("/")
    if sep and server and tool:
        if server == DEFAULT_EMBEDDED_SERVER and tool != "*":
            return (tool,)
        return (f"mcp__{server}__{tool}",)
    reserved = f"{CLI_RESERVED_SERVER}-"
    if native.startswith(reserved) and len(native) > len(reserved):
        return (f"mcp__{CLI_RESERVED_SERVER}__{native[len(reserved) :]}",)
    folded = native.casefold()
    if folded in IMPORTED:
        return IMPORTED[folded]
    if folded in SYNONYMS:
        return (SYNONYMS[folded],)
    for claude in CLAUDE_BUILTIN_TOOLS:
        if claude.casefold() == folded:
            return (claude,)
    found = to_canonical("copilot", native)
    return (found,) if found is not None else ()


def native_tool(
    name: str,
    embedded: str = DEFAULT_EMBEDDED_SERVER,
    commands: frozenset[str] = DEFAULT_EMBEDDED_COMMANDS,
) -> str | None:
    """Canonical → Copilot: the narrowest entry the CLI honours (an alias, ``grep`` or
    ``glob``), ``<server>/<tool>`` for MCP names, the embedded server's prefix for its
    ``commands``; ``None`` when Copilot has no such tool."""
    ref = split_ref(name)
    if ref.server is not None:
        return f"{ref.server}/{ref.mcp_tool or '*'}"
    native = to_native("copilot", ref.tool)
    if native is not None:
        return native.name
    if ref.tool in commands:
        return f"{embedded}/{ref.tool}"
    return None


def cli_names(native: str) -> list[str]:
    """``native`` and, for a tool of the server named ``github``, the ``github-<tool>`` the
    Copilot CLI needs (see above)."""
    server, sep, tool = native.partition("/")
    if sep and server == CLI_RESERVED_SERVER and tool != "*":
        return [native, f"{server}-{tool}"]
    return [native]


def joined(tools: list[str]) -> list[str]:
    """``grep`` and ``glob`` together become ``search`` (where the first of them was)."""
    if not all(t in tools for t in SEARCH_PAIR):
        return tools
    first = min(tools.index(t) for t in SEARCH_PAIR)
    rest = [t for t in tools if t not in SEARCH_PAIR]
    return [*rest[:first], "search", *rest[first:]]
