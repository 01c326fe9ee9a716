"""The Factory Droid codec: ``.factory/droids/*.md`` and ``.factory/mcp.json``.

Factory Droid (``droid``) calls its subagents custom droids: Markdown files with a small
frontmatter (``name``, ``description``, ``model``, ``reasoningEffort``, ``tools``,
``mcpServers``) in the project's ``.factory/droids/`` and the user's ``~/.factory/droids/``;
the project's droid wins a name. Its tool vocabulary is its own (``Execute``, ``Create``,
``FetchUrl``, ``<server>___<tool>``) and a droid has one allowlist, so the canonical rules
are written in their narrower reading or refused, never wider (``droid/render.py``). MCP
servers live in ``mcpServers`` of ``.factory/mcp.json`` (project) and ``~/.factory/mcp.json``
(user). Each rule was checked against ``droid`` 0.225.2 with a fake model on loopback
(tests/codecs/test_droid_cli.py). Mapping: docs/codecs/droid.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent_roster.codecs import wholetools
from agent_roster.codecs.agent_files import agent_files
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
from agent_roster.codecs.claude import mcp as claude_mcp
from agent_roster.codecs.claude.files import read_settings_text, referenced_servers
from agent_roster.codecs.droid.read import (
    AGENTS_DIR,
    BUILTIN_DROIDS,
    MCP_FILE,
    DroidFile,
    droid_files,
    mcp_servers_value,
    parse_droid,
    read_droid,
)
from agent_roster.codecs.droid.render import PASS_THROUGH, render_profile
from agent_roster.codecs.droid.tools import CATEGORIES, canonical_tools_of
from agent_roster.codecs.native_io import existing_text
from agent_roster.codecs.native_md import harness_diagnostic
from agent_roster.codecs.prompt import import_body
from agent_roster.codecs.support import declare
from agent_roster.codecs.unloaded import report_not_loaded
from agent_roster.diagnostics import Diagnostic
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import (
    AgentProfile,
    NativeForm,
    PermissionAction,
    PermissionRule,
)

HARNESS = "Factory Droid"
_VARIABLE = "${"


class DroidCodec:
    """Factory Droid (``@factory/cli`` 0.225.2, the ``droid`` binary)."""

    name = "droid"
    title = "Factory Droid"
    partitioned = True
    whole_keys: frozenset[str] = frozenset()
    options: tuple[RenderOption, ...] = ()
    #: What render does with each canonical field (docs/codecs/matrix.md; checked
    #: against probe renders by tests/codecs/test_support_matrix.py).
    support = declare(
        kept="description prompt model allowed_tools mcp_servers",
        translated="permission_mode denied_tools permission",
        dropped="name provider temperature top_p max_turns max_tokens_per_task "
        "permission_mode allowed_tools mode color runtime agent_name tags install",
        refused="permission",
    )
    native_fields = frozenset(
        {"id", "description", "prompt", "model", "allowed_tools", "mcp_servers"}
    )

    # --- discover -----------------------------------------------------------------------

    def discover(self, roots: Roots) -> Discovery:
        """Project droids, then the user's; the first of a name wins (Droid lists the
        project's first and keeps one droid per name across the two folders)."""
        out: list[Diagnostic] = []
        folders = [roots.workspace / AGENTS_DIR]
        if roots.workspace.resolve() != roots.home.resolve():
            folders.append(roots.home / AGENTS_DIR)
        chosen: dict[str, DroidFile] = {}
        for folder in folders:
            paths = droid_files(folder)
            report_not_loaded(
                folder,
                paths,
                out,
                harness=HARNESS,
                rule="only *.md files are droids",
                hint="name it <droid>.md, directly in the droids folder",
                recursive=False,
            )
            layer: dict[str, DroidFile] = {}
            for path in paths:
                droid = read_droid(path, out)
                if droid is None:
                    out.append(
                        harness_diagnostic(
                            "harness-ignored",
                            f"Droid cannot read {path.name} (Failed to load droid file)",
                            path=str(path),
                            hint="a droid is a Markdown file",
                            warning=True,
                        )
                    )
                    continue
                _warn_read(droid, out)
                if droid.name in layer:
                    out.append(
                        harness_diagnostic(
                            "harness-shadowed",
                            f"droid '{droid.name}' is defined again in {layer[droid.name].path}; "
                            "Droid lists both and runs one of them (which one the file system "
                            "decides)",
                            path=str(path),
                            hint="rename or remove one file",
                            warning=True,
                        )
                    )
                    continue
                layer[droid.name] = droid
            for name, droid in layer.items():
                first = chosen.get(name)
                if first is not None:
                    out.append(
                        harness_diagnostic(
                            "harness-shadowed",
                            f"project droid '{name}' ({first.path}) replaces this personal droid",
                            path=str(droid.path),
                            hint="rename or remove one file",
                            warning=True,
                        )
                    )
                    continue
                if name in BUILTIN_DROIDS:
                    out.append(
                        harness_diagnostic(
                            "harness-shadowed",
                            f"droid '{name}' has the name of Droid's built-in subagent",
                            path=str(droid.path),
                            warning=True,
                        )
                    )
                chosen[name] = droid
        servers = mcp_servers(roots, out)
        profiles: list[AgentProfile] = []
        losses: list[Loss] = []
        used: dict[str, McpServer] = {}
        for droid in chosen.values():
            profile, notes = droid_profile(droid)
            profiles.append(profile)
            losses += notes
            for ref in profile.mcp_servers:
                if ref in servers:
                    used.setdefault(ref, servers[ref])
                else:
                    out.append(
                        harness_diagnostic(
                            "harness-ignored",
                            f"droid '{droid.name}' names MCP server '{ref}', which no Droid "
                            "mcp.json defines",
                            path=str(droid.path),
                            hint=f"add '{ref}' to .factory/mcp.json or ~/.factory/mcp.json",
                            warning=True,
                        )
                    )
        return Discovery(
            profiles=tuple(profiles),
            servers=tuple(used[n] for n in sorted(used)),
            losses=tuple(losses),
            diagnostics=tuple(out),
        )

    # --- render -------------------------------------------------------------------------

    def decide(self, agent: NativeAgent, probe: Probe) -> PermissionAction:
        """Factory Droid's own decision for one call of ``agent`` (``codecs/wholetools.py``)."""
        return wholetools.decide(
            agent, probe, read_text, default=PermissionAction.ALLOW, asks=False
        )

    def render(self, request: RenderRequest, existing: ReadExisting) -> Rendering:
        """One droid file per profile, and the servers they use merged into the scope's
        ``.factory/mcp.json``."""
        out: list[Diagnostic] = []
        losses: list[Loss] = []
        files, rendered = agent_files(
            self.name, AGENTS_DIR, request, render_profile, read_text, out, losses
        )
        if not request.shared:
            return Rendering(files=tuple(files), losses=tuple(losses), diagnostics=tuple(out))
        mcp = _mcp_file(rendered, request, existing, out)
        if mcp is not None:
            files.append(mcp)
        return Rendering(files=tuple(files), losses=tuple(losses), diagnostics=tuple(out))


CODEC = DroidCodec()


def _warn_read(droid: DroidFile, out: list[Diagnostic]) -> None:
    if droid.dropped:
        out.append(
            harness_diagnostic(
                "harness-ignored",
                f"{droid.dropped}: Droid drops this droid's whole frontmatter, so it is named "
                f"'{droid.name}' after its file and gets every tool",
                path=str(droid.path),
                hint="fix the value; until then the droid has every tool",
                warning=True,
            )
        )
    elif droid.doc is None and droid.head:
        out.append(
            harness_diagnostic(
                "harness-recovered",
                "the frontmatter is not valid YAML; Droid reads it again line by line "
                "('key: value'), so it loads the droid: roster reads it the same way",
                path=str(droid.path),
                hint='quote the value (key: "a: b") so that every tool reads the file alike',
                warning=True,
            )
        )
    elif not droid.head:
        out.append(
            harness_diagnostic(
                "harness-ignored",
                "no frontmatter (or a byte order mark before it): Droid takes the whole file "
                f"as the prompt of a droid named '{droid.name}' with every tool",
                path=str(droid.path),
                hint="start the file with --- on the first line",
                warning=True,
            )
        )


# --- import ------------------------------------------------------------------------------


def droid_profile(droid: DroidFile) -> tuple[AgentProfile, list[Loss]]:
    """The canonical profile of a droid, and what import reports. Never more than Droid
    gives it: a ``tools`` entry Droid ignores is left out, ``read-only`` is its read
    tools."""
    data = droid.data
    losses: list[Loss] = []

    def lose(field: str, outcome: LossOutcome, detail: str) -> None:
        losses.append(Loss(profile=droid.name, field=field, outcome=outcome, detail=detail))

    prompt = import_body(droid.prompt)
    for note in prompt.notes:
        lose("prompt", LossOutcome.TRANSLATED, note)
    allowed: list[str] = []
    permission: tuple[PermissionRule, ...] = ()
    tools = data.get("tools")
    if tools is not None:
        entries = _entries(tools)
        for entry in entries:
            found = canonical_tools_of(entry)
            if not found:
                lose(
                    "allowed_tools",
                    LossOutcome.DROPPED,
                    f"{entry!r} in tools gives the droid nothing: left out",
                )
            allowed += [t for t in found if t not in allowed]
        if tools == "read-only":
            lose(
                "allowed_tools",
                LossOutcome.TRANSLATED,
                "read-only also lets the droid run read-only commands and fetch; imported as "
                "its read tools (narrower)",
            )
        if not allowed:
            permission = (PermissionRule(permission="*", action=PermissionAction.DENY),)
            lose(
                "allowed_tools",
                LossOutcome.TRANSLATED,
                "no entry of tools names a Droid tool, so the droid has none but TodoWrite and "
                "Skill: the rule '*: deny'",
            )
    if tools is None:
        # Never widen (issue 12 item 2): a droid without tools has every tool, written
        # out so the profile never falls back to roster.toml's or another harness's default.
        permission = (PermissionRule(permission="*", action=PermissionAction.ALLOW),)
    model = data.get("model")
    model_text = model.strip() if isinstance(model, str) else ""
    if model_text == "inherit":
        model_text = ""
    harness = {k: data[k] for k in PASS_THROUGH if k in data}
    native = NativeForm(
        head=droid.head,
        tail=droid.tail,
        model=model if isinstance(model, str) and model != model_text else "",
    )
    profile = AgentProfile(
        id=droid.name,
        name=droid.name,
        description=str(data.get("description") or "").strip(),
        model=model_text,
        permission=permission,
        allowed_tools=tuple(allowed),
        mcp_servers=tuple(dict.fromkeys(mcp_servers_value(data.get("mcpServers")))),
        sections=prompt.sections,
        harness={"droid": harness} if harness else {},
        native={"droid": native},
        source=str(droid.path),
    )
    return profile, losses


def _entries(tools: Any) -> list[str]:
    """The tool ids a ``tools`` value names (``normalizeTools``)."""
    if isinstance(tools, list):
        return [t.strip() for t in tools if isinstance(t, str) and t.strip()]
    text = str(tools)
    if "," in text:
        return [part.strip() for part in text.split(",") if part.strip()]
    if text in CATEGORIES:
        return list(CATEGORIES[text])
    return [text] if text != "all" else []


def read_text(text: str, path: str) -> AgentProfile | None:
    """The droid Droid makes of a file holding ``text``."""
    return droid_profile(parse_droid(text, Path(path)))[0]


# --- MCP servers ---------------------------------------------------------------------------


def server_from_entry(name: str, entry: Any, source: str) -> tuple[McpServer | None, str]:
    """One ``mcpServers`` entry (``type`` ``stdio`` by default, ``http`` or ``sse`` with a
    ``url``), or why Droid cannot start it."""
    if not isinstance(entry, Mapping):
        return None, "an entry must be an object"
    if entry.get("disabled") is True:
        return None, "it is disabled"

    def table(key: str) -> dict[str, str]:
        value = entry.get(key) or {}
        return {str(k): str(v) for k, v in value.items()} if isinstance(value, Mapping) else {}

    kind = entry.get("type", "stdio")
    if kind == "stdio":
        if not isinstance(entry.get("command"), str) or not entry["command"]:
            return None, "a stdio server needs a command"
        args = entry.get("args") or []
        return McpServer(
            name=name,
            transport=Transport.STDIO,
            command=entry["command"],
            args=tuple(str(a) for a in args) if isinstance(args, list) else (),
            env=table("env"),
            source=source,
        ), ""
    if kind in ("http", "sse"):
        if not isinstance(entry.get("url"), str) or not entry["url"]:
            return None, f"an {kind} server needs a url"
        return McpServer(
            name=name,
            transport=Transport.HTTP if kind == "http" else Transport.SSE,
            url=entry["url"],
            headers=table("headers"),
            source=source,
        ), ""
    return None, f"unsupported type {kind!r}"


def mcp_servers(roots: Roots, out: list[Diagnostic]) -> dict[str, McpServer]:
    """The user's ``~/.factory/mcp.json`` servers, then the project's (which win a name,
    checked with ``droid mcp list``)."""
    files = [roots.home / MCP_FILE]
    if roots.workspace.resolve() != roots.home.resolve():
        files.append(roots.workspace / MCP_FILE)
    servers: dict[str, McpServer] = {}
    for path in files:
        text = read_settings_text(path, out) or ""
        if not text:
            continue
        data = claude_mcp.load_json_object(text, str(path), out, HARNESS)
        block = data.get("mcpServers")
        for name, entry in block.items() if isinstance(block, Mapping) else ():
            server, problem = server_from_entry(str(name), entry, str(path))
            line, column = claude_mcp.position(text, str(name))
            if server is None:
                out.append(
                    harness_diagnostic(
                        "harness-ignored",
                        f"[{name}] Droid does not start this server: {problem}",
                        path=str(path),
                        line=line,
                        column=column,
                        hint="stdio servers need a command; http and sse servers a type and a url",
                        warning=True,
                    )
                )
                continue
            servers[str(name)] = server
    return servers


def server_entry(server: McpServer) -> dict[str, Any]:
    """A server as a Droid ``mcpServers`` entry (``type`` always written)."""
    if server.transport is Transport.STDIO:
        entry: dict[str, Any] = {"type": "stdio", "command": server.command}
        if server.args:
            entry["args"] = list(server.args)
        if server.env:
            entry["env"] = dict(server.env)
        return entry
    entry = {"type": server.transport.value, "url": server.url}
    if server.headers:
        entry["headers"] = dict(server.headers)
    return entry


def _mcp_file(
    profiles: list[AgentProfile],
    request: RenderRequest,
    existing: ReadExisting,
    out: list[Diagnostic],
) -> NativeFile | None:
    """The scope's ``mcp.json`` with the servers the rendered droids use merged in; a
    server holding a variable where Droid does not expand one (``command``, ``args``,
    ``url``: checked; ``env`` and ``headers`` are expanded) is refused."""
    path = MCP_FILE
    servers, missing = referenced_servers(profiles, request.servers)
    for name, ids in missing.items():
        out.append(
            harness_diagnostic(
                "render-unsupported",
                f"{', '.join(ids)} reference MCP server '{name}', which the registry does not "
                "have; Droid will not find it",
                path=path,
                hint=f"add mcp-servers/{name}.md to the vault",
                warning=True,
            )
        )
    entries: dict[str, dict[str, Any]] = {}
    for name, server in sorted(servers.items()):
        literal = [server.command, *server.args, server.url]
        if any(_VARIABLE in text for text in literal):
            out.append(
                harness_diagnostic(
                    "render-unsupported",
                    f"MCP server '{name}': Droid does not expand variables in a server's "
                    "command, arguments or url, so it would use them literally",
                    path=path,
                    hint="pass the value through env or headers (Droid expands ${VAR} there)",
                )
            )
            continue
        entries[name] = server_entry(server)
    if not entries:
        return None
    current = existing_text(existing, path, out)
    if current is False:
        return None
    merged = claude_mcp.merge_into(current, path, entries, _DIALECT, out)
    if merged is None:
        return None
    # Droid keeps mcp.json private (``droid mcp add`` writes it 0600).
    mode = 0o600 if request.scope is Scope.USER else 0o644
    return NativeFile(path=path, content=merged, mode=mode, merged=True)


_DIALECT = claude_mcp.Dialect(HARNESS, "mcpServers", False, True, True)
