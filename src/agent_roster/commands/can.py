"""``can``: would this profile let the agent call this tool (with this argument)?

The answer uses OpenCode's permission semantics, the canonical model
(``docs/codecs/permissions.md``): the profile's effective ordered rules (``permission_mode``,
``allowed_tools``, ``permission``, ``denied_tools``, README D9), the last matching rule
decides, no match asks.

The tool may be named in every vocabulary a profile uses (issue 12 item 3): a canonical
(Claude Code) tool name (``Edit``, ``Bash(git log:*)``), an MCP tool (``mcp__github__x``), a
command of the embedded server (``create_task``), an OpenCode permission key (``edit``,
``bash``, ``webfetch``, ``github_x``), or another harness's name for a canonical tool
(``read_file``, ``run_shell_command``). A canonical tool is decided for itself (a profile
allowing ``Edit`` does not allow ``Write``); an OpenCode key stands for every tool it
governs, so its answer is the strictest of theirs.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Annotated, NamedTuple

import msgspec
from msgspec import Meta

from agent_roster.codecs.permissions import (
    ALIASES,
    Decision,
    SourcedRule,
    effective_rules,
    evaluate,
    evaluate_key,
    key_tools,
)
from agent_roster.codecs.tool_names import (
    HARNESSES,
    canonical_tools,
    opencode_key,
    split_ref,
    to_canonical,
    to_native,
)
from agent_roster.commands.project_profiles import effective_in
from agent_roster.diagnostics import Diagnostic, did_you_mean, list_profiles_hint
from agent_roster.errors import InvalidDocumentError, NotFoundError, UsageError
from agent_roster.known_tools import CLAUDE_BUILTIN_TOOLS
from agent_roster.model.profile import AgentProfile
from agent_roster.resolve.config import RosterConfig, load_config
from agent_roster.resolve.index import ProfileIndex
from agent_roster.vault.loader import load_vault
from agent_roster.vault.paths import VaultLayout, check_segment

if TYPE_CHECKING:
    from agent_roster.commands.context import RosterContext

#: OpenCode permission keys that are not a canonical tool's key (permissions.md §1.1).
OPENCODE_ONLY_KEYS = frozenset(
    {"external_directory", "doom_loop", "codesearch", "question", "plan_enter", "plan_exit"}
)
#: OpenCode tool ids decided under another key (its edit tools share ``edit``).
OPENCODE_TOOL_KEYS = {"write": "edit", "patch": "edit", "apply_patch": "edit", "multiedit": "edit"}


class Named(NamedTuple):
    """How a tool name was read: its vocabulary, the canonical tool (``""`` for an OpenCode
    key or an unknown name), the OpenCode key it is decided under, and an argument its
    name carries (``Bash(git log:*)``)."""

    vocabulary: str
    tool: str
    key: str
    argument: str | None = None


def read_tool(name: str, embedded: str, commands: frozenset[str]) -> Named:
    """Which tool ``name`` is, in the first vocabulary that knows it (module docstring)."""
    ref = split_ref(name)
    if ref.server is not None:
        return Named("mcp", name, opencode_key(name, embedded=embedded, commands=commands))
    base = ref.tool
    if base in canonical_tools() or base in CLAUDE_BUILTIN_TOOLS:
        key = opencode_key(base, embedded=embedded, commands=commands)
        return Named("canonical", base, key, ref.argument)
    if base in commands:
        return Named("embedded", base, opencode_key(base, embedded=embedded, commands=commands))
    if ref.argument is None and (
        base in key_tools() or base in _opencode_keys() or base in OPENCODE_ONLY_KEYS
    ):
        return Named("opencode", "", base)
    if ref.argument is None and base in OPENCODE_TOOL_KEYS:
        return Named("opencode", "", OPENCODE_TOOL_KEYS[base])
    for harness in HARNESSES:
        if harness == "opencode":
            continue
        tool = to_canonical(harness, base)
        if tool is not None:
            key = opencode_key(tool, embedded=embedded, commands=commands)
            return Named(f"{harness} name", tool, key, ref.argument)
    return Named("unknown", "", base, ref.argument)


def _opencode_keys() -> frozenset[str]:
    found = set()
    for tool in canonical_tools():
        native = to_native("opencode", tool)
        if native is not None:
            found.add(native.name)
    return frozenset(found)


class CanAnswer(NamedTuple):
    """The decision for one call, and how it was reached."""

    profile: str
    project: str | None
    tool: str
    key: str  # the OpenCode permission key the tool maps to
    argument: str
    decision: Decision
    rules: tuple[SourcedRule, ...]
    #: How ``tool`` was read: canonical, mcp, embedded, opencode, "<harness> name", unknown.
    vocabulary: str = "canonical"
    #: The canonical tool it stands for ("" for an OpenCode key or an unknown name).
    canonical: str = ""
    #: roster.toml's problems (its [defaults] feed the rules: permission_mode, tools).
    config: tuple[Diagnostic, ...] = ()


class CanUseToolParams(msgspec.Struct, frozen=True, kw_only=True):
    profile: Annotated[str, Meta(description="the profile id")]
    tool: Annotated[str, Meta(description="the tool: Bash, Edit, mcp__github__create_issue ...")]
    argument: Annotated[
        str | None, Meta(description="what it is called with: a command, a path, a URL")
    ] = None
    project: Annotated[str | None, Meta(description="apply this project's override")] = None


class Rule(msgspec.Struct, frozen=True, kw_only=True):
    source: Annotated[str, Meta(description="the profile field the rule comes from")]
    permission: str
    pattern: str
    action: str
    tool: Annotated[
        str, Meta(description="the one tool a Tools entry names when its key has several")
    ] = ""

    def text(self) -> str:
        return f"{self.permission} {self.pattern} {self.action}"


class DecidingRule(Rule, frozen=True, kw_only=True):
    index: Annotated[int, Meta(description="its 0-based position in rules")]


class CanResult(msgspec.Struct, frozen=True, kw_only=True):
    """allow, ask or deny for one call, the rule that decided (none: the default, ask),
    and the profile's whole ordered rule list (the last match wins)."""

    profile: str
    project: str | None
    tool: str
    vocabulary: Annotated[
        str,
        Meta(
            description="how tool was read: canonical, mcp, embedded, opencode, "
            '"<harness> name", unknown'
        ),
    ]
    canonical: Annotated[
        str, Meta(description='the canonical tool it stands for ("" for an OpenCode key)')
    ]
    key: Annotated[str, Meta(description="the permission key the tool maps to")]
    argument: str
    action: str
    rule: DecidingRule | None
    rules: list[Rule]
    config: Annotated[
        list[Diagnostic],
        Meta(description="roster.toml's problems (its [defaults] feed the rules)"),
    ] = []


def can_use_tool(ctx: RosterContext, params: CanUseToolParams) -> CanResult:
    """Would a profile allow, ask for or deny a tool call, and which rule decides?"""
    answer = can(ctx.vault, params.profile, params.tool, params.argument, project=params.project)
    decision = answer.decision
    deciding = decision.rule
    return CanResult(
        profile=answer.profile,
        project=answer.project,
        tool=answer.tool,
        vocabulary=answer.vocabulary,
        canonical=answer.canonical,
        key=answer.key,
        argument=answer.argument,
        action=decision.action.value,
        rule=None
        if deciding is None or decision.position is None
        else DecidingRule(
            index=decision.position,
            source=deciding.source,
            permission=deciding.rule.permission,
            pattern=deciding.rule.pattern,
            action=deciding.rule.action.value,
            tool=deciding.tool,
        ),
        rules=[
            Rule(
                source=r.source,
                permission=r.rule.permission,
                pattern=r.rule.pattern,
                action=r.rule.action.value,
                tool=r.tool,
            )
            for r in answer.rules
        ],
        config=list(answer.config),
    )


def can(
    vault: str | os.PathLike[str],
    profile_id: str,
    tool: str,
    argument: str | None = None,
    *,
    project: str | None = None,
) -> CanAnswer:
    """Whether ``profile_id`` (effective in ``project``) allows, asks for or denies ``tool``
    called with ``argument`` (``None``: the tool in general, OpenCode's ``*``, or the
    argument a narrowed name carries)."""
    if not tool.strip():
        raise UsageError("name the tool to check, e.g. Bash, edit or mcp__github__create_issue")
    loaded = load_config(vault)
    config = loaded.config
    profile = _effective(vault, config, profile_id, project)
    embedded = config.embedded.name
    rules = effective_rules(profile, embedded=embedded)
    named = read_tool(tool.strip(), embedded, config.embedded.command_names)
    arg = argument if argument is not None else named.argument or "*"
    if named.tool:
        decision = evaluate(rules, named.key, arg, tool=ALIASES.get(named.tool, named.tool))
    else:
        decision = evaluate_key(rules, named.key, arg)
    return CanAnswer(
        profile_id,
        project,
        tool,
        named.key,
        arg,
        decision,
        rules,
        vocabulary=named.vocabulary,
        canonical=named.tool,
        config=loaded.diagnostics,
    )


def _effective(
    vault: str | os.PathLike[str], config: RosterConfig, profile_id: str, project: str | None
) -> AgentProfile:
    if project is not None:
        return effective_in(VaultLayout(vault), profile_id, project)[0].profile
    check_segment(profile_id, "profile id")
    # One read of the vault: extends chains need every system profile anyway.
    snapshot = load_vault(vault, embedded=config.embedded.name, commands=config.embedded.commands)
    parsed = snapshot.profiles.get((None, profile_id))
    if parsed is None:
        known = [pid for scope, pid in snapshot.profiles if scope is None]
        raise NotFoundError(
            f"no profile {profile_id!r} in vault {vault}",
            hint=did_you_mean(profile_id, known) or list_profiles_hint(),
        )
    if not parsed.ok:
        raise InvalidDocumentError(f"the profile {profile_id!r} has errors", parsed.diagnostics)
    good = [p.profile for p in snapshot.profiles.values() if p.ok and p.profile is not None]
    found = ProfileIndex(config, good).effective(profile_id)
    assert found is not None  # its own file parsed cleanly
    return found.profile
