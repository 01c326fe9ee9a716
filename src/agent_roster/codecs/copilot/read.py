"""One Copilot custom-agent file, read the way the Copilot CLI reads it.

The CLI validates the frontmatter against a schema and skips a file that breaks it, logging
``custom agent markdown frontmatter is malformed: <key>: <problem>`` (seen with 1.0.102):
``description`` is required and a string; ``name`` a string; ``tools`` a list of strings or
one comma-separated string; ``model`` a string or a list; ``mcp-servers`` a mapping;
``user-invocable``, ``disable-model-invocation`` and ``infer`` booleans. Those are errors
here too (``harness-invalid``). Unknown keys are ignored with a warning, and so are unknown
tool names. ``custom-agents-configuration.md`` adds the cloud agent's rules: the prompt is
at most 30,000 characters (the CLI loads a longer one; a warning here).
"""

from __future__ import annotations

from functools import lru_cache, partial
from typing import Any, NamedTuple

from agent_roster.codecs.base import Loss, LossOutcome
from agent_roster.codecs.claude import mcp as claude_mcp
from agent_roster.codecs.claude.files import AgentFile, diag_at, import_document
from agent_roster.codecs.copilot import semantics as copilot_semantics
from agent_roster.codecs.copilot.tools import canonical_tools
from agent_roster.codecs.defaults import explicit_rules
from agent_roster.codecs.native_md import read_native
from agent_roster.codecs.tool_names import split_ref
from agent_roster.diagnostics import Diagnostic
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile, PermissionRule

KEYS = frozenset(
    {
        "name",
        "description",
        "target",
        "tools",
        "model",
        "disable-model-invocation",
        "user-invocable",
        "infer",
        "mcp-servers",
        "metadata",
        # VS Code only; the other readers ignore them.
        "argument-hint",
        "handoffs",
        "agents",
        "hooks",
    }
)
#: Keys whose value must be a boolean, or the CLI skips the file.
BOOLEANS = ("user-invocable", "disable-model-invocation", "infer")
MAX_PROMPT = 30_000
#: The CLI's words for a file it skips (``--log-level all`` shows them).
MALFORMED = "custom agent markdown frontmatter is malformed"


class ReadAgent(NamedTuple):
    profile: AgentProfile | None
    inline: dict[str, McpServer]
    losses: list[Loss]
    diagnostics: list[Diagnostic]


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "string"


def _schema_problems(data: dict[str, Any]) -> list[tuple[str, str]]:
    """``(key, problem)`` for each value the CLI's schema refuses, in its words."""
    problems: list[tuple[str, str]] = []

    def expect(key: str, wanted: str) -> None:
        problems.append((key, f"{key}: Expected {wanted}, received {_type_name(data[key])}"))

    if "description" not in data:
        problems.append(("description", "description: Required"))
    elif not isinstance(data["description"], str):
        expect("description", "string")
    if "name" in data and not isinstance(data["name"], str):
        expect("name", "string")
    tools = data.get("tools")
    if "tools" in data and not isinstance(tools, (str, list)):
        expect("tools", "array")
    elif isinstance(tools, list):
        for index, item in enumerate(tools):
            if not isinstance(item, str):
                problems.append(
                    ("tools", f"tools: {index}: Expected string, received {_type_name(item)}")
                )
    model = data.get("model")
    if "model" in data and not isinstance(model, (str, list)):
        expect("model", "string")
    if "mcp-servers" in data and not isinstance(data["mcp-servers"], dict):
        expect("mcp-servers", "object")
    for key in BOOLEANS:
        if key in data and not isinstance(data[key], bool):
            expect(key, "boolean")
    return problems


def read_agent(found: AgentFile, ident: str) -> ReadAgent:
    """The agent ``found`` defines under the id its path gives, or ``None`` with the
    CLI's reason when the CLI skips the file."""
    doc, path = found.doc, found.path
    data = doc.data
    out: list[Diagnostic] = []
    losses: list[Loss] = []
    if not doc.has_frontmatter:
        out.append(
            diag_at(
                doc,
                path,
                "",
                "harness-invalid",
                f"{MALFORMED}: missing or malformed YAML frontmatter",
                "start the file with a --- frontmatter block holding a description",
            )
        )
        return ReadAgent(None, {}, [], out)
    problems = _schema_problems(data)
    for key, problem in problems:
        out.append(
            diag_at(
                doc,
                path,
                key,
                "harness-invalid",
                f"{MALFORMED}: {problem}",
                "fix the value; Copilot skips the whole file until then",
            )
        )
    if problems:
        return ReadAgent(None, {}, [], out)

    def warn(key: str, message: str, hint: str, code: str = "harness-field-type") -> None:
        out.append(diag_at(doc, path, key, code, message, hint, warning=True))

    description: str = data["description"]
    if not description.strip():
        warn(
            "description",
            "the description is empty: the Copilot CLI loads the agent, but nothing tells "
            "the model when to use it (and the cloud agent requires one)",
            "describe when to use the agent",
        )
    body = doc.body.strip()
    if len(body) > MAX_PROMPT:
        warn(
            "",
            f"the prompt has {len(body)} characters; the Copilot cloud agent allows at most "
            f"{MAX_PROMPT:,} (the CLI loads it)",
            "shorten the body, or use the agent with the CLI only",
        )
    harness: dict[str, Any] = {}
    for key, value in data.items():
        if key not in KEYS:
            warn(
                key,
                f"unknown key '{key}': Copilot ignores it",
                "the value is kept in harness.copilot",
                "harness-ignored",
            )
            harness[key] = value
        elif key not in {"name", "description", "tools", "model", "mcp-servers"}:
            harness[key] = value
    name = data.get("name")
    display = name.strip() if isinstance(name, str) and name.strip() else ident
    model = data.get("model")
    model_text = model if isinstance(model, str) else ""
    if isinstance(model, list):
        harness["model"] = model
        losses.append(
            Loss(
                profile=ident,
                field="model",
                outcome=LossOutcome.TRANSLATED,
                detail="a list of fallback models is kept in harness.copilot",
            )
        )
    allowed: tuple[str, ...] = ()
    refs: list[str] = []
    tools = data.get("tools")
    if isinstance(tools, str):
        tools = [t.strip() for t in tools.split(",") if t.strip()]
    if isinstance(tools, list):
        names: list[str] = list(tools)
        if "*" in names:
            pass  # every tool: the rules below say so
        elif not names:
            losses.append(
                Loss(
                    profile=ident,
                    field="allowed_tools",
                    outcome=LossOutcome.TRANSLATED,
                    detail="tools: [] (no tools) became the rule '*: deny'",
                )
            )
        else:
            canonical: list[str] = []
            for native in names:
                found_tools = canonical_tools(native)
                if not found_tools:
                    warn(
                        "tools",
                        f"unknown tool '{native}': Copilot ignores it",
                        "use an alias (execute, read, edit, search, agent, web, todo), a "
                        "Copilot CLI tool (view, grep, glob, bash) or <server>/<tool>",
                        "harness-ignored",
                    )
                    continue
                canonical.extend(found_tools)
                refs.extend(s for t in found_tools if (s := split_ref(t).server) is not None)
            allowed = tuple(dict.fromkeys(canonical))
    # Never widen (issue 12 item 2): Copilot's own decisions written out after the list
    # (its catch-all first): no list is every tool, and a tool it has still asks for
    # approval unless it only reads (shell, edits, web, MCP tools).
    listed = tuple(t for t in tools if isinstance(t, str)) if isinstance(tools, list) else None
    permission = default_rules(listed, tuple(a for a in allowed if a.startswith("mcp__")))
    inline: dict[str, McpServer] = {}
    servers = data.get("mcp-servers")
    if isinstance(servers, dict):
        for server_name, entry in servers.items():
            read = claude_mcp.server_from_native(
                str(server_name), entry, claude_mcp.COPILOT_CLI, path
            )
            if read.server is None:
                warn("mcp-servers", f"[{server_name}] {read.problem}", "fix the server entry")
                continue
            inline[str(server_name)] = read.server
            refs.append(str(server_name))
    imported = import_document(doc, ident)
    profile = AgentProfile(
        id=ident,
        name=display,
        description=description.strip(),  # the vault holds it trimmed
        model=model_text,
        permission=permission,
        allowed_tools=allowed,
        mcp_servers=tuple(dict.fromkeys(refs)),
        sections=imported.sections,
        harness={"copilot": harness} if harness else {},
        native={"copilot": imported.native},
        source=path,
    )
    return ReadAgent(profile, inline, losses + imported.losses, out)


def read_text(text: str, path: str, ident: str) -> AgentProfile | None:
    """The agent Copilot loads as ``ident`` from a file holding ``text`` (None when none)."""
    doc = read_native(text, path, [])
    return read_agent(AgentFile(path, doc), ident).profile if doc is not None else None


@lru_cache(maxsize=256)
def default_rules(
    listed: tuple[str, ...] | None, mcp: tuple[str, ...]
) -> tuple[PermissionRule, ...]:
    """Copilot's decision for every tool as rules (``defaults.explicit_rules``), per list."""
    data = {} if listed is None else {"tools": list(listed)}
    return explicit_rules(partial(copilot_semantics.decide_data, data), mcp)
