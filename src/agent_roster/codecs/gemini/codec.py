"""The Gemini CLI codec: ``.gemini/agents/*.md`` and ``mcpServers`` in ``settings.json``.

Agent files are strict (zod ``.strict()``: an unknown key skips the file), named by a slug,
and registered first-wins after the built-in subagents, project before user. Gemini has no
per-agent permissions besides the ``tools`` allowlist, so canonical rules become that list
(permissions.md §3) and argument-level rules are written into the prompt (D4). Servers go
into the scope's ``settings.json`` (merged, every other key kept) and the agent's ``tools``
name them as ``mcp_<server>_*``. Mapping and sources: docs/codecs/gemini.md.
"""

from __future__ import annotations

from functools import lru_cache, partial
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
from agent_roster.codecs.defaults import explicit_rules
from agent_roster.codecs.gemini import semantics as gemini_semantics
from agent_roster.codecs.gemini.read import (
    BUILTIN_AGENTS,
    AgentFile,
    acknowledgments,
    parse_agent,
    read_agent,
    server_from_settings,
    settings_servers,
    split_mcp_tool,
    trusted_folder,
)
from agent_roster.codecs.gemini.render import (
    AGENTS_DIR,
    SETTINGS_FILE,
    merge_settings,
    render_profile,
    settings_entry,
)
from agent_roster.codecs.native_io import existing_text
from agent_roster.codecs.native_md import harness_diagnostic, keep_native
from agent_roster.codecs.prompt import import_body
from agent_roster.codecs.support import declare
from agent_roster.codecs.tool_names import to_canonical
from agent_roster.codecs.unloaded import report_not_loaded
from agent_roster.diagnostics import Diagnostic
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile, PermissionRule
from agent_roster.model.profile import PermissionAction as PermissionAction


class GeminiCodec:
    """Google Gemini CLI (``gemini`` 0.61.0)."""

    name = "gemini"
    title = "Gemini CLI"
    partitioned = True
    whole_keys: frozenset[str] = frozenset()
    options: tuple[RenderOption, ...] = ()
    #: What render does with each canonical field (docs/codecs/matrix.md; checked
    #: against probe renders by tests/codecs/test_support_matrix.py).
    support = declare(
        kept="name description prompt model temperature max_turns denied_tools mcp_servers",
        translated="allowed_tools denied_tools permission",
        dropped="provider top_p max_tokens_per_task permission_mode mode color runtime "
        "agent_name tags install",
        refused="permission",
    )
    native_fields = frozenset(
        {"id", "name", "description", "prompt", "model", "temperature", "max_turns", "mcp_servers"}
    )

    def discover(self, roots: Roots) -> Discovery:
        """Project agents, then user agents; the first registration of a name wins and no
        file can replace a built-in subagent (``AgentRegistry.registerAgent``)."""
        out: list[Diagnostic] = []
        servers = _settings_servers(roots, out)
        registered: dict[str, AgentFile] = {}
        project = _folder(roots.workspace / AGENTS_DIR, out)
        if project:
            _gate_project(roots, project, out)
        for agent in (*project, *_folder(roots.home / AGENTS_DIR, out)):
            first = registered.get(agent.name)
            if first is not None or agent.name in BUILTIN_AGENTS:
                out.append(
                    harness_diagnostic(
                        "harness-shadowed",
                        f"Duplicate agent name '{agent.name}' detected. The later definition "
                        "will be ignored. Rename one of the agents to avoid this conflict.",
                        path=str(agent.path),
                        hint=f"{first.path if first else 'a built-in subagent'} keeps the name",
                        warning=True,
                    )
                )
                continue
            registered[agent.name] = agent
        profiles: list[AgentProfile] = []
        losses: list[Loss] = []
        used: dict[str, McpServer] = {}
        for agent in registered.values():
            profile, notes, inline = _profile(agent, servers)
            profiles.append(profile)
            losses.extend(
                Loss(
                    profile=agent.name,
                    field=field,
                    outcome=LossOutcome.TRANSLATED if field == "prompt" else LossOutcome.DROPPED,
                    detail=note,
                )
                for field, note in notes
            )
            for name in profile.mcp_servers:
                server = inline.get(name) or servers.get(name)
                if server is not None:
                    used.setdefault(name, server)
                else:
                    out.append(
                        harness_diagnostic(
                            "harness-invalid",
                            f"agent '{agent.name}' lists tools of MCP server '{name}', which "
                            "no settings.json or mcp_servers entry defines",
                            path=str(agent.path),
                            hint=f"add '{name}' to mcpServers in .gemini/settings.json",
                            warning=True,
                        )
                    )
        return Discovery(
            profiles=tuple(profiles),
            servers=tuple(used.values()),
            losses=tuple(losses),
            diagnostics=tuple(out),
        )

    def decide(self, agent: NativeAgent, probe: Probe) -> PermissionAction:
        """Gemini CLI's own decision for one call of ``agent`` (``gemini/semantics.py``)."""
        return gemini_semantics.decide(agent, probe)

    def render(self, request: RenderRequest, existing: ReadExisting) -> Rendering:
        """One agent file per profile, and the servers merged into ``settings.json``."""
        files: list[NativeFile] = []
        losses: list[Loss] = []
        out: list[Diagnostic] = []
        entries: dict[str, dict[str, Any]] = {}
        for profile, owned in request.to_render(entries):
            if not owned:
                # Another part writes this agent; settings.json still gets its servers.
                if render_profile(profile, request, [], []) is not None:
                    for name in profile.mcp_servers:
                        entries[name] = settings_entry(request.servers[name])
                continue
            rendered = render_profile(profile, request, out, losses)
            if rendered is not None:
                path = f"{AGENTS_DIR}/{profile.id}.md"
                rendered = keep_native(
                    profile.native.get(self.name), rendered, partial(read_text, path=path)
                )
                files.append(NativeFile(path=path, content=rendered, profile=profile.id))
                for name in profile.mcp_servers:
                    entries[name] = settings_entry(request.servers[name])
        if entries and request.shared:
            current = existing_text(existing, SETTINGS_FILE, out)
            merged = None if current is False else merge_settings(current, entries, out)
            if merged is not None:
                files.append(NativeFile(path=SETTINGS_FILE, content=merged, merged=True))
        return Rendering(files=tuple(files), losses=tuple(losses), diagnostics=tuple(out))


CODEC = GeminiCodec()


def _folder(folder: Path, out: list[Diagnostic]) -> list[AgentFile]:
    """``loadAgentsFromDirectory``: regular ``*.md`` files not starting with ``_``, not
    recursive. Gemini takes them in directory order; roster sorts by name to be stable."""
    if not folder.is_dir():
        return []
    agents = []
    paths = [
        path
        for path in sorted(folder.iterdir())
        if path.is_file() and path.name.endswith(".md") and not path.name.startswith("_")
    ]
    report_not_loaded(
        folder,
        paths,
        out,
        harness="Gemini CLI",
        rule="only *.md files whose names do not start with _ are agents",
        hint="name it <agent>.md, directly in the agents folder",
        recursive=False,
    )
    for path in paths:
        agent = read_agent(path, out)
        if agent is not None:
            agents.append(agent)
    return agents


def _gate_project(roots: Roots, project: list[AgentFile], out: list[Diagnostic]) -> None:
    """Project agents load only in a trusted folder, and each only once the user has
    acknowledged its exact content; roster lists them anyway and says so."""
    if not trusted_folder(roots.workspace, roots.home, out):
        out.append(
            harness_diagnostic(
                "harness-ignored",
                "Skipping project agents due to untrusted folder. To enable, ensure that the "
                "project root is trusted.",
                path=str(roots.workspace / AGENTS_DIR),
                hint="trust the folder in Gemini CLI (or set GEMINI_CLI_TRUST_WORKSPACE=true)",
                warning=True,
            )
        )
        return
    known = acknowledgments(roots.workspace, roots.home, out)
    for agent in project:
        if known.get(agent.name) != agent.sha256:
            out.append(
                harness_diagnostic(
                    "harness-ignored",
                    f"project agent '{agent.name}' is new or changed and waits for the user to "
                    "acknowledge it before Gemini CLI registers it",
                    path=str(agent.path),
                    hint="start gemini in the project and accept the agent",
                    warning=True,
                )
            )


def _settings_servers(roots: Roots, out: list[Diagnostic]) -> dict[str, McpServer]:
    """``mcpServers`` of the user and project ``settings.json``; the project entry wins."""
    servers: dict[str, McpServer] = {}
    for path in (roots.home / SETTINGS_FILE, roots.workspace / SETTINGS_FILE):
        servers.update(settings_servers(path, out))
    return servers


def read_text(text: str, path: str) -> AgentProfile | None:
    """The agent Gemini loads from a file holding ``text`` (None when it refuses it)."""
    agent = parse_agent(text, Path(path), [])
    return _profile(agent, {})[0] if agent is not None else None


@lru_cache(maxsize=256)
def _default_rules(
    listed: tuple[str, ...] | None, mcp: tuple[str, ...]
) -> tuple[PermissionRule, ...]:
    """Gemini's decision for every tool as rules (``defaults.explicit_rules``), per list."""
    data = {} if listed is None else {"tools": list(listed)}
    return explicit_rules(partial(gemini_semantics.decide_data, data), mcp)


def _profile(
    agent: AgentFile, servers: dict[str, McpServer]
) -> tuple[AgentProfile, list[tuple[str, str]], dict[str, McpServer]]:
    data = agent.data
    notes: list[tuple[str, str]] = []
    prompt = import_body(agent.body)
    notes.extend(("prompt", note) for note in prompt.notes)
    inline: dict[str, McpServer] = {}
    for name, entry in (data.get("mcp_servers") or {}).items():
        server = server_from_settings(name, entry, str(agent.path), snake=True)
        if server is None:
            notes.append(("mcp_servers", f"inline server '{name}' has no command or url"))
        else:
            inline[name] = server
    allowed: list[str] = []
    mcp: list[str] = []
    for tool in data.get("tools") or ():
        parts = split_mcp_tool(tool)
        if parts is not None:
            server_name, mcp_tool = parts
            allowed.append(f"mcp__{server_name}__{mcp_tool}")
            if server_name not in mcp:
                mcp.append(server_name)
            continue
        canonical = to_canonical("gemini", tool)
        if canonical is None:
            notes.append(("allowed_tools", f"tool '{tool}' has no canonical name; not imported"))
        elif canonical not in allowed:
            allowed.append(canonical)
    mcp.extend(name for name in inline if name not in mcp)
    # Never widen (issue 12 item 2): Gemini's own decisions written out. A plain list is
    # the exact tool set ([] = none); no list (every tool) or a wildcard (`*`, `mcp_*`)
    # becomes explicit rules, Gemini's catch-all first.
    tools = data.get("tools")
    listed = tuple(t for t in tools if isinstance(t, str)) if isinstance(tools, list) else None
    permission: tuple[PermissionRule, ...] = ()
    if listed is None or "*" in listed or "mcp_*" in listed:
        permission = _default_rules(listed, tuple(a for a in allowed if a.startswith("mcp__")))
        allowed = []
    harness = {key: data[key] for key in ("timeout_mins",) if key in data}
    temperature = data.get("temperature")
    return (
        AgentProfile(
            id=agent.name,
            name=str(data.get("display_name") or agent.name),
            description=str(data["description"]).strip(),  # as the vault holds it
            model="" if data.get("model") in (None, "inherit") else str(data["model"]),
            temperature=float(temperature) if temperature is not None else None,
            max_turns=int(data["max_turns"]) if "max_turns" in data else None,
            allowed_tools=tuple(allowed),
            tools_exact=listed is not None and not permission,
            permission=permission,
            mcp_servers=tuple(mcp),
            sections=prompt.sections,
            harness={"gemini": harness} if harness else {},
            native={"gemini": agent.native},
            source=str(agent.path),
        ),
        notes,
        inline,
    )
