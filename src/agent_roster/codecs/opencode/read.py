"""Discover agents the way OpenCode loads them (docs/codecs/opencode.md §1-§3).

Layers, in order: the global config files, the project's root ``opencode.json[c]``, then
each config directory (global ``~/.config/opencode``, ``<workspace>/.opencode``,
``~/.opencode``): its ``opencode.json[c]``, its ``{agent,agents}/**/*.md`` and legacy
``{mode,modes}/*.md``. Each file is checked and normalised on its own, then the same agent
name is deep-merged across layers (a later layer wins each field it sets; permission keys
keep their first position). Within one directory a later file with the same name replaces
the earlier one whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from agent_roster.codecs import native_io
from agent_roster.codecs.base import Discovery, Loss, LossOutcome, Roots
from agent_roster.codecs.native_md import (
    JS_LINE_ENDS,
    JS_WHITESPACE,
    Layout,
    NativeDocument,
    Recovery,
    harness_diagnostic,
    native_form,
    read_native_recovering,
    split_layout,
)
from agent_roster.codecs.opencode.js import JsoncError, js_type, jsify, load_jsonc, merge_deep
from agent_roster.codecs.opencode.mcp import import_server
from agent_roster.codecs.opencode.rules import strip_scoping
from agent_roster.codecs.opencode.schema import KNOWN_KEYS, check_agent, normalize, split_model
from agent_roster.codecs.permissions import rules_from_config
from agent_roster.codecs.prompt import import_body
from agent_roster.codecs.unloaded import report_not_loaded
from agent_roster.diagnostics import Diagnostic
from agent_roster.errors import RosterError
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile, NativeForm
from agent_roster.vault.paths import check_segment

CODEC = "opencode"
_CONFIG_NAMES = ("opencode.json", "opencode.jsonc")
#: Keys imported into ``harness.opencode`` as they are (README D5).
_PASS_THROUGH = ("variant", "hidden", "disable")
#: OpenCode's own agents; a config entry with one of these names adjusts the built-in.
BUILT_IN = frozenset({"build", "plan", "general", "explore", "title", "summary", "compaction"})


class _Source(NamedTuple):
    path: str
    kind: str  # "markdown" | "json"
    native: NativeForm | None = None  # a markdown file's layout around its prompt


class _Agent:
    """One agent name's merged configuration and the files that contributed to it."""

    def __init__(self) -> None:
        self.data: dict[str, Any] = {}
        self.sources: list[_Source] = []
        self.setters: dict[str, str] = {}  # top-level key -> last file that set it


class _State:
    def __init__(self) -> None:
        self.agents: dict[str, _Agent] = {}
        self.mcp: dict[str, Any] = {}
        self.mcp_source: dict[str, str] = {}
        self.diagnostics: list[Diagnostic] = []
        self.losses: list[Loss] = []

    def refuse(
        self,
        path: str,
        message: str,
        *,
        line: int = 1,
        column: int = 1,
        code: str = "harness-field-type",
    ) -> None:
        self.diagnostics.append(
            harness_diagnostic(
                code,
                f"Configuration is invalid at {path}\n↳ {message}",
                path=path,
                line=line,
                column=column,
                hint="OpenCode refuses the whole configuration until this is fixed",
            )
        )

    def merge(self, name: str, data: dict[str, Any], source: _Source) -> None:
        agent = self.agents.setdefault(name, _Agent())
        overridden = sorted(k for k in data if k in agent.setters and k != "name")
        if overridden:
            earlier = {agent.setters[k] for k in overridden}
            for path in sorted(earlier):
                self.diagnostics.append(
                    harness_diagnostic(
                        "harness-shadowed",
                        f"agent {name!r}: {', '.join(overridden)} overridden by {source.path}",
                        path=path,
                        hint="OpenCode deep-merges agents of the same name; the later layer wins",
                        warning=True,
                    )
                )
        agent.data = merge_deep(agent.data, data)
        agent.sources.append(source)
        for key in data:
            agent.setters[key] = source.path


def _line_of(text: str, needle: str) -> tuple[int, int]:
    index = text.find(needle)
    if index < 0:
        return 1, 1
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _read_json(path: Path, state: _State) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    text = native_io.read_text(path, state.diagnostics, hint=_REPLACED)
    if text is None:
        return None
    try:
        value, _comments = load_jsonc(text)
    except JsoncError as exc:
        state.refuse(
            str(path),
            f"JSON parse error: {exc}",
            line=exc.line,
            column=exc.column,
            code="harness-invalid",
        )
        return None
    if not isinstance(value, dict):
        state.refuse(str(path), f"Expected an object, got {type(value).__name__}")
        return None
    agents = value.get("agent")
    if agents is not None and not isinstance(agents, dict):
        line, column = _line_of(text, '"agent"')
        state.refuse(
            str(path), f"Expected record, got {js_type(agents)} agent", line=line, column=column
        )
        agents = None
    for name, entry in (agents or {}).items():
        if not isinstance(entry, dict):
            state.refuse(str(path), f"Expected AgentConfig, got {entry!r} agent.{name}")
            continue
        problems = check_agent(entry)
        if problems:
            line, column = _line_of(text, f'"{name}"')
            state.refuse(
                str(path), "\n↳ ".join(f"{p.message}" for p in problems), line=line, column=column
            )
            continue
        state.merge(str(name), normalize(entry), _Source(str(path), "json"))
    mcp = value.get("mcp")
    if isinstance(mcp, dict):
        state.mcp = merge_deep(state.mcp, mcp)
        for name in mcp:
            state.mcp_source[name] = str(path)
    return value


_REPLACED = (
    "OpenCode reads it with U+FFFD in place of the bad bytes; roster imports only text it "
    "keeps exactly: save the file as UTF-8"
)

_WS = f"[{JS_WHITESPACE}]"
_KEY_VALUE = re.compile(rf"([a-zA-Z_][a-zA-Z0-9_]*){_WS}*:{_WS}*([^{JS_LINE_ENDS}]*)")
_INDENTED = re.compile(rf"{_WS}")


def block_scalars(frontmatter: str) -> str:
    """OpenCode's second try at frontmatter its YAML parser refused (1.18.33, the function
    after "other coding agents like claude code allow invalid yaml"): lines split on
    ``\r?\n``; every unindented ``key: value`` line (``key`` of letters, digits and
    ``_``) whose trimmed value is not empty, ``>``, ``|`` or quoted and holds a ``:``
    becomes ``key: |-`` with the value on the next line, indented by two spaces."""
    lines: list[str] = []
    for line in re.split(r"\r?\n", frontmatter):
        trimmed = line.strip(JS_WHITESPACE)
        found = _KEY_VALUE.fullmatch(line)
        if trimmed.startswith("#") or not trimmed or _INDENTED.match(line) or found is None:
            lines.append(line)
            continue
        value = found.group(2).strip(JS_WHITESPACE)
        if value in ("", ">", "|") or value.startswith(('"', "'")) or ":" not in value:
            lines.append(line)
        else:
            lines += [f"{found.group(1)}: |-", f"  {value}"]
    return "\n".join(lines)


#: OpenCode's recovery, for :func:`native_md.read_native_recovering`.
RECOVERY = Recovery(
    "OpenCode", block_scalars, "parses it again with values holding ':' as block scalars"
)


def _agent_files(
    directory: Path, pattern_dirs: tuple[str, ...], recursive: bool, out: list[Diagnostic]
) -> Iterator[Path]:
    for sub in pattern_dirs:
        root = directory / sub
        if root.is_dir():
            found = root.rglob("*.md") if recursive else root.glob("*.md")
            files = sorted(p for p in found if p.is_file())
            report_not_loaded(
                root,
                files,
                out,
                harness="OpenCode",
                rule="only *.md files are agents",
                hint="name it <agent>.md if it is an agent",
                recursive=recursive,
            )
            yield from files


def _read_markdown(
    directory: Path, primary: bool, state: _State
) -> dict[str, tuple[dict[str, Any], _Source]]:
    loaded: dict[str, tuple[dict[str, Any], _Source]] = {}
    dirs = ("mode", "modes") if primary else ("agent", "agents")
    for path in _agent_files(directory, dirs, not primary, state.diagnostics):
        found: list[Diagnostic] = []
        text = native_io.read_text(path, found, hint=_REPLACED)
        if text is None:
            state.diagnostics.extend(found)
            continue
        doc = read_native_recovering(text, str(path), found, RECOVERY)
        if doc is None:
            first = next((d for d in found if d.is_error), None)
            state.diagnostics.append(
                harness_diagnostic(
                    "harness-ignored",
                    "OpenCode skips this file: its YAML frontmatter does not parse"
                    + (f" ({first.message})" if first else ""),
                    path=str(path),
                    line=first.line if first else 1,
                    column=first.column if first else 1,
                    hint="fix the frontmatter; OpenCode gives no error for it",
                    warning=True,
                )
            )
            continue
        state.diagnostics.extend(found)  # a recovered frontmatter's warning
        rel = path.relative_to(directory).as_posix()
        rel = rel.split("/", 1)[1]
        name, entry, layout = _markdown_entry(doc, rel[: -len(".md")])
        problems = check_agent(entry)
        if problems:
            if primary:  # legacy modes that fail the schema are skipped without a word
                state.diagnostics.append(
                    harness_diagnostic(
                        "harness-ignored",
                        "OpenCode skips this mode file: " + problems[0].message,
                        path=str(path),
                        warning=True,
                    )
                )
                continue
            mark = doc.key_marks.get(problems[0].key)
            state.refuse(
                str(path),
                "\n↳ ".join(p.message for p in problems),
                line=mark.line if mark else 1,
                column=mark.column if mark else 1,
            )
            continue
        if primary:
            entry["mode"] = "primary"
        if name in loaded:
            state.diagnostics.append(
                harness_diagnostic(
                    "harness-shadowed",
                    f"agent {name!r} is replaced by {path} (same name, same directory)",
                    path=loaded[name][1].path,
                    hint="OpenCode keeps only the last file of a name within one directory",
                    warning=True,
                )
            )
        loaded[name] = (normalize(entry), _Source(str(path), "markdown", native_form(layout)))
    return loaded


def _markdown_entry(doc: NativeDocument, derived: str) -> tuple[str, dict[str, Any], Layout]:
    """A markdown agent as the config entry OpenCode builds from it. OpenCode trims the
    body; roster keeps the prompt exactly (issue 12 item 1) and the layout around it."""
    data = jsify(doc.data)
    name = str(data.get("name", derived))
    layout = split_layout(doc)
    return name, {"name": name, **data, "prompt": layout.prompt}, layout


def read_text(text: str, derived: str, path: str, servers: tuple[str, ...]) -> AgentProfile | None:
    """The agent OpenCode loads from one markdown file holding ``text`` (named ``derived``
    by its path), with ``servers`` the MCP servers its config defines; None when it loads
    none. For checking a rendering against a remembered layout (native_md.keep_native)."""
    doc = read_native_recovering(text, path, [], RECOVERY)
    if doc is None:
        return None
    name, entry, _ = _markdown_entry(doc, derived)
    if check_agent(entry):
        return None
    agent = _Agent()
    agent.data = normalize(entry)
    agent.sources.append(_Source(path, "markdown"))
    return _profile(name, agent, servers, _State())


def _load(roots: Roots) -> _State:
    state = _State()
    global_dir = roots.home / ".config" / "opencode"
    for name in ("config.json", *_CONFIG_NAMES):
        _read_json(global_dir / name, state)
    for name in _CONFIG_NAMES:
        _read_json(roots.workspace / name, state)
    seen: set[Path] = set()
    for directory in (global_dir, roots.workspace / ".opencode", roots.home / ".opencode"):
        resolved = directory.resolve()
        if resolved in seen or not directory.is_dir():
            continue
        seen.add(resolved)
        if directory != global_dir:
            for name in _CONFIG_NAMES:
                _read_json(directory / name, state)
        for primary in (False, True):
            for agent_name, (data, source) in _read_markdown(directory, primary, state).items():
                state.merge(agent_name, data, source)
    return state


def _profile(name: str, agent: _Agent, servers: tuple[str, ...], state: _State) -> AgentProfile:
    data = agent.data
    source = agent.sources[-1].path

    def loss(field: str, detail: str, outcome: str = "translated") -> None:
        state.losses.append(
            Loss(profile=name, field=field, outcome=LossOutcome(outcome), detail=detail)
        )

    written = data.get("model", "")
    provider, model = split_model(written)
    rules = rules_from_config(data.get("permission") or {})
    rules, used = strip_scoping(rules, servers)
    harness: dict[str, Any] = {k: data[k] for k in _PASS_THROUGH if k in data}
    unknown = {k: v for k, v in data.items() if k not in KNOWN_KEYS}
    harness.update(unknown)
    explicit = {
        k: v for k, v in (data.get("options") or {}).items() if k not in unknown or unknown[k] != v
    }
    if explicit:
        harness["options"] = explicit
    for key in harness:
        loss(f"harness.{CODEC}.{key}", "kept in harness.opencode (no canonical field)")
    if "tools" in data:
        loss("tools", "deprecated tools map folded into permission rules (permissions.md §1.1)")
    if "maxSteps" in data:
        loss("maxSteps", "deprecated maxSteps read as steps (max_turns)")
    prompt = import_body(str(data.get("prompt", "")))
    for note in prompt.notes:
        loss("prompt", note)
    last = agent.sources[-1]
    # A model without a provider is kept as OpenCode has it: render would otherwise add one
    # (issue 12 item 4: model ids survive a round trip).
    native_model = written if written and not provider else ""
    native = last.native or (NativeForm(model=native_model) if native_model else None)
    if native is not None and native_model:
        native = msgspec.structs.replace(native, model=native_model)
    return AgentProfile(
        id=name,
        name=name,
        description=str(data.get("description", "")).strip(),  # as the vault holds it
        model=model,
        provider=provider,
        temperature=data.get("temperature"),
        top_p=data.get("top_p"),
        max_turns=data.get("steps"),
        mode=str(data.get("mode", "")),
        color=str(data.get("color", "")),
        permission=rules,
        harness={CODEC: harness} if harness else {},
        mcp_servers=used,
        sections=prompt.sections,
        native={CODEC: native} if native is not None else {},
        source=source,
    )


def discover(roots: Roots) -> Discovery:
    """The agents OpenCode would load from ``roots``, canonical, with its servers."""
    state = _load(roots)
    servers: list[McpServer] = []
    for name, entry in state.mcp.items():
        imported = import_server(name, entry, state.mcp_source.get(name, ""))
        if imported.server is None:
            state.refuse(state.mcp_source.get(name, ""), imported.problem)
            continue
        servers.append(imported.server)
        for dropped in imported.dropped:
            state.losses.append(
                Loss(profile=name, field=f"mcp.{name}", outcome=LossOutcome.DROPPED, detail=dropped)
            )
    names = tuple(s.name for s in servers)
    profiles: list[AgentProfile] = []
    for name, agent in state.agents.items():
        if agent.data.get("disable") is True:
            state.diagnostics.append(
                harness_diagnostic(
                    "harness-ignored",
                    f"agent {name!r} is disabled (disable: true) and not loaded",
                    path=agent.sources[-1].path,
                    warning=True,
                )
            )
            continue
        if name in BUILT_IN:
            state.diagnostics.append(
                harness_diagnostic(
                    "harness-ignored",
                    f"agent {name!r} is OpenCode's built-in agent; this entry only changes "
                    "some of its settings, and its built-in prompt and rules are not imported",
                    path=agent.sources[-1].path,
                    warning=True,
                )
            )
        try:
            check_segment(name, "agent name")
        except RosterError:
            state.diagnostics.append(
                harness_diagnostic(
                    "harness-name-invalid",
                    f"OpenCode loads agent {name!r}, but it is not a safe vault id",
                    path=agent.sources[-1].path,
                    hint="move the file out of its subfolder or give it a 'name' to import it",
                    warning=True,
                )
            )
        profiles.append(_profile(name, agent, names, state))
    return Discovery(
        profiles=tuple(profiles),
        servers=tuple(servers),
        losses=tuple(state.losses),
        diagnostics=tuple(state.diagnostics),
    )
