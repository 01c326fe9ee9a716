"""A workspace and home that show Qoder CLI's layers and refusals, shared by the codec tests
(what ``discover`` reports, tests/codecs/test_qoder.py) and the real-CLI acceptance (what
``qodercli agents list`` shows for the same files, tests/codecs/test_qoder_cli.py)."""

from __future__ import annotations

from pathlib import Path


def agent(name: str, extra: str = "", *, description: str = "") -> str:
    description = description or f"probe {name}"
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n\nYou are {name}.\n"


WORKSPACE = {
    ".qoder/agents/qreviewer.md": agent("qreviewer", "model: sonnet\n"),
    ".qoder/agents/file-differs.md": agent("named-by-key"),
    ".qoder/agents/sub/nested.md": agent("nested"),
    ".qoder/agents/.dotted.md": agent("dotted"),
    ".qoder/agents/crlf.md": agent("crlf").replace("\n", "\r\n"),
    ".qoder/agents/colour.md": agent("colour", "color: cyan\ntools: Read, Grep\n"),
    ".qoder/agents/Explore.md": agent("Explore", description="my own explore agent"),
    # Qoder's repair quotes a value holding ": " after YAML refused it.
    ".qoder/agents/repaired.md": "---\nname: repaired\ndescription: Use when: x\n---\n\nBody.\n",
    ".qoder/agents/nobody.md": "---\nname: nobody\ndescription: no prompt\n---\n",
    ".qoder/agents/unknown-key.md": agent("unknown-key", "foo: bar\n"),
    # Refused, each for one rule (counted in "N errors loading agent configs").
    ".qoder/agents/noname.md": "---\ndescription: no name\n---\n\nBody.\n",
    ".qoder/agents/nodesc.md": "---\nname: nodesc\n---\n\nBody.\n",
    ".qoder/agents/nofront.md": "No frontmatter.\n",
    ".qoder/agents/bom.md": "\ufeff" + agent("bom"),
    ".qoder/agents/badcolor.md": agent("badcolor", "color: magenta\n"),
    ".qoder/agents/badturns.md": agent("badturns", "maxTurns: 0\n"),
    ".qoder/agents/badtools.md": agent("badtools", "tools: 5\n"),
    ".qoder/agents/nulltools.md": agent("nulltools", "tools:\n"),
    ".qoder/agents/numname.md": "---\nname: 123\ndescription: x\n---\n\nBody.\n",
    # Passed over without a word: a leading underscore, another extension.
    ".qoder/agents/_draft.md": agent("draft"),
    ".qoder/agents/_wip/inner.md": agent("inner"),
    ".qoder/agents/notes.txt": "not an agent",
    # Never read: Claude Code's folder.
    ".claude/agents/claudey.md": agent("claudey"),
}
HOME = {
    ".qoder/agents/qreviewer.md": agent("qreviewer", description="USER reviewer, shadowed"),
    ".qoder/agents/quser.md": agent("quser"),
    ".qoder/agents/deep/unested.md": agent("unested"),
}
#: What ``qodercli agents list`` shows from them, per layer (names in its order: by name,
#: upper case first as JavaScript sorts), with each model as Qoder prints it.
PROJECT = {
    "Explore": "Inherit",
    "colour": "Inherit",
    "crlf": "Inherit",
    "dotted": "Inherit",
    "named-by-key": "Inherit",
    "nested": "Inherit",
    "nobody": "Inherit",
    "qreviewer": "Sonnet",
    "repaired": "Inherit",
    "unknown-key": "Inherit",
}
USER = {"qreviewer": "Inherit", "quser": "Inherit", "unested": "Inherit"}
SHADOWED = {"qreviewer"}
REFUSED = (
    "badcolor.md",
    "badtools.md",
    "badturns.md",
    "bom.md",
    "nodesc.md",
    "nofront.md",
    "noname.md",
    "nulltools.md",
    "numname.md",
)
PASSED_OVER = ("_draft.md", "_wip", "link.md", "notes.txt")


def add_symlink(workspace: Path, target: Path) -> None:
    """A symlinked agent file, which Qoder passes over."""
    target.write_text(agent("linked"), encoding="utf-8")
    (workspace / ".qoder/agents/link.md").symlink_to(target)
