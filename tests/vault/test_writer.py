"""atomic_write: all or nothing, exact mode, no temporary file left behind."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from agent_roster.vault.writer import atomic_write


def _leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]


def test_creates_folders_and_writes_exactly(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "file.md"
    atomic_write(target, "héllo\n")
    assert target.read_bytes() == "héllo\n".encode()
    assert _leftovers(target.parent) == []


def test_replaces_and_sets_the_mode_whatever_the_umask(tmp_path: Path) -> None:
    target = tmp_path / "file.sh"
    target.write_text("old")
    old_umask = os.umask(0o077)
    try:
        atomic_write(target, b"#!/bin/sh\n", mode=0o755, durable=False)
    finally:
        os.umask(old_umask)
    assert target.read_bytes() == b"#!/bin/sh\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o755
    assert _leftovers(tmp_path) == []


def test_a_large_file_is_written_whole(tmp_path: Path) -> None:
    data = os.urandom(3 << 20)
    atomic_write(tmp_path / "big.bin", data)
    assert (tmp_path / "big.bin").read_bytes() == data


def test_a_failed_rename_keeps_the_old_file_and_removes_the_temp(tmp_path: Path) -> None:
    target = tmp_path / "folder-in-the-way"
    target.mkdir()
    (target / "keep").write_text("x")
    with pytest.raises(OSError):
        atomic_write(target, "new")
    assert (target / "keep").read_text() == "x"
    assert _leftovers(tmp_path) == []


def test_a_planted_temp_name_is_never_written_through(tmp_path: Path) -> None:
    # Whatever sits at a temporary name (here a symlink to a file outside) is skipped, not
    # followed or overwritten: temporary files are created exclusively.
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    folder = tmp_path / "out"
    folder.mkdir()
    for serial in range(50):  # the next names this process would try
        os.symlink(outside, folder / f".f.md.{os.getpid()}.{serial}.tmp")
    atomic_write(folder / "f.md", "content")
    assert (folder / "f.md").read_text() == "content"
    assert outside.read_text() == "secret"


def test_a_new_file_is_linked_in_whole(tmp_path: Path) -> None:
    target = tmp_path / "new.md"
    atomic_write(target, "fresh\n", mode=0o640, durable=False, new=True)
    assert target.read_text() == "fresh\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.md"]


@pytest.mark.parametrize("durable", [False, True])
def test_new_falls_back_when_something_is_there_after_all(tmp_path: Path, durable: bool) -> None:
    # The caller believed the path free; a file or a symlink there is replaced as a
    # whole, and a symlink's target is never written.
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "a.md").write_text("old")
    os.symlink(outside, folder / "b.md")
    atomic_write(folder / "a.md", "A", durable=durable, new=True)
    atomic_write(folder / "b.md", "B", durable=durable, new=True)
    assert (folder / "a.md").read_text() == "A"
    assert not (folder / "b.md").is_symlink() and (folder / "b.md").read_text() == "B"
    assert outside.read_text() == "keep"
    assert _leftovers(folder) == []
