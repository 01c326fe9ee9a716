"""Discover agents the way OpenCode (and its fork Kilo) loads them (docs/codecs/opencode.md
§1-§3, docs/codecs/kilo.md §1-§3).

Layers, in order (``Flavor.layers``): the global config files, the project's root config
files, then each config directory (OpenCode: ``~/.config/opencode``,
``<workspace>/.opencode``, ``~/.opencode``): its config files, its
``{agent,agents}/**/*.md`` and legacy ``{mode,modes}/*.md``. Each file is checked and
normalised on its own, then the same agent name is deep-merged across layers (a later
layer wins each field it sets; permission keys keep their first position). Within one
directory a later file with the same name replaces the earlier one whole.
"""

from __future__ import annotations

import json
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
from agent_roster.codecs.opencode.flavor import OPENCODE, REFERENCE, Flavor, header_references
from agent_roster.codecs.opencode.js import JsoncError, js_type, jsify, load_jsonc, merge_deep
from agent_roster.codecs.opencode.mcp import import_server
from agent_roster.codecs.opencode.rules import OPENCODE_BASELINE, SPARE_BASELINE, writable
from agent_roster.codecs.opencode.schema import (
    KNOWN_KEYS,
    check_agent,
    normalize,
    permission_map,
    split_model,
)
from agent_roster.codecs.opencode.scoping import strip_scoping
from agent_roster.codecs.permissions import rules_from_config
from agent_roster.codecs.prompt import import_body
from agent_roster.codecs.unloaded import report_not_loaded
from agent_roster.diagnostics import Diagnostic
from agent_roster.errors import RosterError, UsageError
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile, NativeForm, PermissionRule
from agent_roster.vault.jsonblock import text_lines
from agent_roster.vault.paths import check_segment

#: Keys imported into ``harness.<codec>`` as they are (README D5).
_PASS_THROUGH = ("variant", "hidden", "disable")


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
    def __init__(self, flavor: Flavor) -> None:
        self.flavor = flavor
        self.agents: dict[str, _Agent] = {}
        self.mcp: dict[str, Any] = {}
        self.mcp_source: dict[str, str] = {}
        self.diagnostics: list[Diagnostic] = []
        self.losses: list[Loss] = []
        #: The config files' ``permission``, merged as the harness merges config layers:
        #: it applies to every agent, before the agent's own rules.
        self.permission: dict[str, Any] = {}
        self.permission_files: list[str] = []

    def refuse(
        self,
        path: str,
        message: str,
        *,
        line: int = 1,
        column: int = 1,
        code: str = "harness-field-type",
    ) -> None:
        hint = (
            f"{self.flavor.label} refuses the whole configuration until this is fixed"
            if self.flavor.whole_config
            else f"{self.flavor.label} skips this file (an error in its log); the rest loads"
        )
        self.diagnostics.append(
            harness_diagnostic(
                code,
                f"Configuration is invalid at {path}\n↳ {message}",
                path=path,
                line=line,
                column=column,
                hint=hint,
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
                        hint=f"{self.flavor.label} deep-merges agents of the same name; "
                        "the later layer wins",
                        warning=True,
                    )
                )
        agent.data = merge_deep(agent.data, data)
        agent.sources.append(source)
        for key in data:
            agent.setters[key] = source.path


def _line_of(text: str, needle: str) -> tuple[int, int]:
    return text_lines(text).locate(needle)


def _drop_referencing_servers(value: dict[str, Any], path: Path, state: _State) -> None:
    """Kilo skips a project server whose headers hold a variable reference, with a warning
    (and loads the rest of the file)."""
    for name, found in header_references(value.get("mcp")):
        del value["mcp"][name]
        state.diagnostics.append(
            harness_diagnostic(
                "harness-ignored",
                f'Skipped MCP "{name}": variable references are not allowed in project MCP '
                f'headers ("{found}")',
                path=str(path),
                hint="define the server in the user config (~/.config/kilo/kilo.json)",
                warning=True,
            )
        )


def _read_json(path: Path, trusted: bool, state: _State) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    flavor = state.flavor
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
    if flavor.refuse_project_refs and not trusted:
        _drop_referencing_servers(value, path, state)
        found = REFERENCE.search(json.dumps(value, ensure_ascii=False))
        if found is not None:
            line, column = _line_of(text, found[0])
            state.refuse(
                str(path),
                f"variable reference {found[0]} in a project config file (Kilo substitutes "
                "them only in the user's own files)",
                line=line,
                column=column,
                code="harness-invalid",
            )
            return None
    entries: list[tuple[str, dict[str, Any]]] = []
    agents = value.get("agent")
    invalid = agents is not None and not isinstance(agents, dict)
    if invalid:
        line, column = _line_of(text, '"agent"')
        state.refuse(
            str(path), f"Expected record, got {js_type(agents)} agent", line=line, column=column
        )
        agents = None
    for name, entry in (agents or {}).items():
        if not isinstance(entry, dict):
            state.refuse(str(path), f"Expected AgentConfig, got {entry!r} agent.{name}")
            invalid = True
            continue
        problems = check_agent(entry, flavor.extra_keys)
        if problems:
            line, column = _line_of(text, f'"{name}"')
            state.refuse(
                str(path), "\n↳ ".join(f"{p.message}" for p in problems), line=line, column=column
            )
            invalid = True
            continue
        entries.append((str(name), normalize(entry, flavor.extra_keys)))
    if invalid and not flavor.whole_config:
        return None  # the fork skips the whole file, other agents in it included
    for name, entry in entries:
        state.merge(name, entry, _Source(str(path), "json"))
    if "permission" in value:
        layer = permission_map(value["permission"])
        try:
            rules_from_config(layer, where="permission")
        except UsageError as exc:
            line, column = _line_of(text, '"permission"')
            state.refuse(str(path), exc.message, line=line, column=column)
        else:
            state.permission = merge_deep(state.permission, layer)
            state.permission_files.append(str(path))
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


def _recovery(flavor: Flavor) -> Recovery:
    """The recovery, named for the harness that does it (Kilo does OpenCode's)."""
    return RECOVERY if flavor is OPENCODE else RECOVERY._replace(harness=flavor.label)


def _agent_files(
    directory: Path,
    pattern_dirs: tuple[str, ...],
    recursive: bool,
    out: list[Diagnostic],
    label: str,
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
                harness=label,
                rule="only *.md files are agents",
                hint="name it <agent>.md if it is an agent",
                recursive=recursive,
            )
            yield from files


def _unparsed(text: str, path: str, found: list[Diagnostic], state: _State) -> bool:
    """Report a file whose frontmatter does not parse; true when the flavor still loads it
    (Kilo: as an agent whose prompt is the whole file)."""
    label = state.flavor.label
    first = next((d for d in found if d.is_error), None)
    problem = f" ({first.message})" if first else ""
    if state.flavor.unparsed_is_prompt:
        message = (
            f"{label} cannot parse this file's YAML frontmatter{problem} and loads the whole "
            "file, frontmatter included, as the prompt of an agent with no settings"
        )
        hint = "fix the frontmatter"
    else:
        message = f"{label} skips this file: its YAML frontmatter does not parse{problem}"
        hint = f"fix the frontmatter; {label} gives no error for it"
    state.diagnostics.append(
        harness_diagnostic(
            "harness-ignored",
            message,
            path=path,
            line=first.line if first else 1,
            column=first.column if first else 1,
            hint=hint,
            warning=True,
        )
    )
    return state.flavor.unparsed_is_prompt


def _read_markdown(
    directory: Path, primary: bool, trusted: bool, state: _State
) -> dict[str, tuple[dict[str, Any], _Source]]:
    loaded: dict[str, tuple[dict[str, Any], _Source]] = {}
    flavor = state.flavor
    dirs = ("mode", "modes") if primary else ("agent", "agents")
    for path in _agent_files(directory, dirs, not primary, state.diagnostics, flavor.label):
        found: list[Diagnostic] = []
        text = native_io.read_text(path, found, hint=_REPLACED)
        if text is None:
            state.diagnostics.extend(found)
            continue
        doc = read_native_recovering(text, str(path), found, _recovery(flavor))
        if doc is None:
            if not _unparsed(text, str(path), found, state):
                continue
            bom = "\ufeff" if text.startswith("\ufeff") else ""
            doc = NativeDocument({}, text[len(bom) :], 1, False, {}, bom)
        if flavor.refuse_project_refs and not trusted:
            # Kilo substitutes references in the prompt only (the frontmatter is read as
            # it is), and refuses to in a project file.
            reference = REFERENCE.search(doc.body)
            if reference is not None:
                line, column = _line_of(text, reference[0])
                state.refuse(
                    str(path),
                    f"variable reference {reference[0]} in a project agent file (Kilo "
                    "substitutes them only in the user's own files)",
                    line=line,
                    column=column,
                    code="harness-invalid",
                )
                continue
        state.diagnostics.extend(d for d in found if not d.is_error)  # a recovery's warning
        rel = path.relative_to(directory).as_posix()
        rel = rel.split("/", 1)[1]
        name, entry, layout = _markdown_entry(doc, rel[: -len(".md")])
        problems = check_agent(entry, flavor.extra_keys)
        if problems:
            if primary and flavor.whole_config:  # OpenCode skips bad modes without a word
                state.diagnostics.append(
                    harness_diagnostic(
                        "harness-ignored",
                        f"{flavor.label} skips this mode file: " + problems[0].message,
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
                    hint=f"{flavor.label} keeps only the last file of a name within one directory",
                    warning=True,
                )
            )
        loaded[name] = (
            normalize(entry, flavor.extra_keys),
            _Source(str(path), "markdown", native_form(layout)),
        )
    return loaded


def _markdown_entry(doc: NativeDocument, derived: str) -> tuple[str, dict[str, Any], Layout]:
    """A markdown agent as the config entry OpenCode builds from it. OpenCode trims the
    body; roster keeps the prompt exactly (issue 12 item 1) and the layout around it."""
    data = jsify(doc.data)
    name = str(data.get("name", derived))
    layout = split_layout(doc)
    return name, {"name": name, **data, "prompt": layout.prompt}, layout


def read_text(
    text: str, derived: str, path: str, servers: tuple[str, ...], flavor: Flavor = OPENCODE
) -> AgentProfile | None:
    """The agent the harness loads from one markdown file holding ``text`` (named
    ``derived`` by its path), with ``servers`` the MCP servers its config defines; None
    when it loads none. For checking a rendering against a remembered layout
    (native_md.keep_native)."""
    doc = read_native_recovering(text, path, [], _recovery(flavor))
    if doc is None:
        return None
    name, entry, _ = _markdown_entry(doc, derived)
    if check_agent(entry, flavor.extra_keys):
        return None
    agent = _Agent()
    agent.data = normalize(entry, flavor.extra_keys)
    agent.sources.append(_Source(path, "markdown"))
    return _profile(name, agent, servers, _State(flavor))


def _load(roots: Roots, flavor: Flavor) -> _State:
    state = _State(flavor)
    layers = flavor.layers(roots)
    for config in layers.files:
        _read_json(config.path, config.trusted, state)
    seen: set[Path] = set()
    for directory in layers.dirs:
        resolved = directory.path.resolve()
        if resolved in seen or not directory.path.is_dir():
            continue
        seen.add(resolved)
        for name in directory.config_names:
            _read_json(directory.path / name, directory.trusted, state)
        for primary in (False, True):
            found = _read_markdown(directory.path, primary, directory.trusted, state)
            for agent_name, (data, source) in found.items():
                state.merge(agent_name, data, source)
    return state


def _apart(rule: PermissionRule, taken: set[str]) -> PermissionRule:
    """``rule`` under a glob key none of ``taken`` is (``*`` → ``**``: a trailing ``*``
    doubled matches the same keys), so a permission object keeps it at its own place."""
    key = rule.permission
    if not key.endswith("*"):
        return rule
    while key in taken:
        key += "*"
    return msgspec.structs.replace(rule, permission=key)


def _profile(name: str, agent: _Agent, servers: tuple[str, ...], state: _State) -> AgentProfile:
    data = agent.data
    source = agent.sources[-1].path
    flavor = state.flavor
    codec = flavor.codec

    def loss(field: str, detail: str, outcome: str = "translated") -> None:
        state.losses.append(
            Loss(profile=name, field=field, outcome=LossOutcome(outcome), detail=detail)
        )

    written = data.get("model", "")
    provider, model = split_model(written)
    rules = rules_from_config(data.get("permission") or {})
    rules, used = strip_scoping(rules, servers)
    # OpenCode allows every tool no rule restricts (its first built-in rule): written out,
    # so neither roster's defaults nor another harness's decide for this agent; then the
    # config files' permission, which OpenCode applies before the agent's own rules
    # (issue 12 item 2: layered settings are carried, never lost).
    layered = rules_from_config(state.permission) if state.permission else ()
    # As one permission object (the vault's Config holds one): a key the layers and the
    # agent both set keeps its place only when that decides nothing; else the earlier
    # layers' glob keys are spelled apart (``*`` as ``**``, the same calls).
    combined = (OPENCODE_BASELINE, *layered, *rules)
    found = writable(combined)
    if found is None:
        own = {rule.permission for rule in rules}
        apart = tuple(_apart(r, own) for r in (SPARE_BASELINE, *layered))
        found = writable((*apart, *rules))
    rules = found or combined  # else import refuses it (import-inexact)
    loss(
        "permission",
        f"{flavor.label}'s own argument rules (reading .env files and folders outside the "
        f"project ask) stay {flavor.label}'s: not carried, so another harness does not apply "
        "them",
        "dropped",
    )
    if layered:
        loss(
            "permission",
            "the permission of "
            + ", ".join(state.permission_files)
            + f" ({flavor.label} applies it to every agent) is carried into this agent's rules",
        )
    harness: dict[str, Any] = {k: data[k] for k in _PASS_THROUGH if k in data}
    harness.update(
        {k: data[k] for k in sorted(flavor.extra_keys) if k in data and k != flavor.display_key}
    )
    unknown = {k: v for k, v in data.items() if k not in KNOWN_KEYS and k not in flavor.extra_keys}
    harness.update(unknown)
    explicit = {
        k: v for k, v in (data.get("options") or {}).items() if k not in unknown or unknown[k] != v
    }
    if explicit:
        harness["options"] = explicit
    for key in harness:
        loss(f"harness.{codec}.{key}", f"kept in harness.{codec} (no canonical field)")
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
    display = data.get(flavor.display_key) if flavor.display_key else None
    return AgentProfile(
        id=name,
        name=display if isinstance(display, str) and display else name,
        description=str(data.get("description", "")).strip(),  # as the vault holds it
        model=model,
        provider=provider,
        temperature=data.get("temperature"),
        top_p=data.get("top_p"),
        max_turns=data.get("steps"),
        mode=str(data.get("mode", "")),
        color=str(data.get("color", "")),
        permission=rules,
        harness={codec: harness} if harness else {},
        mcp_servers=used,
        sections=prompt.sections,
        native={codec: native} if native is not None else {},
        source=source,
    )


def discover(roots: Roots, flavor: Flavor = OPENCODE) -> Discovery:
    """The agents the harness would load from ``roots``, canonical, with its servers."""
    state = _load(roots, flavor)
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
        if name in flavor.builtin:
            state.diagnostics.append(
                harness_diagnostic(
                    "harness-ignored",
                    f"agent {name!r} is {flavor.label}'s built-in agent; this entry only changes "
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
                    f"{flavor.label} loads agent {name!r}, but it is not a safe vault id",
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
