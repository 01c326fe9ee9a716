"""The Qwen Code codec: ``.qwen/agents/*.md`` and ``mcpServers`` in ``.qwen/settings.json``.

Qwen Code is a Gemini CLI fork, but its subagents are its own (Claude Code's shape: a
``name`` key, ``tools``/``disallowedTools``, ``approvalMode``, ``maxTurns``); its
``settings.json`` and MCP entries are Gemini's older dialect (``httpUrl`` streamable HTTP,
``url`` SSE). The project folder's agents come first, then the user's, then the built-in
ones; the first of a name wins. Each rule was checked against ``qwen`` 0.24.4 with a fake
model on loopback (tests/codecs/test_qwen_cli.py). Mapping: docs/codecs/qwen.md.
"""

from __future__ import annotations

from collections import deque
from functools import partial
from pathlib import Path
from typing import Any

from agent_roster.codecs.base import (
    Discovery,
    Loss,
    LossOutcome,
    NativeAgent,
    NativeFile,
    Probe,
    ReadExisting,
    Rendering,
    RenderOption,
    RenderRequest,
    Roots,
)
from agent_roster.codecs.native_io import existing_text
from agent_roster.codecs.native_md import harness_diagnostic, keep_native, write_native
from agent_roster.codecs.opencode.js import JsoncError, load_jsonc
from agent_roster.codecs.prompt import import_body
from agent_roster.codecs.qwen import semantics as qwen_semantics
from agent_roster.codecs.qwen.read import (
    AGENTS_DIR,
    BUILTIN_AGENTS,
    COLORS,
    SETTINGS_FILE,
    QwenAgent,
    max_turns,
    model_of,
    parse_agent,
    read_agents,
    server_from_settings,
    settings_entry,
    settings_servers,
    tool_list,
)
from agent_roster.codecs.qwen.render import (
    APPROVAL,
    PASS_THROUGH,
    Prepared,
    merge_settings,
    render_profile,
)
from agent_roster.codecs.qwen.tools import canonical_tool
from agent_roster.codecs.support import declare
from agent_roster.codecs.tool_names import split_ref
from agent_roster.codecs.unloaded import report_not_loaded
from agent_roster.diagnostics import Diagnostic
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile, NativeForm, PermissionAction

#: Qwen ``approvalMode`` → canonical ``permission_mode`` (``bubble`` has none).
_MODES = {
    "default": "default",
    "plan": "plan",
    "auto-edit": "acceptEdits",
    "yolo": "bypassPermissions",
    "auto": "auto",
}


class QwenCodec:
    """Qwen Code (``@qwen-code/qwen-code`` 0.24.4)."""

    name = "qwen"
    title = "Qwen Code"
    partitioned = True
    whole_keys: frozenset[str] = frozenset()
    options: tuple[RenderOption, ...] = ()
    #: What render does with each canonical field (docs/codecs/matrix.md; checked
    #: against probe renders by tests/codecs/test_support_matrix.py).
    support = declare(
        kept="description prompt model max_turns permission_mode allowed_tools "
        "denied_tools mcp_servers color",
        translated="allowed_tools denied_tools permission",
        dropped="name provider temperature top_p max_tokens_per_task allowed_tools "
        "mode runtime agent_name tags install",
    )
    native_fields = frozenset(
        {
            "id",
            "description",
            "prompt",
            "model",
            "max_turns",
            "permission_mode",
            "allowed_tools",
            "denied_tools",
            "mcp_servers",
            "color",
        }
    )

    def discover(self, roots: Roots) -> Discovery:
        """Project agents, then user agents, then the built-in ones: the first of a name
        wins (``SubagentManager.listSubagents``)."""
        out: list[Diagnostic] = []
        servers = settings_servers(roots.workspace, roots.home, out)
        levels = [roots.home / AGENTS_DIR]
        if roots.workspace.resolve() != roots.home.resolve():
            levels.insert(0, roots.workspace / AGENTS_DIR)
        registered: dict[str, QwenAgent] = {}
        for folder in levels:
            agents = read_agents(folder, out)
            report_not_loaded(
                folder,
                [a.path for a in agents] + _refused(out, folder),
                out,
                harness="Qwen Code",
                rule="only *.md files are subagents",
                hint="name it <agent>.md, directly in the agents folder",
                recursive=False,
            )
            for agent in agents:
                first = registered.get(agent.name)
                if first is not None:
                    out.append(
                        harness_diagnostic(
                            "harness-shadowed",
                            f"agent {agent.name!r} is already defined by {first.path}",
                            path=str(agent.path),
                            hint="Qwen Code keeps the first agent of a name (project before user)",
                            warning=True,
                        )
                    )
                    continue
                if agent.name in BUILTIN_AGENTS:
                    out.append(
                        harness_diagnostic(
                            "harness-shadowed",
                            f"agent {agent.name!r} takes the place of Qwen Code's built-in agent",
                            path=str(agent.path),
                            warning=True,
                        )
                    )
                registered[agent.name] = agent
        profiles: list[AgentProfile] = []
        losses: list[Loss] = []
        used: dict[str, McpServer] = {}
        for agent in registered.values():
            profile, notes, inline = _profile(agent, servers)
            profiles.append(profile)
            losses += [
                Loss(profile=agent.name, field=field, outcome=outcome, detail=detail)
                for field, outcome, detail in notes
            ]
            for name in profile.mcp_servers:
                server = inline.get(name) or servers.get(name)
                if server is not None:
                    used.setdefault(name, server)
        return Discovery(
            profiles=tuple(profiles),
            servers=tuple(used.values()),
            losses=tuple(losses),
            diagnostics=tuple(out),
        )

    def decide(self, agent: NativeAgent, probe: Probe) -> PermissionAction:
        """Qwen Code's own decision for one call of ``agent`` (``qwen/semantics.py``)."""
        return qwen_semantics.decide(agent, probe)

    def render(self, request: RenderRequest, existing: ReadExisting) -> Rendering:
        """One subagent file per profile, and the servers merged into ``settings.json``."""
        out: list[Diagnostic] = []
        losses: list[Loss] = []
        prepared: deque[tuple[AgentProfile, Prepared]] = deque()
        entries: dict[str, dict[str, Any]] = {}
        # Every agent file lists the servers of every agent written (its disallowedTools),
        # so every part works out which of the others' are written too, where one could
        # add a server; the part that writes an agent reports on it.
        for profile, owned in request.to_render(entries, every_part=True):
            ready = render_profile(profile, request, *((out, losses) if owned else ([], [])))
            if ready is not None:
                if owned:
                    prepared.append((profile, ready))
                for name in profile.mcp_servers:
                    entries[name] = settings_entry(request.servers[name])
        # Only the part that writes settings.json reports on it (RenderRequest.part).
        text = existing_text(existing, SETTINGS_FILE, out if request.shared else [])
        block = [*_existing_servers(text or None), *entries]
        # The same for every agent (and only read): worked out once, not once per agent.
        servers = list(dict.fromkeys(block))
        known = _known(block, request)
        files: list[NativeFile] = []
        # Taken from the front as each file is made, so a prompt is freed once its file
        # holds it: kept until the last file, every prompt is there twice (half a gigabyte
        # on a vault of 50 KB prompts).
        while prepared:
            profile, ready = prepared.popleft()
            path = f"{AGENTS_DIR}/{profile.id}.md"
            generated = write_native(ready.frontmatter(servers), ready.prompt)
            content = keep_native(
                profile.native.get(self.name),
                generated,
                partial(read_text, path=path, servers=known),
                ready.prompt,
            )
            files.append(NativeFile(path=path, content=content, profile=profile.id))
        if entries and text is not False and request.shared:  # unreadable: left alone
            merged = merge_settings(text, entries, out)
            if merged is not None:
                files.append(NativeFile(path=SETTINGS_FILE, content=merged, merged=True))
        return Rendering(files=tuple(files), losses=tuple(losses), diagnostics=tuple(out))


CODEC = QwenCodec()


def _refused(out: list[Diagnostic], folder: Path) -> list[Path]:
    """Files of ``folder`` already reported as refused (not to be reported twice)."""
    return [Path(d.path) for d in out if d.is_error and Path(d.path).parent == folder]


def _existing_servers(text: str | None) -> list[str]:
    if not text:
        return []
    try:
        value, _ = load_jsonc(text)
    except JsoncError:
        return []
    block = value.get("mcpServers") if isinstance(value, dict) else None
    return [str(name) for name in block] if isinstance(block, dict) else []


def _known(block: list[str], request: RenderRequest) -> dict[str, McpServer]:
    return {name: request.servers[name] for name in block if name in request.servers}


def read_text(text: str, path: str, servers: dict[str, McpServer]) -> AgentProfile | None:
    """The agent Qwen loads from a file holding ``text`` (None when it refuses it), with
    ``servers`` the configured servers it sees."""
    agent, _ = parse_agent(text, Path(path))
    return _profile(agent, servers)[0] if agent is not None else None


def _profile(
    agent: QwenAgent, servers: dict[str, McpServer]
) -> tuple[AgentProfile, list[tuple[str, LossOutcome, str]], dict[str, McpServer]]:
    data = agent.data
    notes: list[tuple[str, LossOutcome, str]] = []
    prompt = import_body(agent.prompt)
    notes += [("prompt", LossOutcome.TRANSLATED, note) for note in prompt.notes]
    inline: dict[str, McpServer] = {}
    for name, entry in (data.get("mcpServers") or {}).items():
        server = server_from_settings(name, entry, str(agent.path))
        if server is None:
            notes.append(
                ("mcp_servers", LossOutcome.DROPPED, f"inline server {name!r}: no transport")
            )
        else:
            inline[name] = server
    tools = tool_list(data.get("tools"))
    if tools == []:
        tools = None  # Qwen: "Empty tools array - subagent will inherit all available tools"
    allowed = tuple(dict.fromkeys(canonical_tool(t) for t in tools or ()))
    known = {**servers, **inline}
    denied: list[str] = []
    shut: set[str] = set()
    for entry in tool_list(data.get("disallowedTools")) or ():
        ref = split_ref(entry)
        if tools is None and ref.server in known and ref.mcp_tool == "*":
            shut.add(str(ref.server))  # a server this agent does not use (scoping)
        else:
            denied.append(canonical_tool(entry))
    if tools is not None:
        mcp = [str(ref.server) for ref in map(split_ref, allowed) if ref.server is not None]
    else:
        mcp = [name for name in servers if name not in shut]
    mcp += list(inline)
    harness: dict[str, Any] = {k: data[k] for k in PASS_THROUGH if k in data}
    run = harness.get("runConfig")
    if isinstance(run, dict) and "max_turns" in run and "maxTurns" not in data:
        rest = {k: v for k, v in run.items() if k != "max_turns"}
        if rest:
            harness["runConfig"] = rest
        else:
            del harness["runConfig"]
    mode = str(data.get("approvalMode") or "")
    permission_mode = _MODES.get(mode, "")
    if mode and not permission_mode:
        harness["approvalMode"] = mode
        notes.append(
            ("permission_mode", LossOutcome.DROPPED, f"approvalMode {mode!r} has no canonical mode")
        )
    elif not mode and data.get("permissionMode"):
        claude = str(data["permissionMode"])
        permission_mode = claude if claude in APPROVAL else ""
    color = str(data.get("color") or "")
    model = model_of(data)
    native = NativeForm(
        head=agent.head, tail=agent.tail, model=model if model.strip() == "inherit" else ""
    )
    return (
        AgentProfile(
            id=agent.name,
            name=agent.name,
            description=str(data["description"]).strip(),
            model="" if model.strip() == "inherit" else model,
            permission_mode=permission_mode,
            max_turns=max_turns(data),
            color=color if color in COLORS else "",
            allowed_tools=allowed,
            # Never widen (issue 12 item 2): what Qwen decides, its defaults included.
            permission=qwen_semantics.import_rules(data),
            denied_tools=tuple(dict.fromkeys(denied)),
            mcp_servers=tuple(dict.fromkeys(mcp)),
            sections=prompt.sections,
            harness={"qwen": harness} if harness else {},
            native={"qwen": native},
            source=str(agent.path),
        ),
        notes,
        inline,
    )
