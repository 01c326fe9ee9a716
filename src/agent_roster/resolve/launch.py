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

from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import AgentProfile, Runtime
from agent_roster.resolve import tools
from agent_roster.resolve.cascade import Resolution

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
            "files": {path: json.loads(text) for path, text in self.files.items()},
            "system_prompt": self.system_prompt,
            "tools": list(self.tools),
            "notes": list(self.notes),
        }


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


def build(
    resolution: Resolution, *, embedded: McpServer, inject: bool, state_dir: Path
) -> LaunchSpec:
    """The launch spec for the runtime the resolved profile selects."""
    runtime = resolution.profile.runtime or Runtime.CLAUDE_SDK
    if runtime is Runtime.ACPX:
        return _acpx(resolution)
    if runtime is Runtime.SUPERVISOR:
        return _supervisor(resolution)
    return _claude(resolution, embedded, inject, state_dir)


def _claude(
    resolution: Resolution, embedded: McpServer, inject: bool, state_dir: Path
) -> LaunchSpec:
    profile = resolution.profile
    notes: list[str] = []
    argv = ["claude", "-p"]
    if profile.model:
        argv += ["--model", profile.model]
    if profile.permission_mode:
        argv += ["--permission-mode", CLAUDE_PERMISSION_MODES[profile.permission_mode]]
        if profile.permission_mode == "full":
            notes.append("permission_mode 'full' is passed as 'bypassPermissions'")
    allowed = tools.for_claude(profile.allowed_tools, embedded.name)
    denied = tools.for_claude(profile.denied_tools, embedded.name)
    if allowed:
        argv += ["--allowed-tools", *allowed]
    if denied:
        argv += ["--disallowed-tools", *denied]
    config = claude_mcp_config(resolution, embedded, inject)
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
        {},
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


def _supervisor(resolution: Resolution) -> LaunchSpec:
    profile = resolution.profile
    surface = tools.for_supervisor(profile.allowed_tools)
    notes = [
        f"tool {name!r} is not an embedded command; the supervisor cannot call it"
        for name in profile.allowed_tools
        if name not in surface
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
