"""Writing Codex files: one role file per profile and the merged ``config.toml``.

Everything a profile says that a role file cannot hold is reported (README D3); servers are
translated by ``codex.mcp``; the merge into ``config.toml`` goes through tomlkit so the
user's comments and formatting survive (docs/codecs/codex.md §6).
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from functools import lru_cache
from typing import Any, NamedTuple

import tomlkit
from tomlkit.items import String, StringType, Table, Trivia

from agent_roster.codecs.base import Loss, LossOutcome, RenderRequest
from agent_roster.codecs.codex import semantics as codex_semantics
from agent_roster.codecs.codex.mcp import render_server
from agent_roster.codecs.codex.read import CONFIG_KEYS
from agent_roster.codecs.native_io import (
    merge_refused,
    shape_problem,
    toml_merge_target,
    toml_merged,
)
from agent_roster.codecs.native_md import harness_diagnostic, remember_reading
from agent_roster.codecs.permissions import effective_rules, evaluate
from agent_roster.codecs.prompt import render_prompt
from agent_roster.codecs.toml_text import basic_string, plain_table, tomlkit_document
from agent_roster.codecs.tool_names import split_ref
from agent_roster.diagnostics import Diagnostic
from agent_roster.model.profile import AgentProfile, PermissionAction

AGENTS_DIR = ".codex/agents"
CONFIG_FILE = ".codex/config.toml"

#: ``harness.codex`` keys render writes back (D5): config keys with no canonical field.
PASS_THROUGH = tuple(
    sorted((CONFIG_KEYS - {"model", "sandbox_mode", "mcp_servers"}) | {"nickname_candidates"})
)

#: ``sandbox_mode`` → canonical ``permission_mode`` (permissions.md §3.1, Codex column).
MODE_FROM_SANDBOX = {
    "read-only": "plan",
    "workspace-write": "default",
    "danger-full-access": "bypassPermissions",
}
#: The ``approval_policy`` render pairs with each sandbox; any other value is pass-through.
PAIRED_APPROVAL = {"workspace-write": "on-request", "danger-full-access": "never"}

#: Canonical fields with no Codex key, and why (each reported ``dropped`` when set).
_NO_FIELD = {
    "provider": "Codex role files name a model, not a vendor",
    "max_turns": "Codex has no per-agent turn limit",
    "temperature": "Codex has no sampling settings",
    "top_p": "Codex has no sampling settings",
    "mode": "Codex roles are always subagents",
    "color": "Codex has no agent colour",
    "max_tokens_per_task": "Codex has no token budget per agent",
    "runtime": "roster's runtime choice is not a Codex setting",
    "agent_name": "roster's ACP agent name is not a Codex setting",
    "tags": "Codex has no tags",
    "install": "Codex does not install dependencies for a role",
}


class Refusal(NamedTuple):
    """Why Codex could not load a profile's role as the profile means it."""

    message: str
    hint: str


def server_tables(profile: AgentProfile, request: RenderRequest) -> dict[str, Any] | Refusal:
    """The ``[mcp_servers.<name>]`` tables of ``profile``'s role (what ``config.toml``
    gets from it), or why the role is not written at all. A split render works these out
    for the roles other parts write, so every part merges the same ``config.toml``."""
    if not profile.description.strip():
        return Refusal(
            f"agent role `{profile.id}` must define a description",
            "Codex requires a description; add one to the profile's frontmatter",
        )
    if profile.prompt_blank:
        return Refusal(
            f"agent role `{profile.id}` must define `developer_instructions`",
            "Codex requires a prompt; add a ## Role section",
        )
    tables: dict[str, dict[str, Any]] = {}
    for name in profile.mcp_servers:
        server = request.servers.get(name)
        if server is None:
            return Refusal(
                f"MCP server '{name}' is not in the registry", "add it under mcp-servers/"
            )
        rendered = render_server(server)
        if rendered.table is None:
            return Refusal(f"MCP server '{name}': {rendered.error}", rendered.hint)
        tables[name] = rendered.table
    return tables


def render_profile(
    profile: AgentProfile,
    request: RenderRequest,
    out: list[Diagnostic],
    losses: list[Loss],
) -> tuple[str, dict[str, dict[str, Any]]] | None:
    """The role file for ``profile`` and its server tables (for ``config.toml``), with its
    losses appended to ``losses``; ``None`` and a ``render-unsupported`` error in ``out``
    when Codex could not load the role as the profile means it."""
    path = f"{AGENTS_DIR}/{profile.id}.toml"

    def refuse(message: str, hint: str) -> None:
        out.append(
            harness_diagnostic(
                "render-unsupported", f"{profile.id}: {message}", path=path, hint=hint
            )
        )

    tables = server_tables(profile, request)
    if isinstance(tables, Refusal):
        refuse(*tables)
        return None

    def lose(field: str, outcome: LossOutcome, detail: str) -> None:
        losses.append(Loss(profile=profile.id, field=field, outcome=outcome, detail=detail))

    if profile.name != profile.id:
        lose("name", LossOutcome.DROPPED, "Codex names a role only by `name` (the id)")
    for field, why in _NO_FIELD.items():
        value = getattr(profile, field)
        if value not in (None, "", (), {}) and not (field == "install" and value.is_empty):
            lose(field, LossOutcome.DROPPED, why)
    for server_name in tables:
        if request.servers[server_name].description:
            lose(
                "mcp_servers",
                LossOutcome.DROPPED,
                f"server {server_name}: Codex keeps no server description",
            )
    constraints, role_tables = _permissions(profile, tables, lose)
    keys: dict[str, Any] = {"name": profile.id, "description": profile.description}
    if profile.model:
        keys["model"] = profile.model
    sandbox, approval = _sandbox(profile)
    if sandbox:
        keys["sandbox_mode"] = sandbox
    if approval:
        keys["approval_policy"] = approval
    passed = False
    for key, value in profile.harness.get("codex", {}).items():
        if key not in PASS_THROUGH:
            lose("harness", LossOutcome.DROPPED, f"harness.codex.{key} is not a role-file key")
            continue
        keys[key] = _inline(value)
        passed = True
    form = profile.native.get("codex")
    tail = form.tail if form is not None else "\n"
    prompt = render_prompt(profile, constraints) + tail
    keys["developer_instructions"] = _multiline(prompt, "")
    sections = "".join(map(_server_section, role_tables.items()))
    if passed:
        content = tomlkit_document(keys) + sections
        reading = _parsed_reading(keys, sections)
    else:
        content = _plain_head_text(keys) + sections
        reading = {k: v for k, v in keys.items() if k != "developer_instructions"}
        if role_tables:
            reading["mcp_servers"] = role_tables
    # The render check reads the role from what it was written from, not by parsing it
    # again: tomllib checks every character of a long prompt's string, and parsing the
    # role was half of a Codex render of long prompts or many servers. The two are the
    # same mapping but for the prompt (tests/codecs/test_codex_sections.py holds it for
    # any prompt), which no decision reads: kept for every role until the check, the
    # prompts were held twice (half a gigabyte on a vault of 50 KB prompts).
    remember_reading(content, path, reading)
    return content, tables


def _parsed_reading(keys: dict[str, Any], sections: str) -> dict[str, Any] | None:
    """What ``tomllib`` reads from a role whose keys tomlkit writes (values passed through
    from ``harness.codex``), but for its prompt: the role parsed with an empty prompt."""
    try:
        empty = tomlkit_document({**keys, "developer_instructions": _multiline("", "")})
        reading = tomllib.loads(empty + sections)
    except tomllib.TOMLDecodeError:
        return None
    del reading["developer_instructions"]
    return reading


def _plain_head_text(keys: dict[str, Any]) -> str:
    """:func:`toml_text.tomlkit_document` for keys that are bare words with string values and a last
    multi-line prompt, written without building a tomlkit document (a third of a Codex
    render): ``key = "basic string"`` with tomlkit's escapes, then the prompt as its item
    writes itself. tests/codecs/test_codex_sections.py checks the two agree."""
    *plain, (last, prompt) = keys.items()
    lines = [f"{key} = {basic_string(value)}\n" for key, value in plain]
    lines.append(f"{last} = {prompt.as_string()}\n")
    return "".join(lines)


def _server_section(entry: tuple[str, dict[str, Any]]) -> str:
    """``[mcp_servers.<name>]`` and its keys, as tomlkit writes the table after the role's
    keys (a blank line first): written directly (``toml_text.plain_table``) for the usual
    shapes, else built with tomlkit and kept per content (the same table recurs in hundreds
    of roles). Building each with tomlkit was most of a Codex render; the tests in
    tests/codecs/test_codex_sections.py check both against tomlkit's whole document."""
    name, table = entry
    plain = plain_table(("mcp_servers", name), table)
    return plain if plain is not None else _section_text(name, json.dumps(table))


@lru_cache(maxsize=4096)
def _section_text(name: str, table_json: str) -> str:
    doc = tomlkit.document()
    super_table = tomlkit.table(is_super_table=True)
    super_table[name] = _table(json.loads(table_json))
    doc["mcp_servers"] = super_table
    return "\n" + tomlkit.dumps(doc)


def _sandbox(profile: AgentProfile) -> tuple[str, str]:
    """``sandbox_mode`` and ``approval_policy`` for the profile (permissions.md §3)."""
    if profile.permission_mode in ("bypassPermissions", "full"):
        return "danger-full-access", "never"
    if evaluate(effective_rules(profile), "edit").action is PermissionAction.DENY:
        return "read-only", ""
    if profile.permission_mode:
        return "workspace-write", "on-request"
    return "", ""


def _permissions(
    profile: AgentProfile,
    tables: dict[str, dict[str, Any]],
    lose: Callable[[str, LossOutcome, str], None],
) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """Prose constraints and per-role server tables carrying MCP tool filters."""
    role_tables = {name: dict(table) for name, table in tables.items()}
    sandbox, _ = _sandbox(profile)
    mode = profile.permission_mode
    back = MODE_FROM_SANDBOX.get(sandbox, "")
    if (mode and back != mode) or (not mode and sandbox):
        lose(
            "permission_mode",
            LossOutcome.TRANSLATED,
            f"written as sandbox_mode {sandbox or 'unset'!r}, which reads back as {back!r}",
        )
    elif sandbox == "danger-full-access":
        # The mode comes back, but it allowed every tool: the ones Codex does not have
        # are denied there, and an import says so with a rule each.
        role = {"sandbox_mode": sandbox, "approval_policy": PAIRED_APPROVAL[sandbox]}
        lacking = [
            rule.permission
            for rule in codex_semantics.import_rules(role, {})
            if rule.action is PermissionAction.DENY and rule.pattern == "*"
        ]
        if lacking:
            lose(
                "permission_mode",
                LossOutcome.TRANSLATED,
                f"{mode} allows every tool; Codex has no {', '.join(lacking)} (read back as "
                "denied)",
            )
    constraints: list[str] = []
    prose_allowed: list[str] = []
    if profile.allowed_tools:
        mcp_allowed: dict[str, list[str]] = {name: [] for name in role_tables}
        whole: set[str] = set()
        for tool in profile.allowed_tools:
            ref = split_ref(tool)
            if ref.server in role_tables and ref.mcp_tool:
                if ref.mcp_tool == "*":
                    whole.add(ref.server)
                else:
                    mcp_allowed[ref.server].append(ref.mcp_tool)
            else:
                prose_allowed.append(tool)
        for name, tools in mcp_allowed.items():
            if name not in whole:
                role_tables[name]["enabled_tools"] = tools
        if prose_allowed:
            constraints.append(
                "Use only these tools (anything not listed is denied): "
                + ", ".join(f"`{t}`" for t in prose_allowed)
            )
        lose(
            "allowed_tools",
            LossOutcome.EMBEDDED if prose_allowed else LossOutcome.TRANSLATED,
            "Codex has no per-agent tool allowlist: MCP tools become the role's "
            "enabled_tools, the rest is written into the prompt",
        )
    if profile.denied_tools:
        prose_denied: list[str] = []
        for tool in profile.denied_tools:
            ref = split_ref(tool)
            if ref.server in role_tables and ref.mcp_tool:
                if ref.mcp_tool == "*":
                    role_tables[ref.server]["enabled"] = False
                else:
                    role_tables[ref.server].setdefault("disabled_tools", []).append(ref.mcp_tool)
            else:
                prose_denied.append(tool)
        if prose_denied:
            constraints.append("Never use: " + ", ".join(f"`{t}`" for t in prose_denied))
        lose(
            "denied_tools",
            LossOutcome.EMBEDDED if prose_denied else LossOutcome.TRANSLATED,
            "Codex has no per-agent deny list: MCP tools become the role's disabled_tools, "
            "the rest is written into the prompt",
        )
    # Codex's own decisions for the role render writes (what an import of it writes) are
    # carried by the file itself; only the other rules are prose.
    sandbox_mode, approval = _sandbox(profile)
    role = {"sandbox_mode": sandbox_mode, "approval_policy": approval}
    carried = set(codex_semantics.import_rules({k: v for k, v in role.items() if v}, {}))
    rules = [r for r in profile.permission if r not in carried]
    if rules:
        constraints.append(
            "Permission rules, in order; the last rule matching a tool call decides: "
            + "; ".join(f"`{r.permission}` `{r.pattern}` → {r.action.value}" for r in rules)
        )
        lose(
            "permission",
            LossOutcome.EMBEDDED,
            "Codex has no ordered permission rules; written into the prompt"
            + (f" (the edit decision also set sandbox_mode {sandbox!r})" if sandbox else ""),
        )
    return constraints, role_tables


def merge_config(
    text: str | None, servers: dict[str, dict[str, Any]], out: list[Diagnostic]
) -> str | None:
    """``config.toml`` with ``servers`` set in ``[mcp_servers]``; everything else (keys,
    tables, comments, formatting) is kept. ``None`` when the existing file cannot be read."""
    what = "MCP servers"
    doc = toml_merge_target(text, CONFIG_FILE, out, what=what)
    if doc is None:
        return None
    shape = shape_problem(text or "", doc.unwrap(), ((("mcp_servers",), "a table", dict),))
    if shape is not None:
        hint = "make mcp_servers a table of [mcp_servers.<name>] entries"
        merge_refused(out, CONFIG_FILE, what, shape[0], hint, shape[1])
        return None
    section = doc.get("mcp_servers")
    if section is None:
        section = tomlkit.table(is_super_table=True)
        doc["mcp_servers"] = section
    for name, table in servers.items():
        current = section.get(name)
        if current is not None and _plain(current) == table:
            continue  # unchanged: keep the user's formatting and comments
        section[name] = _table(table)
    return toml_merged(doc, CONFIG_FILE, out, what=what)


def _plain(value: Any) -> Any:
    unwrap = getattr(value, "unwrap", None)
    return unwrap() if callable(unwrap) else value


def _table(data: dict[str, Any]) -> Table:
    table = tomlkit.table()
    for key, value in data.items():
        table[key] = _inline(value)
    return table


def _inline(value: Any) -> Any:
    """Nested mappings as inline tables, so a key written after them stays top-level."""
    if isinstance(value, dict):
        inline = tomlkit.inline_table()
        for key, item in value.items():
            inline[key] = _inline(item)
        return inline
    return value


def _multiline(text: str, tail: str = "\n") -> String:
    """The prompt and its ``tail`` as a multi-line string, opening with a newline (which
    TOML drops) so the text starts on its own line: literal (no escapes) unless it holds
    ``'''`` or a character a literal string cannot carry, then basic with escapes (codex.md
    §4)."""
    value = text + tail
    if "'''" not in value and not any(char in value for char in _NOT_LITERAL):
        return String(StringType.MLL, value, "\n" + value, Trivia())
    escaped = "".join(_escape(c) for c in value)
    return String(StringType.MLB, value, "\n" + escaped, Trivia())


#: What a multi-line literal string cannot carry: control characters other than tab and
#: line feed, and DEL. Each is looked for on its own: a one-character search runs at memchr
#: speed, and the thirty take a seventh of the time one regex scan of a long prompt takes.
_NOT_LITERAL = (*map(chr, range(0x09)), *map(chr, range(0x0B, 0x20)), "\x7f")


def _escape(char: str) -> str:
    """One character inside a TOML basic string."""
    if char == "\\":
        return "\\\\"
    if char == '"':
        return '\\"'
    if char in "\t\n" or (char >= " " and char != "\x7f"):
        return char
    return f"\\u{ord(char):04x}"
