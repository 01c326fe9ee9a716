"""The Qoder CLI codec: ``.qoder/agents/**/*.md`` and ``.mcp.json`` / ``~/.qoder/settings.json``.

Qoder CLI (``qodercli``) is a near-clone of Claude Code: the same agent frontmatter
(``name``, ``description``, ``tools``, ``disallowedTools``…), the same tool names, the
project's ``.mcp.json``. What differs, each checked against ``qodercli`` 1.1.52
(tests/codecs/test_qoder_cli.py; docs/codecs/qoder.md): its folders (``.qoder/agents``,
never ``.claude/agents``), a strict schema (a value of the wrong type refuses the file), its
own frontmatter repair, an empty ``tools`` list meaning every tool, exact tool names in
both lists (a ``Bash(git log:*)`` entry gives nothing), files and folders starting with
``_`` and symlinks passed over, and its MCP files (the user's ``~/.qoder/settings.json``;
variables in a project server's command and arguments are not expanded).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

from agent_roster.codecs import wholetools
from agent_roster.codecs.agent_files import agent_files
from agent_roster.codecs.base import (
    Discovery,
    Loss,
    LossOutcome,
    NativeAgent,
    Probe,
    ReadExisting,
    Rendering,
    RenderOption,
    RenderRequest,
    Roots,
    Scope,
)
from agent_roster.codecs.claude import mcp as claude_mcp
from agent_roster.codecs.claude.files import read_settings_text
from agent_roster.codecs.native_md import harness_diagnostic
from agent_roster.codecs.permissions import MODE_RULES
from agent_roster.codecs.prompt import import_body
from agent_roster.codecs.qoder.read import (
    AGENTS_DIR,
    BUILTIN_AGENTS,
    COLORS,
    LOCAL_SETTINGS,
    PERMISSION_MODES,
    PROJECT_MCP,
    PROJECT_SETTINGS,
    USER_SETTINGS,
    QoderAgent,
    parse_agent,
    read_file,
    tool_list,
)
from agent_roster.codecs.qoder.render import PASS_THROUGH, render_profile
from agent_roster.codecs.qoder.tools import canonical_tool, honoured
from agent_roster.codecs.support import declare
from agent_roster.codecs.unloaded import not_loaded, report_not_loaded
from agent_roster.diagnostics import Diagnostic
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import (
    AgentProfile,
    NativeForm,
    PermissionAction,
    PermissionRule,
)

#: Claude Code's entries with ``type`` written: ``.mcp.json`` is shared with Claude Code and
#: the Copilot CLI, which write it so (Qoder reads it so too; its own ``mcp add`` leaves
#: ``type`` out for stdio).
DIALECT = claude_mcp.Dialect("Qoder CLI", "mcpServers", False, True, True)
HARNESS = "Qoder CLI"
_VARIABLE = "${"


class QoderCodec:
    """Qoder CLI (``@qoder-ai/qodercli`` 1.1.52)."""

    name = "qoder"
    title = "Qoder CLI"
    partitioned = True
    whole_keys: frozenset[str] = frozenset()
    options: tuple[RenderOption, ...] = ()
    #: What render does with each canonical field (docs/codecs/matrix.md; checked
    #: against probe renders by tests/codecs/test_support_matrix.py).
    support = declare(
        kept="description prompt model temperature max_turns permission_mode allowed_tools "
        "denied_tools mcp_servers color",
        translated="denied_tools permission",
        dropped="name provider top_p max_tokens_per_task allowed_tools permission mode "
        "runtime agent_name tags install",
    )
    native_fields = frozenset(
        {
            "id",
            "description",
            "prompt",
            "model",
            "temperature",
            "max_turns",
            "permission_mode",
            "allowed_tools",
            "denied_tools",
            "mcp_servers",
            "color",
        }
    )

    # --- discover -----------------------------------------------------------------------

    def discover(self, roots: Roots) -> Discovery:
        """User agents, then project agents replacing same-named ones; within a folder the
        last file of a name wins (Qoder registers them in the order it lists them, which
        the file system decides)."""
        out: list[Diagnostic] = []
        levels = [roots.home / AGENTS_DIR]
        if roots.workspace.resolve() != roots.home.resolve():
            levels.append(roots.workspace / AGENTS_DIR)
        chosen: dict[str, QoderAgent] = {}
        for folder in levels:
            layer: dict[str, QoderAgent] = {}
            for path in _agent_files(folder, out):
                agent = read_file(path, out)
                if agent is None:
                    continue
                earlier = layer.get(agent.name)
                if earlier is not None:
                    out.append(
                        harness_diagnostic(
                            "harness-shadowed",
                            f"agent '{agent.name}' is defined again in {path}; Qoder keeps one "
                            "of them (the one it reads last, which the file system decides)",
                            path=str(earlier.path),
                            hint="rename or remove one file",
                            warning=True,
                        )
                    )
                layer[agent.name] = agent
            for name, agent in layer.items():
                if name in chosen:
                    out.append(
                        harness_diagnostic(
                            "harness-shadowed",
                            f"project agent '{name}' ({agent.path}) replaces this user agent",
                            path=str(chosen[name].path),
                            hint="rename or remove one file",
                            warning=True,
                        )
                    )
                elif name in BUILTIN_AGENTS:
                    out.append(
                        harness_diagnostic(
                            "harness-shadowed",
                            f"agent '{name}' takes the place of Qoder's built-in agent",
                            path=str(agent.path),
                            warning=True,
                        )
                    )
                chosen[name] = agent
        servers = mcp_servers(roots, out)
        profiles: list[AgentProfile] = []
        losses: list[Loss] = []
        used: dict[str, McpServer] = {}
        for name in sorted(chosen):
            agent = chosen[name]
            profile, notes, inline = agent_profile(agent, out)
            profiles.append(profile)
            losses += notes
            for ref in profile.mcp_servers:
                server = inline.get(ref) or servers.get(ref)
                if server is None:
                    out.append(
                        harness_diagnostic(
                            "harness-ignored",
                            f"agent '{name}' names MCP server '{ref}', which no Qoder "
                            "configuration defines",
                            path=str(agent.path),
                            hint=f"add '{ref}' to .mcp.json or ~/.qoder/settings.json",
                            warning=True,
                        )
                    )
                else:
                    used.setdefault(ref, server)
        return Discovery(
            profiles=tuple(profiles),
            servers=tuple(used[n] for n in sorted(used)),
            losses=tuple(losses),
            diagnostics=tuple(out),
        )

    # --- render -------------------------------------------------------------------------

    def decide(self, agent: NativeAgent, probe: Probe) -> PermissionAction:
        """Qoder CLI's own decision for one call of ``agent`` (``codecs/wholetools.py``)."""
        return wholetools.decide(agent, probe, read_text, default=PermissionAction.ASK, asks=True)

    def render(self, request: RenderRequest, existing: ReadExisting) -> Rendering:
        """One agent file per profile, and the servers they use merged into ``.mcp.json``
        (project) or ``~/.qoder/settings.json`` (user)."""
        out: list[Diagnostic] = []
        losses: list[Loss] = []
        files, rendered = agent_files(
            self.name, AGENTS_DIR, request, render_profile, read_text, out, losses
        )
        if not request.shared:
            return Rendering(files=tuple(files), losses=tuple(losses), diagnostics=tuple(out))
        mcp_path = PROJECT_MCP if request.scope is Scope.PROJECT else USER_SETTINGS
        refused = set()
        if request.scope is Scope.PROJECT:
            refused = _unexpandable(rendered, request.servers, mcp_path, out)
        users = [
            msgspec.structs.replace(
                p, mcp_servers=tuple(n for n in p.mcp_servers if n not in refused)
            )
            for p in rendered
        ]
        mcp_file = claude_mcp.render_mcp_file(
            users, request.servers, DIALECT, mcp_path, existing, out
        )
        if mcp_file is not None:
            files.append(mcp_file)
        return Rendering(files=tuple(files), losses=tuple(losses), diagnostics=tuple(out))


CODEC = QoderCodec()


def _unexpandable(
    profiles: list[AgentProfile], servers: Mapping[str, McpServer], path: str, out: list[Diagnostic]
) -> set[str]:
    """The servers Qoder cannot run from the project's ``.mcp.json``: it expands variables
    there in ``env``, ``url`` and ``headers`` but not in ``command`` or ``args`` (checked),
    so a server holding one there is refused rather than started with ``${X}`` literally."""
    used = dict.fromkeys(name for profile in profiles for name in profile.mcp_servers)
    refused: set[str] = set()
    for name in used:
        server = servers.get(name)
        if server is None or not any(_VARIABLE in t for t in (server.command, *server.args)):
            continue
        refused.add(name)
        out.append(
            harness_diagnostic(
                "render-unsupported",
                f"MCP server '{name}': Qoder does not expand variables in the command or "
                f"arguments of a project server ({path}), so it would start with them "
                "literally",
                path=path,
                hint="render at user scope (~/.qoder/settings.json expands them), or pass "
                "the value through env",
            )
        )
    return refused


def _agent_files(folder: Path, out: list[Diagnostic]) -> list[Path]:
    """The ``*.md`` files Qoder reads under ``folder``: at any depth, hidden ones included;
    an entry whose name starts with ``_`` and every symlink are passed over (each
    reported), as is any other file (D13)."""
    if not folder.is_dir():
        return []
    found: list[Path] = []
    passed: list[Path] = []

    def walk(current: Path) -> None:
        for entry in sorted(os.scandir(current), key=lambda e: e.name):
            path = Path(entry.path)
            if entry.is_symlink():
                passed.append(path)
                out.append(
                    not_loaded(path, HARNESS, "it is a symlink", "put the file itself there")
                )
            elif entry.name.startswith("_"):
                passed.append(path)
                out.append(
                    not_loaded(
                        path, HARNESS, "names starting with '_' are passed over", "rename it"
                    )
                )
            elif entry.is_dir():
                walk(path)
            elif entry.name.endswith(".md"):
                found.append(path)

    walk(folder)
    report_not_loaded(
        folder,
        [*found, *passed, *(p for q in passed for p in q.rglob("*") if q.is_dir())],
        out,
        harness=HARNESS,
        rule="only *.md files are agents",
        hint="name it <agent>.md",
        recursive=True,
    )
    return found


# --- import ------------------------------------------------------------------------------


#: Qoder's decision where no rule of the agent speaks (``decide``'s default).
_ASK_ALL = PermissionRule(permission="*", action=PermissionAction.ASK)


def agent_profile(
    agent: QoderAgent, out: list[Diagnostic]
) -> tuple[AgentProfile, list[Loss], dict[str, McpServer]]:
    """The canonical profile of a file Qoder loads, the losses import reports, and the
    inline MCP servers it defines. Never more than Qoder gives the agent: a ``tools`` entry
    Qoder ignores is left out."""
    data = agent.data
    ident = agent.name
    losses: list[Loss] = []

    def lose(field: str, outcome: LossOutcome, detail: str) -> None:
        losses.append(Loss(profile=ident, field=field, outcome=outcome, detail=detail))

    prompt = import_body(agent.prompt)
    for note in prompt.notes:
        lose("prompt", LossOutcome.TRANSLATED, note)
    tools = tool_list(data.get("tools"))
    allowed: list[str] = []
    if tools is not None and "*" not in tools:
        for entry in tools:
            if honoured(entry):
                allowed.append(canonical_tool(entry))
            else:
                lose(
                    "allowed_tools",
                    LossOutcome.DROPPED,
                    f"{entry!r} in tools gives the agent nothing in Qoder (exact tool names "
                    "only): left out",
                )
    denied = [canonical_tool(t) for t in tool_list(data.get("disallowedTools")) or ()]
    permission: tuple[PermissionRule, ...] = ()
    if tools is not None and "*" not in tools and not allowed:
        permission = (PermissionRule(permission="*", action=PermissionAction.DENY),)
        lose(
            "allowed_tools",
            LossOutcome.TRANSLATED,
            "no entry of tools names a Qoder tool, so the agent has none: the rule '*: deny'",
        )
    refs: list[str] = []
    inline: dict[str, McpServer] = {}
    servers = data.get("mcpServers")
    items = [servers] if isinstance(servers, dict) else servers or []
    for item in items:
        if isinstance(item, str):
            refs.append(item)
            continue
        for name, entry in item.items():
            server = _inline_server(str(name), entry, str(agent.path))
            if server is None:
                lose("mcp_servers", LossOutcome.DROPPED, f"inline server {name!r}: no transport")
                continue
            refs.append(str(name))
            inline[str(name)] = server
    mode = data.get("permissionMode")
    permission_mode = ""
    harness: dict[str, Any] = {k: data[k] for k in PASS_THROUGH if k in data}
    if isinstance(mode, str):
        found = {m.lower(): m for m in PERMISSION_MODES}.get(
            "".join(c for c in mode.lower() if c.isalnum())
        )
        if found == "yolo":
            found = "bypassPermissions"
        if found in ("default", "plan", "acceptEdits", "bypassPermissions", "auto"):
            permission_mode = found
        elif found == "dontAsk":
            harness["permissionMode"] = mode
            lose("permission_mode", LossOutcome.TRANSLATED, "dontAsk has no canonical mode")
        else:
            out.append(
                harness_diagnostic(
                    "harness-ignored",
                    f"permissionMode {mode!r} is not a mode Qoder knows: the agent runs in "
                    "its parent's mode",
                    path=str(agent.path),
                    hint=f"use one of {', '.join(PERMISSION_MODES)}",
                    warning=True,
                )
            )
    if not allowed and not permission:  # no list (a list naming nothing is '*: deny')
        # Never widen (issue 12 item 2): where no rule speaks Qoder asks; written out
        # first (the mode's own rules restated after it), so the profile never falls back
        # to roster.toml's or another harness's default.
        permission = (_ASK_ALL, *MODE_RULES.get(permission_mode, ()))
    model = data.get("model")
    model_text = model.strip() if isinstance(model, str) else ""
    if model_text.lower() == "inherit":
        model_text = ""
    color = data.get("color")
    temperature = data.get("temperature")
    native = NativeForm(
        head=agent.head,
        tail=agent.tail,
        model=model if isinstance(model, str) and model != model_text else "",
    )
    profile = AgentProfile(
        id=ident,
        name=ident,
        description=data["description"].strip(),
        model=model_text,
        temperature=float(temperature) if temperature is not None else None,
        permission_mode=permission_mode,
        max_turns=data.get("maxTurns"),
        color=color if color in COLORS else "",
        permission=permission,
        allowed_tools=tuple(dict.fromkeys(allowed)),
        denied_tools=tuple(dict.fromkeys(denied)),
        mcp_servers=tuple(dict.fromkeys(refs)),
        sections=prompt.sections,
        harness={"qoder": harness} if harness else {},
        native={"qoder": native},
        source=str(agent.path),
    )
    return profile, losses, inline


def _inline_server(name: str, entry: Mapping[str, Any], source: str) -> McpServer | None:
    """An agent's own server (Gemini's entry shape: ``command`` stdio, ``http_url`` or
    ``url`` with ``type: http`` streamable HTTP, ``url`` SSE)."""

    def table(key: str) -> dict[str, str]:
        value = entry.get(key) or {}
        return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}

    if isinstance(entry.get("command"), str):
        return McpServer(
            name=name,
            transport=Transport.STDIO,
            command=entry["command"],
            args=tuple(str(a) for a in entry.get("args") or ()),
            env=table("env"),
            source=source,
        )
    url = entry.get("http_url") or entry.get("url")
    if not isinstance(url, str):
        return None
    http = "http_url" in entry or entry.get("type") == "http"
    return McpServer(
        name=name,
        transport=Transport.HTTP if http else Transport.SSE,
        url=url,
        headers=table("headers"),
        source=source,
    )


def read_text(text: str, path: str) -> AgentProfile | None:
    """The agent Qoder loads from a file holding ``text`` (None when it refuses it)."""
    agent, _, _ = parse_agent(text, Path(path))
    return agent_profile(agent, [])[0] if agent is not None else None


# --- MCP servers ---------------------------------------------------------------------------


def mcp_servers(roots: Roots, out: list[Diagnostic]) -> dict[str, McpServer]:
    """The servers Qoder configures, the later file winning a name: the user's
    ``~/.qoder/settings.json``, the project's ``.qoder/settings.json``, ``.mcp.json`` and
    ``.qoder/settings.local.json`` (checked with ``qodercli -p`` and two stub servers of one
    name)."""
    files = [roots.home / USER_SETTINGS]
    if roots.workspace.resolve() != roots.home.resolve():
        files += [
            roots.workspace / PROJECT_SETTINGS,
            roots.workspace / PROJECT_MCP,
            roots.workspace / LOCAL_SETTINGS,
        ]
    servers: dict[str, McpServer] = {}
    for path in files:
        text = read_settings_text(path, out) or ""
        if not text:
            continue
        data = claude_mcp.load_json_object(text, str(path), out, HARNESS)
        servers.update(claude_mcp.read_entries(data, text, str(path), DIALECT, out))
    return servers
