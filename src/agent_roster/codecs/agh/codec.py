"""The AGH codec: ``.agh/agents/<name>/AGENT.md`` plus ``mcp.json`` and capability sidecars.

AGH is strict (seed 002): unknown frontmatter keys (``description`` included) fail, the body
is the required prompt, ``tools``/``deny_tools`` follow AGH's ToolID grammar, and one bad file
makes AGH refuse the whole load. Discovery reproduces that; render validates every file with
the same rules (``agh.rules``) before returning it. Mapping: docs/codecs/agh.md §8.
"""

from __future__ import annotations

from functools import lru_cache, partial
from pathlib import Path
from typing import Any

import msgspec

from agent_roster.codecs.agh import rules
from agent_roster.codecs.agh import semantics as agh_semantics
from agent_roster.codecs.agh.read import (
    SIDECAR,
    AghFile,
    check_fields,
    exact_layout,
    load_frontmatter,
    read_agent,
    split_agent_md,
)
from agent_roster.codecs.agh.render import render_profile
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
from agent_roster.codecs.native_md import harness_diagnostic, keep_native
from agent_roster.codecs.prompt import import_body
from agent_roster.codecs.support import declare
from agent_roster.codecs.unloaded import not_loaded
from agent_roster.diagnostics import Diagnostic
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile, PermissionRule, Runtime
from agent_roster.model.profile import PermissionAction as PermissionAction


def _is_mcp_ref(value: str) -> bool:
    parts = value.split("__")
    return len(parts) == 3 and parts[0] == "mcp" and bool(parts[1]) and bool(parts[2])


class AghCodec:
    """AGH (``compozy/agh``): agent definitions AGH starts over ACP."""

    name = "agh"
    title = "AGH"
    partitioned = True
    whole_keys: frozenset[str] = frozenset()
    options: tuple[RenderOption, ...] = ()
    #: What render does with each canonical field (docs/codecs/matrix.md; checked
    #: against probe renders by tests/codecs/test_support_matrix.py).
    support = declare(
        kept="description prompt model mcp_servers agent_name",
        translated="permission_mode permission",
        dropped="name provider temperature top_p max_turns max_tokens_per_task mode "
        "color runtime tags install",
        refused="permission_mode allowed_tools denied_tools permission mcp_servers",
    )
    native_fields = frozenset({"id", "model", "agent_name", "mcp_servers", "prompt"})

    # -- discover -------------------------------------------------------------------------

    def discover(self, roots: Roots) -> Discovery:
        """Workspace root first, global home second, first name wins; any invalid file
        refuses the whole load (``LoadWorkspaceAgentDefs`` returns its error)."""
        diagnostics: list[Diagnostic] = []
        files: list[AghFile] = []
        for agents_dir in (roots.workspace / rules.AGENTS_DIR, roots.home / rules.AGENTS_DIR):
            if not agents_dir.is_dir():
                continue
            # os.ReadDir sorts by file name; AGH keeps the first agent of each name.
            for entry in sorted(agents_dir.iterdir(), key=lambda p: p.name):
                # DirEntry.IsDir in Go does not follow symlinks: a linked folder is skipped.
                if entry.is_dir() and not entry.is_symlink():
                    found = read_agent(entry, diagnostics)
                    if found is not None:
                        files.append(found)
                        continue
                    why = "the folder has no AGENT.md"
                elif entry.is_symlink() and entry.is_dir():
                    why = "AGH skips symlinked folders"
                else:
                    why = "agents are folders (<name>/AGENT.md), not files"
                if not entry.name.startswith("."):
                    hint = "make it a folder <name>/ with an AGENT.md inside"
                    diagnostics.append(not_loaded(entry, "AGH", why, hint))
        if any(d.is_error for d in diagnostics):
            return Discovery(diagnostics=tuple(diagnostics))
        profiles: list[AgentProfile] = []
        servers: dict[str, McpServer] = {}
        losses: list[Loss] = []
        winners: dict[str, Path] = {}
        for found in files:
            name = str(found.data["name"]).strip()
            if name in winners:
                diagnostics.append(
                    harness_diagnostic(
                        "harness-shadowed",
                        f"agent {name!r} is also defined in {winners[name]}, which AGH finds "
                        "first (workspace before global home); this definition is not used",
                        path=str(found.path),
                        warning=True,
                        hint="AGH does not merge definitions; delete or rename one of them",
                    )
                )
                continue
            winners[name] = found.path
            profile = self._to_profile(found, servers, losses, diagnostics)
            profiles.append(profile)
        return Discovery(
            profiles=tuple(profiles),
            servers=tuple(servers.values()),
            losses=tuple(losses),
            diagnostics=tuple(diagnostics),
        )

    def _to_profile(
        self,
        found: AghFile,
        servers: dict[str, McpServer],
        losses: list[Loss],
        diagnostics: list[Diagnostic],
    ) -> AgentProfile:
        data = found.data
        pid = found.dir_name

        def loss(field: str, outcome: LossOutcome, detail: str) -> None:
            losses.append(Loss(profile=pid, field=field, outcome=outcome, detail=detail))

        extra: dict[str, Any] = {}
        for key in ("command", "toolsets", "skills", "category_path", "hooks"):
            value = data.get(key)
            if value not in (None, "", [], {}):
                extra[key] = value.strip() if isinstance(value, str) else value
        allowed: list[str] = []
        denied: list[str] = []
        for key, canonical in (("tools", allowed), ("deny_tools", denied)):
            native_only: list[str] = []
            for value in data.get(key) or ():
                value = value.strip()
                target = canonical if _is_mcp_ref(value) else native_only
                if value not in target:
                    target.append(value)
            if native_only:
                extra[key] = native_only
        if found.capabilities:
            extra["capabilities"] = dict(found.capabilities)
        permissions = str(data.get("permissions") or "").strip()
        # Never widen (issue 12 item 2): AGH's own decisions written out, the config's
        # default mode (approve-all) when the agent sets none, and the MCP filters of
        # `tools` and `deny_tools` (they filter MCP tools only, never built-ins).
        rules_in = _default_rules(
            permissions or agh_semantics.DEFAULT_MODE,
            tuple(str(t).strip() for t in data.get("tools") or ()),
            tuple(str(t).strip() for t in data.get("deny_tools") or ()),
            tuple(allowed + denied),
        )
        loss(
            "permissions",
            LossOutcome.TRANSLATED,
            f"permissions: {permissions or agh_semantics.DEFAULT_MODE}"
            + ("" if permissions else " (AGH's default)")
            + " became permission rules "
            + ", ".join(f"{r.permission} {r.action.value}" for r in rules_in),
        )
        provider = str(data.get("provider") or "").strip()
        if provider:
            loss(
                "provider",
                LossOutcome.TRANSLATED,
                f"provider {provider!r} (the CLI AGH launches) became agent_name with the "
                "acpx runtime",
            )
        names: list[str] = []
        for server_name, raw in found.servers.items():
            server, notes = rules.server_from_native(server_name, raw)
            for note in notes:
                loss("mcp_servers", LossOutcome.DROPPED, f"{server_name}: {note}")
            known = servers.get(server_name)
            if known is not None and known != server:
                diagnostics.append(
                    harness_diagnostic(
                        "harness-ignored",
                        f"MCP server {server_name!r} differs from the one of an earlier agent; "
                        "the registry keeps the first definition",
                        path=str(found.path.parent / SIDECAR),
                        warning=True,
                        hint="give the two servers different names in AGH",
                    )
                )
            else:
                servers[server_name] = server
            names.append(server_name)
        sections, prompt_notes = import_body(found.prompt)
        for note in prompt_notes:
            loss("prompt", LossOutcome.TRANSLATED, note)
        return AgentProfile(
            id=pid,
            name=pid,
            model=str(data.get("model") or "").strip(),
            agent_name=provider,
            runtime=Runtime.ACPX if provider else None,
            permission=rules_in,
            allowed_tools=tuple(allowed),
            denied_tools=tuple(denied),
            mcp_servers=tuple(names),
            sections=sections,
            harness={"agh": extra} if extra else {},
            native={"agh": found.native},
            source=str(found.path),
        )

    def read_text(self, text: str, path: str, dir_name: str) -> AgentProfile | None:
        """The agent AGH loads from an ``AGENT.md`` holding ``text`` in folder ``dir_name``
        (its sidecar and capability files aside); None when AGH refuses it."""
        split = split_agent_md(text)
        if isinstance(split, str):
            return None
        loaded = load_frontmatter(split[0], path)
        if isinstance(loaded, str) or any(
            d.is_error for d in check_fields(loaded[0], loaded[1], dir_name, path)
        ):
            return None
        layout = exact_layout(text, split[2])
        found = AghFile(dir_name, Path(path), loaded[0], layout.prompt, {}, {}, True)
        return self._to_profile(found, {}, [], [])

    # -- render ---------------------------------------------------------------------------

    def decide(self, agent: NativeAgent, probe: Probe) -> PermissionAction:
        """AGH's own decision for one call of ``agent`` (``agh/semantics.py``)."""
        return agh_semantics.decide(agent, probe)

    def render(self, request: RenderRequest, existing: ReadExisting) -> Rendering:
        """``AGENT.md`` (+ ``mcp.json``, capability files) per profile, each checked with
        AGH's rules; a profile AGH would refuse gets ``render-unsupported`` and no file."""
        files: list[NativeFile] = []
        losses: list[Loss] = []
        diagnostics: list[Diagnostic] = []
        # Every file belongs to one agent (its MCP servers are its own mcp.json): nothing
        # is shared, so a part renders just its agents (RenderRequest.part).
        for profile in request.owned():
            out_files, out_losses, out_diags = render_profile(profile, request, existing)
            form = profile.native.get(self.name)
            if form is not None and out_files:
                agent = out_files[0]  # AGENT.md comes first
                read = partial(self.read_text, path=agent.path, dir_name=profile.id)
                content = keep_native(form, agent.content, read)
                out_files[0] = msgspec.structs.replace(agent, content=content)
            files.extend(out_files)
            losses.extend(out_losses)
            diagnostics.extend(out_diags)
        return Rendering(files=tuple(files), losses=tuple(losses), diagnostics=tuple(diagnostics))


CODEC = AghCodec()


@lru_cache(maxsize=256)
def _default_rules(
    mode: str, tools: tuple[str, ...], deny: tuple[str, ...], mcp: tuple[str, ...]
) -> tuple[PermissionRule, ...]:
    """AGH's decision for every tool as rules (``defaults.explicit_rules``)."""
    if not tools and not deny:
        return rules.PERMISSION_RULES[mode]  # the mode alone: its own short form
    data: dict[str, Any] = {"permissions": mode, "tools": list(tools), "deny_tools": list(deny)}
    return explicit_rules(partial(agh_semantics.decide_data, data), mcp)
