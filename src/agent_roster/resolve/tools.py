"""Tool names per runtime (seed 000 "Tool naming", seed 001 "Tool Naming").

Profiles store bare names. For the Claude Code CLI, our embedded server's commands become
``mcp__<embedded>__<name>``; Claude built-ins keep their names; third-party
``mcp__<server>__<tool>`` names stay as written. Attaching a server grants nothing by itself:
the original added ``mcp__<server>__*`` for every attached server, which silently defeated the
allowlist (lessons, section 5.6). An author who wants a server's every tool writes the
wildcard explicitly.
"""

from __future__ import annotations

from collections.abc import Iterable

from agent_roster.known_tools import (
    CLAUDE_BUILTIN_TOOLS,
    DEFAULT_EMBEDDED_COMMANDS,
    RETIRED_CLAUDE_TOOLS,
    to_claude,
)

__all__ = ["CLAUDE_BUILTIN_TOOLS", "RETIRED_CLAUDE_TOOLS", "for_claude", "for_supervisor"]
# RETIRED_CLAUDE_TOOLS: a deny rule for a retired tool is still passed: an older CLI may have
# the tool, and dropping the rule there would grant it. Launch specs note each one.


def for_claude(
    names: Iterable[str], embedded: str, commands: frozenset[str] = DEFAULT_EMBEDDED_COMMANDS
) -> list[str]:
    """Canonical names → the names Claude Code's --allowed-tools understands: the embedded
    server's ``commands`` get its prefix, every other name is passed as written."""
    result: list[str] = []
    seen: set[str] = set()
    for name in names:
        translated = to_claude(name, embedded, commands)
        if translated not in seen:
            seen.add(translated)
            result.append(translated)
    return result


def for_supervisor(
    names: Iterable[str],
    denied: Iterable[str] = (),
    commands: frozenset[str] = DEFAULT_EMBEDDED_COMMANDS,
) -> list[str]:
    """The supervisor matches bare names against the embedded registry directly; anything
    else (Claude built-ins, other servers' tools) does not exist in-process. It has no
    deny list of its own, so a denied name is taken out of the surface here."""
    refused = set(denied)
    return [name for name in names if name in commands and name not in refused]
