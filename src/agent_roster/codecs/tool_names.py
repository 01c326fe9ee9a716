# ruff: noqa: E501  (the tool table below is data, one row per line)
"""Canonical (Claude Code) tool names ↔ each harness's names, as data.

The table mirrors ``docs/codecs/tool-names.md`` (sources there). A cell ``-`` means the
harness has no equivalent; ``a|b`` lists several native names, the first being the one
render writes; a trailing ``*`` marks a lossy mapping that render reports as
``translated``. Import maps a native name to the row that maps it exactly, else the first
row listing it, so many-to-one targets (OpenCode ``edit``, Copilot ``search``) come back as
one primary tool. MCP names are not in the table: :func:`split_ref` and each codec's
grammar handle them.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import NamedTuple

from agent_roster.known_tools import DEFAULT_EMBEDDED_COMMANDS

HARNESSES = (
    "opencode",
    "gemini",
    "copilot",
    "defect",
    "agh",
    "codex",
    "cursor",
    "qwen",
    "qoder",
    "droid",
)

_TABLE = """
Read                 read       read_file                       read|view        read_file                -                 -                  - read_file                       Read            Read
NotebookRead         read*      read_file*                      read             read_file*               -                 -                  - read_file*                      -               -
Write                edit*      write_file                      edit*            write_file               -                 apply_patch*       - write_file                      Write           Create
Edit                 edit       replace                         edit             edit_file                -                 apply_patch        - edit|replace                    Edit            Edit
MultiEdit            edit       replace*                        edit             edit_file*               -                 apply_patch*       - edit*                           Edit*           Edit*
NotebookEdit         edit*      -                               edit             -                        -                 -                  - notebook_edit                   NotebookEdit    -
Bash                 bash       run_shell_command               execute|bash     bash                     -                 shell|exec_command - run_shell_command               Bash            Execute
BashOutput           -          -                               -                inspect_background_task* -                 -                  - -                               BashOutput      -
KillShell            -          -                               -                cancel_background_task*  -                 -                  - -                               -               -
Grep                 grep       grep_search|search_file_content grep             search                   -                 -                  - grep_search|search_file_content Grep            Grep
Glob                 glob       glob                            glob             search*                  -                 -                  - glob                            Glob            Glob
LS                   list       list_directory                  -                -                        -                 -                  - list_directory                  -               LS
WebFetch             webfetch   web_fetch                       web*             fetch                    -                 -                  - web_fetch                       WebFetch        FetchUrl
WebSearch            websearch  google_web_search               web*             -                        -                 web_search         - web_search                      WebSearch       WebSearch
Task                 task       -                               agent|task       spawn_agent              -                 spawn_agent        - agent|task                      Agent           Task
Agent                task       -                               agent            spawn_agent              -                 spawn_agent        - agent                           Agent           Task
TaskOutput           -          -                               -                -                        -                 -                  - -                               -               TaskOutput
TaskStop             -          -                               -                -                        -                 -                  - -                               TaskStop        TaskStop
TodoWrite            todowrite  write_todos                     todo|update_todo -                        -                 update_plan*       - todo_write                      TodoWrite       TodoWrite
TodoRead             todoread   -                               todo*            -                        -                 -                  - -                               -               -
AskUserQuestion      question   ask_user                        -                -                        -                 -                  - ask_user_question               AskUserQuestion AskUser
Skill                skill      activate_skill                  -                skill                    agh__skill_view*  -                  - skill                           Skill           Skill
SlashCommand         -          -                               -                -                        -                 -                  - -                               -               -
LSP                  lsp        -                               -                -                        -                 -                  - lsp                             -               -
EnterPlanMode        plan_enter enter_plan_mode                 -                -                        -                 -                  - enter_plan_mode                 EnterPlanMode   -
ExitPlanMode         plan_exit  exit_plan_mode                  -                -                        -                 -                  - exit_plan_mode                  ExitPlanMode    -
ListMcpResourcesTool -          list_mcp_resources              -                -                        -                 -                  - -                               -               -
ReadMcpResourceTool  -          read_mcp_resource               -                -                        -                 -                  - read_mcp_resource               -               -
ToolSearch           -          -                               -                -                        agh__tool_search* -                  - tool_search                     -               ToolSearch
"""


class NativeName(NamedTuple):
    """A harness's name for a canonical tool; ``lossy`` when the mapping narrows or widens."""

    name: str
    lossy: bool


class _Tables(NamedTuple):
    to_native: dict[str, dict[str, tuple[NativeName, ...]]]  # harness -> canonical -> names
    to_canonical: dict[str, dict[str, str]]  # harness -> native (casefolded) -> canonical


@cache
def _tables() -> _Tables:
    to_native: dict[str, dict[str, tuple[NativeName, ...]]] = {h: {} for h in HARNESSES}
    to_canonical: dict[str, dict[str, str]] = {h: {} for h in HARNESSES}
    lossy_rows: dict[str, list[tuple[NativeName, str]]] = {h: [] for h in HARNESSES}
    for line in _TABLE.strip().splitlines():
        canonical, *cells = line.split()
        for harness, cell in zip(HARNESSES, cells, strict=True):
            if cell == "-":
                continue
            names = tuple(
                NativeName(part.rstrip("*"), part.endswith("*")) for part in cell.split("|")
            )
            to_native[harness][canonical] = names
            for native in names:
                lossy_rows[harness].append((native, canonical))
    # Import prefers the row a native name maps to exactly (Edit for Copilot's ``edit``,
    # not the lossy Write), then the first row listing it.
    for harness, rows in lossy_rows.items():
        for native, canonical in sorted(rows, key=lambda row: row[0].lossy):
            to_canonical[harness].setdefault(native.name.casefold(), canonical)
    return _Tables(to_native, to_canonical)


@cache
def canonical_tools() -> tuple[str, ...]:
    """Every canonical tool name the table knows, in table order."""
    return tuple(line.split()[0] for line in _TABLE.strip().splitlines())


def to_native(harness: str, canonical: str) -> NativeName | None:
    """The name ``harness`` uses for the canonical tool, or ``None`` when it has none."""
    names = _tables().to_native[harness].get(canonical)
    return names[0] if names else None


def native_names(harness: str, canonical: str) -> tuple[NativeName, ...]:
    """Every native name listed for the canonical tool (the first is the one to write)."""
    return _tables().to_native[harness].get(canonical, ())


def to_canonical(harness: str, native: str) -> str | None:
    """The canonical tool for a native name (case-insensitive), or ``None``."""
    return _tables().to_canonical[harness].get(native.casefold())


@cache
def _synonyms() -> dict[str, tuple[str, tuple[str, ...]]]:
    rows: dict[str, tuple[str, list[str]]] = {}
    for harness in HARNESSES:
        for native, canonical in _tables().to_canonical[harness].items():
            if native == canonical.casefold():
                continue  # the same word: spelling, not a synonym (did-you-mean finds it)
            entry = rows.setdefault(native, (canonical, []))
            if entry[0] == canonical:
                entry[1].append(harness)
    return {native: (canonical, tuple(hs)) for native, (canonical, hs) in rows.items()}


def synonym(name: str) -> tuple[str, tuple[str, ...]] | None:
    """The canonical tool another harness's name stands for, with the harnesses that call
    it so (``shell`` → (``Bash``, (``codex``,))), or None when no harness uses the name.
    Case is ignored; the first harness in :data:`HARNESSES` decides a name two harnesses
    use for different tools."""
    return _synonyms().get(name.casefold())


# ``Bash(git log:*)``: a canonical tool narrowed to an argument pattern (docs/format.md).
_NARROWED = re.compile(r"^(?P<tool>[A-Za-z][A-Za-z0-9_]*)\((?P<arg>.*)\)$", re.S)


class ToolRef(NamedTuple):
    """A canonical tool reference taken apart: ``Bash(git log:*)`` → (``Bash``, ``git log *``),
    ``mcp__github__create_issue`` → server ``github``, tool ``create_issue``."""

    tool: str
    argument: str | None = None  # the narrowing as an OpenCode pattern, or None
    server: str | None = None  # MCP server name for mcp__ names
    mcp_tool: str | None = None  # MCP tool name ("*" for a whole server)


@lru_cache(maxsize=8192)  # pure, and profiles repeat the same names
def split_ref(name: str) -> ToolRef:
    """Take a canonical tool name apart (see :class:`ToolRef`)."""
    if name.startswith("mcp__"):
        rest = name[5:]
        server, sep, tool = rest.partition("__")
        if sep and server:
            return ToolRef(name, server=server, mcp_tool=tool or "*")
        return ToolRef(name, server=rest or None, mcp_tool="*")
    match = _NARROWED.match(name)
    if match:
        return ToolRef(match["tool"], argument=claude_pattern_to_glob(match["arg"]))
    return ToolRef(name)


def claude_pattern_to_glob(argument: str) -> str:
    """Claude's ``git log:*`` prefix form as an OpenCode glob (``git log *``); other
    arguments are already globs."""
    if argument.endswith(":*"):
        return argument[:-2] + " *"
    return argument


def glob_to_claude_pattern(pattern: str) -> str:
    """The inverse of :func:`claude_pattern_to_glob` for ``bash`` rules."""
    if pattern.endswith(" *"):
        return pattern[:-2] + ":*"
    return pattern


@cache
def opencode_mcp_key(server: str, tool: str) -> str:
    """OpenCode's tool id and permission key for an MCP tool: ``<server>_<tool>`` with every
    character outside ``[a-zA-Z0-9_-]`` replaced by ``_`` (``packages/opencode/src/mcp``).
    A whole-server reference (``tool == "*"``) becomes the glob ``<server>_*``."""
    clean_server = re.sub(r"[^a-zA-Z0-9_-]", "_", server)
    if tool == "*":
        return f"{clean_server}_*"
    return f"{clean_server}_{re.sub(r'[^a-zA-Z0-9_-]', '_', tool)}"


def opencode_key(
    name: str, *, embedded: str = "", commands: frozenset[str] = DEFAULT_EMBEDDED_COMMANDS
) -> str:
    """The OpenCode permission key for a canonical tool name: built-ins through the table,
    ``mcp__s__t`` through OpenCode's MCP grammar, the embedded server's ``commands`` under
    ``embedded`` when given, anything else unchanged (it may already be an OpenCode key,
    such as ``edit``: issue 12 item 4, no name becomes a server's by its spelling)."""
    ref = split_ref(name)
    if ref.server is not None:
        return opencode_mcp_key(ref.server, ref.mcp_tool or "*")
    native = to_native("opencode", ref.tool)
    if native is not None:
        return native.name
    if embedded and ref.tool in commands:
        return opencode_mcp_key(embedded, ref.tool)
    return ref.tool
