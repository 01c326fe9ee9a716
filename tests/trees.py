"""Files and folders for a test, from a dict."""

from __future__ import annotations

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
