"""Writing one Factory Droid custom droid (docs/codecs/droid.md).

A droid holds ``name``, ``description``, ``model`` (``inherit`` when absent),
``reasoningEffort``, ``tools`` and ``mcpServers``; nothing else reaches Droid. Its only
tool control is one allowlist of whole tools: no deny list, no rule on arguments, no
approval mode of its own (a droid runs at its session's autonomy level). So render writes
what :func:`~agent_roster.codecs.toolset.whole_tools` leaves the agent, **never wider**:

* denied tools (and ``plan``, folded as "deny edit") become an allowlist of Droid's other
  tools (:data:`~agent_roster.codecs.droid.tools.EVERY`), which leaves out MCP tools and
  Droid's extra tools (narrower, reported);
* file editing is one switch in Droid: a profile that may write but not edit (or the
  reverse) gets neither (narrower, reported);
* ``TodoWrite`` and ``Skill`` are in every droid's list: a profile that denies one of them
  is refused, as is a rule on every tool's arguments.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import msgspec

from agent_roster.codecs.base import Loss, LossOutcome, RenderRequest
from agent_roster.codecs.claude.files import COMMON_DROPS
from agent_roster.codecs.claude.rules import tools_for_key
from agent_roster.codecs.droid.read import AGENTS_DIR, NAME
from agent_roster.codecs.droid.tools import (
    ALWAYS,
    EVERY,
    FILE_EDITING,
    canonical_tools_of,
    droid_tool,
)
from agent_roster.codecs.native_md import harness_diagnostic, model_for
from agent_roster.codecs.prompt import blank, render_prompt
from agent_roster.codecs.tool_names import split_ref
from agent_roster.codecs.toolset import ToolVerdict, readback_note, whole_tools
from agent_roster.diagnostics import Diagnostic
from agent_roster.model.profile import AgentProfile, PermissionAction, PermissionRule

#: ``harness.droid`` keys written back as they are (README D5).
PASS_THROUGH = ("reasoningEffort",)
#: Modes that only widen what a droid may do: a droid runs at its session's autonomy, so
#: they are left out (never more than the session allows, reported).
_WIDER_MODES = ("acceptEdits", "bypassPermissions", "full", "auto", "dontAsk")
_DROPS = {
    **COMMON_DROPS,
    "max_turns": "no turn limit per droid",
    "color": "no colour per droid",
    "tags": "tags are vault bookkeeping",
    "install": "Factory Droid installs nothing for a droid",
}

Lose = Callable[[str, LossOutcome, str], None]
#: The tools ``plan`` denies (the canonical ``edit`` key).
_EDIT_TOOLS = tuple(tools_for_key("edit", ()))


class Prepared(NamedTuple):
    """One droid file's frontmatter and prompt."""

    data: dict[str, Any]
    prompt: str


def _folded(profile: AgentProfile, lose: Lose) -> AgentProfile:
    """The profile whose rules decide the tools: ``plan`` folded (deny edit), the modes
    that only widen left out."""
    mode = profile.permission_mode
    if mode in _WIDER_MODES:
        lose(
            "permission_mode",
            LossOutcome.DROPPED,
            f"{mode}: a droid has no approval mode of its own; it runs at its session's "
            "autonomy level",
        )
        return msgspec.structs.replace(profile, permission_mode="")
    if mode == "default":
        lose(
            "permission_mode",
            LossOutcome.DROPPED,
            "default: a droid runs at its session's autonomy level",
        )
        return msgspec.structs.replace(profile, permission_mode="")
    if mode == "plan":
        lose(
            "permission_mode",
            LossOutcome.TRANSLATED,
            "plan is written as a tools list without file editing",
        )
    return profile


def _tools(
    profile: AgentProfile, request: RenderRequest, lose: Lose
) -> tuple[list[str] | None, str]:
    """The ``tools`` list (``None``: every tool) and why none can be written ("" when one
    can)."""
    embedded, commands = request.embedded, request.embedded_commands
    folded = _folded(profile, lose)
    extra = _EDIT_TOOLS if folded.permission_mode == "plan" else ()
    verdict = whole_tools(folded, embedded=embedded, commands=commands, extra=extra)
    if verdict.problem:
        return None, verdict.problem
    for name in ALWAYS:
        if name in verdict.narrowed or (verdict.allow is None and name in verdict.deny):
            return None, f"{name} cannot be denied: Droid gives it to every droid"
    _report(profile, folded, verdict, lose)
    if verdict.allow is None and not verdict.deny:
        return None, ""
    if verdict.allow is not None:
        wanted = list(verdict.allow)
    else:
        wanted = [t for t in _every(embedded, commands) if t not in verdict.deny]
        if any(split_ref(t).server is None for t in verdict.deny):
            lose(
                "denied_tools",
                LossOutcome.TRANSLATED,
                "Droid has no deny list: written as an allowlist of its other tools (MCP tools "
                "and Droid's extra tools left out)",
            )
        if profile.mcp_servers:
            lose(
                "mcp_servers",
                LossOutcome.DROPPED,
                "the droid's allowlist (Droid has no deny list) names no MCP tool, so it gets "
                "none of its servers' tools",
            )
    tools: list[str] = []
    for name in wanted:
        native = droid_tool(name, embedded, commands)
        if native is None:
            field = "allowed_tools" if verdict.allow is not None else "denied_tools"
            outcome = LossOutcome.DROPPED if verdict.allow is not None else LossOutcome.TRANSLATED
            why = (
                "a list names MCP tools exactly, so a whole server cannot be allowed"
                if split_ref(name).server is not None
                else "Droid has no such tool"
            )
            lose(field, outcome, f"{name}: {why}")
        elif native not in tools:
            tools.append(native)
    editing = [t for t in tools if t in FILE_EDITING]
    if editing and set(editing) != {"Create", "Edit"}:
        tools = [t for t in tools if t not in FILE_EDITING]
        lose(
            "allowed_tools" if verdict.allow is not None else "denied_tools",
            LossOutcome.DROPPED,
            f"{', '.join(editing)} without the rest of file editing: any of Create and Edit "
            "gives a droid both, so neither is written (narrower than the profile)",
        )
    return tools, ""


def _every(embedded: str, commands: frozenset[str]) -> list[str]:
    # EVERY's ids as canonical names, in order.
    out: list[str] = []
    for native in EVERY:
        for name in canonical_tools_of(native):
            if name not in out:
                out.append(name)
    return out


def _report(profile: AgentProfile, folded: AgentProfile, verdict: ToolVerdict, lose: Lose) -> None:
    for name in profile.allowed_tools:
        if split_ref(name).argument is not None:
            lose(
                "allowed_tools",
                LossOutcome.DROPPED,
                f"{name}: a droid's tools list takes whole tools, so the tool is left out "
                "(narrower than the profile)",
            )
    for name in profile.denied_tools:
        if split_ref(name).argument is not None:
            lose(
                "denied_tools",
                LossOutcome.TRANSLATED,
                f"{name}: the whole tool is taken away (narrower than the profile)",
            )
    if not profile.permission:
        return
    plain = msgspec.structs.replace(folded, permission=())
    before = whole_tools(plain)
    changed = (before.allow, before.deny) != (verdict.allow, verdict.deny)
    if changed:
        lose(
            "permission",
            LossOutcome.TRANSLATED,
            "rules folded into the droid's tools list; a rule on some arguments of a tool "
            "takes the whole tool away (narrower than the profile)",
        )
    if verdict.asked:
        lose(
            "permission",
            LossOutcome.DROPPED,
            f"ask for {', '.join(verdict.asked)}: a droid has no approvals of its own (its "
            "session's autonomy level decides)",
        )
    elif not changed:
        lose("permission", LossOutcome.DROPPED, "the rules change no whole tool for Droid")


def render_profile(
    profile: AgentProfile, request: RenderRequest, out: list[Diagnostic], losses: list[Loss]
) -> Prepared | None:
    """The droid file of ``profile`` (its losses added to ``losses``); ``None`` with a
    ``render-unsupported`` error in ``out`` when Droid would refuse or widen it."""
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

    if NAME.fullmatch(profile.id) is None:
        refuse(
            "Droid name must be alphanumeric with hyphens or underscores only (lower case)",
            "rename the profile",
        )
        return None
    prompt = render_prompt(profile)
    if blank(prompt):
        refuse("System prompt cannot be empty", "write the droid's prompt")
        return None
    tools, problem = _tools(profile, request, lose)
    if problem:
        refuse(problem, "narrow the profile by whole tools, or leave its tools to the harness")
        return None
    for field, why in _DROPS.items():
        value = getattr(profile, field)
        if value not in (None, "", (), {}) and not (field == "install" and value.is_empty):
            lose(field, LossOutcome.DROPPED, f"Factory Droid: {why}")
    if profile.name != profile.id:
        lose("name", LossOutcome.DROPPED, "Droid names a droid by its name key only")
    data: dict[str, Any] = {"name": profile.id}
    if profile.description:
        data["description"] = profile.description
    model = model_for(profile, "droid")
    if model:
        data["model"] = model
    for key, value in profile.harness.get("droid", {}).items():
        if key in PASS_THROUGH and model and model.strip() != "inherit":
            data[key] = value
        else:
            lose("harness", LossOutcome.DROPPED, f"harness.droid.{key} is not written")
    if tools is not None:
        data["tools"] = tools
    _readback(profile, tools, mine, lose)
    if profile.mcp_servers:
        data["mcpServers"] = list(profile.mcp_servers)
    losses.extend(mine)
    return Prepared(data, prompt)


def _readback(profile: AgentProfile, tools: list[str] | None, mine: list[Loss], lose: Lose) -> None:
    """Report a tool field import would read back differently, when nothing more specific
    was said about it: nothing is lost silently."""
    back: list[str] = []
    for native in tools or ():
        back += [t for t in canonical_tools_of(native) if t not in back]
    said = {loss.field for loss in mine}
    if tuple(back) != profile.allowed_tools and "allowed_tools" not in said:
        note = readback_note(profile.allowed_tools, back)
        lose("allowed_tools", LossOutcome.TRANSLATED, f"Droid's tools list: {note}")
    deny_all = (PermissionRule(permission="*", action=PermissionAction.DENY),)
    if tools == [] and profile.permission != deny_all and "permission" not in said:
        lose(
            "permission",
            LossOutcome.TRANSLATED,
            "no tool is left, which an empty tools list says: it reads back as the rule '*: deny'",
        )
    if profile.denied_tools and "denied_tools" not in said:
        lose(
            "denied_tools",
            LossOutcome.TRANSLATED,
            "Droid has no deny list: the tools are left out of the droid's tools list",
        )
