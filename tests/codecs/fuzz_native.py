"""Hypothesis strategies for the native files of every harness, and the run every fuzzed
project goes through (issue 11 item 4: no harness file crashes roster).

A project is a handful of the files a harness reads (agent files, MCP and settings files,
in the workspace and in the home folder). Each file is drawn *valid-shaped* (JSON, TOML,
markdown with YAML or TOML frontmatter) over the harness's own keys, with values of any
type, missing keys and odd nesting; then, now and then, its bytes are damaged (a byte that
is not UTF-8, a cut, inserted junk) or replaced by random bytes. :func:`exercise` runs
discover, import and render (into the same broken workspace, and into the home folder) on
it and returns every diagnostic; it raises whatever roster raises.
"""

from __future__ import annotations

import datetime
import json
import tempfile
from pathlib import Path
from typing import Any

import tomlkit
import yaml
from hypothesis import strategies as st

from agent_roster.codecs.agh import rules as agh_rules
from agent_roster.codecs.claude.read import CANONICAL_KEYS, KNOWN_PASS_THROUGH
from agent_roster.codecs.codex.read import CONFIG_KEYS, ROLE_KEYS
from agent_roster.codecs.copilot.read import KEYS as COPILOT_KEYS
from agent_roster.codecs.defect.read import TABLE_FIELDS, TOP_FIELDS
from agent_roster.codecs.gemini.read import LOCAL_KEYS
from agent_roster.codecs.opencode.flavor import KILO
from agent_roster.codecs.opencode.schema import KNOWN_KEYS as OPENCODE_KEYS
from agent_roster.commands.discover import discover, import_agents
from agent_roster.commands.harness import render_agents
from agent_roster.diagnostics import CODES, Diagnostic

from ..trees import Tree, build_tree

#: Keys of MCP server entries in every dialect.
SERVER_KEYS = (
    "command",
    "args",
    "env",
    "url",
    "httpUrl",
    "http_url",
    "type",
    "transport",
    "headers",
    "enabled",
    "disabled",
    "environment",
    "timeout",
    "cwd",
    "tools",
    "enabled_tools",
    "disabled_tools",
    "secret_env",
    "env_vars",
    "bearer_token_env_var",
    "http_headers",
    "oauth",
    "trust",
)
#: Top-level keys of the JSON and TOML files around the agents.
FILE_KEYS = (
    "mcpServers",
    "mcp_servers",
    "servers",
    "mcp",
    "agent",
    "inputs",
    "projects",
    "permission",
    "enabled_servers",
    "tools",
    "model",
)
NAMES = ("s", "gh", "a", "b", "x y", "a:b", "-x", "é", "mcp__s__t")
STRINGS = (
    "",
    "*",
    "a",
    "stdio",
    "http",
    "sse",
    "local",
    "remote",
    "allow",
    "deny",
    "ask",
    "read",
    "edit",
    "Bash",
    "Read, Edit",
    "mcp__s__*",
    "mcp_s_t",
    "s/*",
    "${X}",
    "{env:X}",
    "inherit",
    "-x",
    "a: b",
    "subagent",
    "primary",
    "plan",
    "read-only",
    "fixed",
    "trusted",
    "TRUST_FOLDER",
    "anthropic/claude-x",
    "red",
    "#ff0000",
)

KEYS: dict[str, tuple[str, ...]] = {
    "agh": (*agh_rules.FIELDS, "description", *agh_rules.SERVER_FIELDS),
    "claude": (*sorted(CANONICAL_KEYS), *sorted(KNOWN_PASS_THROUGH)),
    "codex": (*ROLE_KEYS, *sorted(CONFIG_KEYS)),
    "copilot": tuple(sorted(COPILOT_KEYS)),
    "cursor": ("name", "description", "model", "readonly", "is_background"),
    "defect": (*TOP_FIELDS, *(k for fields in TABLE_FIELDS.values() for k in fields)),
    "gemini": LOCAL_KEYS,
    "opencode": (*sorted(OPENCODE_KEYS), "name"),
    "kilo": (*sorted(OPENCODE_KEYS), *sorted(KILO.extra_keys), "name"),
    # The frontmatter keys each reader looks at (docs/codecs/<harness>.md).
    "qoder": (
        "name",
        "description",
        "tools",
        "disallowedTools",
        "model",
        "color",
        "effort",
        "memory",
        "permissionMode",
        "mcpServers",
        "maxTurns",
        "temperature",
        "hooks",
    ),
    "droid": ("name", "description", "model", "tools", "mcpServers", "reasoningEffort"),
    "qwen": (
        "name",
        "description",
        "tools",
        "disallowedTools",
        "model",
        "modelConfig",
        "approvalMode",
        "permissionMode",
        "maxTurns",
        "runConfig",
        "color",
        "mcpServers",
        "hooks",
        "background",
        "executor",
        "executionBackend",
    ),
}

_STDIO = {"command": "x", "args": ["-y"], "env": {"K": "v"}}
_HTTP = {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"A": "b"}}
_SERVERS = {"s": _STDIO, "gh": _HTTP}
_MD = {"name": "a", "description": "d", "model": "m", "tools": ["Read", "mcp__s__*"]}

#: The files a fuzzed project may hold, per harness: (path, kind, a valid document that
#: fuzzing starts from). ``ws/`` is the workspace, ``home/`` the home folder; kinds: md
#: (frontmatter), toml, json, text. Starting from valid documents and changing a few
#: values reaches the checks deep inside a file, where random keys would stop at the first.
FILES: dict[str, tuple[tuple[str, str, dict[str, Any]], ...]] = {
    "agh": (
        ("ws/.agh/agents/a/AGENT.md", "md", {"name": "a", "model": "m", "tools": ["mcp__s__*"]}),
        ("ws/.agh/agents/a/mcp.json", "json", {"mcpServers": {"s": {"command": "x"}}}),
        ("ws/.agh/agents/a/capabilities.toml", "toml", {"a": {"b": 1}}),
        ("ws/.agh/agents/b/AGENT.md", "md", {"name": "b", "permissions": "approve-reads"}),
        ("ws/.agh/agents/b/capabilities/x.json", "json", {"a": 1}),
        ("home/.agh/agents/a/AGENT.md", "md", {"name": "a"}),
    ),
    "claude": (
        ("ws/.claude/agents/a.md", "md", {**_MD, "mcpServers": ["s", {"t": _STDIO}]}),
        ("ws/.claude/agents/sub/b.md", "md", {**_MD, "name": "b", "permissionMode": "plan"}),
        ("ws/.mcp.json", "json", {"mcpServers": _SERVERS}),
        ("home/.claude/agents/c.md", "md", {**_MD, "name": "c", "maxTurns": 3}),
        ("home/.claude.json", "json", {"mcpServers": _SERVERS, "projects": {}}),
    ),
    "codex": (
        (
            "ws/.codex/agents/a.toml",
            "toml",
            {
                "name": "a",
                "description": "d",
                "developer_instructions": "p",
                "sandbox_mode": "read-only",
                "mcp_servers": {"s": {"command": "x", "enabled_tools": ["t"]}},
            },
        ),
        (
            "ws/.codex/agents/sub/b.toml",
            "toml",
            {"name": "b", "description": "d", "developer_instructions": "p"},
        ),
        ("ws/.codex/config.toml", "toml", {"mcp_servers": {"s": {"command": "x"}}}),
        ("home/.codex/agents/c.toml", "toml", {"name": "a", "developer_instructions": "p"}),
        ("home/.codex/config.toml", "toml", {"projects": {}, "mcp_servers": {"gh": {"url": "u"}}}),
    ),
    "copilot": (
        ("ws/.github/agents/a.agent.md", "md", {**_MD, "mcp-servers": {"t": _STDIO}}),
        ("ws/.github/agents/sub/b.agent.md", "md", {**_MD, "name": "b", "tools": ["s/*"]}),
        ("ws/.claude/agents/c.md", "md", {**_MD, "name": "c"}),
        ("ws/.mcp.json", "json", {"mcpServers": _SERVERS}),
        ("ws/.github/mcp.json", "json", {"mcpServers": _SERVERS}),
        ("ws/.vscode/mcp.json", "json", {"servers": _SERVERS}),
        ("home/.copilot/agents/a.agent.md", "md", {**_MD, "name": "a"}),
        ("home/.copilot/mcp-config.json", "json", {"mcpServers": _SERVERS}),
        ("home/.copilot/config.json", "json", {"trustedFolders": ["/"]}),
    ),
    "cursor": (
        ("ws/.cursor/agents/a.md", "md", {**_MD, "readonly": True}),
        ("ws/.cursor/mcp.json", "json", {"mcpServers": _SERVERS}),
        ("home/.cursor/agents/b.md", "md", {**_MD, "name": "b", "is_background": False}),
        ("home/.cursor/mcp.json", "json", {"mcpServers": _SERVERS}),
    ),
    "defect": (
        (
            "ws/.defect/agents/a/config.toml",
            "toml",
            {"description": "d", "tools": {"allow": ["read_file", "mcp__s__*"]}},
        ),
        ("ws/.defect/agents/a/system.md", "text", {}),
        ("ws/.defect/agents/b.md", "md", {"description": "d", "sampling": {"temperature": 1}}),
        (
            "ws/.defect/config.toml",
            "toml",
            {"mcp": {"servers": {"s": {"transport": "stdio", "command": "x"}}}},
        ),
        (
            "ws/.defect/config.local.toml",
            "toml",
            {"mcp": {"servers": {"s": {"transport": "http", "url": "u"}}}},
        ),
        ("home/.config/defect/agents/c.md", "md", {"description": "d", "model": "m"}),
        ("home/.config/defect/config.toml", "toml", {"mcp": {"enabled_servers": ["s"]}}),
    ),
    "gemini": (
        (
            "ws/.gemini/agents/a.md",
            "md",
            {"name": "a", "description": "d", "tools": ["read_file"], "mcp_servers": {"t": {}}},
        ),
        ("ws/.gemini/settings.json", "json", {"mcpServers": _SERVERS}),
        ("home/.gemini/agents/b.md", "md", {"name": "b", "description": "d", "max_turns": 2}),
        ("home/.gemini/settings.json", "json", {"mcpServers": {"s": _STDIO}}),
        ("home/.gemini/trustedFolders.json", "json", {"/": "TRUST_FOLDER"}),
        ("home/.gemini/acknowledgments/agents.json", "json", {"/": {"a": "x"}}),
    ),
    "opencode": (
        (
            "ws/opencode.json",
            "json",
            {
                "agent": {"a": {"description": "d", "permission": {"edit": "deny"}}},
                "mcp": {"s": {"type": "local", "command": ["x"]}},
                "permission": "ask",
            },
        ),
        ("ws/.opencode/opencode.jsonc", "json", {"mcp": {"gh": {"type": "remote", "url": "u"}}}),
        ("ws/.opencode/opencode.json", "json", {"mcp": {"s": {"type": "local", "command": ["x"]}}}),
        (
            "ws/.opencode/agents/a.md",
            "md",
            {"description": "d", "mode": "subagent", "tools": {"bash": False}},
        ),
        ("ws/.opencode/agent/sub/b.md", "md", {"description": "d", "model": "a/b"}),
        ("ws/.opencode/mode/c.md", "md", {"description": "d", "temperature": 0.5}),
        ("home/.config/opencode/opencode.json", "json", {"agent": {"d": {"disable": True}}}),
        ("home/.config/opencode/agents/d.md", "md", {"description": "d", "steps": 3}),
    ),
    "kilo": (
        (
            "ws/.kilo/agents/a.md",
            "md",
            {"description": "d", "mode": "subagent", "displayName": "A", "tools": {"bash": False}},
        ),
        (
            "ws/kilo.json",
            "json",
            {
                "agent": {"a": {"description": "d", "permission": {"edit": "deny"}}},
                "mcp": {"s": {"type": "local", "command": ["x"]}},
                "permission": "ask",
            },
        ),
        ("ws/.kilo/kilo.json", "json", {"mcp": {"gh": {"type": "remote", "url": "u"}}}),
        ("ws/.kilo/agent/sub/b.md", "md", {"description": "d", "model": "a/b"}),
        ("ws/.kilocode/modes/c.md", "md", {"description": "d", "temperature": 0.5}),
        (
            "home/.config/kilo/kilo.json",
            "json",
            {"agent": {"d": {"disable": True}}, "mcp": {"s": {"type": "local", "command": ["x"]}}},
        ),
        ("home/.config/kilo/agents/d.md", "md", {"description": "d", "steps": 3}),
        ("home/.kilo/kilo.jsonc", "json", {"mcp": {"gh": {"type": "remote", "url": "{env:X}"}}}),
    ),
    "qoder": (
        ("ws/.qoder/agents/a.md", "md", {**_MD, "mcpServers": ["s", {"t": _STDIO}]}),
        ("ws/.qoder/settings.json", "json", {"mcpServers": _SERVERS}),
        ("ws/.mcp.json", "json", {"mcpServers": _SERVERS}),
        ("ws/.qoder/agents/sub/b.md", "md", {**_MD, "name": "b", "permissionMode": "plan"}),
        ("ws/.qoder/settings.local.json", "json", {"mcpServers": {"s": _HTTP}}),
        ("home/.qoder/agents/c.md", "md", {**_MD, "name": "c", "effort": "high"}),
        ("home/.qoder/settings.json", "json", {"mcpServers": _SERVERS}),
    ),
    "droid": (
        ("ws/.factory/droids/a.md", "md", {**_MD, "mcpServers": ["s"], "reasoningEffort": "low"}),
        ("ws/.factory/mcp.json", "json", {"mcpServers": _SERVERS}),
        ("ws/.factory/droids/b.md", "md", {**_MD, "name": "b", "tools": "read-only"}),
        ("home/.factory/droids/c.md", "md", {**_MD, "name": "c"}),
        ("home/.factory/mcp.json", "json", {"mcpServers": {"s": {**_STDIO, "disabled": True}}}),
    ),
    "qwen": (
        (
            "ws/.qwen/agents/a.md",
            "md",
            {**_MD, "mcpServers": {"t": _STDIO}, "approvalMode": "plan"},
        ),
        ("ws/.qwen/settings.json", "json", {"mcpServers": _SERVERS}),
        ("ws/.mcp.json", "json", {"mcpServers": {"s": {"httpUrl": "http://127.0.0.1:9/mcp"}}}),
        ("ws/.qwen/agents/b.md", "md", {**_MD, "name": "b", "runConfig": {"max_turns": 2}}),
        ("home/.qwen/agents/c.md", "md", {**_MD, "name": "c", "color": "red"}),
        ("home/.qwen/settings.json", "json", {"mcpServers": {"s": _STDIO}}),
    ),
}
HARNESSES = tuple(FILES)


def scalars() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=True, allow_infinity=True),
        st.dates() | st.times() | st.datetimes(),  # TOML has them; JSON and the vault not
        st.sampled_from(STRINGS),
        st.text(max_size=12),
    )


def values(keys: tuple[str, ...]) -> st.SearchStrategy[Any]:
    """Any JSON-like value: scalars, lists and objects keyed by the harness's own keys
    (so the typed paths are reached), server names and other text."""
    key = st.sampled_from((*keys, *SERVER_KEYS, *FILE_KEYS, *NAMES)) | st.text(max_size=6)
    return st.recursive(
        scalars(),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(key, inner, max_size=4),
        max_leaves=10,
    )


def _nodes(value: Any, out: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if isinstance(value, dict):
        out.append(value)
        for item in value.values():
            _nodes(item, out)
    elif isinstance(value, list):
        for item in value:
            _nodes(item, out)
    return out


@st.composite
def documents(draw: st.DrawFn, keys: tuple[str, ...], base: dict[str, Any]) -> dict[str, Any]:
    """``base`` (a valid document) with a few changes: a key set to a value of any type
    and shape, or removed, anywhere in it; or a whole new mapping of the harness's keys."""
    if draw(st.integers(min_value=0, max_value=9)) == 0:
        key = st.sampled_from((*keys, *FILE_KEYS)) | st.text(max_size=6)
        return draw(st.dictionaries(key, values(keys), max_size=6))
    doc: dict[str, Any] = json.loads(json.dumps(base))
    for _ in range(draw(st.integers(min_value=0, max_value=3))):
        node = draw(st.sampled_from(_nodes(doc, [])))
        # Mostly a key the document has (a wrong type where a right one was), else any.
        own = bool(node) and draw(st.integers(min_value=0, max_value=3)) > 0
        key = draw(st.sampled_from(tuple(node) if own else (*keys, *SERVER_KEYS)))
        how = draw(st.sampled_from(("set", "set", "scalar", "delete", "wrap")))
        if how == "delete":
            node.pop(key, None)
        elif how == "wrap":  # the same value one level deeper: [v] or {k: v}
            value = node.get(key)
            node[key] = draw(st.sampled_from(([value], {key: value}, {"x": [value]})))
        else:
            node[key] = draw(scalars() if how == "scalar" else values(keys))
    return doc


def _plain_toml(value: Any) -> Any:
    # TOML has no null, and tomlkit writes no table inside an array of mixed types well.
    if isinstance(value, dict):
        return {str(k): _plain_toml(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_plain_toml(v) for v in value if v is not None]
    return value


def to_toml(data: dict[str, Any]) -> str:
    try:
        return tomlkit.dumps(_plain_toml(data))
    except Exception:  # tomlkit refuses some shapes: write the JSON text instead
        return json.dumps(data, default=str)


def _plain_yaml(value: Any) -> Any:
    # YAML has dates and timestamps but no time of day: write that one as text.
    if isinstance(value, dict):
        return {k: _plain_yaml(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain_yaml(v) for v in value]
    return value.isoformat() if isinstance(value, datetime.time) else value


def to_yaml(data: dict[str, Any]) -> str:
    return yaml.safe_dump(_plain_yaml(data), allow_unicode=True, sort_keys=False, width=1_000)


@st.composite
def markdown(draw: st.DrawFn, keys: tuple[str, ...], base: dict[str, Any]) -> str:
    """An agent file: frontmatter (YAML, flow YAML, hand-written ``key: value`` lines that
    may not parse, TOML between ``+++``, or none) and a body."""
    data = draw(documents(keys, base))
    body = draw(st.text(max_size=40) | st.sampled_from(("", "You help.\n", "```\nopen")))
    style = draw(st.sampled_from(("yaml", "yaml", "yaml", "flow", "lines", "toml", "none")))
    if style == "yaml":
        return f"---\n{to_yaml(data)}---\n{body}"
    if style == "flow":
        return f"---\n{json.dumps(data, default=str)}\n---\n{body}"
    if style == "lines":
        lines = [
            f"{key}: {draw(st.sampled_from(STRINGS) | st.text(max_size=10))}"
            for key in draw(st.lists(st.sampled_from(keys), max_size=5))
        ]
        return "---\n" + "\n".join(lines) + f"\n---\n{body}"
    if style == "toml":
        return f"+++\n{to_toml(data)}+++\n{body}"
    return body


def contents(kind: str, keys: tuple[str, ...], base: dict[str, Any]) -> st.SearchStrategy[str]:
    if kind == "md":
        return markdown(keys, base)
    if kind == "toml":
        return documents(keys, base).map(to_toml)
    if kind == "json":
        as_json = documents(keys, base).map(lambda d: json.dumps(d, default=str))
        return as_json | st.sampled_from(("", "{", "[1]", "null", '{"a": 1,}', "// c\n{}"))
    return st.text(max_size=40)


@st.composite
def damaged(draw: st.DrawFn, text: str) -> bytes:
    """``text`` as UTF-8, damaged (a byte that is not UTF-8, a cut, inserted junk) or
    replaced by random bytes."""
    data = text.encode("utf-8", "surrogatepass")
    how = draw(st.sampled_from(("byte", "cut", "insert", "random")))
    at = draw(st.integers(min_value=0, max_value=len(data)))
    if how == "byte":
        bad = draw(st.sampled_from((b"\xff", b"\xc3", b"\x00", b"\xed\xa0\x80", b"\r")))
        return data[:at] + bad + data[at + 1 :]
    if how == "cut":
        return data[:at]
    if how == "insert":
        return data[:at] + draw(st.binary(min_size=1, max_size=6)) + data[at:]
    if how == "random":
        return draw(st.binary(max_size=64))
    return data


@st.composite
def projects(draw: st.DrawFn, harness: str) -> dict[str, Tree | bytes]:
    """Some of ``harness``'s files, each valid-shaped or damaged."""
    files = FILES[harness]
    indexes = st.lists(st.sampled_from(range(len(files))), min_size=1, max_size=5, unique=True)
    chosen = [files[index] for index in draw(indexes)]
    # At most one file's bytes are damaged: one broken file is enough to stop some
    # harnesses (AGH, defect) from reading the others, whose values are the point.
    # Or that file is a folder: render must not try to read or replace it.
    hurt = draw(st.integers(min_value=-len(chosen), max_value=len(chosen) - 1))
    out: dict[str, Tree | bytes] = {}
    for index, (path, kind, base) in enumerate(chosen):
        text = draw(contents(kind, KEYS[harness], base))
        out[path] = text.encode("utf-8", "surrogatepass")
        if index == hurt:
            folder = draw(st.integers(min_value=0, max_value=9)) == 0
            out[path] = {} if folder else draw(damaged(text))
    if harness == "defect":
        out["ws/.git/HEAD"] = b"ref: refs/heads/main\n"  # defect reads the project layer
    return out


def unlocated(diagnostics: tuple[Diagnostic, ...]) -> list[str]:
    """Every diagnostic that does not say where and what: a path, a 1-based line and
    column, a registered code and a message."""
    return [
        d.format()
        for d in diagnostics
        if not d.path or d.line < 1 or d.column < 1 or d.code not in CODES or not d.message
    ]


#: The vault a fuzzed project is imported into: agents ``a`` and ``b`` (the names the
#: fuzzed files use, so render writes over those files) with an MCP server, so render also
#: merges into the fuzzed MCP and settings files.
VAULT: dict[str, str] = {
    "mcp-servers/s.md": "---\nname: s\ntransport: stdio\ncommand: x\n---\n",
    **{
        f"agent-types/{name}/profile.md": (
            f"---\nid: {name}\nname: {name}\ndescription: d\n---\n\n## Role\nYou help.\n\n"
            '## Tools\n```json\n{"allowed": ["Read", "mcp__s__*"]}\n```\n\n'
            '## MCP Servers\n```json\n["s"]\n```\n'
        )
        for name in ("a", "b")
    },
}


def exercise(harness: str, files: Tree, root: Path | None = None) -> list[str]:
    """Discover, import and render ``files`` with ``harness`` (rendering into the same
    workspace, and the user scope into the home folder); every diagnostic that is not
    located. Raises whatever roster raises."""
    with tempfile.TemporaryDirectory(prefix=f"fuzz-{harness}-", dir=root) as tmp:
        base = Path(tmp)
        build_tree(base, dict(files))
        workspace, home, vault = base / "ws", base / "home", base / "vault"
        build_tree(vault, VAULT)
        for folder in (workspace, home):
            folder.mkdir(parents=True, exist_ok=True)
        problems = unlocated(discover(harness, workspace=workspace, home=home).diagnostics)
        report = import_agents(vault, harness, workspace=workspace, home=home)
        problems += unlocated(report.diagnostics)
        for scope, out in (("project", workspace), ("user", home)):
            problems += unlocated(render_agents(vault, [harness], scope=scope, out=out).diagnostics)
        return problems
