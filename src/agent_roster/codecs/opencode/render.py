"""Render profiles as OpenCode agent files and its ``mcp`` block (docs/codecs/opencode.md),
or as those of its fork Kilo (``Flavor``, docs/codecs/kilo.md).

One ``agents/<id>.md`` per profile (frontmatter + prompt body) and the referenced servers
merged into ``opencode.json``'s ``mcp`` key, keeping every other key of that file. Nothing
roster-internal is written into an agent file: OpenCode sends unknown keys to the model
provider (README D5).
"""

from __future__ import annotations

import itertools
import json
from functools import lru_cache, partial
from typing import Any

from agent_roster.codecs.base import (
    Loss,
    LossOutcome,
    NativeFile,
    ReadExisting,
    Rendering,
    RenderRequest,
    Scope,
)
from agent_roster.codecs.native_io import existing_present, existing_text, json_text
from agent_roster.codecs.native_md import (
    Tailed,
    entry_lines,
    harness_diagnostic,
    keep_native,
    write_native,
)
from agent_roster.codecs.opencode.flavor import OPENCODE, REFERENCE, Flavor
from agent_roster.codecs.opencode.js import JsoncError, load_jsonc
from agent_roster.codecs.opencode.mcp import order_servers, render_server
from agent_roster.codecs.opencode.read import read_text
from agent_roster.codecs.opencode.rules import render_rules
from agent_roster.codecs.opencode.schema import (
    KNOWN_KEYS,
    MODES,
    check_agent,
    check_color,
    infer_provider,
)
from agent_roster.codecs.opencode.scoping import ScopingBlock, ScopingTail, scoping_block
from agent_roster.codecs.prompt import render_prompt
from agent_roster.diagnostics import Diagnostic
from agent_roster.model.profile import AgentProfile

#: OpenCode's folder of agents and config, relative to the workspace (project) or home
#: (user).
BASE = OPENCODE.base
#: Canonical fields OpenCode has no place for (docs/codecs/opencode.md §8).
_UNSUPPORTED = (
    "max_tokens_per_task",
    "runtime",
    "agent_name",
    "tags",
    "extends",
    "install",
    "metadata",
    "extra_config",
)
#: Pass-through keys render never takes from ``harness.opencode``: they are written from
#: canonical fields (or are deprecated and folded on import).
_MANAGED = frozenset({"name", "model", "description", "mode", "temperature", "top_p", "steps"})
_MANAGED |= {"maxSteps", "color", "permission", "tools", "prompt"}


def config_path(scope: Scope, existing: ReadExisting, flavor: Flavor = OPENCODE) -> str:
    """The config file to merge the ``mcp`` block into: ``opencode.jsonc`` when only that
    one exists, else ``opencode.json`` (Kilo: ``kilo.json[c]``)."""
    base = flavor.base[scope]
    json_rel, jsonc_rel = f"{base}/{flavor.config_name}", f"{base}/{flavor.config_alt}"
    if not existing_present(existing, json_rel) and existing_present(existing, jsonc_rel):
        return jsonc_rel
    return json_rel


def _model(profile: AgentProfile, losses: list[Loss], flavor: Flavor) -> str:
    if not profile.model:
        if profile.provider:
            losses.append(_loss(profile, "provider", "dropped", "a provider without a model"))
        return ""
    if profile.provider:
        return f"{profile.provider}/{profile.model}"
    native = profile.native.get(flavor.codec)
    if native is not None and native.model == profile.model:
        return profile.model  # OpenCode's own string, without a provider: kept as it was
    if "/" in profile.model:
        losses.append(
            _loss(
                profile,
                "model",
                "translated",
                f"{flavor.label} reads the part before '/' as provider",
            )
        )
        return profile.model
    inferred = infer_provider(profile.model)
    if inferred:
        losses.append(
            _loss(
                profile,
                "provider",
                "translated",
                f"{flavor.label} needs provider/model: written {inferred}/{profile.model}",
            )
        )
        return f"{inferred}/{profile.model}"
    losses.append(
        _loss(
            profile,
            "model",
            "dropped",
            f"{profile.model!r} has no provider and {flavor.label} needs provider/model; "
            f"set 'provider' in ## Config (the agent uses {flavor.label}'s default model)",
        )
    )
    return ""


# Claude Code's agent colours (the ones vault profiles imported from it carry), as hex:
# OpenCode takes only "#RRGGBB" or its theme names.
_NAMED_COLORS = {
    "red": "#ff0000",
    "blue": "#0000ff",
    "green": "#008000",
    "yellow": "#ffff00",
    "purple": "#800080",
    "orange": "#ffa500",
    "pink": "#ffc0cb",
    "cyan": "#00ffff",
}


def _color(profile: AgentProfile, losses: list[Loss], label: str) -> str:
    if not check_color(profile.color):
        return profile.color
    named = _NAMED_COLORS.get(profile.color.casefold())
    if named:
        losses.append(_loss(profile, "color", "translated", f"{profile.color} written as {named}"))
        return named
    losses.append(
        _loss(
            profile,
            "color",
            "dropped",
            f"{profile.color!r}: {check_color(profile.color)[0]} ({label} would refuse it)",
        )
    )
    return ""


def _loss(profile: AgentProfile, field: str, outcome: str, detail: str) -> Loss:
    return Loss(profile=profile.id, field=field, outcome=_OUTCOMES[outcome], detail=detail)


#: Outcome names to members: calling the enum costs more than building the loss.
_OUTCOMES = {outcome.value: outcome for outcome in LossOutcome}


class _Renderer:
    def __init__(self, request: RenderRequest, existing: ReadExisting, flavor: Flavor) -> None:
        self.request = request
        self.existing = existing
        self.flavor = flavor
        self.codec = flavor.codec
        self.files: list[NativeFile] = []
        self.losses: list[Loss] = []
        self.diagnostics: list[Diagnostic] = []
        self.base = flavor.base[request.scope]
        self.config_rel = config_path(request.scope, existing, flavor)
        embedded = [s.name for s in request.servers.values() if s.builtin]
        self.embedded = embedded[0] if embedded else ""

    def error(self, path: str, message: str, hint: str = "") -> None:
        self.diagnostics.append(
            harness_diagnostic("render-unsupported", message, path=path, hint=hint)
        )

    def run(self) -> Rendering:
        config, block = self.config_block()
        # The block's own losses and diagnostics follow the agents', and only the shared
        # part reports them (RenderRequest.part), so parts add up to the whole render.
        block_losses, block_diagnostics = self.losses, self.diagnostics
        self.losses, self.diagnostics = [], []
        servers = tuple(block)
        scoping = scoping_block(servers)
        for profile in self.request.owned():
            self.agent(profile, scoping)
        if not self.request.shared:
            return Rendering(
                files=tuple(self.files),
                losses=tuple(self.losses),
                diagnostics=tuple(self.diagnostics),
            )
        self.losses += block_losses
        self.diagnostics += block_diagnostics
        if config is not None and block:
            config["mcp"] = block
            text = json_text(config)
            self.files.append(NativeFile(path=self.config_rel, content=text, merged=True))
        return Rendering(
            files=tuple(self.files), losses=tuple(self.losses), diagnostics=tuple(self.diagnostics)
        )

    def config_block(self) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        """The merged config (``None`` when it must not be rewritten) and its ``mcp`` block."""
        config: dict[str, Any] | None = {}
        text = existing_text(self.existing, self.config_rel, self.diagnostics)
        if text is False:
            config = None
        elif text is not None:
            try:
                loaded, comments = load_jsonc(text)
            except JsoncError as exc:
                self.diagnostics.append(
                    harness_diagnostic(
                        "harness-invalid",
                        f"{self.config_rel} is not valid JSON: {exc}",
                        path=self.config_rel,
                        line=exc.line,
                        column=exc.column,
                        hint="fix the file; roster only merges into a config it can read",
                    )
                )
                loaded, comments, config = {}, False, None
            if comments:
                self.error(
                    self.config_rel,
                    f"{self.config_rel} has comments, which rewriting would lose",
                    hint="add the mcp servers by hand or remove the comments",
                )
                config = None
            if config is not None:
                config = dict(loaded) if isinstance(loaded, dict) else {}
        if config is not None and self.flavor.schema_url and "$schema" not in config:
            # Kilo adds its own "$schema" to every config file it loads that lacks one,
            # rewriting the file: written here first, the file stays as roster wrote it.
            config = {"$schema": self.flavor.schema_url, **config}
        existing_block = (config or {}).get("mcp")
        existing_block = dict(existing_block) if isinstance(existing_block, dict) else {}
        wanted: list[list[str]] = []
        rendered: dict[str, dict[str, Any]] = {}
        skipped: dict[str, str] = {}  # servers the harness would skip from this file, and why
        for profile in self.request.profiles:
            names = []
            for name in profile.mcp_servers:
                server = self.request.servers.get(name)
                if server is None:
                    self.losses.append(
                        _loss(profile, "mcp_servers", "dropped", f"{name}: not in the registry")
                    )
                    continue
                if name not in rendered:
                    native = render_server(server)
                    if native.entry is None:
                        self.error(self.config_rel, f"MCP server {name!r}: {native.problem}")
                        rendered[name] = {}
                        continue
                    skipped[name] = self.project_reference(native.entry)
                    rendered[name] = {} if skipped[name] else native.entry
                    for note in native.notes if rendered[name] else ():
                        self.losses.append(_loss(profile, "mcp_servers", "translated", note))
                if rendered[name]:
                    names.append(name)
                else:
                    why = skipped.get(name) or "cannot be written"
                    self.losses.append(_loss(profile, "mcp_servers", "dropped", f"{name}: {why}"))
            wanted.append(names)
        order = order_servers(list(existing_block), wanted)
        position = {name: i for i, name in enumerate(order)}
        for profile, names in zip(self.request.profiles, wanted, strict=True):
            places = [position[n] for n in names]
            if any(a >= b for a, b in itertools.pairwise(places)):
                self.losses.append(
                    _loss(
                        profile,
                        "mcp_servers",
                        "translated",
                        "OpenCode keeps one server order for all agents; this profile's "
                        "order conflicts with another's (or the existing file's)",
                    )
                )
        block = {n: rendered[n] if rendered.get(n) else existing_block[n] for n in order}
        return config, block

    def project_reference(self, entry: dict[str, Any] | None) -> str:
        """Why the harness would not load ``entry`` from a project config file, or ""."""
        if entry is None or not self.flavor.refuse_project_refs:
            return ""
        if self.request.scope is not Scope.PROJECT:
            return ""
        found = REFERENCE.search(json.dumps(entry, ensure_ascii=False))
        if found is None:
            return ""
        return (
            f"{self.flavor.label} does not substitute {found[0]} in a project config file (it "
            "would skip the file, or in headers the server); render it with --scope user"
        )

    def references(self, profile: AgentProfile, rel: str) -> bool:
        """Refuse a profile whose prompt holds a reference the harness would substitute (a
        user file) or refuse (a project file skipped whole); true when refused."""
        if not self.flavor.refuse_project_refs:
            return False
        found = REFERENCE.search(profile.prompt)
        if found is None:
            return False
        self.error(
            rel,
            f"{profile.id}: {found[0]} would be substituted by {self.flavor.label} (and a "
            "project agent file holding it is skipped)",
            hint="reword the text so it does not read {env:NAME} or {file:PATH}",
        )
        return True

    def agent(self, profile: AgentProfile, block: ScopingBlock) -> None:
        rel = f"{self.base}/agents/{profile.id}.md"
        if not profile.id or any(c in profile.id for c in "/\\") or profile.id.startswith("."):
            self.error(rel, f"agent name {profile.id!r} cannot be a single file name")
            return
        losses: list[Loss] = []
        data: dict[str, Any] = {}
        label = self.flavor.label
        display = self.flavor.display_key
        if profile.name and profile.name != profile.id:
            if display:
                data[display] = profile.name
            else:
                losses.append(_loss(profile, "name", "dropped", f"{label} names agents by file"))
        if profile.description:
            data["description"] = profile.description
        if profile.mode:
            if profile.mode not in MODES:
                self.error(rel, f'mode {profile.mode!r}: Expected "subagent" | "primary" | "all"')
                return
            data["mode"] = profile.mode
        model = _model(profile, losses, self.flavor)
        if model:
            data["model"] = model
        for key, number in (("temperature", profile.temperature), ("top_p", profile.top_p)):
            if number is not None:
                data[key] = number
        if profile.max_turns is not None:
            data["steps"] = profile.max_turns
        if profile.color:
            color = _color(profile, losses, label)
            if color:
                data["color"] = color
        rules = render_rules(profile, block, embedded=self.embedded)
        losses.extend(_loss(profile, f, o, d) for f, o, d in rules.losses)
        if rules.problem:
            self.error(
                rel, rules.problem, hint="reorder the rules so each key's rules are adjacent"
            )
            return
        if rules.config is not None:
            data["permission"] = rules.config
        codec = self.codec
        for key, value in (profile.harness.get(codec) or {}).items():
            if key in _MANAGED or key == display:
                losses.append(
                    _loss(profile, f"harness.{codec}.{key}", "dropped", "set from canonical fields")
                )
            else:
                data[key] = value
                if key not in KNOWN_KEYS and key not in self.flavor.extra_keys:
                    losses.append(
                        _loss(
                            profile,
                            f"harness.{codec}.{key}",
                            "translated",
                            f"{label} sends unknown keys to the model provider as options",
                        )
                    )
        # The scoping denies (valid by construction) join the map only for writing.
        invalid = check_agent(data, self.flavor.extra_keys)
        if invalid:
            self.error(rel, "Configuration is invalid: " + "; ".join(p.message for p in invalid))
            return
        if self.references(profile, rel):
            return
        if rules.tail is not None:
            data["permission"] = _tailed(rules.config or {}, rules.tail)
        for field in _UNSUPPORTED:
            unsupported = getattr(profile, field)
            if unsupported and not (field == "install" and unsupported.is_empty):
                losses.append(_loss(profile, field, "dropped", f"{label} has no such setting"))
        self.losses.extend(losses)
        body = render_prompt(profile, rules.constraints)
        content = keep_native(
            profile.native.get(codec),
            write_native(data, body),
            partial(
                read_text, derived=profile.id, path=rel, servers=block.servers, flavor=self.flavor
            ),
            body,
        )
        self.files.append(NativeFile(path=rel, content=content, profile=profile.id))


@lru_cache(maxsize=16)  # by identity: a render builds its block once
def _deny_text(block: ScopingBlock) -> tuple[str, tuple[int, ...]] | None:
    # Every scoping deny's frontmatter line under ``permission:``, laid out once per block
    # and joined, with where each line starts (and, last, where a next one would).
    lines = [entry_lines({block.keys[server]: "deny"}, "  ") for server in block.servers]
    if any(line is None or len(line) != 1 for line in lines):
        return None
    found = [line[0] for line in lines if line]
    starts = itertools.accumulate((len(line) + 1 for line in found), initial=0)
    return "\n".join(found), tuple(starts)


def _tailed(head: dict[str, Any], tail: ScopingTail) -> Any:
    """The permission map as written: ``head``, then the scoping denies."""
    laid_out = _deny_text(tail.block)
    if laid_out is None:
        return {**head, **tail.entries()}
    # An agent's denies are the block's lines but its own servers': a slice of the
    # block's text per run between them.
    lines, starts = laid_out
    text = "\n".join(lines[starts[start] : starts[stop] - 1] for start, stop in tail.runs())
    return Tailed(head, text, "  ", tail.entries, tail)


def render(request: RenderRequest, existing: ReadExisting, flavor: Flavor = OPENCODE) -> Rendering:
    """Agent files and the merged ``mcp`` block for ``request``."""
    return _Renderer(request, existing, flavor).run()
