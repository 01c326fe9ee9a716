"""Writing one Qoder CLI agent file (docs/codecs/qoder.md).

The frontmatter is Claude Code's (``name``, ``description``, ``tools``,
``disallowedTools``, ``model``, ``permissionMode``, ``maxTurns``, ``mcpServers``,
``color``) plus ``temperature``; Qoder's zod schema refuses a file with a value of the wrong
type (a colour outside its eight, a ``maxTurns`` below 1), so render writes only values it
accepts. Tools come from :func:`~agent_roster.codecs.toolset.whole_tools`: Qoder's lists
take whole, exact tool names, so a restriction on a tool's arguments is written in its
narrower reading (the tool left out or denied whole) and reported, never the wider one.
Render refuses the profile when no list holds it: a rule on every tool's arguments, an
agent left with no tools (Qoder reads an empty ``tools`` list as every tool), or a whole MCP
server to deny (``disallowedTools`` takes exact names only).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import msgspec

from agent_roster.codecs.base import Loss, LossOutcome, RenderRequest
from agent_roster.codecs.claude.files import COMMON_DROPS
from agent_roster.codecs.native_md import harness_diagnostic, model_for
from agent_roster.codecs.prompt import render_prompt
from agent_roster.codecs.qoder.read import AGENTS_DIR, COLORS
from agent_roster.codecs.qoder.tools import canonical_tool, qoder_tool
from agent_roster.codecs.tool_names import split_ref
from agent_roster.codecs.toolset import ToolVerdict, readback_note, whole_tools
from agent_roster.diagnostics import Diagnostic
from agent_roster.model.profile import AgentProfile

#: Canonical ``permission_mode`` → Qoder's ``permissionMode`` (Claude Code's values;
#: ``full`` has none of its own).
MODES = {
    "default": "default",
    "plan": "plan",
    "acceptEdits": "acceptEdits",
    "bypassPermissions": "bypassPermissions",
    "auto": "auto",
    "full": "bypassPermissions",
}
#: ``harness.qoder`` keys written back as they are (README D5).
PASS_THROUGH = (
    "skills",
    "hooks",
    "memory",
    "effort",
    "initialPrompt",
    "timeoutMins",
    "background",
    "isolation",
)
#: The tools Qoder adds to an agent with ``memory`` (when auto memory is on).
MEMORY_TOOLS = ("Read", "Write", "Edit")
_DROPS = {
    **{k: v for k, v in COMMON_DROPS.items() if k != "temperature"},
    "tags": "tags are vault bookkeeping",
    "install": "Qoder installs nothing for an agent",
}

Lose = Callable[[str, LossOutcome, str], None]


class Prepared(NamedTuple):
    """One agent file's frontmatter and prompt."""

    data: dict[str, Any]
    prompt: str


def _tools(
    profile: AgentProfile, request: RenderRequest, lose: Lose
) -> tuple[list[str] | None, list[str], str]:
    """``tools`` (``None``: every tool), ``disallowedTools``, and why neither can be
    written without widening ("" when they can)."""
    embedded, commands = request.embedded, request.embedded_commands
    unmoded = msgspec.structs.replace(profile, permission_mode="")
    verdict = whole_tools(unmoded, embedded=embedded, commands=commands)
    if verdict.problem:
        return None, [], verdict.problem
    _report_narrowing(profile, verdict, lose)
    if verdict.allow is not None:
        tools: list[str] = []
        for name in verdict.allow:
            native = qoder_tool(name, embedded, commands)
            if native is None:
                lose("allowed_tools", LossOutcome.DROPPED, f"{name}: Qoder has no such tool")
            elif native not in tools:
                tools.append(native)
        if not tools:
            return (
                None,
                [],
                (
                    "the agent would have no tools, which Qoder cannot write: it reads an empty "
                    "tools list as every tool"
                ),
            )
        return tools, [], ""
    denied: list[str] = []
    for name in verdict.deny:
        ref = split_ref(name)
        if ref.server is not None and ref.mcp_tool == "*":
            return (
                None,
                [],
                (
                    f"{name}: Qoder's disallowedTools takes exact tool names only, so a whole MCP "
                    "server cannot be denied (deny its tools by name, or list the agent's tools)"
                ),
            )
        # A tool Qoder does not have is denied by its canonical name all the same: Qoder
        # ignores the entry, and import reads the restriction back.
        native = qoder_tool(name, embedded, commands) or name
        if native not in denied:
            denied.append(native)
    return None, denied, ""


def _report_narrowing(profile: AgentProfile, verdict: ToolVerdict, lose: Lose) -> None:
    narrowed = set(verdict.narrowed)
    for name in profile.allowed_tools:
        if split_ref(name).argument is not None and split_ref(name).tool in narrowed:
            lose(
                "allowed_tools",
                LossOutcome.DROPPED,
                f"{name}: Qoder's tools list takes whole tools, so the tool is left out "
                "(narrower than the profile)",
            )
    for name in profile.denied_tools:
        if split_ref(name).argument is not None:
            lose(
                "denied_tools",
                LossOutcome.TRANSLATED,
                f"{name}: Qoder's disallowedTools takes whole tools, so the whole tool is "
                "denied (narrower than the profile)",
            )
    if not profile.permission:
        return
    plain = msgspec.structs.replace(profile, permission=(), permission_mode="")
    before = whole_tools(plain)
    changed = (before.allow, before.deny) != (verdict.allow, verdict.deny)
    if changed:
        lose(
            "permission",
            LossOutcome.TRANSLATED,
            "rules folded into the whole-tool lists (tools/disallowedTools); a rule on some "
            "arguments of a tool takes the whole tool away (narrower than the profile)",
        )
    if verdict.asked:
        lose(
            "permission",
            LossOutcome.DROPPED,
            f"ask for {', '.join(verdict.asked)}: Qoder has no per-agent ask; its "
            "permissionMode decides what needs approval",
        )
    elif not changed:
        lose("permission", LossOutcome.DROPPED, "the rules change no whole tool for Qoder")


def render_profile(
    profile: AgentProfile, request: RenderRequest, out: list[Diagnostic], losses: list[Loss]
) -> Prepared | None:
    """The agent file of ``profile`` (its losses added to ``losses``); ``None`` with a
    ``render-unsupported`` error in ``out`` when Qoder would refuse or widen it."""
    path = f"{AGENTS_DIR}/{profile.id}.md"
    mine: list[Loss] = []

    def lose(field: str, outcome: LossOutcome, detail: str) -> None:
        mine.append(Loss(profile=profile.id, field=field, outcome=outcome, detail=detail))

    def refuse(message: str, hint: str) -> None:
        out.append(
            harness_diagnostic(
                "render-unsupported", f"{profile.id}: {message}", path=path, hint=hint
            )
        )

    if not profile.description.strip():
        refuse(
            "Qoder requires a description (the file would be refused: 'description: Required')",
            "write a one-line description",
        )
        return None
    tools, denied, problem = _tools(profile, request, lose)
    if problem:
        refuse(problem, "narrow the profile by whole tools, or leave its tools to the harness")
        return None
    for field, why in _DROPS.items():
        value = getattr(profile, field)
        if value not in (None, "", (), {}) and not (field == "install" and value.is_empty):
            lose(field, LossOutcome.DROPPED, f"Qoder CLI: {why}")
    if profile.name != profile.id:
        lose("name", LossOutcome.DROPPED, "Qoder names an agent by its name key only")
    data: dict[str, Any] = {"name": profile.id, "description": profile.description}
    if tools is not None:
        data["tools"] = tools
    if denied:
        data["disallowedTools"] = denied
    _readback(profile, tools, denied, mine, lose)
    model = model_for(profile, "qoder")
    if model:
        data["model"] = model
    if profile.temperature is not None:
        data["temperature"] = profile.temperature
    if profile.permission_mode:
        data["permissionMode"] = MODES[profile.permission_mode]
        if profile.permission_mode == "full":
            lose(
                "permission_mode",
                LossOutcome.TRANSLATED,
                "full is written as bypassPermissions and imports back as that",
            )
    if profile.max_turns is not None:
        data["maxTurns"] = profile.max_turns
    if profile.mcp_servers:
        data["mcpServers"] = list(profile.mcp_servers)
    if profile.color:
        if profile.color in COLORS:
            data["color"] = profile.color
        else:
            lose(
                "color",
                LossOutcome.DROPPED,
                f"Qoder refuses a file with a colour other than {', '.join(COLORS)}",
            )
    for key, value in profile.harness.get("qoder", {}).items():
        if key not in PASS_THROUGH or key in data:
            lose(
                "harness", LossOutcome.DROPPED, f"harness.qoder.{key} is set from canonical fields"
            )
        elif key == "memory" and tools is not None and not set(MEMORY_TOOLS) <= set(tools):
            lose(
                "harness",
                LossOutcome.DROPPED,
                "harness.qoder.memory left out: Qoder gives an agent with memory Read, Write "
                "and Edit, more than its tools list",
            )
        else:
            data[key] = value
    losses.extend(mine)
    return Prepared(data, render_prompt(profile))


def _readback(
    profile: AgentProfile,
    tools: list[str] | None,
    denied: list[str],
    mine: list[Loss],
    lose: Lose,
) -> None:
    """Report a tool field that import would read back differently, when nothing more
    specific was said about it: nothing is lost silently."""
    back_allowed = tuple(dict.fromkeys(canonical_tool(t) for t in tools or ()))
    back_denied = tuple(dict.fromkeys(canonical_tool(t) for t in denied))
    said = {loss.field for loss in mine}
    for field, want, got in (
        ("allowed_tools", profile.allowed_tools, back_allowed),
        ("denied_tools", profile.denied_tools, back_denied),
    ):
        if want == got or field in said:
            continue
        if field == "denied_tools" and tools is not None and not denied:
            note = "not written as disallowedTools: the agent's tools list leaves them out"
        else:
            note = f"whole tools only: {readback_note(want, got)}"
        lose(field, LossOutcome.TRANSLATED, note)
