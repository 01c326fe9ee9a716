"""The Cursor codec: ``.cursor/agents/*.md`` and ``.cursor/mcp.json``.

Cursor subagents have a name, a description, a model and two switches (``readonly``,
``is_background``); there is no tool list and no per-agent MCP server, so permissions are
``readonly`` or prose, and servers go into ``mcp.json`` where every agent sees them.
Closed source: the rules follow cursor.com/docs (docs/codecs/cursor.md, confidence medium).
"""

from __future__ import annotations

import re
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
from agent_roster.codecs.base import loss as _loss
from agent_roster.codecs.claude import mcp as claude_mcp
from agent_roster.codecs.claude.files import (
    COMMON_DROPS,
    AgentFile,
    diag_at,
    dropped,
    import_document,
    list_agent_files,
    name_loss,
    read_agent_file,
    read_settings_text,
)
from agent_roster.codecs.claude.rules import rule_sentence
from agent_roster.codecs.cursor import semantics as cursor_semantics
from agent_roster.codecs.native_md import (
    harness_diagnostic,
    keep_native,
    model_for,
    native_model,
    read_native,
    write_native,
)
from agent_roster.codecs.permissions import effective_rules, evaluate
from agent_roster.codecs.prompt import render_prompt
from agent_roster.codecs.support import declare
from agent_roster.diagnostics import Diagnostic
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile, PermissionRule
from agent_roster.model.profile import PermissionAction as PermissionAction

AGENTS_DIR = ".cursor/agents"
MCP_FILE = ".cursor/mcp.json"
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_KEYS = frozenset({"name", "description", "model", "readonly", "is_background"})
#: Cursor's default: a subagent has every tool of its parent, run without asking (§5).
_DEFAULT_RULES = (PermissionRule(permission="*", action=PermissionAction.ALLOW),)
_READONLY_RULES = (
    PermissionRule(permission="edit", action=PermissionAction.DENY),
    PermissionRule(permission="bash", action=PermissionAction.DENY),
)
_DROPS = {
    **COMMON_DROPS,
    "max_turns": "no turn limit per subagent",
    "color": "no colour key",
    "tags": "tags are vault bookkeeping",
    "install": "Cursor installs nothing for an agent",
}


def readonly(profile: AgentProfile) -> bool:
    """permissions.md §3: ``readonly`` iff the mode is ``plan`` or the effective decision
    for both ``edit`` and ``bash`` is ``deny``."""
    if profile.permission_mode == "plan":
        return True
    rules = effective_rules(profile)
    return all(evaluate(rules, key).action is PermissionAction.DENY for key in ("edit", "bash"))


class CursorCodec:
    """Cursor subagents (docs/codecs/cursor.md)."""

    name = "cursor"
    title = "Cursor"
    partitioned = True
    whole_keys: frozenset[str] = frozenset()
    options: tuple[RenderOption, ...] = ()
    #: What render does with each canonical field (docs/codecs/matrix.md; checked
    #: against probe renders by tests/codecs/test_support_matrix.py).
    support = declare(
        kept="description prompt model",
        translated="permission_mode mcp_servers",
        dropped="name provider temperature top_p max_turns max_tokens_per_task "
        "permission_mode mode color runtime agent_name tags install",
        refused="allowed_tools denied_tools permission",
    )
    native_fields = frozenset({"id", "description", "model", "prompt"})

    def decide(self, agent: NativeAgent, probe: Probe) -> PermissionAction:
        """Cursor's own decision for one call of ``agent`` (``cursor/semantics.py``)."""
        return cursor_semantics.decide(agent, probe)

    def render(self, request: RenderRequest, existing: ReadExisting) -> Rendering:
        """Agent files, and the referenced servers merged into ``.cursor/mcp.json``."""
        files: list[NativeFile] = []
        losses: list[Loss] = []
        diagnostics: list[Diagnostic] = []
        rendered = []
        named: set[str] = set()
        # Another part's agent is rendered here only to learn whether the MCP file gets
        # its servers; that part writes it and reports on it.
        for profile, owned in request.to_render(named):
            native = self._render_agent(profile, *((losses, diagnostics) if owned else ([], [])))
            if native is not None:
                if owned:
                    files.append(native)
                rendered.append(profile)
                named.update(profile.mcp_servers)
        if not request.shared:
            return Rendering(
                files=tuple(files), losses=tuple(losses), diagnostics=tuple(diagnostics)
            )
        mcp_file = claude_mcp.render_mcp_file(
            rendered, request.servers, claude_mcp.CURSOR, MCP_FILE, existing, diagnostics
        )
        if mcp_file is not None:
            files.append(mcp_file)
        return Rendering(files=tuple(files), losses=tuple(losses), diagnostics=tuple(diagnostics))

    def _render_agent(
        self, profile: AgentProfile, losses: list[Loss], diagnostics: list[Diagnostic]
    ) -> NativeFile | None:
        path = f"{AGENTS_DIR}/{profile.id}.md"
        problems = []
        if not _NAME.match(profile.id):
            problems.append(
                (
                    "harness-name-invalid",
                    f"agent name '{profile.id}': Cursor names are lowercase letters, digits, "
                    "'-' and '_' (docs/codecs/cursor.md §2)",
                )
            )
        if not profile.description.strip():
            problems.append(("render-unsupported", f"{profile.id}: Cursor requires a description"))
        if problems:
            diagnostics.extend(
                harness_diagnostic(code, msg, path=path, hint="fix the profile in the vault")
                for code, msg in problems
            )
            return None
        out = [*name_loss(profile, self.title), *dropped(profile, _DROPS, self.title)]
        data: dict[str, Any] = {"name": profile.id, "description": profile.description}
        model = model_for(profile, self.name)
        if model:
            data["model"] = model
        constraints: list[str] = []
        is_readonly = readonly(profile)
        if is_readonly:
            data["readonly"] = True
        if profile.permission_mode:
            outcome = LossOutcome.TRANSLATED if is_readonly else LossOutcome.DROPPED
            detail = (
                "written as readonly: true (imports back as edit and bash deny rules)"
                if is_readonly
                else "Cursor has no approval modes; only readonly"
            )
            out.append(_loss(profile, "permission_mode", outcome, detail))
        if profile.allowed_tools:
            constraints.append("Use only these tools: " + ", ".join(profile.allowed_tools) + ".")
            out.append(_loss(profile, "allowed_tools", LossOutcome.EMBEDDED, "no tool list"))
        if profile.denied_tools:
            constraints.append("Never use these tools: " + ", ".join(profile.denied_tools) + ".")
            out.append(_loss(profile, "denied_tools", LossOutcome.EMBEDDED, "no deny list"))
        # Cursor's default (every tool) and readonly are carried; only other rules are not.
        carried = _DEFAULT_RULES + (_READONLY_RULES if is_readonly else ())
        rules = [rule for rule in profile.permission if rule not in carried]
        if rules:
            constraints += [rule_sentence(rule) for rule in rules]
            out.append(_loss(profile, "permission", LossOutcome.EMBEDDED, "no permission rules"))
        elif is_readonly:
            # Either way (mode plan, or edit and bash denied) readonly comes back as rules.
            out.append(
                _loss(
                    profile,
                    "permission",
                    LossOutcome.TRANSLATED,
                    "edit and bash are denied: readonly: true, imported back as deny rules",
                )
            )
        if profile.mcp_servers:
            out.append(
                _loss(
                    profile,
                    "mcp_servers",
                    LossOutcome.TRANSLATED,
                    f"written to {MCP_FILE}; Cursor gives every subagent every server there",
                )
            )
        extra = profile.harness.get("cursor", {})
        for key, value in extra.items():
            if key not in data and key not in {"name", "description", "model", "readonly"}:
                data[key] = value
        losses.extend(out)
        body = render_prompt(profile, constraints)
        content = keep_native(
            profile.native.get(self.name),
            write_native(data, body),
            lambda text: self.read_text(text, path),
            body,
        )
        return NativeFile(path=path, content=content, profile=profile.id)

    # --- discover -----------------------------------------------------------------------

    def discover(self, roots: Roots) -> Discovery:
        """User agents, then project agents replacing same-named ones (assumed: the docs
        do not state Cursor's precedence), plus every server in the two ``mcp.json``."""
        diagnostics: list[Diagnostic] = []
        losses: list[Loss] = []
        chosen: dict[str, AgentProfile] = {}
        for folder in (roots.home / AGENTS_DIR, roots.workspace / AGENTS_DIR):
            files = list_agent_files(folder, diagnostics, harness="Cursor", recursive=False)
            for path in files:
                found = read_agent_file(path, diagnostics)
                if found is None:
                    continue
                profile, file_losses, problems = self._read(found)
                diagnostics.extend(problems)
                losses.extend(file_losses)
                if profile is None:
                    continue
                if profile.id in chosen:
                    diagnostics.append(
                        harness_diagnostic(
                            "harness-shadowed",
                            f"agent '{profile.id}' is replaced by {profile.source}",
                            path=chosen[profile.id].source,
                            hint="rename or remove one of them",
                            warning=True,
                        )
                    )
                chosen[profile.id] = profile
        servers: dict[str, McpServer] = {}
        for base in (roots.home, roots.workspace):
            path = base / MCP_FILE
            text = read_settings_text(path, diagnostics)
            if text is None:
                continue
            data = claude_mcp.load_json_object(text, str(path), diagnostics, self.title)
            servers.update(
                claude_mcp.read_entries(data, text, str(path), claude_mcp.CURSOR, diagnostics)
            )
        return Discovery(
            profiles=tuple(chosen[name] for name in sorted(chosen)),
            servers=tuple(servers[name] for name in sorted(servers)),
            losses=tuple(losses),
            diagnostics=tuple(diagnostics),
        )

    def _read(self, found: AgentFile) -> tuple[AgentProfile | None, list[Loss], list[Diagnostic]]:
        doc, path = found.doc, found.path
        data = doc.data
        out: list[Diagnostic] = []
        name = data.get("name")
        if not isinstance(name, str) or not name.strip():
            out.append(
                diag_at(
                    doc,
                    path,
                    "name",
                    "harness-invalid",
                    "a subagent needs a name",
                    "add name: <id> to the frontmatter",
                )
            )
            return None, [], out
        description = data.get("description")
        if not isinstance(description, str) or not description.strip():
            out.append(
                diag_at(
                    doc,
                    path,
                    "description" if "description" in data else "name",
                    "harness-invalid",
                    "a subagent needs a description",
                    "Cursor reads the description to decide when to delegate",
                )
            )
            return None, [], out
        name = name.strip()
        losses: list[Loss] = []
        harness: dict[str, Any] = {}
        for key, value in data.items():
            if key == "is_background":
                harness[key] = value
            elif key not in _KEYS:
                harness[key] = value
                out.append(
                    diag_at(
                        doc,
                        path,
                        key,
                        "harness-ignored",
                        f"unknown key '{key}': Cursor ignores it",
                        "the value is kept in harness.cursor",
                        warning=True,
                    )
                )
        model = data.get("model")
        model_text = model.strip() if isinstance(model, str) else ""
        if model_text.lower() == "inherit":
            model_text = ""
        if model is not None and not isinstance(model, str):
            out.append(
                diag_at(
                    doc,
                    path,
                    "model",
                    "harness-field-type",
                    "model must be a string",
                    "write a model id, inherit or fast",
                    warning=True,
                )
            )
        # Never widen (issue 12 item 2): a subagent has every tool of its parent, written
        # as an explicit catch-all, so the profile never falls back to roster.toml's or the
        # target's defaults; readonly takes edits and the shell away after it.
        permission: tuple[PermissionRule, ...] = _DEFAULT_RULES
        flag = data.get("readonly")
        if flag is True:
            permission = _DEFAULT_RULES + _READONLY_RULES
            losses.append(
                Loss(
                    profile=name,
                    field="permission",
                    outcome=LossOutcome.TRANSLATED,
                    detail="readonly: true became the rules edit: deny, bash: deny",
                )
            )
        elif flag is not None and not isinstance(flag, bool):
            out.append(
                diag_at(
                    doc,
                    path,
                    "readonly",
                    "harness-field-type",
                    "readonly must be true or false",
                    "write readonly: true",
                    warning=True,
                )
            )
        imported = import_document(doc, name, native_model(model, model_text))
        profile = AgentProfile(
            id=name,
            name=name,
            description=description.strip(),  # the vault holds it trimmed
            model=model_text,
            permission=permission,
            sections=imported.sections,
            harness={"cursor": harness} if harness else {},
            native={"cursor": imported.native},
            source=path,
        )
        return profile, losses + imported.losses, out

    def read_text(self, text: str, path: str) -> AgentProfile | None:
        """The agent Cursor loads from a file holding ``text`` (None when none)."""
        doc = read_native(text, path, [])
        return self._read(AgentFile(path, doc))[0] if doc is not None else None


CODEC = CursorCodec()
