"""Sync and status at the vault's boundary (issue 11 item 1, issue 12 item 6), on SQLite and
PostgreSQL: starter knowledge is never copied through a link leaving the vault, content
behind such a link is never stored, and every file sync does not load is reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_roster.cli import main
from agent_roster.store import Store
from agent_roster.sync.engine import SyncEngine

from .helpers import CODING

MARKER = "OUTSIDE-THE-VAULT"


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.md").write_text("mine\n")
    return outside


def test_starter_knowledge_is_never_copied_through_a_linked_memory_folder(
    store: Store, vault: Path, tmp_path: Path
) -> None:
    """Seen on main: sync copied the pack into wherever agent-types/<id>/memory led."""
    outside = _outside(tmp_path)
    (vault / "agent-types/coding/memory").symlink_to(outside, target_is_directory=True)
    report = SyncEngine(store, vault).sync()
    assert _files(outside) == {"keep.md": b"mine\n"}
    assert not any(rel.startswith("agent-types/coding/") for rel in report.starter_files)
    assert any(rel.startswith("agent-types/qa/memory/") for rel in report.starter_files)
    refused = [d for d in report.diagnostics if d.code == "path-outside-vault"]
    assert [(d.path, d.message) for d in refused] == [
        (
            "agent-types/coding/memory",
            "agent-types/coding/memory is a symlink that leads outside the vault; "
            "nothing is written through it",
        )
    ]
    assert refused[0].hint == "move the folder into the vault instead of linking"
    assert store.get_profile("coding") is not None  # the profile itself synced


def test_a_pack_that_leads_outside_is_never_read(store: Store, vault: Path, tmp_path: Path) -> None:
    # Names and contents of the copied files would be chosen by whoever controls the link.
    outside = tmp_path / "outside"
    (outside / "coding").mkdir(parents=True)
    (outside / "coding" / "planted.md").write_text(MARKER)
    pack = vault / "templates/knowledge/qa"
    for item in pack.iterdir():
        item.unlink()
    pack.rmdir()
    pack.symlink_to(outside / "coding", target_is_directory=True)
    (vault / "templates/knowledge/coding/leak.md").symlink_to(outside / "coding" / "planted.md")
    report = SyncEngine(store, vault).sync()
    copied = {p.name: p.read_text() for p in vault.rglob("memory/*.md")}
    assert MARKER not in "".join(copied.values())
    assert "leak.md" not in copied and "planted.md" not in copied
    assert "common-pitfalls.md" in copied  # the rest of the coding pack is copied
    assert sorted((d.path, d.code) for d in report.diagnostics) == [
        ("templates/knowledge/coding/leak.md", "path-outside-vault"),
        ("templates/knowledge/qa", "path-outside-vault"),
    ]


def test_all_of_templates_knowledge_leading_outside_gives_no_packs(
    store: Store, vault: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    (outside / "coding").mkdir(parents=True)
    (outside / "coding" / "planted.md").write_text(MARKER)
    knowledge = vault / "templates/knowledge"
    knowledge.rename(tmp_path / "old-knowledge")
    knowledge.symlink_to(outside, target_is_directory=True)
    report = SyncEngine(store, vault).sync()
    assert report.starter_files == ()
    assert [(d.path, d.code) for d in report.diagnostics] == [
        ("templates/knowledge", "path-outside-vault")
    ]
    assert not list(vault.rglob("memory/*.md"))


def test_pack_files_that_are_not_copied_say_why(store: Store, vault: Path) -> None:
    pack = vault / "templates/knowledge/coding"
    (pack / "diagram.png").write_bytes(b"\x89PNG")
    (pack / "more").mkdir()
    (pack / "bad.md").write_bytes(b"\xff\xfe not utf-8")
    (pack / ".hidden.md").write_text("editor file")
    report = SyncEngine(store, vault).sync()
    assert sorted((d.path, d.code) for d in report.diagnostics) == [
        ("templates/knowledge/coding/bad.md", "encoding-invalid"),
        ("templates/knowledge/coding/diagram.png", "layout-unknown"),
        ("templates/knowledge/coding/more", "layout-unknown"),
    ]
    assert sorted(p.name for p in (vault / "agent-types/coding/memory").iterdir()) == [
        "common-pitfalls.md",
        "git-conventions.md",
    ]


def test_a_folder_that_comes_to_lead_outside_keeps_its_rows_and_is_reported(
    store: Store, vault: Path, tmp_path: Path
) -> None:
    engine = SyncEngine(store, vault)
    engine.sync()
    before = store.get_profile("coding")
    assert before is not None
    outside = tmp_path / "outside"
    (vault / "agent-types/coding").rename(outside)
    (outside / "profile.md").write_text(
        (outside / "profile.md").read_text().replace("Coding Agent", MARKER)
    )
    (vault / "agent-types/coding").symlink_to(outside, target_is_directory=True)
    report = engine.sync()
    # Not read (the marker is not stored), not marked deleted: the last good row stays.
    assert report.deleted == 0 and report.written == 0
    assert [(d.path, d.code) for d in report.diagnostics] == [
        ("agent-types/coding", "path-outside-vault")
    ]
    assert store.get_profile("coding") == before
    # The watcher's path-limited sync checks the same way.
    limited = engine.sync([CODING])
    assert [(d.path, d.code) for d in limited.diagnostics] == [
        ("agent-types/coding", "path-outside-vault")
    ]
    assert store.get_profile("coding") == before


def test_sync_and_status_report_what_is_not_loaded(
    db_url: str, vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seen on main: a profile in agent-types/a:b/ was left out without a word."""
    (vault / "agent-types/a:b").mkdir()
    (vault / "agent-types/a:b/profile.md").write_text("---\nid: x\nname: X\n---\n")
    (vault / "mcp-servers/notes.txt").write_text("a note")
    code = main(["--vault", str(vault), "--db", db_url, "sync"])
    out = capsys.readouterr().out
    assert code == 1
    assert "agent-types/a:b/profile.md:1:1: error[name-unsafe]" in out
    assert "mcp-servers/notes.txt:1:1: warning[layout-unknown]" in out
    assert "; 2 not loaded" in out

    code = main(["--vault", str(vault), "--db", db_url, "sync", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1
    assert [(d["path"], d["code"]) for d in data["diagnostics"]] == [
        ("mcp-servers/notes.txt", "layout-unknown"),
        ("agent-types/a:b/profile.md", "name-unsafe"),
    ]

    code = main(["--vault", str(vault), "--db", db_url, "status"])
    out = capsys.readouterr().out
    assert code == 1
    assert "2 file(s) in the vault not loaded:" in out
    assert "agent-types/a:b/profile.md:1:1: error[name-unsafe]" in out
    code = main(["--vault", str(vault), "--db", db_url, "status", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert [(d["path"], d["code"]) for d in data["unloaded"]] == [
        ("mcp-servers/notes.txt", "layout-unknown"),
        ("agent-types/a:b/profile.md", "name-unsafe"),
    ]


def test_a_folder_name_that_is_not_utf8_is_reported_not_a_crash(
    db_url: str, vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seen on main: `roster sync` exited 70 (UnicodeEncodeError) on such a folder."""
    folder = bytes(vault / "agent-types") + b"/bad\xff"
    import os

    os.mkdir(folder)
    with open(folder + b"/profile.md", "w") as handle:
        handle.write("---\nid: x\nname: X\n---\n")
    code = main(["--vault", str(vault), "--db", db_url, "sync", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1
    assert [(d["path"], d["code"]) for d in data["diagnostics"]] == [
        ("agent-types/bad\\xff/profile.md", "name-unsafe")
    ]
    assert "must be valid UTF-8" in data["diagnostics"][0]["message"]
