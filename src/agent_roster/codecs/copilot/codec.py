"""The GitHub Copilot codec: ``.github/agents/<id>.agent.md`` and the MCP files.

One file format read by the cloud agent, the Copilot CLI and VS Code. The agent id is the
file's path in its folder (``sub/x.agent.md`` is ``sub--x``); ``name`` is a display name;
``tools`` is an allowlist of aliases (``execute``, ``read``, ``edit``, ``search``, ``agent``,
``web``, ``todo``), CLI tool names (``grep``, ``glob``) and ``<server>/<tool>`` MCP names,
with no deny list, so denies narrow the allowlist and argument rules become prose. Where
the CLI finds agents and servers, and which wins, is ``layers.py``; the MCP servers of a
project render go to ``.mcp.json`` (the CLI) and ``.vscode/mcp.json`` (VS Code), or to one
of them (option ``mcp``). Mapping: docs/codecs/copilot.md §8.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import msgspec

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
    Scope,
)
from agent_roster.codecs.base import loss as _loss
from agent_roster.codecs.claude import mcp as claude_mcp
from agent_roster.codecs.claude.files import (
    COMMON_DROPS,
    dropped,
    read_agent_file,
    read_settings_text,
)
from agent_roster.codecs.claude.rules import narrowed_sentences, rule_sentence
from agent_roster.codecs.copilot import layers
from agent_roster.codecs.copilot import read as copilot_read
from agent_roster.codecs.copilot import semantics as copilot_semantics
from agent_roster.codecs.copilot.layers import PROJECT_AGENTS, USER_AGENTS, USER_MCP, VSCODE_MCP
from agent_roster.codecs.copilot.read import MAX_PROMPT, read_agent, read_text
from agent_roster.codecs.copilot.tools import (
    ALIASES,
    CLI_RESERVED_SERVER,
    cli_names,
    joined,
    native_tool,
)
from agent_roster.codecs.native_md import harness_diagnostic, keep_native, write_native
from agent_roster.codecs.permissions import SourcedRule, effective_rules, evaluate
from agent_roster.codecs.prompt import render_prompt
from agent_roster.codecs.support import declare
from agent_roster.codecs.tool_names import opencode_key, split_ref
from agent_roster.diagnostics import Diagnostic
from agent_roster.known_tools import DEFAULT_EMBEDDED_COMMANDS
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile, PermissionRule
from agent_roster.model.profile import PermissionAction as PermissionAction

__all__ = ["CODEC", "MCP_OPTION", "CopilotCodec", "native_tool"]

#: Which MCP files a project render writes: the CLI reads ``.mcp.json`` and never
#: ``.vscode/mcp.json``; VS Code reads ``.vscode/mcp.json``.
MCP_OPTION = RenderOption(
    name="mcp",
    choices=("both", "cli", "vscode"),
    help="project MCP files: .mcp.json (Copilot CLI) and .vscode/mcp.json (VS Code), "
    "or only one of them",
)
_PROJECT_MCP = {
    "both": ((layers.WORKSPACE_MCP, claude_mcp.COPILOT_CLI), (VSCODE_MCP, claude_mcp.VSCODE)),
    "cli": ((layers.WORKSPACE_MCP, claude_mcp.COPILOT_CLI),),
    "vscode": ((VSCODE_MCP, claude_mcp.VSCODE),),
}
_DROPS = {
    **COMMON_DROPS,
    "permission_mode": "no approval modes in an agent file",
    "max_turns": "no turn limit per agent",
    "color": "no colour key",
    "tags": "tags are vault bookkeeping",
    "install": "Copilot installs nothing for an agent",
}


@cache
def _carried() -> tuple[frozenset[PermissionRule], frozenset[SourcedRule]]:
    """The rules an import writes for an agent without ``tools``, as written and as
    evaluated: a render needs no list for them."""
    written = copilot_read.default_rules(None, ())
    found = effective_rules(AgentProfile(id="x", name="x", permission=written))
    return frozenset(written), frozenset(found)


class CopilotCodec:
    """GitHub Copilot custom agents (docs/codecs/copilot.md)."""

    name = "copilot"
    title = "GitHub Copilot"
    partitioned = True
    whole_keys: frozenset[str] = frozenset()
    options = (MCP_OPTION,)
    #: What render does with each canonical field (docs/codecs/matrix.md; checked
    #: against probe renders by tests/codecs/test_support_matrix.py).
    support = declare(
        kept="name description prompt model denied_tools",
        translated="allowed_tools denied_tools permission mcp_servers",
        embedded="permission",
        dropped="provider temperature top_p max_turns max_tokens_per_task "
        "permission_mode mode color runtime agent_name tags install",
    )
    native_fields = frozenset({"id", "name", "description", "model", "prompt"})

    def decide(self, agent: NativeAgent, probe: Probe) -> PermissionAction:
        """Copilot's own decision for one call of ``agent`` (``copilot/semantics.py``)."""
        return copilot_semantics.decide(agent, probe)

    def render(self, request: RenderRequest, existing: ReadExisting) -> Rendering:
        """Agent files, and the referenced servers merged into the scope's MCP files:
        ``.mcp.json`` and ``.vscode/mcp.json`` (project; option ``mcp`` picks one) or
        ``~/.copilot/mcp-config.json`` (user)."""
        files: list[NativeFile] = []
        losses: list[Loss] = []
        diagnostics: list[Diagnostic] = []
        rendered = []
        folder = PROJECT_AGENTS if request.scope is Scope.PROJECT else USER_AGENTS
        named: set[str] = set()
        # Another part's agent is rendered here only to learn whether the MCP file gets
        # its servers; that part writes it and reports on it.
        for profile, owned in request.to_render(named):
            said = (losses, diagnostics) if owned else ([], [])
            native = self._render_agent(
                profile, folder, *said, request.embedded, request.embedded_commands
            )
            if native is not None:
                if owned:
                    files.append(native)
                rendered.append(profile)
                named.update(profile.mcp_servers)
        if not request.shared:
            return Rendering(
                files=tuple(files), losses=tuple(losses), diagnostics=tuple(diagnostics)
            )
        if request.scope is Scope.PROJECT:
            targets = _PROJECT_MCP[request.option(MCP_OPTION)]
        else:
            targets = ((USER_MCP, claude_mcp.COPILOT_CLI),)
        for mcp_path, dialect in targets:
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
        if profile.prompt_length > MAX_PROMPT:
            # Too long already without the constraints render would add: refused before
            # its tools are worked out and its prompt is built.
            diagnostics.append(self._too_long(profile, profile.prompt_length, path))
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
            diagnostics.append(self._too_long(profile, len(body), path))
            return None
        losses.extend(out)
        content = keep_native(
            profile.native.get(self.name),
            write_native(data, body),
            lambda text: read_text(text, path, profile.id),
            body,
        )
        return NativeFile(path=path, content=content, profile=profile.id)

    @staticmethod
    def _too_long(profile: AgentProfile, length: int, path: str) -> Diagnostic:
        return harness_diagnostic(
            "render-unsupported",
            f"{profile.id}: the prompt has {length} characters; Copilot allows "
            f"at most {MAX_PROMPT:,}",
            path=path,
            hint="shorten the prose sections",
        )

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
        # Copilot's own defaults (what an import writes for no list: denies of the tools
        # it does not have, asks where it asks) are carried without a list.
        carried = _carried()
        denies = [
            r for r in rules if r.rule.action is PermissionAction.DENY and r not in carried[1]
        ]
        if not profile.allowed_tools and not denies:
            uncarried = [r for r in profile.permission if r not in carried[0]]
            if uncarried:
                constraints += [rule_sentence(r) for r in uncarried]
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

        def denied(tool: str) -> bool:
            key = opencode_key(tool, embedded=embedded, commands=commands)
            return evaluate(deny_rules, key).action is PermissionAction.DENY

        for name in candidates:
            ref = split_ref(name)
            if ref.argument is not None:
                narrowed.append(name)
            if name in ALIASES:  # only when nothing is allowed-only: every alias not denied
                kept = [m for m in ALIASES[name] if not denied(m)]
                if len(kept) == len(ALIASES[name]):
                    natives = [name]
                elif name == "search":  # the CLI takes grep and glob apart
                    natives = [n for m in kept if (n := native_tool(m)) is not None]
                else:
                    natives = []
                tools.extend(n for n in natives if n not in tools)
                continue
            native = native_tool(name, embedded, commands)
            if native is None:
                unmapped.append(name)
                continue
            if not denied(ref.tool if ref.server is None else name):
                tools.extend(n for n in cli_names(native) if n not in tools)
        tools = joined(tools)
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
            notes = ["written as Copilot aliases and CLI tool names (many-to-one: edit, web)"]
            if unmapped:
                notes.append(f"no Copilot tool for {', '.join(unmapped)}")
            if narrowed:
                notes.append("argument patterns embedded as prose")
            if denies:
                notes.append("denied tools removed from the list")
            if f"{CLI_RESERVED_SERVER}/*" in tools:
                notes.append(
                    f"the Copilot CLI reads {CLI_RESERVED_SERVER}/* as its built-in GitHub "
                    f"server, so it offers none of the registry's {CLI_RESERVED_SERVER} "
                    f"server's tools (name them one by one)"
                )
            out.append(_loss(profile, "allowed_tools", LossOutcome.TRANSLATED, "; ".join(notes)))
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
        """The agents the Copilot CLI loads (``layers.py``): the user's first, then the
        project's ``.github/agents`` and ``.claude/agents``, each read recursively; of two
        agents with one id the first wins and the other is reported shadowed."""
        diagnostics: list[Diagnostic] = []
        losses: list[Loss] = []
        chosen: dict[str, AgentProfile] = {}
        inline: dict[str, McpServer] = {}
        for layer in layers.layers(roots.home, roots.workspace):
            for found in layers.agent_files(layer, diagnostics):
                agent = read_agent_file(found.path, diagnostics)
                if agent is None:
                    continue
                read = read_agent(agent, found.ident)
                diagnostics.extend(read.diagnostics)
                if read.profile is None:
                    continue
                winner = chosen.get(found.ident)
                if winner is not None:
                    diagnostics.append(_shadowed(read.profile.source, winner.source, found.ident))
                    continue
                losses.extend(read.losses)
                chosen[found.ident] = read.profile
                for name, server in read.inline.items():
                    inline.setdefault(name, server)
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
        """The user's servers, then the workspace file's (trusted folder only), which
        replace user servers of the same name."""
        servers: dict[str, McpServer] = {}
        user = roots.home / USER_MCP
        workspace = layers.workspace_mcp(roots.workspace)
        trusted = workspace is not None and layers.trusted(roots.workspace, roots.home)
        if workspace is not None and not trusted:
            out.append(
                harness_diagnostic(
                    "harness-ignored",
                    f"the Copilot CLI reads {workspace.name} only in a trusted folder, and "
                    f"{roots.workspace} is not trusted",
                    path=str(workspace),
                    hint="trust the folder when Copilot asks (it is saved in "
                    "~/.copilot/config.json trustedFolders), or run with COPILOT_ALLOW_ALL=true",
                    warning=True,
                )
            )
        vscode = roots.workspace / VSCODE_MCP
        if vscode.is_file():
            out.append(
                harness_diagnostic(
                    "harness-ignored",
                    "the Copilot CLI does not read .vscode/mcp.json (VS Code does)",
                    path=str(vscode),
                    hint="put the servers in .mcp.json too "
                    "(roster render --to copilot writes both)",
                    warning=True,
                )
            )
        for path in (user, workspace if trusted else None):
            if path is None:
                continue
            text = read_settings_text(path, out)
            if text is None:
                continue
            data = claude_mcp.load_json_object(text, str(path), out, self.title)
            found = claude_mcp.read_entries(data, text, str(path), claude_mcp.COPILOT_CLI, out)
            servers.update(found)
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
