"""The GitHub Copilot codec: ``.github/agents/<id>.agent.md`` and ``.vscode/mcp.json``.

One file format read by the cloud agent, the Copilot CLI and VS Code. The agent id is the
file name; ``name`` is a display name; ``tools`` is an allowlist of aliases (``execute``,
``read``, ``edit``, ``search``, ``agent``, ``web``, ``todo``) and ``<server>/<tool>`` MCP
names, with no deny list, so denies narrow the allowlist and argument rules become prose.
The body is limited to 30,000 characters. Mapping: docs/codecs/copilot.md §8.
"""

from __future__ import annotations

from typing import Any

import msgspec

from agent_roster.codecs.base import (
    Discovery,
    Loss,
    LossOutcome,
    NativeFile,
    ReadExisting,
    Rendering,
    RenderRequest,
    Roots,
    Scope,
)
from agent_roster.codecs.base import loss as _loss
from agent_roster.codecs.claude import mcp as claude_mcp
from agent_roster.codecs.claude.files import (
    COMMON_DROPS,
    dropped,
    list_agent_files,
    read_agent_file,
    read_json_file,
)
from agent_roster.codecs.claude.rules import narrowed_sentences, rule_sentence
from agent_roster.codecs.copilot.read import ALIASES, MAX_PROMPT, read_agent, read_text
from agent_roster.codecs.native_md import harness_diagnostic, keep_native, write_native
from agent_roster.codecs.permissions import effective_rules, evaluate
from agent_roster.codecs.prompt import render_prompt
from agent_roster.codecs.tool_names import opencode_key, split_ref, to_native
from agent_roster.diagnostics import Diagnostic
from agent_roster.known_tools import DEFAULT_EMBEDDED_COMMANDS, DEFAULT_EMBEDDED_SERVER
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile, PermissionAction

PROJECT_DIR = ".github/agents"
USER_DIR = ".copilot/agents"
PROJECT_MCP = ".vscode/mcp.json"
USER_MCP = ".copilot/mcp-config.json"
_DROPS = {
    **COMMON_DROPS,
    "permission_mode": "no approval modes in an agent file",
    "max_turns": "no turn limit per agent",
    "color": "no colour key",
    "tags": "tags are vault bookkeeping",
    "install": "Copilot installs nothing for an agent",
}


def native_tool(
    name: str,
    embedded: str = DEFAULT_EMBEDDED_SERVER,
    commands: frozenset[str] = DEFAULT_EMBEDDED_COMMANDS,
) -> str | None:
    """Canonical → Copilot: the primary alias, ``<server>/<tool>`` for MCP names, the
    embedded server's prefix for its ``commands``; ``None`` when Copilot has no such tool."""
    ref = split_ref(name)
    if ref.server is not None:
        return f"{ref.server}/{ref.mcp_tool or '*'}"
    native = to_native("copilot", ref.tool)
    if native is not None:
        return native.name
    if ref.tool in commands:
        return f"{embedded}/{ref.tool}"
    return None


class CopilotCodec:
    """GitHub Copilot custom agents (docs/codecs/copilot.md)."""

    name = "copilot"
    title = "GitHub Copilot"
    partitioned = False  # renders whole (see RenderRequest.part)
    native_fields = frozenset({"id", "name", "description", "model", "prompt"})

    def render(self, request: RenderRequest, existing: ReadExisting) -> Rendering:
        """Agent files, and the referenced servers merged into ``.vscode/mcp.json``
        (project) or ``~/.copilot/mcp-config.json`` (user)."""
        files: list[NativeFile] = []
        losses: list[Loss] = []
        diagnostics: list[Diagnostic] = []
        rendered = []
        folder = PROJECT_DIR if request.scope is Scope.PROJECT else USER_DIR
        for profile in request.profiles:
            native = self._render_agent(
                profile, folder, losses, diagnostics, request.embedded, request.embedded_commands
            )
            if native is not None:
                files.append(native)
                rendered.append(profile)
        if request.scope is Scope.PROJECT:
            mcp_path, dialect = PROJECT_MCP, claude_mcp.VSCODE
        else:
            mcp_path, dialect = USER_MCP, claude_mcp.COPILOT_CLI
        mcp_file = claude_mcp.render_mcp_file(
            rendered, request.servers, dialect, mcp_path, existing, diagnostics
        )
        if mcp_file is not None:
            files.append(mcp_file)
        return Rendering(files=tuple(files), losses=tuple(losses), diagnostics=tuple(diagnostics))

    def _render_agent(
        self,
        profile: AgentProfile,
        folder: str,
        losses: list[Loss],
        diagnostics: list[Diagnostic],
        embedded: str,
        commands: frozenset[str] = DEFAULT_EMBEDDED_COMMANDS,
    ) -> NativeFile | None:
        path = f"{folder}/{profile.id}.agent.md"
        if not profile.description.strip():
            diagnostics.append(
                harness_diagnostic(
                    "render-unsupported",
                    f"{profile.id}: a Copilot custom agent requires a description",
                    path=path,
                    hint="add a description to the profile",
                )
            )
            return None
        out = dropped(profile, _DROPS, self.title)
        data: dict[str, Any] = {"name": profile.name or profile.id}
        data["description"] = profile.description
        constraints: list[str] = []
        tools = self._tools(profile, constraints, out, embedded, commands)
        if tools is not None:
            data["tools"] = tools
        if profile.model:
            data["model"] = profile.model
        if profile.mcp_servers:
            out.append(
                _loss(
                    profile,
                    "mcp_servers",
                    LossOutcome.TRANSLATED,
                    "servers written to the MCP file, which every agent sees; the agent names "
                    "them only through <server>/<tool> entries of tools",
                )
            )
        for key, value in profile.harness.get("copilot", {}).items():
            if key not in data and key not in {"name", "description", "tools", "model"}:
                data[key] = value
        body = render_prompt(profile, constraints)
        if len(body) > MAX_PROMPT:
            diagnostics.append(
                harness_diagnostic(
                    "render-unsupported",
                    f"{profile.id}: the prompt has {len(body)} characters; Copilot allows "
                    f"at most {MAX_PROMPT:,}",
                    path=path,
                    hint="shorten the prose sections",
                )
            )
            return None
        losses.extend(out)
        content = keep_native(
            profile.native.get(self.name),
            write_native(data, body),
            lambda text: read_text(text, path, profile.id),
            body,
        )
        return NativeFile(path=path, content=content, profile=profile.id)

    def _tools(
        self,
        profile: AgentProfile,
        constraints: list[str],
        out: list[Loss],
        embedded: str,
        commands: frozenset[str] = DEFAULT_EMBEDDED_COMMANDS,
    ) -> list[str] | None:
        """The ``tools`` allowlist (permissions.md §3, Copilot row), or ``None`` to omit
        it (every tool): written only when something is allowed-only or denied."""
        rules = effective_rules(profile, embedded=embedded)
        denies = [r for r in rules if r.rule.action is PermissionAction.DENY]
        if not profile.allowed_tools and not denies:
            if profile.permission:
                constraints += [rule_sentence(r) for r in profile.permission]
                out.append(_loss(profile, "permission", LossOutcome.EMBEDDED, "no rules"))
            return None
        # The allowlist's own "*: deny" must not remove what it allows (a narrowed
        # Bash(git log:*) is still Bash); only explicit denies narrow the list.
        deny_rules = [r for r in rules if r.source != "allowed_tools"]
        if profile.allowed_tools:
            candidates = list(profile.allowed_tools)
        else:
            candidates = [*ALIASES, *(f"mcp__{s}__*" for s in profile.mcp_servers)]
        tools: list[str] = []
        unmapped: list[str] = []
        narrowed: list[str] = []
        for name in candidates:
            ref = split_ref(name)
            if ref.argument is not None:
                narrowed.append(name)
            members = ALIASES.get(name, (ref.tool,)) if ref.server is None else (name,)
            native = native_tool(members[0] if name in ALIASES else name, embedded, commands)
            if native is None:
                unmapped.append(name)
                continue
            keys = [opencode_key(m, embedded=embedded, commands=commands) for m in members]
            if any(evaluate(deny_rules, key).action is PermissionAction.DENY for key in keys):
                continue
            if native not in tools:
                tools.append(native)
        if narrowed:
            constraints += narrowed_sentences(narrowed, allow=True)
        narrowed_denies = [t for t in profile.denied_tools if split_ref(t).argument is not None]
        if narrowed_denies:
            constraints += narrowed_sentences(narrowed_denies, allow=False)
        argument_rules = [r for r in profile.permission if r.pattern != "*"]
        constraints += [rule_sentence(r) for r in argument_rules]
        mcp_denies = [t for t in profile.denied_tools if split_ref(t).server is not None]
        if mcp_denies and not profile.allowed_tools:
            constraints.append("Never use these tools: " + ", ".join(mcp_denies) + ".")
        if profile.allowed_tools:
            out.append(
                _loss(
                    profile,
                    "allowed_tools",
                    LossOutcome.TRANSLATED,
                    "written as Copilot aliases (many-to-one: edit, search, web); "
                    + (f"no Copilot tool for {', '.join(unmapped)}; " if unmapped else "")
                    + ("argument patterns embedded as prose" if narrowed else "")
                    + ("denied tools removed from the list" if denies else ""),
                )
            )
        else:
            out.append(
                _loss(
                    profile,
                    "allowed_tools",
                    LossOutcome.TRANSLATED,
                    "denies need an explicit tools list (every alias and profile server not "
                    "denied); it imports back as allowed tools",
                )
            )
        if profile.denied_tools:
            out.append(
                _loss(
                    profile,
                    "denied_tools",
                    LossOutcome.TRANSLATED,
                    "no deny list: denied tools are left out of an explicit tools list"
                    + (
                        "; narrowed and per-tool MCP denies embedded as prose"
                        if narrowed_denies or mcp_denies
                        else ""
                    ),
                )
            )
        if profile.permission:
            out.append(
                _loss(
                    profile,
                    "permission",
                    LossOutcome.TRANSLATED,
                    "folded into the tools allowlist (deny removes a tool); ask is not "
                    "expressible; argument-level rules embedded as prose",
                )
            )
        if not tools and not profile.permission:
            out.append(
                _loss(
                    profile,
                    "permission",
                    LossOutcome.TRANSLATED,
                    "nothing is left allowed: tools: [] imports back as the rule '*: deny'",
                )
            )
        return tools

    # --- discover -----------------------------------------------------------------------

    def discover(self, roots: Roots) -> Discovery:
        """User agents (``~/.copilot/agents``), then project agents (``.github/agents``)
        replacing same-named ones, as the Copilot CLI reference states."""
        diagnostics: list[Diagnostic] = []
        losses: list[Loss] = []
        chosen: dict[str, AgentProfile] = {}
        inline: dict[str, McpServer] = {}
        for folder in (roots.home / USER_DIR, roots.workspace / PROJECT_DIR):
            layer: dict[str, AgentProfile] = {}
            files = list_agent_files(folder, diagnostics, harness="Copilot", recursive=False)
            for path in files:
                ident = path.name.removesuffix(".md").removesuffix(".agent")
                found = read_agent_file(path, diagnostics)
                if found is None:
                    continue
                read = read_agent(found, ident)
                diagnostics.extend(read.diagnostics)
                losses.extend(read.losses)
                if read.profile is None:
                    continue
                previous = layer.get(ident)
                if previous is not None:
                    # x.agent.md sorts before x.md; the documented name wins.
                    diagnostics.append(_shadowed(read.profile.source, previous.source, ident))
                    continue
                layer[ident] = read.profile
                inline.update(read.inline)
            for ident, profile in layer.items():
                if ident in chosen:
                    diagnostics.append(_shadowed(chosen[ident].source, profile.source, ident))
                chosen[ident] = profile
        servers = self._servers(roots, diagnostics)
        servers.update({k: v for k, v in inline.items() if k not in servers})
        profiles = []
        for ident in sorted(chosen):
            profile = chosen[ident]
            refs = [s for s in profile.mcp_servers if s in servers]
            if tuple(refs) != profile.mcp_servers:
                profile = _with_servers(profile, tuple(refs))
            profiles.append(profile)
        used = {s for p in profiles for s in p.mcp_servers}
        return Discovery(
            profiles=tuple(profiles),
            servers=tuple(servers[n] for n in sorted(servers) if n in used),
            losses=tuple(losses),
            diagnostics=tuple(diagnostics),
        )

    def _servers(self, roots: Roots, out: list[Diagnostic]) -> dict[str, McpServer]:
        servers: dict[str, McpServer] = {}
        for path, dialect in (
            (roots.home / USER_MCP, claude_mcp.COPILOT_CLI),
            (roots.workspace / PROJECT_MCP, claude_mcp.VSCODE),
        ):
            text = read_json_file(path)
            if text is None:
                continue
            data = claude_mcp.load_json_object(text, str(path), out, self.title)
            servers.update(claude_mcp.read_entries(data, text, str(path), dialect, out))
        return servers


def _with_servers(profile: AgentProfile, servers: tuple[str, ...]) -> AgentProfile:
    return msgspec.structs.replace(profile, mcp_servers=servers)


def _shadowed(loser: str, winner: str, ident: str) -> Diagnostic:
    return harness_diagnostic(
        "harness-shadowed",
        f"agent '{ident}' is also defined in {winner}, which Copilot uses instead",
        path=loser,
        hint="rename or remove one of them",
        warning=True,
    )


CODEC = CopilotCodec()
