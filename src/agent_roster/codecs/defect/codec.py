"""The defect codec: subagent profiles ``.defect/agents/<name>/config.toml`` + ``system.md``
(or single-file ``<name>.md``), read and written by seed 003's rules (docs/codecs/defect.md).

defect is strict (``deny_unknown_fields`` on every table), fails the whole discovery on one
bad profile, lets the project layer replace the user layer, and has only an allow list of
tool globs (``ask`` is ``deny`` for a subagent). Render writes the directory variant (TOML,
prompt byte-exact) and the servers into the main config's ``[mcp.servers]``.
"""

from __future__ import annotations

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
from agent_roster.codecs.defect import mcp
from agent_roster.codecs.defect import semantics as defect_semantics
from agent_roster.codecs.defect.read import (
    DEFAULT_PROMPT_FILE,
    DEFAULT_TOOL_ALLOW,
    MCP_GLOB,
    DefectFile,
    find_repo_root,
    imported_tools,
    scan_layer,
)
from agent_roster.codecs.defect.render import render_profile
from agent_roster.codecs.native_io import existing_text
from agent_roster.codecs.native_md import harness_diagnostic
from agent_roster.codecs.prompt import import_body
from agent_roster.codecs.support import declare
from agent_roster.codecs.tool_names import to_canonical as tool_to_canonical
from agent_roster.diagnostics import Diagnostic
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile
from agent_roster.model.profile import PermissionAction as PermissionAction

PROJECT_AGENTS = ".defect/agents"
USER_AGENTS = ".config/defect/agents"


class DefectCodec:
    """defect (``vast-enterprise/defect``): subagent profiles for ``spawn_agent``."""

    name = "defect"
    title = "defect"
    partitioned = True
    whole_keys: frozenset[str] = frozenset()
    options: tuple[RenderOption, ...] = ()
    #: What render does with each canonical field (docs/codecs/matrix.md; checked
    #: against probe renders by tests/codecs/test_support_matrix.py).
    support = declare(
        kept="description prompt model temperature top_p max_turns allowed_tools mcp_servers",
        translated="allowed_tools denied_tools permission",
        dropped="name provider max_tokens_per_task permission_mode allowed_tools "
        "denied_tools permission mcp_servers mode color runtime agent_name tags "
        "install",
    )
    native_fields = frozenset(
        {"id", "description", "model", "temperature", "top_p", "max_turns", "prompt"}
    )

    # -- discover -------------------------------------------------------------------------

    def discover(self, roots: Roots) -> Discovery:
        """User layer, then project layer (project replaces user by name); any failure
        fails everything, as ``discover_profiles`` returns its first error."""
        diagnostics: list[Diagnostic] = []
        repo_root = find_repo_root(roots.workspace)
        if repo_root is None:
            repo_root = roots.workspace
            if (roots.workspace / PROJECT_AGENTS).is_dir():
                diagnostics.append(
                    harness_diagnostic(
                        "harness-ignored",
                        f"no .git above {roots.workspace}: defect finds no repository root "
                        "and would not read the project agents listed here",
                        path=str(roots.workspace / PROJECT_AGENTS),
                        warning=True,
                        hint="run defect inside a git repository (git init)",
                    )
                )
        # User first, project second: a later layer replaces a name whole (map insert).
        layers = (roots.home / USER_AGENTS, repo_root / PROJECT_AGENTS)
        chosen: dict[str, DefectFile] = {}
        failed = False
        for agents_dir in layers:
            if not agents_dir.is_dir():
                continue
            layer = scan_layer(agents_dir, diagnostics)
            if layer is None:
                failed = True
                continue
            for name, found in layer.items():
                if name in chosen:
                    diagnostics.append(
                        harness_diagnostic(
                            "harness-shadowed",
                            f"subagent profile `{name}` is replaced whole by the project layer "
                            f"({found.path}); this user profile is not used",
                            path=str(chosen[name].path),
                            warning=True,
                            hint="defect does not merge profiles across layers",
                        )
                    )
                chosen[name] = found
        if failed:
            return Discovery(diagnostics=tuple(diagnostics))
        configs = [
            roots.home / mcp.USER_CONFIG,
            repo_root / mcp.PROJECT_CONFIG,
            repo_root / ".defect/config.local.toml",
        ]
        config = mcp.read_servers(configs, diagnostics)
        losses: list[Loss] = []
        servers: dict[str, McpServer] = {}
        profiles = []
        for name in sorted(chosen):
            profile = _to_profile(chosen[name], losses)
            for server_name in profile.mcp_servers:
                if server_name not in config.servers:
                    diagnostics.append(
                        harness_diagnostic(
                            "harness-invalid",
                            f"`{name}` allows tools of MCP server `{server_name}`, which no "
                            "defect config defines; its glob matches no tool and spawning "
                            "the profile fails",
                            path=str(chosen[name].path),
                            warning=True,
                            hint=f"define [mcp.servers.{server_name}] in .defect/config.toml",
                        )
                    )
                    continue
                server = config.servers[server_name]
                if server is not None:  # a refused table is reported where it is
                    servers.setdefault(server_name, server)
            profiles.append(profile)
        return Discovery(
            profiles=tuple(profiles),
            servers=tuple(servers.values()),
            losses=tuple(losses),
            diagnostics=tuple(diagnostics),
        )

    # -- render ---------------------------------------------------------------------------

    def decide(self, agent: NativeAgent, probe: Probe) -> PermissionAction:
        """defect's own decision for one call of ``agent`` (``defect/semantics.py``)."""
        return defect_semantics.decide(agent, probe)

    def render(self, request: RenderRequest, existing: ReadExisting) -> Rendering:
        """``config.toml`` + ``system.md`` per profile, and the servers merged into the
        main config of the scope; everything checked with defect's rules first."""
        agents = PROJECT_AGENTS if request.scope is Scope.PROJECT else USER_AGENTS
        config_path = mcp.PROJECT_CONFIG if request.scope is Scope.PROJECT else mcp.USER_CONFIG
        files: list[NativeFile] = []
        losses: list[Loss] = []
        diagnostics: list[Diagnostic] = []
        native_servers: dict[str, dict[str, Any]] = {}
        unwritable: set[str] = set()
        # Every part works out the servers (its agents need to know which can be written);
        # only the shared part reports them, after the agents (RenderRequest.part).
        server_diagnostics: list[Diagnostic] = []
        wanted = [n for p in request.profiles for n in p.mcp_servers]
        for server_name in dict.fromkeys(wanted):
            server = request.servers.get(server_name)
            if server is None:
                unwritable.add(server_name)
                continue
            native, problems = mcp.server_to_native(server)
            if native is None:
                unwritable.add(server_name)
                # A warning, not an error: defect profiles do not contain servers (they use
                # the parent session's), so each profile is still written, without this
                # server's tools, and reports that as a loss.
                server_diagnostics.append(
                    harness_diagnostic(
                        "render-unsupported",
                        f"MCP server `{server_name}` cannot be written for defect: "
                        + "; ".join(problems),
                        path=server.source or config_path,
                        warning=True,
                        hint="defect has no env references; define the server in defect's "
                        "config yourself, then add mcp__<server>__* to the profile's allow",
                    )
                )
            else:
                native_servers[server_name] = native
        for profile in request.owned():
            out_files, out_losses, out_diags = render_profile(
                profile, agents, native_servers, unwritable, existing
            )
            files.extend(out_files)
            losses.extend(out_losses)
            diagnostics.extend(out_diags)
        if not request.shared:
            return Rendering(
                files=tuple(files), losses=tuple(losses), diagnostics=tuple(diagnostics)
            )
        diagnostics.extend(server_diagnostics)
        if native_servers:
            current = existing_text(existing, config_path, diagnostics)
            merged = (
                None
                if current is False
                else mcp.merge_config(current, native_servers, config_path, diagnostics)
            )
            if merged is not None:
                files.append(NativeFile(path=config_path, content=merged, merged=True))
        return Rendering(files=tuple(files), losses=tuple(losses), diagnostics=tuple(diagnostics))


def _to_profile(found: DefectFile, losses: list[Loss]) -> AgentProfile:
    config = found.config
    pid = found.name

    def loss(field: str, outcome: LossOutcome, detail: str) -> None:
        losses.append(Loss(profile=pid, field=field, outcome=outcome, detail=detail))

    extra: dict[str, Any] = {}
    model = config.get("model") or (config.get("default") or {}).get("model") or ""
    if (config.get("default") or {}).get("model"):
        loss("model", LossOutcome.TRANSLATED, "[default] model is written back as root model")
    sampling = dict(config.get("sampling") or {})
    temperature = sampling.pop("temperature", None)
    top_p = sampling.pop("top_p", None)
    temperature = None if temperature is None else float(temperature)
    top_p = None if top_p is None else float(top_p)
    if sampling:
        extra["sampling"] = sampling
    max_turns = None
    if "request_limit" in config:
        if config.get("request_limit_mode") == "fixed":
            max_turns = config["request_limit"]
        else:
            extra["request_limit"] = config["request_limit"]
    if "request_limit_mode" in config and max_turns is None:
        extra["request_limit_mode"] = config["request_limit_mode"]
    for key in ("inherit_project_prompt", "hooks"):
        if key in config:
            extra[key] = config[key]
    prompt_table = config.get("prompt") or {}
    if prompt_table.get("file", DEFAULT_PROMPT_FILE) != DEFAULT_PROMPT_FILE:
        extra["prompt_file"] = prompt_table["file"]
    if "text" in prompt_table:
        loss("prompt", LossOutcome.TRANSLATED, "[prompt] text is written back as system.md")
    servers: list[str] = []
    allow = (config.get("tools") or {}).get("allow")
    if allow is None:
        # Never widen (issue 12 item 2): the read-only default is written out as the
        # exact tool set, not left to the runtime's default.
        loss(
            "allowed_tools",
            LossOutcome.TRANSLATED,
            "no [tools] allow: defect's read-only default (read_file, search) written as "
            "the exact tool set",
        )
        allow = list(DEFAULT_TOOL_ALLOW)
    else:
        other: list[str] = []
        for glob in allow:
            match = MCP_GLOB.match(glob)
            if match and match.group(1) not in servers:
                servers.append(match.group(1))
            if tool_to_canonical("defect", glob) is None and not match:
                other.append(glob)
        if other:
            extra["allow"] = other
            loss("allowed_tools", LossOutcome.TRANSLATED, "globs kept as harness.defect.allow")
    sections, notes = import_body(found.prompt)
    for note in notes:
        loss("prompt", LossOutcome.TRANSLATED, note)
    return AgentProfile(
        id=pid,
        name=pid,
        description=str(config.get("description", "")),
        model=str(model),
        temperature=temperature,
        top_p=top_p,
        max_turns=max_turns,
        # defect grants exactly what allow matches: `allow = []` is no tools at all.
        allowed_tools=imported_tools(list(allow)),
        tools_exact=True,
        mcp_servers=tuple(servers),
        sections=sections,
        harness={"defect": extra} if extra else {},
        native={"defect": found.native} if found.native is not None else {},
        source=str(found.path),
    )


CODEC = DefectCodec()
