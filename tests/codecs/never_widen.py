"""Generated native agents of every harness that restricts tools, for the never-widen tests.

Each strategy draws one agent as its harness holds it: the files (relative to the
workspace), the agent's name and its own files (the agent file first). The values come from
each harness's own vocabulary: allow lists, deny lists, permission rules with patterns,
read-only modes, ask, and the layered settings a harness reads beside the agent
(OpenCode's ``opencode.json`` ``permission``, Codex's ``config.toml``).
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

import yaml
from hypothesis import strategies as st

NAME = "probe-agent"
PROMPT = "You help with the code.\n"


class NativeCase(NamedTuple):
    files: dict[str, str]  # workspace-relative path -> text
    name: str
    paths: tuple[str, ...]  # the agent's own files, the agent file first


def _front(data: dict[str, Any]) -> str:
    return "---\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True) + "---\n\n"


def _subset(items: list[str], *, min_size: int = 0) -> st.SearchStrategy[list[str]]:
    return st.lists(st.sampled_from(items), min_size=min_size, max_size=len(items), unique=True)


_ACTION = st.sampled_from(["allow", "ask", "deny"])

# --- Claude Code ---------------------------------------------------------------------------
_CLAUDE_TOOLS = [
    "Read",
    "Grep",
    "Glob",
    "Bash",
    "Edit",
    "Write",
    "WebFetch",
    "Task",
    "mcp__github__create_issue",
    "mcp__github",
    "mcp__probe__do_thing",
    "Bash(git log:*)",
]


@st.composite
def claude(draw: st.DrawFn) -> NativeCase:
    data: dict[str, Any] = {"name": NAME, "description": "Generated agent"}
    tools = draw(st.one_of(st.none(), _subset(_CLAUDE_TOOLS)))
    if tools is not None:
        data["tools"] = draw(st.sampled_from([tools, ", ".join(tools)])) if tools else tools
    if draw(st.booleans()):
        data["disallowedTools"] = draw(_subset(_CLAUDE_TOOLS[:9], min_size=1))
    mode = draw(
        st.sampled_from(
            [None, "default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"]
        )
    )
    if mode is not None:
        data["permissionMode"] = mode
    path = f".claude/agents/{NAME}.md"
    return NativeCase({path: _front(data) + PROMPT}, NAME, (path,))


# --- OpenCode ------------------------------------------------------------------------------
_OC_KEYS = ["bash", "edit", "read", "webfetch", "*", "github_*", "probe_do_thing", "write"]
_OC_PATTERNS = ["*", "rm *", "git *", "*.py", "README.md", "https://example.com/*"]


@st.composite
def _oc_permission(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 5)) == 0:
        return draw(_ACTION)
    keys = draw(_subset(_OC_KEYS[:7]))
    out: dict[str, Any] = {}
    for key in keys:
        if key in ("webfetch", "probe_do_thing") or draw(st.booleans()):
            out[key] = draw(_ACTION)
        else:
            patterns = draw(_subset(_OC_PATTERNS, min_size=1))
            out[key] = {pattern: draw(_ACTION) for pattern in patterns}
    return out


@st.composite
def opencode(draw: st.DrawFn) -> NativeCase:
    data: dict[str, Any] = {"description": "Generated agent", "mode": "subagent"}
    if draw(st.booleans()):
        data["permission"] = draw(_oc_permission())
    if draw(st.integers(0, 3)) == 0:
        data["tools"] = {k: draw(st.booleans()) for k in draw(_subset(["bash", "write", "edit"]))}
    path = f".opencode/agents/{NAME}.md"
    files = {path: _front(data) + PROMPT}
    if draw(st.booleans()):
        files["opencode.json"] = json.dumps({"permission": draw(_oc_permission())})
    return NativeCase(files, NAME, (path,))


# --- defect --------------------------------------------------------------------------------
_DEFECT = ["read_file", "search", "bash", "edit_file", "write_file", "fetch", "mcp__github__*"]


@st.composite
def defect(draw: st.DrawFn) -> NativeCase:
    lines = ['description = "Generated agent"']
    allow = draw(st.one_of(st.none(), _subset(_DEFECT)))
    if allow is not None:
        lines.append("[tools]\nallow = " + json.dumps(allow))
    path = f".defect/agents/{NAME}.md"
    text = "+++\n" + "\n".join(lines) + "\n+++\n" + PROMPT
    return NativeCase({path: text}, NAME, (path,))


# --- AGH -----------------------------------------------------------------------------------
@st.composite
def agh(draw: st.DrawFn) -> NativeCase:
    data: dict[str, Any] = {"name": NAME}
    mode = draw(st.sampled_from([None, "deny-all", "approve-reads", "approve-all"]))
    if mode is not None:
        data["permissions"] = mode
    tools = draw(_subset(["mcp__github__create_issue", "mcp__github__*", "mcp__probe__*"]))
    if tools:
        data["tools"] = tools
    deny = draw(_subset(["mcp__github__create_issue", "mcp__probe__do_thing"]))
    if deny:
        data["deny_tools"] = deny
    path = f".agh/agents/{NAME}/AGENT.md"
    return NativeCase({path: _front(data) + PROMPT}, NAME, (path,))


# --- Codex ---------------------------------------------------------------------------------
_SANDBOX = st.sampled_from([None, "read-only", "workspace-write", "danger-full-access"])
_APPROVAL = st.sampled_from([None, "untrusted", "on-request", "on-failure", "never"])


def _toml_value(value: Any) -> str:
    return json.dumps(value)


@st.composite
def codex(draw: st.DrawFn) -> NativeCase:
    lines = [f'name = "{NAME}"', 'description = "Generated agent"']
    for key, strategy in (("sandbox_mode", _SANDBOX), ("approval_policy", _APPROVAL)):
        value = draw(strategy)
        if value is not None:
            lines.append(f"{key} = {_toml_value(value)}")
    if draw(st.booleans()):
        lines.append(f"web_search = {_toml_value(draw(st.sampled_from(['disabled', 'live'])))}")
    lines.append("developer_instructions = '''\n" + PROMPT + "'''")
    if draw(st.booleans()):
        lines.append('[mcp_servers.github]\ncommand = "gh-mcp"')
        if draw(st.booleans()):
            lines.append('enabled_tools = ["create_issue"]')
        if draw(st.booleans()):
            lines.append('disabled_tools = ["create_issue"]')
        if draw(st.integers(0, 3)) == 0:
            lines.append("enabled = false")
    path = f".codex/agents/{NAME}.toml"
    files = {path: "\n".join(lines) + "\n"}
    config = []
    for key, strategy in (("sandbox_mode", _SANDBOX), ("approval_policy", _APPROVAL)):
        value = draw(strategy)
        if value is not None:
            config.append(f"{key} = {_toml_value(value)}")
    if config:
        files[".codex/config.toml"] = "\n".join(config) + "\n"
    return NativeCase(files, NAME, (path,))


# --- Gemini CLI ----------------------------------------------------------------------------
_GEMINI = [
    "read_file",
    "grep_search",
    "glob",
    "run_shell_command",
    "replace",
    "write_file",
    "web_fetch",
    "mcp_github_*",
    "mcp_*",
    "*",
]


@st.composite
def gemini(draw: st.DrawFn) -> NativeCase:
    data: dict[str, Any] = {"name": NAME, "description": "Generated agent"}
    tools = draw(st.one_of(st.none(), _subset(_GEMINI)))
    if tools is not None:
        data["tools"] = tools
    path = f".gemini/agents/{NAME}.md"
    return NativeCase({path: _front(data) + PROMPT}, NAME, (path,))


# --- GitHub Copilot ------------------------------------------------------------------------
_COPILOT = ["read", "edit", "execute", "search", "web", "github/*", "github/create_issue", "Bash"]


@st.composite
def copilot(draw: st.DrawFn) -> NativeCase:
    data: dict[str, Any] = {"description": "Generated agent"}
    tools = draw(st.one_of(st.none(), _subset([*_COPILOT, "*"])))
    if tools is not None:
        data["tools"] = tools
    path = f".github/agents/{NAME}.agent.md"
    return NativeCase({path: _front(data) + PROMPT}, NAME, (path,))


# --- Cursor --------------------------------------------------------------------------------
@st.composite
def cursor(draw: st.DrawFn) -> NativeCase:
    data: dict[str, Any] = {"name": NAME, "description": "Generated agent"}
    readonly = draw(st.sampled_from([None, True, False]))
    if readonly is not None:
        data["readonly"] = readonly
    path = f".cursor/agents/{NAME}.md"
    return NativeCase({path: _front(data) + PROMPT}, NAME, (path,))


# --- Kilo Code (OpenCode's agent files and permission, under .kilo/ and kilo.json) -------
@st.composite
def kilo(draw: st.DrawFn) -> NativeCase:
    data: dict[str, Any] = {"description": "Generated agent", "mode": "subagent"}
    if draw(st.booleans()):
        data["permission"] = draw(_oc_permission())
    path = f".kilo/agents/{NAME}.md"
    files = {path: _front(data) + PROMPT}
    if draw(st.booleans()):
        files["kilo.json"] = json.dumps({"permission": draw(_oc_permission())})
    return NativeCase(files, NAME, (path,))


# --- Qwen Code -----------------------------------------------------------------------------
_QWEN = [
    "read_file",
    "grep_search",
    "glob",
    "run_shell_command",
    "edit",
    "write_file",
    "web_fetch",
    "mcp__github__create_issue",
]


@st.composite
def qwen(draw: st.DrawFn) -> NativeCase:
    data: dict[str, Any] = {"name": NAME, "description": "Generated agent"}
    tools = draw(st.one_of(st.none(), _subset(_QWEN)))
    if tools is not None:
        data["tools"] = tools
    if draw(st.booleans()):
        data["disallowedTools"] = draw(_subset([*_QWEN[:7], "mcp__probe__*"], min_size=1))
    mode = draw(st.sampled_from([None, "default", "plan", "auto-edit", "yolo"]))
    if mode is not None:
        data["approvalMode"] = mode
    path = f".qwen/agents/{NAME}.md"
    return NativeCase({path: _front(data) + PROMPT}, NAME, (path,))


# --- Qoder CLI (Claude Code's agent format, whole tools) ----------------------------------
@st.composite
def qoder(draw: st.DrawFn) -> NativeCase:
    data: dict[str, Any] = {"name": NAME, "description": "Generated agent"}
    tools = draw(st.one_of(st.none(), _subset(_CLAUDE_TOOLS[:9])))
    if tools is not None:
        data["tools"] = draw(st.sampled_from([tools, ", ".join(tools)])) if tools else tools
    if draw(st.booleans()):
        data["disallowedTools"] = draw(_subset(_CLAUDE_TOOLS[:8], min_size=1))
    mode = draw(st.sampled_from([None, "default", "acceptEdits", "plan", "bypassPermissions"]))
    if mode is not None:
        data["permissionMode"] = mode
    path = f".qoder/agents/{NAME}.md"
    return NativeCase({path: _front(data) + PROMPT}, NAME, (path,))


# --- Factory Droid -------------------------------------------------------------------------
_DROID = ["Read", "Grep", "Glob", "LS", "Execute", "Create", "Edit", "FetchUrl"]


@st.composite
def droid(draw: st.DrawFn) -> NativeCase:
    data: dict[str, Any] = {"name": NAME, "description": "Generated agent"}
    tools = draw(
        st.one_of(
            st.none(), st.sampled_from(["read-only", "edit", "execute", "web"]), _subset(_DROID)
        )
    )
    if tools is not None:
        data["tools"] = tools
    path = f".factory/droids/{NAME}.md"
    return NativeCase({path: _front(data) + PROMPT}, NAME, (path,))


SOURCES: dict[str, st.SearchStrategy[NativeCase]] = {
    "claude": claude(),
    "opencode": opencode(),
    "defect": defect(),
    "agh": agh(),
    "codex": codex(),
    "gemini": gemini(),
    "copilot": copilot(),
    "cursor": cursor(),
    "kilo": kilo(),
    "qwen": qwen(),
    "qoder": qoder(),
    "droid": droid(),
}
