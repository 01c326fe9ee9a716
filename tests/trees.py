"""Files and folders for a test, from a dict."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path

Tree = Mapping[str, "str | bytes | Tree"]


def build_tree(root: Path, tree: Tree) -> Path:
    """Create files and folders under ``root`` from a nested dict; returns ``root``.

    Keys are relative paths (``a/b.md`` is fine); a str or bytes value is a file's content,
    a dict is a folder."""
    for name, content in tree.items():
        path = root / name
        if isinstance(content, Mapping):
            path.mkdir(parents=True, exist_ok=True)
            build_tree(path, content)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
    return root


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` and return its stdout, stripped."""
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def commit_all(repo: Path, message: str) -> str:
    """Commit everything in ``repo`` as a test author; the new commit's id."""
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", message)
    return git(repo, "rev-parse", "HEAD")
