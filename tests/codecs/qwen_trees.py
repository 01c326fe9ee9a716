"""A workspace and home that show Qwen Code's layers and refusals, shared by the codec
tests (what ``discover`` reports, tests/codecs/test_qwen.py) and the real-CLI acceptance
(what ``qwen`` offers from the same files, tests/codecs/test_qwen_cli.py)."""

from __future__ import annotations


def agent(name: str, description: str, extra: str = "", body: str = "") -> str:
    body = body or f"You are the {description} agent, always."
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n\n{body}\n"


WORKSPACE = {
    ".qwen/agents/reviewer.md": agent("reviewer", "project reviewer", "tools: [read_file]\n"),
    ".qwen/agents/Explore.md": agent("Explore", "my own explore agent"),
    ".qwen/agents/file-differs.md": agent("named-by-key", "the name key decides"),
    ".qwen/agents/crlf.md": agent("crlf", "crlf line ends").replace("\n", "\r\n"),
    ".qwen/agents/claude-mode.md": agent(
        "claude-mode", "claude permission mode", "permissionMode: acceptEdits\n"
    ),
    # Refused, each for one rule, and skipped by Qwen without a word.
    ".qwen/agents/short.md": agent("short", "prompt too short", body="Short."),
    ".qwen/agents/noname.md": "---\ndescription: no name\n---\n\nThis agent has no name at all.\n",
    ".qwen/agents/nodesc.md": "---\nname: nodesc\n---\n\nThis agent has no description.\n",
    ".qwen/agents/badmode.md": agent("badmode", "bad approval", "approvalMode: weird\n"),
    ".qwen/agents/badname.md": agent("-bad-", "bad name"),
    ".qwen/agents/reserved.md": agent("system", "reserved name"),
    ".qwen/agents/badturns.md": agent(
        "badturns", "bad run config", "runConfig:\n  max_turns: 1.5\n"
    ),
    ".qwen/agents/nofront.md": "No frontmatter, just a prompt that is long enough.\n",
    ".qwen/agents/badyaml.md": "---\nname: [unclosed\ndescription: x\n---\n\nA long enough body.\n",
    ".qwen/agents/authonly.md": agent("authonly", "auth type only", "model: 'openai:'\n"),
    # Not read: a subfolder and another extension.
    ".qwen/agents/sub/nested.md": agent("nested", "nested file"),
    ".qwen/agents/notes.txt": "not an agent",
}
HOME = {
    ".qwen/agents/reviewer.md": agent("reviewer", "USER reviewer, shadowed"),
    ".qwen/agents/helper.md": agent("helper", "user helper"),
}
#: What Qwen 0.24.4 offers from them, name → description, in its order: the project's
#: agents by file name, then the user's (a name already taken is left out).
OFFERED = {
    "Explore": "my own explore agent",
    "claude-mode": "claude permission mode",
    "crlf": "crlf line ends",
    "named-by-key": "the name key decides",
    "reviewer": "project reviewer",
    "helper": "user helper",
}
REFUSED = (
    "authonly.md",
    "badmode.md",
    "badname.md",
    "badturns.md",
    "badyaml.md",
    "nodesc.md",
    "nofront.md",
    "noname.md",
    "reserved.md",
    "short.md",
)
