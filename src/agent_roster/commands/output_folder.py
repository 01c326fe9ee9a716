"""The folder ``render`` writes to: every path checked to stay inside it, each file
written atomically and only when its content changed, or compared (``--check``) or diffed
(``--dry-run``) instead. Each file produced is also described by a :class:`Record` (its
hash, its profile), which the render ledger (``commands/ledger.py``) keeps."""

from __future__ import annotations

import difflib
import hashlib
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

import msgspec

from agent_roster.codecs.base import NativeFile
from agent_roster.errors import VaultError
from agent_roster.vault.writer import atomic_write

CREATED = "created"
UPDATED = "updated"
UNCHANGED = "unchanged"
#: A file an earlier render wrote that this one no longer produces (the render ledger).
STALE = "stale"
#: A stale file ``--prune`` deleted (or, under ``--check``/``--dry-run``, would delete).
REMOVED = "removed"
#: A stale file ``--prune`` left in place: edited since, or holding the user's content.
KEPT = "kept"


class FileResult(NamedTuple):
    """One native file: which harness, its path (as given under ``--out``), and what
    happened: created / updated / unchanged; under ``--check`` or ``--dry-run`` what *would*
    happen. ``diff`` is a unified diff for ``--dry-run``; ``note`` says why a stale file
    was kept, or whose file this render took over."""

    harness: str
    path: str
    status: str
    diff: str = ""
    note: str = ""


class Record(msgspec.Struct, frozen=True, array_like=True):
    """What the render ledger keeps of one file a render produced (written or not)."""

    #: Relative to the output root, as the codec named it.
    path: str
    #: sha256 of the content the render produced: what is on disk after a real render.
    sha256: str
    #: sha256 of what was on disk before ("" when nothing was).
    before: str
    profile: str
    merged: bool


def digest(data: bytes) -> str:
    """The hash the render ledger records for a file's content."""
    return hashlib.sha256(data).hexdigest()


class OutputFolder:
    """The folder rendered files go to. Every path a codec returns must stay inside it,
    symlinks included: a codec bug or a crafted profile id must not write elsewhere."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.real_root = os.path.realpath(root)
        self._prefix = os.path.join(self.real_root, "")
        # Resolving every path component per file is most of the cost of checking 20,000
        # files; folders are resolved once, and only the file itself is checked per file.
        self._real_folders: dict[str, str] = {}
        # Each folder's entries (name -> is a symlink), listed once (None: no folder yet):
        # most rendered files do not exist yet, and one listing is cheaper than a failed
        # open and a symlink check per file.
        self._entries: dict[str, dict[str, bool] | None] = {}

    def _inside(self, real: str) -> bool:
        return real == self.real_root or real.startswith(self._prefix)

    def _listing(self, folder: str) -> dict[str, bool] | None:
        try:
            return self._entries[folder]
        except KeyError:
            pass
        found: dict[str, bool] | None
        try:
            with os.scandir(folder) as entries:
                found = {entry.name: entry.is_symlink() for entry in entries}
        except (FileNotFoundError, NotADirectoryError):
            found = None
        self._entries[folder] = found
        return found

    def _locate(self, rel: str) -> tuple[str, bool]:
        # The path to write ``rel`` at (under ``root``, as given), checked to resolve
        # inside the real root, and whether something exists there.
        parts = rel.replace("\\", "/").split("/")
        if not rel or os.path.isabs(rel) or ".." in parts:
            raise VaultError(f"refusing to write {rel!r}: not a relative path inside {self.root}")
        path = os.path.normpath(os.path.join(self.root, rel))
        folder, name = os.path.split(path)
        real_folder = self._real_folders.get(folder)
        if real_folder is None:
            real_folder = self._real_folders[folder] = os.path.realpath(folder)
        listing = self._listing(folder)
        is_link = listing.get(name) if listing is not None else None
        real = os.path.realpath(path) if is_link else os.path.join(real_folder, name)
        if not self._inside(real_folder) or not self._inside(real):
            raise VaultError(f"refusing to write {path}: it resolves outside {self.root}")
        return path, is_link is not None

    def read(self, rel: str) -> str | None:
        path, exists = self._locate(rel)
        return self._read(path) if exists else None

    def shown(self, rel: str) -> str:
        """``rel`` as reports show it: under the root as the user gave it."""
        return os.path.normpath(os.path.join(self.root, rel))

    def current_digest(self, rel: str) -> str | None:
        """The hash of the regular file at ``rel`` now; ``None`` when there is none. A
        symlink, a folder or anything else is not a file roster wrote: ``""``."""
        path, exists = self._locate(rel)
        if not exists:
            return None
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            return None
        except OSError:  # a symlink (ELOOP), or unreadable: never roster's to judge
            return ""
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return ""
            return digest(handle.read())

    def remove(self, rel: str, expected: str) -> bool:
        """Delete ``rel`` if it still holds exactly the content hashed ``expected``, then
        every folder above it that this left empty (up to the root). False: kept."""
        path, _ = self._locate(rel)
        if self.current_digest(rel) != expected:
            return False
        os.unlink(path)
        folder = os.path.dirname(os.path.abspath(path))
        root = os.path.abspath(self.root)
        while folder != root and folder.startswith(os.path.join(root, "")):
            try:
                os.rmdir(folder)  # only an empty folder goes
            except OSError:
                break
            folder = os.path.dirname(folder)
        return True

    @staticmethod
    def _read(path: str) -> str | None:
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except (FileNotFoundError, NotADirectoryError):
            return None
        with os.fdopen(fd, "rb") as handle:
            return handle.read().decode("utf-8")

    def _written(self, path: str) -> None:
        folder, name = os.path.split(path)
        listing = self._entries.get(folder)
        if listing is None:
            listing = self._entries[folder] = {}
        listing[name] = False

    def apply(
        self, harness: str, natives: Iterable[NativeFile], *, check: bool, dry_run: bool
    ) -> tuple[list[FileResult], list[Record]]:
        """Write (or compare, or diff) each file; the report rows, and the ledger's
        record of every file produced."""
        results: list[FileResult] = []
        records: list[Record] = []
        seen: set[str] = set()
        for native in natives:
            if native.path in seen:  # two outputs for one file would lose one silently
                raise VaultError(f"the {harness} codec produced {native.path} twice")
            seen.add(native.path)
            path, exists = self._locate(native.path)
            shown = path
            current = self._read(path) if exists else None
            data = native.content.encode("utf-8")
            made = digest(data)
            if current is None:
                before = ""
            elif current == native.content:
                before = made
            else:
                before = digest(current.encode("utf-8"))
            records.append(Record(native.path, made, before, native.profile, native.merged))
            if current == native.content:
                results.append(FileResult(harness, shown, UNCHANGED))
                continue
            status = CREATED if current is None else UPDATED
            diff = ""
            if dry_run:
                diff = "".join(
                    difflib.unified_diff(
                        (current or "").splitlines(keepends=True),
                        native.content.splitlines(keepends=True),
                        fromfile=shown if current is not None else "/dev/null",
                        tofile=shown,
                    )
                )
            elif not check:
                # Rendered files are derived and rewritten on demand: atomic for readers,
                # without the per-file fsync (see atomic_write).
                folder_exists = self._entries.get(os.path.dirname(path)) is not None
                atomic_write(
                    path,
                    data,
                    mode=native.mode,
                    durable=False,
                    make_folder=not folder_exists,
                    new=not exists,
                )
                self._written(path)
            results.append(FileResult(harness, shown, status, diff))
        return results, records
