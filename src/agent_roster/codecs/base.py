"""The codec interface: one harness's agent files, read and written by that harness's rules.

A codec is pure where it can be: ``render`` takes validated, effective profiles and returns
the file contents to write (relative to the workspace or home folder the user names), and
``discover`` reads one workspace and one home the way the harness does and returns canonical
profiles. Writing, diffing, ``--check`` and importing into the vault are shared code in
``commands/harness.py``; a codec never touches the vault.

Every canonical field a target cannot carry is reported as a :class:`Loss` (README D3 in
``docs/codecs/``), and every file the harness itself would refuse is a diagnostic in the
``validate`` shape (D11).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Container, Iterator, Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import msgspec

from agent_roster.codecs.support import Support
from agent_roster.diagnostics import Diagnostic
from agent_roster.known_tools import DEFAULT_EMBEDDED_COMMANDS, DEFAULT_EMBEDDED_SERVER
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile, PermissionAction


class Scope(StrEnum):
    """Where rendered files go: the project (workspace) layer or the user (home) layer."""

    PROJECT = "project"
    USER = "user"


class LossOutcome(StrEnum):
    """What happened to a canonical field the target cannot hold natively (D3)."""

    TRANSLATED = "translated"  # expressed with another native construct (or stricter)
    EMBEDDED = "embedded"  # written as prose into the prompt (D4); never for restrictions
    DROPPED = "dropped"  # not written; ``detail`` says why
    #: The agent is not written: the target would allow a call the profile restricts
    #: (``render-widens``). Prompt text is not a restriction (issue 12 item 2).
    REFUSED = "refused"
    #: Written anyway under ``--allow-widening``; ``detail`` names each call that widens.
    WIDENED = "widened"


class Loss(msgspec.Struct, frozen=True, kw_only=True):
    """One canonical field (or native key, on import) that did not map one to one."""

    profile: str
    field: str
    outcome: LossOutcome
    detail: str

    def to_dict(self) -> dict[str, str]:
        return {
            "profile": self.profile,
            "field": self.field,
            "outcome": self.outcome.value,
            "detail": self.detail,
        }


def loss(profile: AgentProfile, field: str, outcome: LossOutcome, detail: str) -> Loss:
    """The :class:`Loss` of ``field`` for ``profile``."""
    return Loss(profile=profile.id, field=field, outcome=outcome, detail=detail)


class NativeFile(msgspec.Struct, frozen=True, kw_only=True):
    """One file a render produces. ``path`` is relative (POSIX separators) to the folder the
    harness reads: the workspace for project scope, the home folder for user scope."""

    path: str
    content: str
    mode: int = 0o644
    #: The profile this file belongs to (its agent file); ``""`` for a file every rendered
    #: agent shares. The render ledger records it (``roster why``), and a profile's file
    #: becomes stale only when that profile is gone or renders without it.
    profile: str = ""
    #: The file is merged into one the user may edit too (an MCP or settings file): the
    #: codec keeps every key it does not own, so ``--prune`` never deletes it while it
    #: holds anything roster did not write.
    merged: bool = False


#: Reads the current text of a file relative to the output folder, or ``None`` when it does
#: not exist; raises :class:`~agent_roster.errors.UnreadableFileError` when it exists but is
#: not UTF-8 text (codecs call it through ``native_io.existing_text``, which turns that
#: into a diagnostic). Codecs that merge into a shared settings file (Codex
#: ``config.toml``, Gemini ``settings.json``, ``opencode.json``) keep everything they do
#: not own.
ReadExisting = Callable[[str], "str | None"]


class Probe(NamedTuple):
    """One tool call whose decision (allow, ask or deny) is compared across harnesses:
    ``tool`` in the canonical vocabulary (a Claude Code name, ``mcp__<server>__<tool>``),
    ``argument`` the call's input (the command, the file path, the URL), or ``*`` for the
    tool in general (docs/codecs/permissions.md §1.6)."""

    tool: str
    argument: str = "*"

    def describe(self) -> str:
        return self.tool if self.argument == "*" else f"{self.tool} `{self.argument}`"


class NativeAgent(NamedTuple):
    """One agent as its harness holds it: ``paths`` are its own files (relative to the
    folder the harness reads, the agent file first), ``read`` reads any file there (the
    agent's and the shared settings that apply to it), ``name`` is its agent name.

    ``memo``: where a codec's ``decide`` may keep what it read of the agent between calls,
    for a caller that asks many calls while its files cannot change (the render check
    asks a dozen of every agent it just rendered). ``None``: read the files every call."""

    name: str
    paths: tuple[str, ...]
    read: ReadExisting
    scope: Scope = Scope.PROJECT
    memo: dict[str, Any] | None = None


class RenderOption(msgspec.Struct, frozen=True, kw_only=True):
    """A choice a codec offers at render time (``roster render --option HARNESS.NAME=VALUE``),
    for what the harness's readers disagree on (Copilot: which MCP files to write)."""

    name: str
    #: The values it takes; the first is the default.
    choices: tuple[str, ...]
    help: str

    @property
    def default(self) -> str:
        return self.choices[0]


class RenderRequest(msgspec.Struct, frozen=True, kw_only=True):
    """What to render: effective profiles (extends and project overrides already merged,
    README D2), the registry servers they may reference (by name), and the scope."""

    profiles: tuple[AgentProfile, ...]
    servers: Mapping[str, McpServer]
    scope: Scope = Scope.PROJECT
    #: The name of roster's own command server in this vault (roster.toml ``[embedded]``):
    #: bare command names in tool lists are written as that server's tools.
    embedded: str = DEFAULT_EMBEDDED_SERVER
    #: That server's command names (the catalog plus roster.toml's ``commands``): only
    #: these bare names are the embedded server's; any other bare name is written as it is.
    embedded_commands: frozenset[str] = DEFAULT_EMBEDDED_COMMANDS
    #: Render one part of the job (codecs with ``partitioned = True`` only): the agent
    #: files of ``profiles[start:stop]`` with their losses and diagnostics and, when
    #: ``shared`` is set, the files every agent shares (an MCP config) with theirs, after
    #: the agents'. Every part still sees all ``profiles``, so shared files come out as in
    #: a whole render, and consecutive parts with ``shared`` on the last one give exactly
    #: the whole render's files, losses and diagnostics, in order.
    part: tuple[int, int] | None = None
    shared: bool = True
    #: Write an agent even when the target would allow a call its profile restricts
    #: (``--allow-widening``); the report then says exactly what widened. Never the
    #: default: such an agent is refused (``codecs/guard.py``).
    allow_widening: bool = False
    #: This codec's options (:attr:`Codec.options` names), already checked against their
    #: choices; an option not given has its default.
    options: dict[str, str] = msgspec.field(default_factory=dict)

    def option(self, option: RenderOption) -> str:
        """The value chosen for ``option``, or its default."""
        return self.options.get(option.name, option.default)

    def owns(self, index: int) -> bool:
        """Whether the agent file of ``profiles[index]`` belongs to this part."""
        return self.part is None or self.part[0] <= index < self.part[1]

    def to_render(
        self, named: Container[str], *, every_part: bool = False
    ) -> Iterator[tuple[AgentProfile, bool]]:
        """Each profile this part renders, with whether its agent file is this part's
        (:meth:`owns`). Another part's agent is rendered only to learn what the files
        every agent shares get from it (servers, and the ids of agents naming servers the
        registry lacks), so only where those files are worked out (``shared``, or in every
        part with ``every_part``: a codec whose every agent file lists them) and only when
        it names a server missing from ``named`` or from the registry; an agent adding
        neither cannot change them. ``named`` holds the servers of the agents rendered
        before: the caller adds each rendered agent's, and the check for the next profile
        sees them (it runs when the loop asks for it)."""
        may_add = self.shared or every_part
        for index, profile in enumerate(self.profiles):
            owned = self.owns(index)
            if owned or (may_add and self._adds_servers(profile, named)):
                yield profile, owned

    def _adds_servers(self, profile: AgentProfile, known: Container[str]) -> bool:
        return any(name not in known or name not in self.servers for name in profile.mcp_servers)

    def owned(self) -> Iterator[AgentProfile]:
        """The profiles whose agent files this part renders, in order."""
        if self.part is None:
            return iter(self.profiles)
        return itertools.islice(self.profiles, self.part[0], self.part[1])


class Rendering(msgspec.Struct, frozen=True, kw_only=True):
    """A render's result. A profile with an error diagnostic has no files here; the others
    are complete. ``losses`` lists every field that was translated, embedded or dropped."""

    files: tuple[NativeFile, ...] = ()
    losses: tuple[Loss, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    #: Shared files another part of a split render writes (``RenderRequest.shared`` off),
    #: as that part writes them: never written from here, but read by the render check, so
    #: a part's agents are checked against the same files as in a whole render.
    context: tuple[NativeFile, ...] = ()


class Roots(msgspec.Struct, frozen=True, kw_only=True):
    """The two folders a harness reads: the project workspace and the user's home."""

    workspace: Path
    home: Path


class Discovery(msgspec.Struct, frozen=True, kw_only=True):
    """The agents a harness would load, decided by its own rules.

    ``profiles`` carry ``source`` = the file each came from (absolute path as text);
    ``servers`` are the MCP servers those agents use, already in canonical form and named
    as the profiles reference them; ``losses`` are native keys or values that could not be
    carried into the canonical model; ``refused`` is true when the harness itself would
    refuse a file or the whole load (diagnostics say what, in the harness's terms)."""

    profiles: tuple[AgentProfile, ...] = ()
    servers: tuple[McpServer, ...] = ()
    losses: tuple[Loss, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def refused(self) -> bool:
        """An error diagnostic is the harness refusing something (``harness-invalid`` and
        its kin are errors by definition), so this is derived, never tracked apart."""
        return any(d.is_error for d in self.diagnostics)


class Codec(Protocol):
    """One harness. Implementations are stateless module-level objects."""

    #: Registry name (``roster render --to NAME``).
    name: str
    #: Human name of the harness ("Claude Code").
    title: str
    #: Canonical fields this harness represents natively: ``import(render(p))`` equals ``p``
    #: on exactly these (README D12). Names are ``AgentProfile`` attributes, plus
    #: ``"prompt"`` for the prompt text.
    native_fields: frozenset[str]
    #: Whether ``render`` honours :attr:`RenderRequest.part`, so a large render can be
    #: split across processes.
    partitioned: bool
    #: Permission keys under which the harness decides several canonical tools as one
    #: (OpenCode's ``edit``: Edit, Write, MultiEdit, NotebookEdit). A profile that decides
    #: those tools differently is made whole on the key, strictest, before it is rendered
    #: (``guard.render_guarded``, ``narrowing.py``), instead of after its check finds the
    #: agent widened. Only for codecs whose shared files do not depend on permissions: a
    #: part of a split render narrows only the profiles it owns.
    whole_keys: frozenset[str]
    #: The render options this codec takes (usually none).
    options: tuple[RenderOption, ...]
    #: What render does with each canonical field (``support.declare``; the support
    #: matrix, ``roster compare``), checked against probe renders by a test.
    support: Mapping[str, tuple[Support, ...]]

    def discover(self, roots: Roots) -> Discovery:
        """The agents the harness would load from ``roots``, by its own precedence."""
        ...

    def render(self, request: RenderRequest, existing: ReadExisting) -> Rendering:
        """The native files for ``request``; never writes anything itself. This is the raw
        translation: ``codecs.guard.render_guarded`` is what roster writes (it refuses an
        agent the target would allow more than its profile does)."""
        ...

    def decide(self, agent: NativeAgent, probe: Probe) -> PermissionAction:
        """What the harness itself would do with ``probe`` for ``agent``: allow it, ask the
        user, or deny it, by the harness's own rules and defaults (its page in
        ``docs/codecs/``, §5). The check that a render never widens, and the tests that an
        import never widens, compare against this."""
        ...
