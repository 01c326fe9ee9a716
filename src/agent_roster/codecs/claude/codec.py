"""The Claude Code codec: ``.claude/agents/**/*.md`` and ``.mcp.json`` / ``~/.claude.json``.

Claude Code is lenient: unknown keys and bad optional values are ignored, only a missing
``name``/``description`` (or a name starting with ``-``) keeps a file from loading. The
project folder replaces user agents of the same name. Tools are canonical already (Claude
names); what Claude cannot hold per agent (argument-level rules, narrowed denies) is
embedded as prose. Mapping: docs/codecs/claude.md §8, permissions.md §3.
"""

from __future__ import annotations

from collections.abc import Mapping
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
    Scope,
)
from agent_roster.codecs.base import loss as _loss
from agent_roster.codecs.claude import mcp as claude_mcp
from agent_roster.codecs.claude import semantics as claude_semantics
from agent_roster.codecs.claude.files import (
    COMMON_DROPS,
    dedupe,
    dropped,
    list_agent_files,
    name_loss,
    read_agent_file,
    read_settings_text,
)
from agent_roster.codecs.claude.read import (
    CANONICAL_KEYS,
    COLORS,
    RECOVERY,
    ReadAgent,
    read_agent,
    read_text,
)
from agent_roster.codecs.claude.rules import (
    ClaudePermissions,
    claude_mode,
    is_narrowed,
    name_problem,
    native_tool,
)
from agent_roster.codecs.native_md import (
    harness_diagnostic,
    keep_native,
    model_for,
    write_native,
)
from agent_roster.codecs.permissions import effective_rules
from agent_roster.codecs.prompt import render_prompt
from agent_roster.codecs.support import declare
from agent_roster.diagnostics import Diagnostic
from agent_roster.known_tools import DEFAULT_EMBEDDED_COMMANDS, DEFAULT_EMBEDDED_SERVER
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile
from agent_roster.model.profile import PermissionAction as PermissionAction

AGENTS_DIR = ".claude/agents"
PROJECT_MCP = ".mcp.json"
USER_MCP = ".claude.json"
#: Claude Code skips agent files larger than this (``loadMarkdownFilesFromDir``).
MAX_FILE_BYTES = 1_048_576

_DROPS = {
    **COMMON_DROPS,
    "tags": "tags are vault bookkeeping",
    "install": "Claude Code installs nothing for an agent",
}


class ClaudeCodec:
    """Claude Code subagents (docs/codecs/claude.md)."""

    name = "claude"
    title = "Claude Code"
    partitioned = True
    whole_keys: frozenset[str] = frozenset()
    options: tuple[RenderOption, ...] = ()
    #: What render does with each canonical field (docs/codecs/matrix.md; checked
    #: against probe renders by tests/codecs/test_support_matrix.py).
    support = declare(
        kept="description prompt model max_turns permission_mode allowed_tools "
        "denied_tools permission mcp_servers color",
        translated="allowed_tools denied_tools permission",
        dropped="name provider temperature top_p max_tokens_per_task mode runtime "
        "agent_name tags install",
    )
    # permission_mode "full" comes back as bypassPermissions (reported translated);
    # narrowed denies cannot be per-agent denies, so denied_tools is not native.
    native_fields = frozenset(
        {
            "id",
            "description",
            "model",
            "permission_mode",
            "max_turns",
            "allowed_tools",
            "mcp_servers",
            "color",
            "prompt",
        }
    )

    # --- render -------------------------------------------------------------------------

    def decide(self, agent: NativeAgent, probe: Probe) -> PermissionAction:
        """Claude Code's own decision for one call of ``agent`` (``claude/semantics.py``)."""
        return claude_semantics.decide(agent, probe)

    def render(self, request: RenderRequest, existing: ReadExisting) -> Rendering:
        """Agent files plus the referenced servers merged into the scope's MCP file."""
        files: list[NativeFile] = []
        losses: list[Loss] = []
        diagnostics: list[Diagnostic] = []
        rendered: list[AgentProfile] = []
        for index, profile in enumerate(request.profiles):
            if not request.owns(index):
                # Another part writes this agent; the shared MCP file needs to know
                # whether it will exist (only the part that writes that file asks).
                if request.shared and not self._problems(profile):
                    rendered.append(profile)
                continue
            native = self._render_agent(
                profile, losses, diagnostics, request.embedded, request.embedded_commands
            )
            if native is not None:
                files.append(native)
                rendered.append(profile)
        if not request.shared:
            return Rendering(
                files=tuple(files), losses=tuple(losses), diagnostics=tuple(diagnostics)
            )
        mcp_path = PROJECT_MCP if request.scope is Scope.PROJECT else USER_MCP
        # ~/.claude.json also holds OAuth state; keep it private as Claude does.
        mode = 0o600 if request.scope is Scope.USER else 0o644
        mcp_file = claude_mcp.render_mcp_file(
            rendered, request.servers, claude_mcp.CLAUDE, mcp_path, existing, diagnostics, mode=mode
        )
        if mcp_file is not None:
            files.append(mcp_file)
        return Rendering(files=tuple(files), losses=tuple(losses), diagnostics=tuple(diagnostics))

    @staticmethod
    def _problems(profile: AgentProfile) -> list[tuple[str, str]]:
        # (code, message) for each reason Claude Code would not load this agent's file.
        problems = []
        if problem := name_problem(profile.id):
            problems.append(("harness-name-invalid", f"agent name '{profile.id}': {problem}"))
        if not profile.description.strip():
            problems.append(
                (
                    "render-unsupported",
                    f"{profile.id}: Claude Code requires a description (the file would be "
                    "skipped: \"missing required 'description' in frontmatter\")",
                )
            )
        return problems

    def _render_agent(
        self,
        profile: AgentProfile,
        losses: list[Loss],
        diagnostics: list[Diagnostic],
        embedded: str = DEFAULT_EMBEDDED_SERVER,
        commands: frozenset[str] = DEFAULT_EMBEDDED_COMMANDS,
    ) -> NativeFile | None:
        path = f"{AGENTS_DIR}/{profile.id}.md"
        problems = self._problems(profile)
        if problems:
            diagnostics.extend(
                harness_diagnostic(code, message, path=path, hint="fix the profile in the vault")
                for code, message in problems
            )
            return None
        profile_losses: list[Loss] = [*name_loss(profile, self.title)]
        profile_losses += dropped(profile, _DROPS, self.title)
        data: dict[str, Any] = {"name": profile.id, "description": profile.description}
        mode = claude_mode(profile)
        perms = ClaudePermissions(profile, mode, embedded, commands)
        narrowed_allow = [t for t in profile.allowed_tools if is_narrowed(t)]
        if narrowed_allow:
            profile_losses.append(
                _loss(
                    profile,
                    "allowed_tools",
                    LossOutcome.TRANSLATED,
                    "an agent's tools list grants the whole tool (Claude Code does not enforce "
                    f"the pattern), so {', '.join(narrowed_allow)} allow every call of the tool",
                )
            )
        narrowed_deny = [t for t in profile.denied_tools if is_narrowed(t)]
        if narrowed_deny:
            profile_losses.append(
                _loss(
                    profile,
                    "denied_tools",
                    LossOutcome.DROPPED,
                    "disallowedTools removes the whole tool whatever the pattern, so "
                    f"{', '.join(narrowed_deny)} are not written",
                )
            )
        bare = [
            t
            for t in profile.allowed_tools + profile.denied_tools
            if native_tool(t, embedded, commands) != t
        ]
        if bare:
            profile_losses.append(
                _loss(
                    profile,
                    "allowed_tools" if set(bare) & set(profile.allowed_tools) else "denied_tools",
                    LossOutcome.TRANSLATED,
                    f"embedded commands {', '.join(dedupe(bare))} written as "
                    f"mcp__{embedded}__<name> (that server is roster's own)",
                )
            )
        if perms.list is not None:
            data["tools"] = dedupe(perms.list)
        denied = [
            native_tool(t, embedded, commands) for t in profile.denied_tools if not is_narrowed(t)
        ]
        if denied or perms.deny:
            data["disallowedTools"] = dedupe(denied + perms.deny)
        self._permission_losses(profile, perms, denied, profile_losses, embedded)
        model = model_for(profile, self.name)
        if model:
            data["model"] = model
        if profile.permission_mode:
            mode = profile.permission_mode
            if mode == "full":
                mode = "bypassPermissions"
                profile_losses.append(
                    _loss(
                        profile,
                        "permission_mode",
                        LossOutcome.TRANSLATED,
                        "full is written as bypassPermissions and imports back as that",
                    )
                )
            data["permissionMode"] = mode
        if profile.max_turns is not None:
            data["maxTurns"] = profile.max_turns
        if profile.mcp_servers:
            data["mcpServers"] = list(profile.mcp_servers)
        if profile.color:
            data["color"] = profile.color
            if profile.color not in COLORS:
                profile_losses.append(
                    _loss(
                        profile,
                        "color",
                        LossOutcome.DROPPED,
                        f"written, but Claude Code ignores colours other than {', '.join(COLORS)}",
                    )
                )
        self._pass_through(profile, data, profile_losses)
        losses.extend(profile_losses)
        body = render_prompt(profile)
        content = keep_native(
            profile.native.get(self.name),
            write_native(data, body),
            lambda text: read_text(text, path),
            body,
        )
        return NativeFile(path=path, content=content, profile=profile.id)

    def _permission_losses(
        self,
        profile: AgentProfile,
        perms: ClaudePermissions,
        denied: list[str],
        out: list[Loss],
        embedded: str = DEFAULT_EMBEDDED_SERVER,
    ) -> None:
        field = "permission" if profile.permission else "allowed_tools"
        # An agent file holds whole tools only: a rule by argument is not written, and the
        # tool is decided as the lists and the mode decide it (stricter here: the render
        # check refuses, or narrows, what would be wider). The rules are the ones the
        # render decided by (ClaudePermissions): a bare command is the embedded server's.
        for sourced in effective_rules(profile, embedded=embedded):
            rule = sourced.rule
            if rule.pattern != "*" and sourced.source != "permission_mode":
                out.append(
                    _loss(
                        profile,
                        sourced.source,
                        LossOutcome.TRANSLATED,
                        f"{sourced.text()}: an agent file holds no rule by argument; the whole "
                        "tool is decided by the tools lists and the permission mode",
                    )
                )
        gained = [t for t in perms.list or () if t not in profile.allowed_tools]
        if gained and profile.allowed_tools:
            for lost in dict.fromkeys((field, "allowed_tools")):
                out.append(
                    _loss(
                        profile,
                        lost,
                        LossOutcome.TRANSLATED,
                        f"tools gained {', '.join(dedupe(gained))} from the permission "
                        "rules (they import back as allowed tools)",
                    )
                )
        elif perms.list is not None and not profile.allowed_tools:
            for lost in dict.fromkeys((field, "allowed_tools")):
                out.append(
                    _loss(
                        profile,
                        lost,
                        LossOutcome.TRANSLATED,
                        "the rules deny every tool they do not name: written as the tools "
                        "list " + (", ".join(dedupe(perms.list)) or "[] (no tools)"),
                    )
                )
        extra = [t for t in perms.deny if t not in denied and t not in perms.narrowed]
        # Both import back as denied tools: denied_tools changes too.
        if extra:
            for lost in dict.fromkeys((field, "denied_tools")):
                out.append(
                    _loss(
                        profile,
                        lost,
                        LossOutcome.TRANSLATED,
                        f"disallowedTools gained {', '.join(dedupe(extra))} (the rules deny them)",
                    )
                )
        if perms.narrowed:
            for lost in dict.fromkeys((field, "denied_tools")):
                out.append(
                    _loss(
                        profile,
                        lost,
                        LossOutcome.TRANSLATED,
                        f"{', '.join(dedupe(perms.narrowed))}: ask becomes deny (Claude Code "
                        "runs them without asking in this permission mode)",
                    )
                )
        mode = profile.permission_mode or "default"
        mode = "bypassPermissions" if mode == "full" else mode
        asked = [
            t
            for t in profile.allowed_tools
            if t.startswith("mcp__")
            and claude_semantics.mode_decision(mode, t) is PermissionAction.ASK
        ]
        if asked:
            # Claude Code asks before an MCP tool the agent has, unless the mode allows all.
            for lost in dict.fromkeys((field, "permission")):
                out.append(
                    _loss(
                        profile,
                        lost,
                        LossOutcome.TRANSLATED,
                        f"{', '.join(dedupe(asked))}: allow becomes ask (Claude Code asks "
                        "before an MCP tool in this permission mode)",
                    )
                )
        if perms.stricter:
            # Import reads the mode's prompts back as ask rules: permission changes too.
            for lost in dict.fromkeys((field, "permission")):
                out.append(
                    _loss(
                        profile,
                        lost,
                        LossOutcome.TRANSLATED,
                        f"{', '.join(dedupe(perms.stricter))}: allow becomes ask (the "
                        "permission mode asks; set permission_mode to change that)",
                    )
                )

    def _pass_through(self, profile: AgentProfile, data: dict[str, Any], out: list[Loss]) -> None:
        extra = profile.harness.get("claude", {})
        clashes = []
        for key, value in extra.items():
            if key == "permissionMode" and "permissionMode" not in data:
                data[key] = value  # dontAsk, which has no canonical mode
            elif key in CANONICAL_KEYS or key in data:
                clashes.append(key)
            else:
                data[key] = value
        if clashes:
            out.append(
                _loss(
                    profile,
                    "harness",
                    LossOutcome.DROPPED,
                    f"harness.claude {', '.join(clashes)} ignored: canonical fields decide",
                )
            )

    # --- discover -----------------------------------------------------------------------

    def discover(self, roots: Roots) -> Discovery:
        """User agents, then project agents replacing same-named user agents (Claude Code's
        ``getActiveAgentsFromList`` order), and the MCP servers they reference."""
        diagnostics: list[Diagnostic] = []
        losses: list[Loss] = []
        chosen: dict[str, ReadAgent] = {}
        for folder in (roots.home / AGENTS_DIR, roots.workspace / AGENTS_DIR):
            layer: dict[str, list[ReadAgent]] = {}
            files = list_agent_files(folder, diagnostics, harness="Claude Code", recursive=True)
            for path in files:
                if path.stat().st_size > MAX_FILE_BYTES:
                    diagnostics.append(
                        harness_diagnostic(
                            "harness-ignored",
                            f"loadMarkdownFilesFromDir: skipping {path}: not a regular file or "
                            f"exceeds {MAX_FILE_BYTES} byte limit",
                            path=str(path),
                            hint="keep agent files under 1 MiB",
                            warning=True,
                        )
                    )
                    continue
                found = read_agent_file(path, diagnostics, RECOVERY)
                if found is None:
                    continue
                read = read_agent(found)
                diagnostics.extend(read.diagnostics)
                if read.profile is not None:
                    layer.setdefault(read.profile.id, []).append(read)
            for name, reads in layer.items():
                winner = reads[-1]
                where = winner.profile.source if winner.profile else ""
                for loser in reads[:-1]:
                    diagnostics.append(
                        _shadowed(
                            loser,
                            f"agent '{name}' is defined again in {where}; "
                            "Claude Code keeps only one of them (which one is not specified)",
                        )
                    )
                if name in chosen:
                    diagnostics.append(
                        _shadowed(
                            chosen[name],
                            f"project agent '{name}' ({where}) replaces this user agent",
                        )
                    )
                chosen[name] = winner
        profiles = [chosen[name].profile for name in sorted(chosen)]
        for name in sorted(chosen):
            losses.extend(chosen[name].losses)
        servers = self._servers(roots, [chosen[n] for n in sorted(chosen)], diagnostics)
        return Discovery(
            profiles=tuple(p for p in profiles if p is not None),
            servers=tuple(servers),
            losses=tuple(losses),
            diagnostics=tuple(diagnostics),
        )

    def _servers(
        self, roots: Roots, reads: list[ReadAgent], out: list[Diagnostic]
    ) -> list[McpServer]:
        """Referenced servers by Claude's scope order: local > project > user; an inline
        agent server loses to a parent server of the same name (the parent connection is
        reused)."""
        user_path = roots.home / USER_MCP
        user_text = read_settings_text(user_path, out) or ""
        user_data = (
            claude_mcp.load_json_object(user_text, str(user_path), out, self.title)
            if user_text
            else {}
        )
        user = claude_mcp.read_entries(user_data, user_text, str(user_path), claude_mcp.CLAUDE, out)
        local: dict[str, McpServer] = {}
        projects = user_data.get("projects")
        if isinstance(projects, Mapping):
            entry = projects.get(str(roots.workspace.resolve())) or projects.get(
                str(roots.workspace)
            )
            if isinstance(entry, Mapping):
                local = claude_mcp.read_entries(
                    entry, user_text, str(user_path), claude_mcp.CLAUDE, out
                )
        project_path = roots.workspace / PROJECT_MCP
        project_text = read_settings_text(project_path, out) or ""
        project_data = (
            claude_mcp.load_json_object(project_text, str(project_path), out, self.title)
            if project_text
            else {}
        )
        project = claude_mcp.read_entries(
            project_data, project_text, str(project_path), claude_mcp.CLAUDE, out
        )
        parent = {**user, **project, **local}
        result: dict[str, McpServer] = {}
        for read in reads:
            if read.profile is None:
                continue
            for name in read.profile.mcp_servers:
                if name in read.inline and name in parent:
                    out.append(
                        harness_diagnostic(
                            "harness-shadowed",
                            f"inline MCP server '{name}' of agent '{read.profile.id}' is not "
                            "used: Claude Code reuses the configured server of that name",
                            path=read.profile.source,
                            hint="rename the inline server or drop it",
                            warning=True,
                        )
                    )
                server = parent.get(name) or read.inline.get(name)
                if server is None:
                    out.append(
                        harness_diagnostic(
                            "harness-ignored",
                            f"agent '{read.profile.id}' names MCP server '{name}', which no "
                            "Claude Code configuration defines",
                            path=read.profile.source,
                            hint=f"add '{name}' to .mcp.json or ~/.claude.json",
                            warning=True,
                        )
                    )
                    continue
                result.setdefault(name, server)
        return [result[name] for name in sorted(result)]


def _shadowed(read: ReadAgent, message: str) -> Diagnostic:
    source = read.profile.source if read.profile else ""
    return harness_diagnostic(
        "harness-shadowed", message, path=source, hint="rename or remove one file", warning=True
    )


CODEC = ClaudeCodec()
