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
import xxhash

from agent_roster import diagnostics as dx
from agent_roster.codecs.base import NativeFile
from agent_roster.codecs.native_io import decode_text
from agent_roster.diagnostics import Diagnostic
from agent_roster.errors import UnreadableFileError, VaultError
from agent_roster.redact import redact_text
from agent_roster.vault.writer import atomic_write_at, open_folder_fd

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
    #: The :func:`digest` of the content the render produced: what is on disk after a
    #: real render.
    digest: str
    #: The :func:`digest` of what was on disk before ("" when nothing was).
    before: str
    profile: str
    merged: bool


def _diff(current: str | None, content: str, shown: str) -> str:
    """The ``--dry-run`` diff, made from both sides with their secrets masked (issue 11
    item 3): a diff is output, and rendered MCP configs hold headers and env values."""
    before = redact_text(current or "")
    after = redact_text(content)
    diff = "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=shown if current is not None else "/dev/null",
            tofile=shown,
        )
    )
    if not diff:  # the two differ only where a secret is masked
        diff = f"{shown}: only masked values differ\n"
    return diff


#: The hash the render ledger records, named in each digest. XXH3 (128 bits): a render
#: hashes every file it produces, and sha256 took a tenth of a render of long prompts.
DIGEST_PREFIX = "xxh3-128:"
#: A digest of ledger format 1, which recorded sha256 (``ledger.py`` reads those as this
#: prefix and the hex digest, and compares such a digest as sha256).
LEGACY_PREFIX = "sha256:"


def digest(data: bytes, like: str = "") -> str:
    """The hash the render ledger records for a file's content; in the format of ``like``
    (a recorded digest) when that is an older ledger's, so the two can be compared."""
    if like.startswith(LEGACY_PREFIX):
        return LEGACY_PREFIX + hashlib.sha256(data).hexdigest()
    return DIGEST_PREFIX + xxhash.xxh3_128_hexdigest(data)


class OutputFolder:
    """The folder rendered files go to. Every path a codec returns must stay inside it,
    symlinks included: a codec bug or a crafted profile id must not write elsewhere."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.real_root = os.path.realpath(root)
        self._prefix = os.path.join(self.real_root, "")
        self._root_path = os.path.normpath(os.fspath(root))
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
        real_folder = self._real_folder(folder)
        listing = self._listing(folder)
        is_link = listing.get(name) if listing is not None else None
        real = os.path.realpath(path) if is_link else os.path.join(real_folder, name)
        if not self._inside(real_folder) or not self._inside(real):
            raise VaultError(f"refusing to write {path}: it resolves outside {self.root}")
        return path, is_link is not None

    def _real_folder(self, folder: str) -> str:
        # ``folder`` resolved, from its parent's: joined to the parent's real path unless
        # the parent's listing shows it is a symlink (then resolved itself). Agents with a
        # folder each (AGH, defect) made this a realpath per agent, component by component.
        found = self._real_folders.get(folder)
        if found is not None:
            return found
        parent, name = os.path.split(folder)
        if folder == self._root_path or not name or parent == folder:
            found = os.path.realpath(folder)
        else:
            listing = self._listing(parent)
            if listing is not None and listing.get(name, False):
                found = os.path.realpath(folder)  # a symlink: where it leads
            else:  # absent, or a real folder
                found = os.path.join(self._real_folder(parent), name)
        self._real_folders[folder] = found
        return found

    def read(self, rel: str) -> str | None:
        """The text of ``rel`` (a codec's ``existing``); ``None`` when there is none.
        Raises :class:`UnreadableFileError` when it is not UTF-8 text."""
        path, exists = self._locate(rel)
        data = self._read(path) if exists else None
        if data is None:
            return None
        text = data if isinstance(data, Diagnostic) else decode_text(data, path, hint=_LEFT_ALONE)
        if isinstance(text, Diagnostic):
            raise UnreadableFileError(f"cannot read {path}", [text])
        return text

    def shown(self, rel: str) -> str:
        """``rel`` as reports show it: under the root as the user gave it."""
        return os.path.normpath(os.path.join(self.root, rel))

    def current_digest(self, rel: str, like: str = "") -> str | None:
        """The hash of the regular file at ``rel`` now (in the format of ``like``, see
        :func:`digest`); ``None`` when there is none. A symlink, a folder or anything else
        is not a file roster wrote: ``""``."""
        found = self._current(rel)
        return digest(found, like) if isinstance(found, bytes) else found

    def upgraded_digest(self, rel: str, recorded: str) -> str | None:
        """This format's digest of the file at ``rel`` when it still holds exactly what
        ``recorded`` (a digest of any format) hashes; ``None`` otherwise. The file is read
        once."""
        found = self._current(rel)
        if not isinstance(found, bytes) or digest(found, recorded) != recorded:
            return None
        return digest(found)

    def _current(self, rel: str) -> bytes | str | None:
        # The content of the regular file at ``rel``; None: none there; "": something
        # roster did not write (a symlink, a folder, unreadable).
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
            return handle.read()

    def remove(self, rel: str, expected: str) -> bool:
        """Delete ``rel`` if it still holds exactly the content hashed ``expected``, then
        every folder above it that this left empty (up to the root). False: kept."""
        path, _ = self._locate(rel)
        if self.current_digest(rel, expected) != expected:
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
    def _read(path: str) -> bytes | Diagnostic | None:
        """The bytes of the file at ``path``; ``None`` when there is none; an error when
        something is there that is not a regular file roster can read (a folder, a FIFO,
        no permission): render leaves it alone. Non-blocking, so a FIFO cannot hang it."""
        flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
        try:
            fd = os.open(path, flags)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            return _in_the_way(path, exc.strerror or type(exc).__name__)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            return _in_the_way(path, "not a regular file (a folder, a FIFO or a device)")
        with os.fdopen(fd, "rb") as handle:
            return handle.read()

    def _written(self, path: str) -> None:
        folder, name = os.path.split(path)
        listing = self._entries.get(folder)
        if listing is None:
            listing = self._entries[folder] = {}
        listing[name] = False

    def apply(
        self, harness: str, natives: Iterable[NativeFile], *, check: bool, dry_run: bool
    ) -> Applied:
        """Write (or compare, or diff) each file: the report rows, the ledger's record of
        every file produced, and an error for each file in the way that is not UTF-8 text
        (left as it is: render never replaces what it could not read)."""
        # Each folder written to is opened once (20,000 agent files go to two folders).
        folders: dict[str, int] = {}
        try:
            return self._apply(harness, natives, folders, check=check, dry_run=dry_run)
        finally:
            for fd in folders.values():
                os.close(fd)

    def _apply(
        self,
        harness: str,
        natives: Iterable[NativeFile],
        folders: dict[str, int],
        *,
        check: bool,
        dry_run: bool,
    ) -> Applied:
        results: list[FileResult] = []
        records: list[Record] = []
        problems: list[Diagnostic] = []
        seen: set[str] = set()
        for native in natives:
            if native.path in seen:  # two outputs for one file would lose one silently
                raise VaultError(f"the {harness} codec produced {native.path} twice")
            seen.add(native.path)
            path, exists = self._locate(native.path)
            shown = path
            raw = self._read(path) if exists else None
            if isinstance(raw, Diagnostic):
                problems.append(raw)
                continue
            current = None if raw is None else decode_text(raw, shown, hint=_LEFT_ALONE)
            if isinstance(current, Diagnostic):
                problems.append(current)
                continue
            data = native.content.encode("utf-8")
            made = digest(data)
            if raw is None:
                before = ""
            elif raw == data:
                before = made
            else:
                before = digest(raw)
            records.append(Record(native.path, made, before, native.profile, native.merged))
            if raw == data:
                results.append(FileResult(harness, shown, UNCHANGED))
                continue
            status = CREATED if current is None else UPDATED
            diff = ""
            if dry_run:
                diff = _diff(current, native.content, shown)
            elif not check:
                # Rendered files are derived and rewritten on demand: atomic for readers,
                # without the per-file fsync (see vault.writer.atomic_write).
                folder, name = os.path.split(path)
                try:
                    fd = folders.get(folder)
                    if fd is None:
                        missing = self._entries.get(folder) is None
                        fd = folders[folder] = open_folder_fd(folder, make=missing)
                    atomic_write_at(fd, name, data, mode=native.mode, durable=False, new=not exists)
                    self._written(path)
                except OSError as exc:  # a file where a folder belongs, no permission
                    problems.append(
                        dx.make(
                            "file-unwritable",
                            f"cannot write {shown}: {exc.strerror or type(exc).__name__}",
                            path=shown,
                            hint="move away what is in the way, or make the folder writable",
                        )
                    )
                    records.pop()
                    continue
            results.append(FileResult(harness, shown, status, diff))
        return Applied(results, records, problems)


class Applied(NamedTuple):
    """What :meth:`OutputFolder.apply` did."""

    results: list[FileResult]
    records: list[Record]
    diagnostics: list[Diagnostic]


def _in_the_way(path: str, why: str) -> Diagnostic:
    return dx.make(
        "file-unreadable",
        f"cannot read {path}: {why}",
        path=path,
        hint="render leaves what it cannot read as it is: move it away to let render write "
        "the file",
    )


_LEFT_ALONE = (
    "render leaves a file it cannot read as it is: save it as UTF-8, or move it away to "
    "let render write it"
)
