"""One Copilot custom-agent file, read by the rules of ``custom-agents-configuration.md``.

``description`` is required; the prompt is at most 30,000 characters; ``tools`` takes
aliases (case-insensitive, Claude names accepted as synonyms), ``<server>/<tool>`` and
``*``; unknown tool names and unknown keys are ignored by Copilot (warnings here).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from agent_roster.codecs.base import Loss, LossOutcome
from agent_roster.codecs.claude import mcp as claude_mcp
from agent_roster.codecs.claude.files import AgentFile, diag_at, import_document
from agent_roster.codecs.native_md import read_native
from agent_roster.codecs.tool_names import to_canonical
from agent_roster.diagnostics import Diagnostic
from agent_roster.known_tools import CLAUDE_BUILTIN_TOOLS, DEFAULT_EMBEDDED_SERVER
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile, PermissionAction, PermissionRule

#: Primary alias → the canonical tools it covers (the first is what import yields).
ALIASES: dict[str, tuple[str, ...]] = {
    "execute": ("Bash",),
    "read": ("Read", "NotebookRead"),
    "edit": ("Edit", "Write", "MultiEdit", "NotebookEdit"),
    "search": ("Grep", "Glob"),
    "agent": ("Task", "Agent"),
    "web": ("WebFetch", "WebSearch"),
    "todo": ("TodoWrite", "TodoRead"),
}
#: Secondary aliases the docs list that are not Claude names.
_SYNONYMS = {"shell": "Bash", "powershell": "Bash", "custom-agent": "Task"}
KEYS = frozenset(
    {
        "name",
        "description",
        "target",
        "tools",
        "model",
        "disable-model-invocation",
        "user-invocable",
        "infer",
        "mcp-servers",
        "metadata",
        # VS Code only; the other readers ignore them.
        "argument-hint",
        "handoffs",
        "agents",
        "hooks",
    }
)
MAX_PROMPT = 30_000


class ReadAgent(NamedTuple):
    profile: AgentProfile | None
    inline: dict[str, McpServer]
    losses: list[Loss]
    diagnostics: list[Diagnostic]


def canonical_tool(native: str) -> str | None:
    """A ``tools`` entry in canonical form, or ``None`` when Copilot knows no such tool."""
    server, sep, tool = native.partition("/")
    if sep and server and tool:
        if server == DEFAULT_EMBEDDED_SERVER and tool != "*":
            return tool
        return f"mcp__{server}__{tool}"
    folded = native.casefold()
    for alias, members in ALIASES.items():
        if folded == alias:
            return members[0]
    if folded in _SYNONYMS:
        return _SYNONYMS[folded]
    for claude in CLAUDE_BUILTIN_TOOLS:
        if claude.casefold() == folded:
            return claude
    return to_canonical("copilot", native)


def read_agent(found: AgentFile, ident: str) -> ReadAgent:
    """The agent ``found`` defines under the id its file name gives."""
    doc, path = found.doc, found.path
    data = doc.data
    out: list[Diagnostic] = []
    losses: list[Loss] = []
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        out.append(
            diag_at(
                doc,
                path,
                "description",
                "harness-invalid",
                "description is required for a custom agent",
                "add a description; Copilot does not offer the agent without one",
            )
        )
        return ReadAgent(None, {}, [], out)
    body = doc.body.strip()
    if len(body) > MAX_PROMPT:
        out.append(
            diag_at(
                doc,
                path,
                "",
                "harness-invalid",
                f"the prompt has {len(body)} characters; the maximum is {MAX_PROMPT:,}",
                "shorten the body",
            )
        )
        return ReadAgent(None, {}, [], out)

    def warn(key: str, message: str, hint: str, code: str = "harness-field-type") -> None:
        out.append(diag_at(doc, path, key, code, message, hint, warning=True))

    harness: dict[str, Any] = {}
    for key, value in data.items():
        if key not in KEYS:
            warn(
                key,
                f"unknown key '{key}': Copilot ignores it",
                "the value is kept in harness.copilot",
                "harness-ignored",
            )
            harness[key] = value
        elif key not in {"name", "description", "tools", "model", "mcp-servers"}:
            harness[key] = value
    name = data.get("name")
    display = name.strip() if isinstance(name, str) and name.strip() else ident
    model = data.get("model")
    model_text = model if isinstance(model, str) else ""
    if isinstance(model, list):
        harness["model"] = model
        losses.append(
            Loss(
                profile=ident,
                field="model",
                outcome=LossOutcome.TRANSLATED,
                detail="a list of fallback models is kept in harness.copilot",
            )
        )
    allowed: tuple[str, ...] = ()
    permission: tuple[PermissionRule, ...] = ()
    refs: list[str] = []
    tools = data.get("tools")
    if isinstance(tools, str):
        tools = [t.strip() for t in tools.split(",") if t.strip()]
    if tools is not None and not isinstance(tools, list):
        warn("tools", "tools must be a list of tool names", "write a YAML list")
    elif isinstance(tools, list):
        names = [t for t in tools if isinstance(t, str)]
        if "*" in names:
            pass  # every tool: the canonical default
        elif not names:
            permission = (PermissionRule(permission="*", action=PermissionAction.DENY),)
            losses.append(
                Loss(
                    profile=ident,
                    field="allowed_tools",
                    outcome=LossOutcome.TRANSLATED,
                    detail="tools: [] (no tools) became the rule '*: deny'",
                )
            )
        else:
            canonical = []
            for native in names:
                tool = canonical_tool(native)
                if tool is None:
                    warn(
                        "tools",
                        f"unknown tool '{native}': Copilot ignores it",
                        "use an alias (execute, read, edit, search, agent, web, todo) or "
                        "<server>/<tool>",
                        "harness-ignored",
                    )
                    continue
                canonical.append(tool)
                server, sep, _ = native.partition("/")
                if sep and server != DEFAULT_EMBEDDED_SERVER:
                    refs.append(server)
            allowed = tuple(dict.fromkeys(canonical))
    inline: dict[str, McpServer] = {}
    servers = data.get("mcp-servers")
    if isinstance(servers, dict):
        for server_name, entry in servers.items():
            read = claude_mcp.server_from_native(
                str(server_name), entry, claude_mcp.COPILOT_CLI, path
            )
            if read.server is None:
                warn("mcp-servers", f"[{server_name}] {read.problem}", "fix the server entry")
                continue
            inline[str(server_name)] = read.server
            refs.append(str(server_name))
    elif servers is not None:
        warn("mcp-servers", "mcp-servers must be a mapping of server names", "write a mapping")
    imported = import_document(doc, ident)
    profile = AgentProfile(
        id=ident,
        name=display,
        description=description.strip(),  # the vault holds it trimmed
        model=model_text,
        permission=permission,
        allowed_tools=allowed,
        mcp_servers=tuple(dict.fromkeys(refs)),
        sections=imported.sections,
        harness={"copilot": harness} if harness else {},
        native={"copilot": imported.native},
        source=path,
    )
    return ReadAgent(profile, inline, losses + imported.losses, out)


def read_text(text: str, path: str, ident: str) -> AgentProfile | None:
    """The agent Copilot loads as ``ident`` from a file holding ``text`` (None when none)."""
    doc = read_native(text, path, [])
    return read_agent(AgentFile(path, doc), ident).profile if doc is not None else None
