"""AgentProfile: every field of seed 001's data model plus what seed 000 adds.

The model is harness-neutral. Fields that only some harnesses have (provider, sampling,
turn limits, ordered permission rules, mode, colour) are first-class so codecs can map them;
anything with no canonical meaning rides in ``harness`` (one pass-through mapping per
harness name), so nothing a codec reads is dropped on the floor.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import msgspec


class Runtime(StrEnum):
    """Which runtime executes tasks for a profile (seed 000, ``runtime``)."""

    CLAUDE_SDK = "claude_sdk"
    ACPX = "acpx"
    SUPERVISOR = "supervisor"


#: Permission modes the seeds name. Issue 4 maps them to what each CLI accepts.
PERMISSION_MODES: tuple[str, ...] = (
    "default",
    "plan",
    "acceptEdits",
    "bypassPermissions",
    "auto",
    "full",
)


class PermissionAction(StrEnum):
    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"


class PermissionRule(msgspec.Struct, frozen=True, kw_only=True):
    """One ordered permission rule, OpenCode style: for ``permission`` (a tool key such as
    ``bash`` or ``edit``, or ``*``) calls whose argument matches ``pattern`` get ``action``.
    Rules keep the order they were written in; the last match wins."""

    permission: str
    pattern: str = "*"
    action: PermissionAction


class InstallManifest(msgspec.Struct, frozen=True, kw_only=True):
    """Dependencies a profile needs (seed 001 ``install``)."""

    npm: tuple[str, ...] = ()
    pip: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not (self.npm or self.pip or self.commands)


class PromptSection(msgspec.Struct, frozen=True, kw_only=True):
    """A prose ``##`` section, kept verbatim: ``heading`` as written, ``body`` markdown."""

    heading: str
    body: str

    @property
    def key(self) -> str:
        return self.heading.casefold()


class NativeForm(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """How one harness's file held this agent when it was imported: the exact text before
    the prompt (``head``: frontmatter and the blank line after it) and after it (``tail``),
    and the native model string when the canonical split cannot give it back (``model``).
    Render to that harness writes ``head`` and ``tail`` again only while they still read as
    the same agent (codecs/native_md.keep_native), so an untouched agent comes back byte for
    byte and an edited one is generated as usual (issue 12 item 1)."""

    head: str = ""
    tail: str = ""
    model: str = ""


class AgentProfile(msgspec.Struct, frozen=True, kw_only=True):
    """An agent profile, validated. Empty strings, ``None`` and empty tuples mean "not set:
    use the default" (seed 001 config merging); ``fields_set`` names what the source file
    set explicitly, which is what an override or an ``extends`` child contributes."""

    id: str
    name: str
    description: str = ""
    tags: tuple[str, ...] = ()
    extends: str | None = None
    # Config
    model: str = ""
    provider: str = ""
    permission_mode: str = ""
    runtime: Runtime | None = None
    agent_name: str = ""
    max_tokens_per_task: int | None = None
    max_turns: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    mode: str = ""
    color: str = ""
    permission: tuple[PermissionRule, ...] = ()
    harness: dict[str, dict[str, Any]] = msgspec.field(default_factory=dict)
    extra_config: dict[str, Any] = msgspec.field(default_factory=dict)
    # Tools and MCP
    allowed_tools: tuple[str, ...] = ()
    #: ``allowed_tools`` is the complete tool set, even when empty (Tools ``"exact": true``):
    #: ``()`` then means "no tools", never "the runtime's default", and roster.toml's
    #: default list does not fill it (issue 12 item 2).
    tools_exact: bool = False
    denied_tools: tuple[str, ...] = ()
    mcp_servers: tuple[str, ...] = ()
    # Prompt and install
    sections: tuple[PromptSection, ...] = ()
    install: InstallManifest = InstallManifest()
    # Native file memory, per harness name (Config "native")
    native: dict[str, NativeForm] = msgspec.field(default_factory=dict)
    # Bookkeeping
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)
    project: str | None = None
    source: str = ""
    created_at: float | None = None
    updated_at: float | None = None
    fields_set: frozenset[str] = frozenset()

    def section(self, heading: str) -> str:
        """The body of the prose section named ``heading`` (any case), or ``""``."""
        wanted = heading.casefold()
        for section in self.sections:
            if section.key == wanted:
                return section.body
        return ""

    @property
    def role(self) -> str:
        return self.section("role")

    @property
    def rules(self) -> str:
        return self.section("rules")

    @property
    def reflection(self) -> str:
        return self.section("reflection")

    @property
    def prompt(self) -> str:
        """The full system-prompt text this profile contributes (issue 12 item 1): the Role
        section's body first, exactly as stored and with no heading (it is the prompt's
        prefix), then every other prose section in file order under its own ``## Heading``,
        separated by blank lines."""
        return "\n\n".join(self._prompt_parts())

    @property
    def prompt_length(self) -> int:
        """``len(self.prompt)``, counted without joining it (a harness with a length limit
        refuses a long prompt before building it)."""
        parts = self._prompt_parts()
        return sum(map(len, parts)) + 2 * max(len(parts) - 1, 0)

    def _prompt_parts(self) -> list[str]:
        # The prompt's pieces, a blank line between each: a heading and its body are
        # separated like sections, so one join copies each body once (tens of KB).
        parts: list[str] = []
        role = None
        for section in self.sections:
            if role is None and section.key == "role":
                role = section
                if section.body:
                    parts.insert(0, section.body)
                continue
            parts.append(f"## {section.heading}")
            if section.body:
                parts.append(section.body)
        return parts

    @property
    def prompt_blank(self) -> bool:
        """Whether :attr:`prompt` is empty or whitespace, told without joining it: every
        section but the Role section writes its ``## Heading``, so only a profile with no
        section, or with the Role section alone and its body blank, has a blank prompt."""
        sections = self.sections
        if not sections:
            return True
        if len(sections) > 1 or sections[0].key != "role":
            return False
        body = sections[0].body
        return not body or body.isspace()

    @property
    def system_prompt_suffix(self) -> str:
        """Seed 001's name for the text injected as "Agent Role Instructions"."""
        return self.prompt

    def to_json_dict(self) -> dict[str, Any]:
        """The JSON form used by every ``--json`` output."""
        data: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "tags": list(self.tags),
            "extends": self.extends,
            "model": self.model,
            "provider": self.provider,
            "permission_mode": self.permission_mode,
            "runtime": self.runtime.value if self.runtime else None,
            "agent_name": self.agent_name,
            "max_tokens_per_task": self.max_tokens_per_task,
            "max_turns": self.max_turns,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "mode": self.mode,
            "color": self.color,
            "permission": [
                {"permission": r.permission, "pattern": r.pattern, "action": r.action.value}
                for r in self.permission
            ],
            "harness": self.harness,
            "extra_config": self.extra_config,
            "allowed_tools": list(self.allowed_tools),
            "tools_exact": self.tools_exact,
            "denied_tools": list(self.denied_tools),
            "mcp_servers": list(self.mcp_servers),
            "role": self.role,
            "rules": self.rules,
            "reflection": self.reflection,
            "sections": [{"heading": s.heading, "body": s.body} for s in self.sections],
            "prompt": self.prompt,
            "system_prompt_suffix": self.system_prompt_suffix,
            "native": {name: msgspec.to_builtins(form) for name, form in self.native.items()},
            "install": {
                "npm": list(self.install.npm),
                "pip": list(self.install.pip),
                "commands": list(self.install.commands),
            },
            "metadata": self.metadata,
            "project": self.project,
            "source": self.source,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }
        return data
