"""The Codex codec: agent role files ``.codex/agents/**/*.toml`` and ``[mcp_servers.*]``.

A role file is strict (an unknown key makes Codex skip it), needs ``name``, ``description``
and ``developer_instructions``, and is otherwise a partial ``config.toml`` layer, so the
role's MCP servers live inside it. Render also merges every server into the scope's
``config.toml`` (keeping everything else in that file, comments included) so ``codex mcp
list`` and the main session see them. Mapping and sources: docs/codecs/codex.md.
"""

from __future__ import annotations

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
from agent_roster.codecs.codex import semantics as codex_semantics
from agent_roster.codecs.codex.mcp import import_server, tool_filters
from agent_roster.codecs.codex.read import RoleFile, read_role, trusted
from agent_roster.codecs.codex.render import (
    AGENTS_DIR,
    CONFIG_FILE,
    MODE_FROM_SANDBOX,
    PAIRED_APPROVAL,
    PASS_THROUGH,
    Refusal,
    merge_config,
    render_profile,
    server_tables,
)
from agent_roster.codecs.native_io import TomlProblem, existing_text, parse_toml, read_text
from agent_roster.codecs.native_md import harness_diagnostic
from agent_roster.codecs.prompt import import_body
from agent_roster.codecs.support import declare
from agent_roster.diagnostics import Diagnostic
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile, NativeForm
from agent_roster.model.profile import PermissionAction as PermissionAction


class CodexCodec:
    """OpenAI Codex CLI (``codex`` 0.169.0)."""

    name = "codex"
    title = "OpenAI Codex CLI"
    partitioned = True
    whole_keys: frozenset[str] = frozenset()
    options: tuple[RenderOption, ...] = ()
    #: What render does with each canonical field (docs/codecs/matrix.md; checked
    #: against probe renders by tests/codecs/test_support_matrix.py).
    support = declare(
        kept="description prompt model mcp_servers",
        translated="permission_mode",
        embedded="denied_tools permission",
        dropped="name provider temperature top_p max_turns max_tokens_per_task mode "
        "color runtime agent_name tags install",
        refused="permission_mode allowed_tools denied_tools permission mcp_servers",
    )
    native_fields = frozenset({"id", "description", "prompt", "model", "mcp_servers"})

    def discover(self, roots: Roots) -> Discovery:
        """User roles (``~/.codex/agents``), then project roles, which win by name; a field
        the project role lacks is filled from the user role (``merge_missing_role_fields``)."""
        out: list[Diagnostic] = []
        for config in (roots.home / CONFIG_FILE, roots.workspace / CONFIG_FILE):
            _check_config(config, out)
        user = _layer(roots.home / AGENTS_DIR, out)
        project_dir = roots.workspace / AGENTS_DIR
        project = _layer(project_dir, out)
        if project and trusted(roots.workspace, roots.home) is not True:
            out.append(
                harness_diagnostic(
                    "harness-ignored",
                    f"Codex reads {roots.workspace / '.codex'} only when the project is trusted",
                    path=str(project_dir),
                    hint=f'add [projects."{roots.workspace.resolve()}"] trust_level = '
                    '"trusted" to ~/.codex/config.toml',
                    warning=True,
                )
            )
        merged: dict[str, tuple[RoleFile, dict[str, Any]]] = {
            name: (role, dict(role.data)) for name, role in user.items()
        }
        for name, role in project.items():
            data = dict(role.data)
            if name in merged:
                lower = merged[name][0]
                for key in ("description", "nickname_candidates"):
                    if key not in data and key in lower.data:
                        data[key] = lower.data[key]
                out.append(
                    harness_diagnostic(
                        "harness-shadowed",
                        f"agent role `{name}` in {lower.path} is replaced by {role.path} "
                        "(the project layer wins)",
                        path=str(lower.path),
                        hint="rename one of them to keep both",
                        warning=True,
                    )
                )
            merged[name] = (role, data)
        profiles: list[AgentProfile] = []
        servers: dict[str, McpServer] = {}
        losses: list[Loss] = []
        # What a role inherits where it sets nothing (sandbox, approval, web search, MCP
        # servers): the user config, under the project's for a project role.
        user_config = _config(roots.home / CONFIG_FILE)
        project_config = {**user_config, **_config(roots.workspace / CONFIG_FILE)}
        project_config["mcp_servers"] = {
            **_table(user_config.get("mcp_servers")),
            **_table(_config(roots.workspace / CONFIG_FILE).get("mcp_servers")),
        }
        for name, (role, data) in merged.items():
            if not isinstance(data.get("description"), str):
                out.append(
                    harness_diagnostic(
                        "harness-invalid",
                        f"agent role `{name}` must define a description",
                        path=str(role.path),
                        hint='add description = "<when to use this agent>"',
                    )
                )
                continue
            inherited = project_config if role.path.is_relative_to(project_dir) else user_config
            profile, notes = _profile(role, data, inherited)
            profiles.append(profile)
            losses.extend(
                Loss(profile=name, field=field, outcome=_import_outcome(field), detail=note)
                for field, note in (*(("mcp_servers", n) for n in role.notes), *notes)
            )
            for server in role.servers:
                servers.setdefault(server.name, server)
        return Discovery(
            profiles=tuple(profiles),
            servers=tuple(servers.values()),
            losses=tuple(losses),
            diagnostics=tuple(out),
        )

    def decide(self, agent: NativeAgent, probe: Probe) -> PermissionAction:
        """Codex's own decision for one call of ``agent`` (``codex/semantics.py``)."""
        return codex_semantics.decide(agent, probe)

    def render(self, request: RenderRequest, existing: ReadExisting) -> Rendering:
        """One role file per profile, and the servers merged into ``.codex/config.toml``."""
        files: list[NativeFile] = []
        losses: list[Loss] = []
        out: list[Diagnostic] = []
        servers: dict[str, dict[str, Any]] = {}
        for index, profile in enumerate(request.profiles):
            if not request.owns(index):
                # Another part writes this role; config.toml still gets its servers.
                tables = server_tables(profile, request)
                if not isinstance(tables, Refusal):
                    servers.update(tables)
                continue
            rendered = render_profile(profile, request, out, losses)
            if rendered is None:
                continue
            content, tables = rendered
            files.append(
                NativeFile(
                    path=f"{AGENTS_DIR}/{profile.id}.toml", content=content, profile=profile.id
                )
            )
            servers.update(tables)
        context: tuple[NativeFile, ...] = ()
        if servers:
            # Every part merges config.toml, since a role's check reads it (a server the
            # role does not configure is decided there); only the shared part writes it
            # and reports on it.
            said = out if request.shared else []
            current = existing_text(existing, CONFIG_FILE, said)
            config = None if current is False else merge_config(current, servers, said)
            if config is not None:
                merged = NativeFile(path=CONFIG_FILE, content=config, merged=True)
                if request.shared:
                    files.append(merged)
                else:
                    context = (merged,)
        return Rendering(
            files=tuple(files), losses=tuple(losses), diagnostics=tuple(out), context=context
        )


CODEC = CodexCodec()


def _import_outcome(field: str) -> LossOutcome:
    """A reworded prompt or a coarser mode is a translation; anything else was left out."""
    if field in ("prompt", "permission_mode"):
        return LossOutcome.TRANSLATED
    return LossOutcome.DROPPED


def _layer(folder: Path, out: list[Diagnostic]) -> dict[str, RoleFile]:
    """The roles of one ``agents/`` folder: every ``*.toml`` below it in sorted path order;
    the first file with a name wins (observed on 0.169.0), later ones are shadowed."""
    if not folder.is_dir():
        return {}
    roles: dict[str, RoleFile] = {}
    for path in sorted(folder.rglob("*")):
        if not path.is_file():
            continue
        if path.suffix != ".toml":
            if any(part.startswith(".") for part in path.relative_to(folder).parts):
                continue  # hidden: editor and OS files (README D13)
            out.append(
                harness_diagnostic(
                    "harness-ignored",
                    f"Codex 0.169.0 loads only *.toml agent role files; {path.name} is ignored",
                    path=str(path),
                    hint="write the role as TOML",
                    warning=True,
                )
            )
            continue
        role = read_role(path, out)
        if role is None:
            continue
        if role.name in roles:
            out.append(
                harness_diagnostic(
                    "harness-shadowed",
                    f"duplicate agent role name `{role.name}` discovered in {folder}: "
                    f"{path} is ignored, {roles[role.name].path} is loaded",
                    path=str(path),
                    hint="give every role file in one folder its own name",
                    warning=True,
                )
            )
            continue
        roles[role.name] = role
    return roles


def _check_config(path: Path, out: list[Diagnostic]) -> None:
    """A broken ``config.toml`` makes every Codex command fail; report it as a refusal."""
    if not path.is_file():
        return
    hint = "Codex refuses to start until config.toml parses"
    text = read_text(path, out, hint=hint)
    if text is None:
        return
    data = parse_toml(text)
    if isinstance(data, TomlProblem):
        out.append(
            harness_diagnostic(
                "harness-invalid",
                f"Error loading config.toml: {data.message}",
                path=str(path),
                line=data.line,
                column=data.column,
                hint=f"{data.hint}; {hint}",
            )
        )
        return
    tables = data.get("mcp_servers", {})
    for name, table in tables.items() if isinstance(tables, dict) else ():
        imported = import_server(name, table, str(path))
        if imported.server is None:
            out.append(
                harness_diagnostic(
                    "harness-invalid",
                    f"failed to load configuration: {imported.error}",
                    path=str(path),
                    hint="a server needs exactly one of command (stdio) or url (HTTP)",
                )
            )


def _table(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _config(path: Path) -> dict[str, Any]:
    """A ``config.toml``'s table (empty when missing or broken: ``_check_config`` says so)."""
    text = read_text(path, []) if path.is_file() else None
    data = parse_toml(text) if isinstance(text, str) else {}
    return data if isinstance(data, dict) else {}


def _profile(
    role: RoleFile, data: dict[str, Any], config: dict[str, Any]
) -> tuple[AgentProfile, list[tuple[str, str]]]:
    notes: list[tuple[str, str]] = []
    # Render ends the string with a line end (the TOML reads best so); the prompt is the
    # rest, exactly (issue 12 item 1), and a different ending is remembered.
    instructions = str(data["developer_instructions"])
    tail = next((end for end in ("\r\n", "\n") if instructions.endswith(end)), "")
    prompt = import_body(instructions[: len(instructions) - len(tail)])
    notes.extend(("prompt", note) for note in prompt.notes)
    sandbox = data.get("sandbox_mode")
    harness = {key: data[key] for key in PASS_THROUGH if key in data}
    approval = data.get("approval_policy")
    if approval is not None and PAIRED_APPROVAL.get(str(sandbox)) == approval:
        del harness["approval_policy"]
    allowed: list[str] = []
    denied: list[str] = []
    tables = data.get("mcp_servers", {})
    for server in role.servers:
        enabled_tools, disabled_tools, enabled = tool_filters(tables.get(server.name))
        if not enabled:
            denied.append(f"mcp__{server.name}__*")
        allowed.extend(f"mcp__{server.name}__{tool}" for tool in enabled_tools or ())
        denied.extend(f"mcp__{server.name}__{tool}" for tool in disabled_tools)
    if sandbox is not None:
        notes.append(
            ("permission_mode", f"sandbox_mode {sandbox!r} became permission_mode (coarser)")
        )
    return (
        AgentProfile(
            id=role.name,
            name=role.name,
            description=str(data["description"]),
            model=str(data.get("model", "")),
            permission_mode=MODE_FROM_SANDBOX.get(str(sandbox), ""),
            # Never widen (issue 12 item 2): what Codex decides, its defaults and the
            # inherited config included, written out after the mode and the lists.
            permission=codex_semantics.import_rules(data, config),
            allowed_tools=tuple(allowed),
            denied_tools=tuple(denied),
            mcp_servers=tuple(server.name for server in role.servers),
            sections=prompt.sections,
            harness={"codex": harness} if harness else {},
            native={} if tail == "\n" else {"codex": NativeForm(tail=tail)},
            source=str(role.path),
        ),
        notes,
    )
