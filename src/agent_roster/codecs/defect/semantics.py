"""What defect decides for a subagent profile's tool call (docs/codecs/defect.md §5).

A profile has exactly the tools its ``[tools] allow`` globs match (globset syntax, over
defect's tool names and ``mcp__<server>__<tool>``); without ``allow`` the read-only default
``read_file`` + ``search`` applies, and ``allow = []`` is no tools. A subagent never
prompts (an ``ask`` is a ``deny``), so every call is allowed or denied.
"""

from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from typing import Any

from agent_roster.codecs.base import NativeAgent, Probe
from agent_roster.codecs.defect.read import CONFIG, DEFAULT_TOOL_ALLOW, split_single_file
from agent_roster.codecs.native_md import recalled_reading
from agent_roster.codecs.semantics import ALLOW, DENY, agent_text
from agent_roster.codecs.tool_names import native_names, split_ref
from agent_roster.model.profile import PermissionAction
from agent_roster.vault.frontmatter import read_frontmatter


@lru_cache(maxsize=1024)
def _glob(pattern: str) -> re.Pattern[str]:
    # globset: * any run, ? one character, [...] a class ([!...] negated), {a,b} either.
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[" and "]" in pattern[i + 2 :]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1 : end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append(f"[{body}]")
            i = end
        elif c == "{" and "}" in pattern[i:]:
            end = pattern.index("}", i)
            out.append(
                "(?:" + "|".join(re.escape(a) for a in pattern[i + 1 : end].split(",")) + ")"
            )
            i = end
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out) + r"\Z", re.S)


def glob_matches(pattern: str, name: str) -> bool:
    return _glob(pattern).match(name) is not None


def profile_config(agent: NativeAgent) -> dict[str, Any] | None:
    """The profile's config (``config.toml``, or a single file's frontmatter)."""
    if not agent.paths:
        return None
    path = next((p for p in agent.paths if p.endswith("/" + CONFIG)), agent.paths[0])
    text = agent_text(agent, path)
    if text is None:
        return None
    found, reading = recalled_reading(text, path)  # read back by the render's self-check
    config: dict[str, Any] | None = reading if found else _config(text, path)
    return config


@lru_cache(maxsize=1024)
def _config(text: str, path: str) -> dict[str, Any] | None:
    # A render check asks a dozen probes of each agent: its file is parsed once per
    # content, not once per probe (callers only read the result).
    try:
        if path.endswith(CONFIG):
            return tomllib.loads(text)
        split = split_single_file(text)
        if split is None:
            return None
        kind, front, _, _ = split
        if kind == "toml":
            return tomllib.loads(front)
        fm = read_frontmatter(f"---\n{front}---\n", path, [])
        return dict(fm.data) if isinstance(fm.data, dict) else None
    except (tomllib.TOMLDecodeError, ValueError):
        return None


def tool_names(probe: Probe) -> tuple[str, ...]:
    """defect's names for the probed tool (none: defect has no such tool)."""
    ref = split_ref(probe.tool)
    if ref.server is not None:
        return (f"mcp__{ref.server}__{ref.mcp_tool or '*'}",)
    return tuple(native.name for native in native_names("defect", ref.tool))


def decide_allow(allow: Any, probe: Probe) -> PermissionAction:
    """defect's decision for ``probe`` under an ``allow`` value (``None``: the default)."""
    globs = list(DEFAULT_TOOL_ALLOW) if allow is None else allow
    if not isinstance(globs, list):
        return DENY
    names = tool_names(probe)
    found = any(isinstance(g, str) and glob_matches(g, n) for g in globs for n in names)
    return ALLOW if found else DENY


def decide(agent: NativeAgent, probe: Probe) -> PermissionAction:
    """defect's decision for ``probe`` made by the subagent profile ``agent``."""
    config = profile_config(agent)
    if config is None:
        return DENY
    tools = config.get("tools")
    allow = tools.get("allow") if isinstance(tools, dict) else None
    return decide_allow(allow, probe)
