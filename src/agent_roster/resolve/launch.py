"""Launch specs: a resolved profile turned into exactly what each runtime needs.

* ``claude_sdk`` — the ``claude`` argv and environment, and the ``--mcp-config`` file with
  ``--strict-mcp-config`` so host-level servers never leak in (lessons, section 5);
* ``acpx`` — the ``acpx`` invocation for the profile's ``agent_name``, carrying what ACP
  carries (the permission policy) and listing what it cannot;
* ``supervisor`` — the bounded tool surface (the allowed commands of the embedded registry)
  and the prompt.

Anything a runtime cannot represent is listed in ``notes``, never dropped silently.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from agent_roster.argv import Argv
from agent_roster.known_tools import DEFAULT_EMBEDDED_COMMANDS, split_mcp_name
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import AgentProfile, Runtime
from agent_roster.redact import redact_data, redact_mapping
from agent_roster.resolve import tools
from agent_roster.resolve.cascade import Resolution
from agent_roster.resolve.index import ProfileIndex

ROLE_HEADING = "## Agent Role Instructions"

#: Our permission modes → the values ``claude --permission-mode`` accepts.
CLAUDE_PERMISSION_MODES = {
    "default": "default",
    "plan": "plan",
    "acceptEdits": "acceptEdits",
    "bypassPermissions": "bypassPermissions",
    "auto": "auto",
    "full": "bypassPermissions",
}

#: Set in a claude_sdk launch's environment when the profile names a model: keep it as is.
CLAUDE_KEEP_MODEL = "CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP"

#: The environment variable a claude_sdk launch carries its embedded-server token in. The
#: MCP config refers to it (``Authorization: Bearer ${ROSTER_LAUNCH_TOKEN}``, which Claude
#: Code expands), so the config file holds no secret and is the same for every task of a
#: profile, while each launch gets its own token (bound to its task and profile).
TOKEN_ENV = "ROSTER_LAUNCH_TOKEN"  # noqa: S105 - a variable name, not a secret

#: Our permission modes → acpx's permission policy flag (ACP asks the client per request).
ACPX_PERMISSION_FLAGS = {
    "default": "--approve-reads",
    "plan": "--deny-all",
    "acceptEdits": "--approve-all",
    "auto": "--approve-all",
    "bypassPermissions": "--approve-all",
    "full": "--approve-all",
}


class LaunchSpec(NamedTuple):
    """``argv`` ends with ``--`` and takes the prompt as its last element; ``files`` maps
    paths to the content written before launch (the MCP config)."""

    runtime: str
    argv: tuple[str, ...]
    env: dict[str, str]
    files: dict[str, str]
    system_prompt: str
    tools: tuple[str, ...]
    notes: tuple[str, ...]

    def command(self, prompt: str) -> list[str]:
        """The argv to execute for ``prompt`` (empty for the in-process supervisor)."""
        if not self.argv:
            return []
        if self.runtime == Runtime.ACPX.value and self.system_prompt:
            prompt = f"{self.system_prompt}\n\n{prompt}"
        return [*self.argv, prompt]

    def to_dict(self) -> dict[str, Any]:
        return {
            "runtime": self.runtime,
            "argv": [*self.argv, "<prompt>"] if self.argv else [],
            "env": redact_mapping(self.env),
            "files": {path: _shown_config(text) for path, text in self.files.items()},
            "system_prompt": self.system_prompt,
            "tools": list(self.tools),
            "notes": list(self.notes),
        }


@functools.lru_cache(maxsize=1024)
def _shown_config(text: str) -> Any:
    """:func:`_redacted` of an MCP config's text, parsed once per text: the daemon shows the
    same few configs on every resolve. Shared between calls: do not mutate it."""
    return _redacted(json.loads(text))


def _redacted(config: Any) -> Any:
    """An MCP config for display: every secret masked (the file written for the launch
    keeps them; ``${VAR}`` references are shown as they are)."""
    return redact_data(config)


def role_instructions(profile: AgentProfile) -> str:
    """Seed 001: the profile's prompt text, injected as "Agent Role Instructions"."""
    prompt = profile.prompt
    return f"{ROLE_HEADING}\n\n{prompt}" if prompt else ""


def mcp_entry(server: McpServer) -> dict[str, Any]:
    """One server in the ``mcpServers`` dialect Claude Code reads."""
    if server.transport is Transport.STDIO:
        entry: dict[str, Any] = {
            "type": "stdio",
            "command": server.command,
            "args": list(server.args),
        }
        if server.env:
            entry["env"] = dict(server.env)
        return entry
    entry = {"type": server.transport.value, "url": server.url}
    if server.headers:
        entry["headers"] = dict(server.headers)
    return entry


def claude_mcp_config(resolution: Resolution, embedded: McpServer, inject: bool) -> dict[str, Any]:
    """The ``--mcp-config`` of a claude_sdk launch; ``embedded`` is the embedded server as
    this launch reaches it (attached to a running daemon, or roster.toml's url)."""
    servers: dict[str, Any] = {}
    if inject and embedded.url:
        servers[embedded.name] = mcp_entry(embedded)
    for server in resolution.servers:
        if server.builtin:
            if embedded.url:
                servers[embedded.name] = mcp_entry(embedded)
            continue  # the embedded server without a URL cannot be reached by a subprocess
        servers[server.name] = mcp_entry(server)
    return {"mcpServers": servers}


def reach_embedded(embedded: McpServer, daemon_url: str | None) -> McpServer:
    """The embedded server as a launch reaches it: at the running daemon's ``/mcp`` with
    the launch's token (from :data:`TOKEN_ENV`), else as roster.toml says."""
    if daemon_url is None:
        return embedded
    return msgspec.structs.replace(
        embedded,
        url=daemon_url,
        headers={"Authorization": "Bearer ${" + TOKEN_ENV + "}"},
    )


def build_cached(
    index: ProfileIndex,
    resolution: Resolution,
    state_dir: Path,
    daemon_url: str | None = None,
) -> LaunchSpec:
    """:func:`build` for a resolution made from ``index``, memoised in the index per scope,
    profile, state folder and daemon until the next :meth:`ProfileIndex.apply`. The spec
    depends on nothing else (not the task, nor the cascade level: the launch's own token
    travels beside it, see :data:`TOKEN_ENV`), and a hit is checked against the very
    effective profile object it was built from. The spec is shared: do not mutate it."""
    key = (resolution.project, resolution.profile_id, state_dir, daemon_url)
    specs = index.specs
    hit = specs.get(key)
    if hit is not None and hit[0] is resolution.profile:
        spec: LaunchSpec = hit[1]
        return spec
    spec = build(
        resolution,
        embedded=index.embedded_server(),
        inject=index.config.embedded.inject,
        state_dir=state_dir,
        commands=index.config.embedded.command_names,
        daemon_url=daemon_url,
    )
    specs[key] = (resolution.profile, spec)
    return spec


def build(
    resolution: Resolution,
    *,
    embedded: McpServer,
    inject: bool,
    state_dir: Path,
    commands: frozenset[str] = DEFAULT_EMBEDDED_COMMANDS,
    daemon_url: str | None = None,
) -> LaunchSpec:
    """The launch spec for the runtime the resolved profile selects; ``commands`` are the
    embedded server's command names (the catalog plus roster.toml's); ``daemon_url`` is the
    running ``roster up``'s MCP endpoint (``None``: no daemon runs for this vault)."""
    runtime = resolution.profile.runtime or Runtime.CLAUDE_SDK
    if runtime is Runtime.ACPX:
        return _acpx(resolution)
    if runtime is Runtime.SUPERVISOR:
        return _supervisor(resolution, commands)
    return _claude(resolution, reach_embedded(embedded, daemon_url), inject, state_dir, commands)


def _claude(
    resolution: Resolution,
    embedded: McpServer,
    inject: bool,
    state_dir: Path,
    commands: frozenset[str],
) -> LaunchSpec:
    profile = resolution.profile
    notes: list[str] = []
    env: dict[str, str] = {}
    # Every value is glued to its option (--model=VALUE) or checked before it is placed:
    # a value from the vault must never be read as a new option (issue 11 item 2).
    argv = Argv("claude", "-p")
    if profile.model:
        argv.option("--model", profile.model, "model")
        # Claude Code swaps legacy model ids for the newest of their family (and says so on
        # stderr); the profile names the model it wants, so that is the one launched.
        env[CLAUDE_KEEP_MODEL] = "1"
    if profile.permission_mode:
        mode = CLAUDE_PERMISSION_MODES[profile.permission_mode]
        argv.option("--permission-mode", mode, "permission mode")
        if profile.permission_mode == "full":
            notes.append("permission_mode 'full' is passed as 'bypassPermissions'")
        if mode == "bypassPermissions":
            notes.append(
                "Claude Code refuses bypassPermissions when run as root unless IS_SANDBOX=1 "
                "is set; set it only inside a real sandbox"
            )
    allowed = tools.for_claude(profile.allowed_tools, embedded.name, commands)
    denied = tools.for_claude(profile.denied_tools, embedded.name, commands)
    for name in dict.fromkeys([*allowed, *denied]):
        if name.split("(", 1)[0] in tools.RETIRED_CLAUDE_TOOLS:
            kept = "denying it is kept for older CLIs" if name in denied else "it grants nothing"
            notes.append(f"{name!r} is no longer a Claude Code tool; {kept}")
    if allowed:
        argv.values("--allowed-tools", allowed, "allowed tool")
    if profile.tools_exact:
        # --allowed-tools only spares the listed tools a prompt; --tools is the set of
        # built-in tools the session has at all, "" for none (issue 12 item 2: an exact
        # empty list is no tools, never every tool).
        builtins = [
            name
            for name in dict.fromkeys(t.split("(", 1)[0] for t in allowed)
            if name in tools.CLAUDE_BUILTIN_TOOLS
        ]
        if builtins:
            argv.option("--tools", ",".join(builtins), "tool")
        else:
            argv.flag("--tools=")  # no tools at all
    if denied:
        argv.values("--disallowed-tools", denied, "denied tool")
    config = claude_mcp_config(resolution, embedded, inject)
    attached = config["mcpServers"]
    unreachable: dict[str, None] = {}
    for tool in allowed:
        split = split_mcp_name(tool)
        if split is not None and split[0] not in attached:
            unreachable[split[0]] = None
    for server_name in unreachable:
        if server_name != embedded.name:
            why = "the profile's MCP Servers do not list it"
        elif not embedded.url:
            why = (
                "roster up is not running for this vault and roster.toml's "
                "[embedded_server] has no url"
            )
        else:
            why = "[embedded_server] inject is off and the profile's MCP Servers do not list it"
        notes.append(
            f"tools of MCP server {server_name!r} are allowed but the server is not attached "
            f"({why}), so the agent cannot call them"
        )
    if embedded.name in attached and TOKEN_ENV in str(embedded.headers):
        notes.append(
            f"embedded server {embedded.name!r} attached at {embedded.url} (roster up); "
            f"${TOKEN_ENV} carries this launch's token, bound to its task and profile"
        )
    text = json.dumps(config, indent=2, sort_keys=True) + "\n"
    digest = hashlib.blake2b(text.encode(), digest_size=8).hexdigest()
    name = (
        f"{resolution.project + '-' if resolution.project else ''}"
        f"{resolution.profile_id or 'default'}-{digest}.mcp.json"
    )
    path = str(state_dir / "launch" / name)
    argv.option("--mcp-config", path, "MCP config path").flag("--strict-mcp-config")
    system_prompt = role_instructions(profile)
    if system_prompt:
        argv.option("--append-system-prompt", system_prompt, "system prompt", text=True)
    for field, label in (
        ("max_tokens_per_task", "token budget"),
        ("max_turns", "turn limit"),
        ("temperature", "temperature"),
        ("top_p", "top_p"),
    ):
        if getattr(profile, field) is not None:
            notes.append(f"{field} ({label}) is enforced by the orchestrator, not by a claude flag")
    if resolution.profile.agent_name:
        notes.append("agent_name applies only to the acpx runtime")
    argv.end_options()
    return LaunchSpec(
        Runtime.CLAUDE_SDK.value,
        tuple(argv.build()),
        env,
        {path: text},
        system_prompt,
        tuple(allowed),
        tuple(notes),
    )


def _acpx(resolution: Resolution) -> LaunchSpec:
    profile = resolution.profile
    notes = [
        "ACP has no per-session tool allowlist: allowed_tools/denied_tools are enforced by "
        "the permission policy only",
        "MCP servers are configured in the ACP agent itself, not per launch",
    ]
    argv = Argv("acpx").option("--format", "json", "output format")
    if profile.permission_mode:
        argv.flag(ACPX_PERMISSION_FLAGS[profile.permission_mode])
    argv.option("--non-interactive-permissions", "deny", "permission policy")
    # acpx takes the agent as a positional word (its --agent takes a raw command instead),
    # so the name is checked: "--approve-all" would be acpx's own flag (issue 11 item 2).
    argv.operand(profile.agent_name or "codex", "agent_name", word=True).word("exec")
    if not profile.agent_name:
        notes.append("no agent_name: acpx's default agent (codex) is used")
    if profile.model:
        notes.append(f"model {profile.model!r} must be set in the ACP agent's own config")
    system_prompt = role_instructions(profile)
    if system_prompt:
        notes.append(
            "ACP has no system-prompt channel: the role instructions are sent at the "
            "start of the prompt"
        )
    argv.end_options()
    return LaunchSpec(
        Runtime.ACPX.value,
        tuple(argv.build()),
        {},
        {},
        system_prompt,
        tuple(profile.allowed_tools),
        tuple(notes),
    )


def _supervisor(resolution: Resolution, commands: frozenset[str]) -> LaunchSpec:
    profile = resolution.profile
    surface = tools.for_supervisor(profile.allowed_tools, profile.denied_tools, commands)
    notes = [
        f"tool {name!r} is not an embedded command; the supervisor cannot call it"
        for name in profile.allowed_tools
        if name not in surface and name not in profile.denied_tools
    ]
    return LaunchSpec(
        Runtime.SUPERVISOR.value,
        (),
        {},
        {},
        role_instructions(profile),
        tuple(surface),
        tuple(notes),
    )
