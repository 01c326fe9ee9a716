"""Factory Droid tool ids ↔ canonical names (docs/codecs/tool-names.md, the ``droid`` column).

A droid's ``tools`` is ``read-only``, a category (``edit``, ``execute``, ``web``), or a list
of tool ids (0.225.2, ``CustomDroidValidator.normalizeTools``; ``droid exec --list-tools``):
``Read``, ``LS``, ``Grep``, ``Glob``, ``Create``, ``Edit``, ``ApplyPatch``, ``Execute``,
``FetchUrl``, ``WebSearch``, ``Task``… and MCP tools as ``<server>___<tool>`` (three
underscores). An id Droid does not have is ignored. Two rules widen a list:

* **file editing is one tool**: a list with any of ``Create``, ``Edit``, ``ApplyPatch``
  gets the ones the model edits with, so it can both create and edit any file;
* ``TodoWrite`` and ``Skill`` are added to every list (they cannot be denied).
"""

from __future__ import annotations

from functools import lru_cache

from agent_roster.codecs.claude.rules import native_tool
from agent_roster.codecs.tool_names import canonical_tools, split_ref, to_canonical, to_native
from agent_roster.known_tools import DEFAULT_EMBEDDED_SERVER, strip_embedded_prefix

#: Ids Droid 0.225.2 takes in a droid's tools list (its user-selectable tools and the
#: others ``droid exec --list-tools`` shows).
TOOLS = frozenset(
    {
        "Read",
        "LS",
        "Grep",
        "Glob",
        "Create",
        "Edit",
        "ApplyPatch",
        "Execute",
        "AskUser",
        "WebSearch",
        "FetchUrl",
        "Task",
        "TaskOutput",
        "TaskStop",
        "TodoWrite",
        "Skill",
        "ToolSearch",
        "ConnectorSearch",
        "GenerateImage",
        "Loop",
    }
)
#: Always added to a droid's list.
ALWAYS = ("TodoWrite", "Skill")
#: The ids that give a droid file editing (any one gives all).
FILE_EDITING = frozenset({"Create", "Edit", "ApplyPatch"})
#: The canonical tools file editing stands for.
EDITS = ("Write", "Edit", "MultiEdit", "NotebookEdit")
#: The categories a ``tools`` string may name, and the tools each gives.
CATEGORIES = {
    "read-only": ("Read", "Grep", "Glob", "LS"),
    "edit": ("Edit", "Create", "ApplyPatch"),
    "execute": ("Execute",),
    "execution": ("Execute",),
    "web": ("WebSearch", "FetchUrl"),
    "mcp": (),
}
#: Deprecated ids Droid maps itself.
ALIASES = {"MultiEdit": "Edit"}
#: The list render writes for "every tool but the denied ones" (Droid has no deny list).
EVERY = ("Read", "LS", "Grep", "Glob", "Create", "Edit", "Execute", "WebSearch", "FetchUrl")
_TABLE = frozenset(canonical_tools())


@lru_cache(maxsize=8192)  # pure, and profiles repeat the same names
def droid_tool(name: str, embedded: str, commands: frozenset[str]) -> str | None:
    """A canonical tool name as a Droid id: ``mcp__s__t`` as ``s___t`` (``None`` for a
    whole server, which a list cannot name), the embedded server's bare commands as its
    tools, built-ins through the table (``None`` when Droid has no such tool), any other
    name as written (Droid ignores it)."""
    name = native_tool(name, embedded, commands)
    ref = split_ref(name)
    if ref.server is not None:
        if not ref.mcp_tool or ref.mcp_tool == "*":
            return None
        return f"{ref.server}___{ref.mcp_tool}"
    if name not in _TABLE:
        return name
    native = to_native("droid", name)
    return native.name if native is not None else None


@lru_cache(maxsize=8192)  # pure, and files repeat the same ids
def canonical_tools_of(native: str) -> tuple[str, ...]:
    """What a ``tools`` entry gives, as canonical names (``()`` when Droid ignores it):
    file editing as every editing tool, ``s___t`` as ``mcp__s__t``."""
    native = ALIASES.get(native, native)
    if native in FILE_EDITING:
        return ("Write", "Edit")
    server, sep, tool = native.partition("___")
    if sep and server and tool:
        return (strip_embedded_prefix(f"mcp__{server}__{tool}", DEFAULT_EMBEDDED_SERVER),)
    if native not in TOOLS:
        return ()
    found = to_canonical("droid", native)
    if native == "Task":
        found = "Task"
    return (found,) if found is not None else (native,)
