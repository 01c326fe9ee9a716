"""A bigger vault made from the example one, for tests that need many profiles."""

from __future__ import annotations

from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "vault"


def add_copies(vault: Path, copies: int) -> None:
    """Each system profile of ``vault`` again under ``copies`` more ids (``<id>-<n>``)."""
    folder = vault / "agent-types"
    for source in sorted(p for p in folder.iterdir() if p.is_dir()):
        text = (source / "profile.md").read_text()
        for n in range(copies):
            ident = f"{source.name}-{n}"
            (folder / ident).mkdir()
            (folder / ident / "profile.md").write_text(
                text.replace(f"id: {source.name}\n", f"id: {ident}\n", 1)
            )
