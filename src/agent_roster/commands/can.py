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
from typing import NamedTuple

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
from agent_roster.commands.project_profiles import show_effective_profile
from agent_roster.diagnostics import Diagnostic, did_you_mean, list_profiles_hint
from agent_roster.errors import InvalidDocumentError, NotFoundError, UsageError
from agent_roster.known_tools import CLAUDE_BUILTIN_TOOLS
from agent_roster.model.profile import AgentProfile
from agent_roster.resolve.config import RosterConfig, load_config
from agent_roster.resolve.index import ProfileIndex
from agent_roster.vault.loader import load_vault
from agent_roster.vault.paths import check_segment

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

    def to_dict(self) -> dict[str, object]:
        rule = self.decision.rule
        return {
            "profile": self.profile,
            "project": self.project,
            "tool": self.tool,
            "vocabulary": self.vocabulary,
            "canonical": self.canonical,
            "key": self.key,
            "argument": self.argument,
            "action": self.decision.action.value,
            "rule": None
            if rule is None
            else {
                "index": self.decision.position,
                "source": rule.source,
                "permission": rule.rule.permission,
                "tool": rule.tool,
                "pattern": rule.rule.pattern,
                "action": rule.rule.action.value,
            },
            "rules": [
                {
                    "source": r.source,
                    "permission": r.rule.permission,
                    "tool": r.tool,
                    "pattern": r.rule.pattern,
                    "action": r.rule.action.value,
                }
                for r in self.rules
            ],
            "config": [d.to_dict() for d in self.config],
        }


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
        return show_effective_profile(vault, project, profile_id).profile
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
