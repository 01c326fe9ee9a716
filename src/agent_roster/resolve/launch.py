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

import hashlib
import json
from pathlib import Path
from typing import Any, NamedTuple

from agent_roster.known_tools import DEFAULT_EMBEDDED_COMMANDS, split_mcp_name
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import AgentProfile, Runtime
from agent_roster.redact import redact_mapping
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
            "env": self.env,
            "files": {path: _redacted(json.loads(text)) for path, text in self.files.items()},
            "system_prompt": self.system_prompt,
            "tools": list(self.tools),
            "notes": list(self.notes),
        }


def _redacted(config: Any) -> Any:
    """An MCP config for display: secret-looking env and header values masked (the file
    written for the launch keeps them; ``${VAR}`` references are shown as they are)."""
    servers = config.get("mcpServers") if isinstance(config, dict) else None
    if not isinstance(servers, dict):
        return config
    shown: dict[str, Any] = {}
    for name, entry in servers.items():
        entry = dict(entry)
        for key in ("env", "headers"):
            if isinstance(entry.get(key), dict):
                entry[key] = redact_mapping(entry[key])
        shown[name] = entry
    return {**config, "mcpServers": shown}


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
    servers: dict[str, Any] = {}
    if inject and embedded.url:
        servers[embedded.name] = mcp_entry(embedded)
    for server in resolution.servers:
        if server.builtin and not server.url:
            continue  # the embedded server without a URL cannot be reached by a subprocess
        servers[server.name] = mcp_entry(server)
    return {"mcpServers": servers}


def build_cached(index: ProfileIndex, resolution: Resolution, state_dir: Path) -> LaunchSpec:
    """:func:`build` for a resolution made from ``index``, memoised in the index per scope,
    profile and state folder until the next :meth:`ProfileIndex.apply`. The spec depends on
    nothing else (not the task, nor the cascade level), and a hit is checked against the
    very effective profile object it was built from. The spec is shared: do not mutate it."""
    key = (resolution.project, resolution.profile_id, state_dir)
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
) -> LaunchSpec:
    """The launch spec for the runtime the resolved profile selects; ``commands`` are the
    embedded server's command names (the catalog plus roster.toml's)."""
    runtime = resolution.profile.runtime or Runtime.CLAUDE_SDK
    if runtime is Runtime.ACPX:
        return _acpx(resolution)
    if runtime is Runtime.SUPERVISOR:
        return _supervisor(resolution, commands)
    return _claude(resolution, embedded, inject, state_dir, commands)


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
    argv = ["claude", "-p"]
    if profile.model:
        argv += ["--model", profile.model]
        # Claude Code swaps legacy model ids for the newest of their family (and says so on
        # stderr); the profile names the model it wants, so that is the one launched.
        env[CLAUDE_KEEP_MODEL] = "1"
    if profile.permission_mode:
        mode = CLAUDE_PERMISSION_MODES[profile.permission_mode]
        argv += ["--permission-mode", mode]
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
        argv += ["--allowed-tools", *allowed]
    if denied:
        argv += ["--disallowed-tools", *denied]
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
            why = "roster.toml's [embedded_server] has no url"
        else:
            why = "[embedded_server] inject is off and the profile's MCP Servers do not list it"
        notes.append(
            f"tools of MCP server {server_name!r} are allowed but the server is not attached "
            f"({why}), so the agent cannot call them"
        )
    text = json.dumps(config, indent=2, sort_keys=True) + "\n"
    digest = hashlib.blake2b(text.encode(), digest_size=8).hexdigest()
    name = (
        f"{resolution.project + '-' if resolution.project else ''}"
        f"{resolution.profile_id or 'default'}-{digest}.mcp.json"
    )
    path = str(state_dir / "launch" / name)
    argv += ["--mcp-config", path, "--strict-mcp-config"]
    system_prompt = role_instructions(profile)
    if system_prompt:
        argv += ["--append-system-prompt", system_prompt]
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
    argv.append("--")
    return LaunchSpec(
        Runtime.CLAUDE_SDK.value,
        tuple(argv),
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
    argv = ["acpx", "--format", "json"]
    if profile.permission_mode:
        argv.append(ACPX_PERMISSION_FLAGS[profile.permission_mode])
    argv += ["--non-interactive-permissions", "deny"]
    argv += [profile.agent_name or "codex", "exec"]
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
    argv.append("--")
    return LaunchSpec(
        Runtime.ACPX.value,
        tuple(argv),
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
