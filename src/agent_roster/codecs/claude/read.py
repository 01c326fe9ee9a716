"""One Claude Code agent file, read the way Claude Code 2.1.197 reads it.

The rules are those of the CLI's agent loader (``parseAgentFromMarkdown`` in the bundle,
checked against 2.1.197): ``name`` must be a non-empty string not starting with ``-``;
``description`` a non-empty string; everything else is optional, a bad value is logged and
ignored, and unknown keys are ignored silently. ``tools``/``disallowedTools`` take a string
or a list of strings, split on commas and spaces outside parentheses; a ``*`` entry means
every tool; anything else (``[]``, ``""``, a number) means no tools at all.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from agent_roster.codecs.base import Loss, LossOutcome
from agent_roster.codecs.claude import mcp as claude_mcp
from agent_roster.codecs.claude import semantics as claude_semantics
from agent_roster.codecs.claude.files import AgentFile, diag_at, import_document
from agent_roster.codecs.claude.semantics import PERMISSION_MODES, mode_of, tool_list
from agent_roster.codecs.native_md import (
    JS_LINE_ENDS,
    JS_WHITESPACE,
    Recovery,
    native_model,
    read_native_recovering,
)
from agent_roster.diagnostics import Diagnostic
from agent_roster.known_tools import DEFAULT_EMBEDDED_SERVER, strip_embedded_prefix
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile
from agent_roster.vault.frontmatter import read_frontmatter

#: Subagent colours the CLI keeps; any other value is ignored.
COLORS = ("red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan")
#: Keys with a canonical field.
CANONICAL_KEYS = frozenset(
    {
        "name",
        "description",
        "tools",
        "disallowedTools",
        "model",
        "permissionMode",
        "maxTurns",
        "mcpServers",
        "color",
    }
)
#: Keys Claude Code reads that have no canonical field: carried in ``harness.claude``.
KNOWN_PASS_THROUGH = frozenset(
    {"skills", "hooks", "memory", "background", "effort", "isolation", "initialPrompt"}
)
_LOADER = "Claude Code skips the file (it does not load the agent)"


class ReadAgent(NamedTuple):
    """A parsed agent: the profile (``None`` when Claude Code would not load the file), the
    inline MCP servers it defines, and what reading it found."""

    profile: AgentProfile | None
    inline: dict[str, McpServer]
    losses: list[Loss]
    diagnostics: list[Diagnostic]


_WS = f"[{JS_WHITESPACE}]"
#: ``^([a-zA-Z_-]+):\s+(.+)$`` with JavaScript's ``\s`` and ``.``, matched per line.
_KEY_VALUE = re.compile(rf"([a-zA-Z_-]+):{_WS}+([^{JS_LINE_ENDS}]+)")
#: A value Claude Code quotes: a YAML indicator anywhere, or ``": "``.
_SPECIAL = re.compile(r"[{}\[\]*&#!|>%@`]|: ")
#: Tabs at the start of a line (``/^\t+/gm``: after any JavaScript line terminator).
_LEADING_TABS = re.compile(rf"(?:^|(?<=[{JS_LINE_ENDS}]))\t+")


def quote_values(frontmatter: str) -> str:
    """Claude Code's second try at frontmatter its YAML parser refused (the 2.1.197 bundle:
    the function ``jm`` calls on a parse error): every ``key: value`` line whose value is
    not already quoted, is not a flow list, and holds ``": "`` or one of ``{}[]*&#!|>%@```
    gets the value in double quotes (``\\`` and ``"`` escaped); then tabs that start a line
    become two spaces each. Lines are split on LF only, so a CRLF line keeps its CR and,
    as in JavaScript, no longer matches: CRLF files are not repaired."""
    lines = []
    for line in frontmatter.split("\n"):
        found = _KEY_VALUE.fullmatch(line)
        if found is not None:
            key, value = found.groups()
            quoted = value[:1] == value[-1:] and value[:1] in ('"', "'")
            if not quoted and not _flow_list(value) and _SPECIAL.search(value):
                escaped = value.replace("\\", "\\\\").replace('"', '\\"')
                line = f'{key}: "{escaped}"'
        lines.append(line)
    return _LEADING_TABS.sub(lambda tabs: "  " * len(tabs.group()), "\n".join(lines))


def _flow_list(value: str) -> bool:
    # ``[a, b]`` that YAML reads as a list is left as it is.
    if not (value.startswith("[") and value.endswith("]")):
        return False
    found: list[Diagnostic] = []
    data = read_frontmatter(f"---\nv: {value}\n---\n", "", found).data
    return not found and isinstance(data.get("v"), list)


#: Claude Code's recovery, for :func:`native_md.read_native_recovering`.
RECOVERY = Recovery("Claude Code", quote_values, "parses it again with values holding ': ' quoted")


def _canonical_tool(name: str) -> str:
    return strip_embedded_prefix(name, DEFAULT_EMBEDDED_SERVER)


def read_agent(found: AgentFile) -> ReadAgent:
    """The agent Claude Code loads from ``found`` (or why it does not)."""
    doc, path = found.doc, found.path
    data = doc.data
    out: list[Diagnostic] = []
    losses: list[Loss] = []
    name = data.get("name")
    if not doc.has_frontmatter:
        out.append(
            diag_at(
                doc,
                path,
                "",
                "harness-ignored",
                "no frontmatter: not an agent definition",
                "Claude Code ignores markdown files without a name and description",
                warning=True,
            )
        )
        return ReadAgent(None, {}, [], out)
    if not isinstance(name, str) or not name:
        out.append(
            diag_at(
                doc,
                path,
                "name",
                "harness-invalid",
                'Failed to parse agent: Missing required "name" field in frontmatter',
                f"add a string name; {_LOADER}",
            )
        )
        return ReadAgent(None, {}, [], out)
    if name.startswith("-"):
        out.append(
            diag_at(
                doc,
                path,
                "name",
                "harness-name-invalid",
                f"Agent file {path} has invalid name '{name}': names must not start with '-'",
                f"rename the agent; {_LOADER}",
            )
        )
        return ReadAgent(None, {}, [], out)
    description = data.get("description")
    if not isinstance(description, str) or not description:
        out.append(
            diag_at(
                doc,
                path,
                "description" if "description" in data else "name",
                "harness-invalid",
                f"Agent file {path} is missing required 'description' in frontmatter",
                f"add a non-empty string description; {_LOADER}",
            )
        )
        return ReadAgent(None, {}, [], out)

    def warn(key: str, message: str, hint: str, code: str = "harness-field-type") -> None:
        out.append(diag_at(doc, path, key, code, message, hint, warning=True))

    harness: dict[str, Any] = {}
    for key, value in data.items():
        if key in KNOWN_PASS_THROUGH:
            harness[key] = value
        elif key not in CANONICAL_KEYS:
            harness[key] = value
            warn(
                key,
                f"unknown key '{key}': Claude Code ignores it",
                "check the spelling; the value is kept in harness.claude",
                "harness-ignored",
            )
    model = data.get("model")
    model_text = ""
    if isinstance(model, str) and model.strip():
        model_text = "" if model.strip().lower() == "inherit" else model.strip()
    elif model is not None:
        warn("model", "model must be a string; Claude Code ignores it", "write a model id")
    mode = data.get("permissionMode")
    permission_mode = ""
    if mode is not None:
        if mode not in PERMISSION_MODES:
            warn(
                "permissionMode",
                f"Agent file {path} has invalid permissionMode '{mode}'. "
                f"Valid options: {', '.join(PERMISSION_MODES)}",
                "Claude Code loads the agent with its default mode",
            )
        elif mode == "dontAsk":
            harness["permissionMode"] = mode
            losses.append(
                Loss(
                    profile=name,
                    field="permission_mode",
                    outcome=LossOutcome.TRANSLATED,
                    detail="dontAsk has no canonical mode; kept in harness.claude.permissionMode",
                )
            )
        else:
            permission_mode = str(mode)
    turns = data.get("maxTurns")
    max_turns = None
    if turns is not None:
        if isinstance(turns, int) and not isinstance(turns, bool) and turns > 0:
            max_turns = turns
        else:
            warn(
                "maxTurns",
                f"Agent file {path} has invalid maxTurns '{turns}'. Must be a positive integer.",
                "Claude Code ignores the limit",
            )
    color = data.get("color")
    color_text = color if isinstance(color, str) else ""
    if color is not None and color not in COLORS:
        warn(
            "color",
            f"color '{color}' is not one of {', '.join(COLORS)}; Claude Code ignores it",
            "pick one of Claude Code's subagent colours",
        )
    allowed: tuple[str, ...] = ()
    exact = False
    tools = tool_list(data["tools"]) if "tools" in data else None
    if tools == []:
        exact = True  # no tools at all: the exact empty set (issue 12 item 2)
        if not isinstance(data["tools"], (str, list)):
            warn(
                "tools",
                "tools is neither a string nor a list: the agent gets no tools",
                "write a list of tool names",
            )
    elif tools is not None:
        allowed = tuple(dict.fromkeys(_canonical_tool(t) for t in tools))
    # What the permission mode makes of the tools, written out so that roster and every
    # other harness decide as Claude Code does (an absent mode is Claude's default).
    permission = claude_semantics.import_rules(mode_of(data), tools)
    denied: tuple[str, ...] = ()
    if "disallowedTools" in data:
        named = [_canonical_tool(t) for t in tool_list(data["disallowedTools"]) or []]
        # Claude Code removes a disallowed tool whole, whatever its argument pattern.
        whole = [name.split("(", 1)[0].strip() for name in named]
        if whole != named:
            losses.append(
                Loss(
                    profile=name,
                    field="denied_tools",
                    outcome=LossOutcome.TRANSLATED,
                    detail="disallowedTools removes a tool whole, whatever its argument "
                    "pattern: imported as the whole tool",
                )
            )
        denied = tuple(dict.fromkeys(whole))
    refs: list[str] = []
    inline: dict[str, McpServer] = {}
    servers = data.get("mcpServers")
    if servers is not None and not isinstance(servers, list):
        warn(
            "mcpServers",
            "mcpServers must be a list; Claude Code ignores it",
            "list server names or {name: config} objects",
        )
    for item in servers if isinstance(servers, list) else []:
        if isinstance(item, str):
            refs.append(item)
        elif isinstance(item, dict) and item:
            for server_name, entry in item.items():
                read = claude_mcp.server_from_native(
                    str(server_name), entry, claude_mcp.CLAUDE, path
                )
                if read.server is None:
                    warn(
                        "mcpServers",
                        f"Agent file {path} has invalid mcpServers item: {read.problem}",
                        "fix the inline server or reference it by name",
                    )
                    continue
                refs.append(str(server_name))
                inline[str(server_name)] = read.server
        else:
            warn(
                "mcpServers",
                f"Agent file {path} has invalid mcpServers item: {item!r}",
                "list server names or {name: config} objects",
            )
    imported = import_document(doc, name, native_model(model, model_text))
    losses.extend(imported.losses)
    profile = AgentProfile(
        id=name,
        name=name,
        description=description.strip(),  # the vault holds it trimmed
        model=model_text,
        permission_mode=permission_mode,
        max_turns=max_turns,
        color=color_text,
        permission=permission,
        allowed_tools=allowed,
        tools_exact=exact,
        denied_tools=denied,
        mcp_servers=tuple(dict.fromkeys(refs)),
        sections=imported.sections,
        harness={"claude": harness} if harness else {},
        native={"claude": imported.native},
        source=path,
    )
    return ReadAgent(profile, inline, losses, out)


def read_text(text: str, path: str) -> AgentProfile | None:
    """The agent Claude Code loads from a file holding ``text`` at ``path`` (None when it
    loads none); for checking a rendering against a remembered layout."""
    doc = read_native_recovering(text, path, [], RECOVERY)
    return read_agent(AgentFile(path, doc)).profile if doc is not None else None
