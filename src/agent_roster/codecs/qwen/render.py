"""Writing Qwen Code files: one subagent file per profile and the merged ``settings.json``.

Qwen Code's subagent has Claude Code's shape: a ``tools`` allowlist of exact tool names, a
``disallowedTools`` denylist (which also takes MCP patterns such as ``mcp__github__*``), an
``approvalMode`` (Claude's ``permissionMode`` values are accepted too) and ``maxTurns``.
Canonical rules become those lists through the same folding as for Claude Code
(``claude/rules.ClaudePermissions``), with Qwen's tool names (``tool_names``). What Qwen
cannot hold is never widened: a tool allowed only for some arguments is left out, one
denied for some arguments is denied whole (both narrower, and reported), and an agent that
would have no tools at all is refused (Qwen reads an empty ``tools`` list as every tool).
Mapping: docs/codecs/qwen.md.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from agent_roster.codecs.base import Loss, LossOutcome, Probe, RenderRequest
from agent_roster.codecs.claude import semantics as claude_semantics
from agent_roster.codecs.claude.files import COMMON_DROPS
from agent_roster.codecs.claude.rules import (
    ClaudePermissions,
    is_narrowed,
    native_tool,
    tools_for_key,
)
from agent_roster.codecs.native_md import harness_diagnostic, model_for
from agent_roster.codecs.prompt import render_prompt, stripped_shorter_than
from agent_roster.codecs.qwen import semantics as qwen_semantics
from agent_roster.codecs.qwen.read import (
    AGENTS_DIR,
    COLORS,
    SETTINGS_FILE,
    dumps,
    name_problem,
)
from agent_roster.codecs.qwen.tools import canonical_tool, qwen_tool
from agent_roster.codecs.semantics import canonical_each
from agent_roster.codecs.tool_names import split_ref
from agent_roster.diagnostics import Diagnostic
from agent_roster.model.profile import AgentProfile, PermissionAction
from agent_roster.vault.json_syntax import json_problem

#: Canonical ``permission_mode`` → Qwen ``approvalMode`` (the inverse of Qwen's own
#: ``PERMISSION_MODE_TO_APPROVAL_MODE`` for Claude's modes).
APPROVAL = {
    "default": "default",
    "plan": "plan",
    "acceptEdits": "auto-edit",
    "bypassPermissions": "yolo",
    "auto": "auto",
    "full": "yolo",
}
#: ``harness.qwen`` keys written back as they are (README D5).
PASS_THROUGH = ("runConfig", "hooks", "background", "executor", "executionBackend")
_DROPS = {
    **COMMON_DROPS,
    "tags": "tags are vault bookkeeping",
    "install": "Qwen Code installs nothing for an agent",
}

Lose = Callable[[str, LossOutcome, str], None]


def _server_form(name: str) -> str:
    """``mcp__<server>`` (a whole server, as ClaudePermissions writes it) as Qwen's pattern."""
    ref = split_ref(name)
    return f"{name}__*" if name.startswith("mcp__") and ref.server is None else name


def _whole_server(name: str) -> bool:
    ref = split_ref(name)
    return ref.server is not None and ref.mcp_tool == "*"


class Tools:
    """A profile's ``tools``/``disallowedTools`` for Qwen, or why it cannot have them."""

    def __init__(self, profile: AgentProfile, request: RenderRequest, lose: Lose) -> None:
        self.profile = profile
        self.tools: list[str] | None = None
        self.denied: list[str] = []
        self._answers: dict[str, bool] = {}  # _denied, by name
        self.problem = ""
        embedded, commands = request.embedded, request.embedded_commands
        self.embedded, self.commands = embedded, commands
        # Qwen's approval modes decide as Claude Code's (semantics.MODES): the same folding.
        perms = ClaudePermissions(profile, profile.permission_mode or "default", embedded, commands)
        narrowing = self._narrowing(profile, lose)
        if narrowing is None:
            return
        if perms.list is not None:
            self.tools = []
            listed = dict.fromkeys((*profile.allowed_tools, *map(_server_form, perms.list)))
            self._decide([name for name in listed if not is_narrowed(name)])
            for name in listed:
                if is_narrowed(name):
                    continue  # left out (narrower): see _narrowing
                if self._denied(name):
                    # Listed, but a later rule denies it (a narrowing's, say): Qwen's names
                    # are coarser than Claude's (MultiEdit is Qwen's edit, which Edit is
                    # too), so a denied name listed would grant another tool.
                    continue
                native = qwen_tool(name, embedded, commands)
                if native is None:
                    lose(
                        "allowed_tools", LossOutcome.DROPPED, f"{name}: Qwen Code has no such tool"
                    )
                elif (server := split_ref(native).server) is not None and (
                    server not in profile.mcp_servers
                ):
                    lose(
                        "allowed_tools",
                        LossOutcome.DROPPED,
                        f"{name}: its server is not one of the profile's mcp_servers, so the "
                        "agent does not get it",
                    )
                elif _whole_server(native):
                    lose(
                        "allowed_tools",
                        LossOutcome.DROPPED,
                        f"{name}: Qwen's tools list takes exact names only, so a whole MCP "
                        "server cannot be allowed (name its tools)",
                    )
                elif native not in self.tools:
                    self.tools.append(native)
            if not self.tools:
                self.problem = (
                    "the agent would have no tools, which Qwen Code cannot write: it reads an "
                    "empty tools list as every tool"
                )
                return
            for server in profile.mcp_servers:
                if not any(t.startswith(f"mcp__{server}__") for t in self.tools):
                    lose(
                        "mcp_servers",
                        LossOutcome.DROPPED,
                        f"no tool of {server!r} is in the agent's tools list, so it gets none "
                        "(Qwen's tools list names MCP tools exactly)",
                    )
        denied = (
            t for t in (*profile.denied_tools, *map(_server_form, perms.deny)) if not is_narrowed(t)
        )
        for name in dict.fromkeys((*denied, *narrowing)):
            native = qwen_tool(name, embedded, commands)
            if native is None:
                lose("denied_tools", LossOutcome.TRANSLATED, f"{name}: Qwen Code has no such tool")
            elif native not in self.denied:
                self.denied.append(native)
        self._report(profile, perms, lose)
        self._renamed(profile, request, lose)
        for server in profile.mcp_servers if self.tools is None else ():
            if f"mcp__{server}__*" in self.denied:
                lose(
                    "mcp_servers",
                    LossOutcome.TRANSLATED,
                    f"every tool of {server!r} is denied, which reads back as a server the "
                    "agent does not use",
                )

    def _decide(self, names: Sequence[str]) -> None:
        """Work out :meth:`_denied` for each of ``names`` in one pass over the rules (a
        profile lists dozens of tools; asked one by one, they were a tenth of a render)."""
        missing = [name for name in names if name not in self._answers]
        found = canonical_each(
            self.profile,
            [Probe(name) for name in missing],
            embedded=self.embedded,
            commands=self.commands,
        )
        for name, decision in zip(missing, found, strict=True):
            self._answers[name] = (
                decision.rule is not None and decision.action is PermissionAction.DENY
            )

    def _denied(self, name: str) -> bool:
        """Whether the profile's rules deny every call of ``name`` (canonical)."""
        if name not in self._answers:
            self._decide([name])
        return self._answers[name]

    def disallowed(self, block: Sequence[str]) -> list[str]:
        """``disallowedTools`` once the settings' servers (``block``) are known: without an
        allowlist every agent sees every configured server, so the others' tools are denied
        (scoping, as OpenCode's codec does; import reads them as servers not used)."""
        if self.tools is not None:
            return self.denied
        mine = self.profile.mcp_servers
        scoping = [f"mcp__{s}__*" for s in block if s not in mine]
        return [*self.denied, *(d for d in scoping if d not in self.denied)]

    def _narrowing(self, profile: AgentProfile, lose: Lose) -> list[str] | None:
        """Whole tools to deny for argument-level restrictions Qwen cannot hold (its lists
        take whole tools): the narrower reading, reported; never the wider one. ``None``
        (with ``problem``) for a rule on every tool's arguments, which has no narrower form
        short of no tools at all."""
        deny: list[str] = []
        for name in profile.allowed_tools:
            if is_narrowed(name):
                lose(
                    "allowed_tools",
                    LossOutcome.DROPPED,
                    f"{name}: Qwen's tools list takes whole tools, so the tool is left out "
                    "(narrower than the profile)",
                )
        for name in profile.denied_tools:
            if is_narrowed(name):
                deny.append(split_ref(name).tool)
                lose(
                    "denied_tools",
                    LossOutcome.TRANSLATED,
                    f"{name}: Qwen's disallowedTools takes whole tools, so the whole tool is "
                    "denied (narrower than the profile)",
                )
        for index, rule in enumerate(profile.permission):
            if rule.pattern == "*":
                lead = index == 0 and rule.action is PermissionAction.DENY
                if rule.permission == "*" and not lead:
                    lose(
                        "permission",
                        LossOutcome.DROPPED,
                        f"'*' → {rule.action.value}: Qwen has no rule for every tool; each "
                        "tool keeps the decision the other rules give it",
                    )
                continue
            if rule.permission == "*":
                self.problem = (
                    f"the rule '*' {rule.pattern!r} → {rule.action.value} limits every tool by "
                    "its arguments, which Qwen Code cannot hold (it takes whole tools)"
                )
                return None
            if rule.action is PermissionAction.DENY:
                deny += tools_for_key(rule.permission, profile.mcp_servers)
                lose(
                    "permission",
                    LossOutcome.TRANSLATED,
                    f"{rule.permission} {rule.pattern!r} → deny: Qwen takes whole tools, so "
                    f"the whole {rule.permission} is denied (narrower than the profile)",
                )
                lose("denied_tools", LossOutcome.TRANSLATED, "gained entries from permission")
            else:
                lose(
                    "permission",
                    LossOutcome.DROPPED,
                    f"{rule.permission} {rule.pattern!r} → {rule.action.value}: no per-argument "
                    "form; the tool keeps its whole-tool decision",
                )
        return deny

    def _renamed(self, profile: AgentProfile, request: RenderRequest, lose: Lose) -> None:
        """Report each tool whose Qwen name reads back as another canonical tool (several
        canonical tools are one Qwen tool: MultiEdit and Edit are ``edit``)."""
        for field in ("allowed_tools", "denied_tools"):
            for name in getattr(profile, field):
                if is_narrowed(name):
                    continue  # reported as narrowed
                if field == "allowed_tools" and self._denied(name):
                    continue  # not written (the tools list leaves it out)
                native = qwen_tool(name, request.embedded, request.embedded_commands)
                server = split_ref(native or "").server
                foreign = server is not None and server not in profile.mcp_servers
                if native is None or _whole_server(native) or foreign:
                    continue  # reported as dropped
                back = canonical_tool(native)
                if back != name:
                    lose(
                        field, LossOutcome.TRANSLATED, f"{name} written as {native}, read as {back}"
                    )

    def _report(self, profile: AgentProfile, perms: ClaudePermissions, lose: Lose) -> None:
        mode = qwen_semantics.MODES.get(APPROVAL.get(profile.permission_mode or "default", ""))
        asked = [
            t
            for t in profile.allowed_tools
            if t.startswith("mcp__")
            and claude_semantics.mode_decision(mode or "bypassPermissions", t)
            is PermissionAction.ASK
        ]
        if asked:
            # Qwen asks before an MCP tool the agent has, unless the mode allows all; an
            # import reads that ask back (issue 12 item 2).
            for lost in ("allowed_tools", "permission"):
                lose(
                    lost,
                    LossOutcome.TRANSLATED,
                    f"{', '.join(dict.fromkeys(asked))}: allow becomes ask (Qwen Code asks "
                    "before an MCP tool in this approval mode)",
                )
        if perms.stricter:
            # The approval mode asks where the profile allows; import reads the ask back.
            field = "permission" if profile.permission else "allowed_tools"
            for lost in dict.fromkeys((field, "permission")):
                lose(
                    lost,
                    LossOutcome.TRANSLATED,
                    f"{', '.join(dict.fromkeys(perms.stricter))}: allow becomes ask (the "
                    "approval mode asks; set permission_mode to change that)",
                )
        if profile.permission:
            parts = []
            named = {native_tool(t, self.embedded, self.commands) for t in profile.allowed_tools}
            gained = [t for t in perms.list or () if t not in named]
            if perms.list is not None and not profile.allowed_tools and not profile.tools_exact:
                parts.append("'*: deny' became a tools allowlist")
            if gained:
                parts.append(f"tools gained {', '.join(dict.fromkeys(gained))}")
            if perms.deny:
                parts.append(f"disallowedTools gained {', '.join(dict.fromkeys(perms.deny))}")
            if parts:
                lose("permission", LossOutcome.TRANSLATED, "; ".join(parts))
            if gained:
                lose("allowed_tools", LossOutcome.TRANSLATED, "gained entries from permission")
            if perms.deny:
                lose("denied_tools", LossOutcome.TRANSLATED, "gained entries from permission")
            if perms.narrowed:
                lose(
                    "permission",
                    LossOutcome.TRANSLATED,
                    "ask became deny (Qwen cannot ask per agent): "
                    + ", ".join(dict.fromkeys(perms.narrowed)),
                )
            if not (parts or gained or perms.deny or perms.narrowed or perms.stricter):
                # Every rule says what Qwen does anyway: nothing is written for it, and an
                # import reads the agent back as Qwen's defaults.
                lose(
                    "permission",
                    LossOutcome.TRANSLATED,
                    "the rules match Qwen Code's own decisions; not written",
                )


class Prepared(NamedTuple):
    """A profile's subagent file before the settings' servers are known: its frontmatter
    (``disallowedTools`` comes from ``tools.disallowed(block)``) and prompt."""

    data: dict[str, Any]
    prompt: str
    tools: Tools

    def frontmatter(self, block: Sequence[str]) -> dict[str, Any]:
        data = dict(self.data)
        denied = self.tools.disallowed(block)
        if denied:
            # After "tools", where Qwen's own serializer puts it.
            items = list(data.items())
            at = next(i for i, (k, _) in enumerate(items) if k in ("description", "tools")) + 1
            at += "tools" in data
            data = dict([*items[:at], ("disallowedTools", denied), *items[at:]])
        return data


def render_profile(
    profile: AgentProfile, request: RenderRequest, out: list[Diagnostic], losses: list[Loss]
) -> Prepared | None:
    """The subagent file for ``profile`` (its losses added to ``losses``); ``None`` with a
    ``render-unsupported`` error in ``out`` when Qwen would refuse or widen it."""
    path = f"{AGENTS_DIR}/{profile.id}.md"

    def refuse(message: str, hint: str) -> None:
        out.append(
            harness_diagnostic(
                "render-unsupported", f"{profile.id}: {message}", path=path, hint=hint
            )
        )

    mine: list[Loss] = []

    def lose(field: str, outcome: LossOutcome, detail: str) -> None:
        mine.append(Loss(profile=profile.id, field=field, outcome=outcome, detail=detail))

    problem = name_problem(profile.id)
    if problem:
        refuse(f"Validation failed: {problem}", "rename the profile")
        return None
    if not profile.description.strip():
        refuse("Description is required and cannot be empty", "write a one-line description")
        return None
    prompt = render_prompt(profile)
    if stripped_shorter_than(prompt, 10):
        refuse(
            "System prompt must be at least 10 characters long",
            "Qwen Code skips an agent whose prompt is shorter",
        )
        return None
    for name in profile.mcp_servers:
        if name not in request.servers:
            refuse(f"MCP server '{name}' is not in the registry", "add it under mcp-servers/")
            return None
    tools = Tools(profile, request, lose)
    if tools.problem:
        refuse(tools.problem, "narrow the tool list by whole tools, or leave it to the harness")
        return None
    for field, why in _DROPS.items():
        value = getattr(profile, field)
        if value not in (None, "", (), {}) and not (field == "install" and value.is_empty):
            lose(field, LossOutcome.DROPPED, why)
    if profile.name != profile.id:
        lose("name", LossOutcome.DROPPED, "Qwen Code names an agent by its name key only")
    data: dict[str, Any] = {"name": profile.id, "description": profile.description}
    if tools.tools is not None:
        data["tools"] = tools.tools
    model = model_for(profile, "qwen")
    if model:
        data["model"] = model
    if profile.permission_mode:
        data["approvalMode"] = APPROVAL[profile.permission_mode]
        if profile.permission_mode == "full":
            lose("permission_mode", LossOutcome.TRANSLATED, "full is written as yolo")
    if profile.max_turns is not None:
        data["maxTurns"] = profile.max_turns
    if profile.color:
        if profile.color in COLORS:
            data["color"] = profile.color
        else:
            lose("color", LossOutcome.DROPPED, f"Qwen Code takes only {', '.join(COLORS)}")
    for key, value in profile.harness.get("qwen", {}).items():
        if key in PASS_THROUGH:
            data[key] = value
        else:
            lose("harness", LossOutcome.DROPPED, f"harness.qwen.{key} is set from canonical fields")
    losses.extend(mine)
    return Prepared(data, prompt, tools)


def merge_settings(
    text: str | None, entries: dict[str, dict[str, Any]], out: list[Diagnostic]
) -> str | None:
    """``settings.json`` with ``entries`` set under ``mcpServers``, every other key (and
    server) kept in order; ``None`` when it cannot be merged safely (comments, which a JSON
    rewrite would lose, or no object)."""
    data: Any = {}
    if text is not None and text.strip():
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            problem = json_problem(text, exc.pos)
            out.append(
                harness_diagnostic(
                    "render-unsupported",
                    f"cannot merge MCP servers into {SETTINGS_FILE}: {problem.message} at line "
                    f"{problem.line} column {problem.column} (comments are not kept by a JSON "
                    "merge, so roster leaves the file alone)",
                    path=SETTINGS_FILE,
                    line=problem.line,
                    column=problem.column,
                    hint="remove comments or fix the JSON, then render again",
                )
            )
            return None
    if not isinstance(data, dict) or not isinstance(data.get("mcpServers", {}), dict):
        out.append(
            harness_diagnostic(
                "render-unsupported",
                f"cannot merge MCP servers into {SETTINGS_FILE}: mcpServers is not an object",
                path=SETTINGS_FILE,
                hint="make the file a JSON object with an mcpServers object",
            )
        )
        return None
    data.setdefault("mcpServers", {}).update(entries)
    return dumps(data)
