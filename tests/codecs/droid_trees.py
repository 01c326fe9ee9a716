"""A workspace and home that show Factory Droid's layers and its lenient reading, shared by
the codec tests (what ``discover`` reports, tests/codecs/test_droid.py) and the real-CLI
acceptance (what ``droid exec`` offers from the same files, tests/codecs/test_droid_cli.py)."""

from __future__ import annotations

from pathlib import Path


def droid(name: str, extra: str = "", *, description: str = "") -> str:
    description = description or f"probe {name}"
    return (
        f"---\nname: {name}\ndescription: {description}\n{extra}---\n\nYou are the {name} droid.\n"
    )


WORKSPACE = {
    ".factory/droids/dreviewer.md": droid("dreviewer", "model: inherit\ntools: read-only\n"),
    ".factory/droids/file-differs.md": droid("named-by-key"),
    ".factory/droids/noname.md": "---\ndescription: named by its file\n---\n\nBody.\n",
    ".factory/droids/crlf.md": droid("crlf").replace("\n", "\r\n"),
    ".factory/droids/_under.md": droid("under"),
    ".factory/droids/.hidden.md": droid("hidden"),
    ".factory/droids/listed.md": droid("listed", "tools: [Read, Execute, Create, Edit]\n"),
    # Droid's line parser reads what YAML refused.
    ".factory/droids/badyaml.md": (
        "---\nname: badyaml\ndescription: Use when: x happens\n---\n\nBody.\n"
    ),
    # Lenient beyond safety: a wrong type drops the whole frontmatter (every tool).
    ".factory/droids/wrongtype.md": droid("ignored-name", "tools: 5\n"),
    ".factory/droids/nofront.md": "Just a prompt.\n",
    ".factory/droids/bom.md": "\ufeff" + droid("bom-name"),
    # Not read: a subfolder, another extension.
    ".factory/droids/sub/nested.md": droid("nested"),
    ".factory/droids/notes.txt": "not a droid",
}
HOME = {
    ".factory/droids/dreviewer.md": droid("dreviewer", description="USER reviewer, shadowed"),
    ".factory/droids/duser.md": droid("duser"),
}
#: What ``droid exec`` offers from them: name → (description, location). Droid lists the
#: project's droids in the order the file system gives, then the user's.
OFFERED = {
    "dreviewer": ("probe dreviewer", "project"),
    "named-by-key": ("probe named-by-key", "project"),
    "noname": ("named by its file", "project"),
    "crlf": ("probe crlf", "project"),
    "under": ("probe under", "project"),
    "hidden": ("probe hidden", "project"),
    "listed": ("probe listed", "project"),
    "badyaml": ("Use when: x happens", "project"),
    "wrongtype": ("", "project"),
    "nofront": ("", "project"),
    "bom": ("", "project"),
    "linked": ("probe linked", "project"),
    "duser": ("probe duser", "personal"),
}
#: Files whose droid gets every tool because Droid reads no frontmatter from them.
EVERY_TOOL = ("bom.md", "nofront.md", "wrongtype.md")


def add_symlink(workspace: Path, target: Path) -> None:
    """A symlinked droid file, which Droid reads."""
    target.write_text(droid("linked"), encoding="utf-8")
    (workspace / ".factory/droids/link.md").symlink_to(target)
