"""The render ledger: every file ``render`` wrote under one output root, with its hash.

Issue 13 item 1. Peer tools either never delete what they rendered (stale agents stay and
keep loading) or delete by pattern and take files they did not write with them (rulesync
#2867, #2561, #2775). Roster deletes only what this ledger says it wrote, and only while the
file still holds exactly what it wrote.

The ledger lives in the output root itself, ``<root>/.roster-ledger.json`` (the workspace
for project scope, the home folder for user scope): it describes the files beside it, it
moves with them, and committed with them it lets ``render --check`` in CI see stale files.
It is JSON, keys sorted, and written atomically (``vault/writer.py``) under an exclusive
``flock`` on the root folder, so two renders into one root never lose each other's entries.
``render --check`` and ``--dry-run`` only read it.

Each entry is keyed by the file's path relative to the root and lists its *writers*: the
renders (vault, harness, scope) that produced it, each with the profile it belongs to (``""``
for a file every agent shares) and when. An agent file has one writer; a merged file (an MCP
or settings file roster merges into, keeping everything it does not own) may have several.
``exclusive`` is false once such a file holds content roster did not write (it was there
first, or was edited between renders): ``--prune`` never deletes it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import msgspec

from agent_roster.commands.output_folder import LEGACY_PREFIX, digest
from agent_roster.errors import NotFoundError, VaultError
from agent_roster.vault.writer import atomic_write

LEDGER_FILE = ".roster-ledger.json"
#: 2: digests are XXH3 and name their hash (``output_folder.digest``); 1 recorded sha256.
LEDGER_VERSION = 2


class Owner(NamedTuple):
    """Whose files these are: one harness's render of one vault in one scope. Renders of
    other owners into the same root never make each other's files stale."""

    vault: str
    harness: str
    scope: str


class Writer(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One render that produced a file."""

    #: The vault, relative to the output root (both resolved), so a workspace and its
    #: ledger can move together.
    vault: str
    harness: str
    scope: str
    #: The profile whose agent file this is; ``""``: a file every rendered agent shares.
    profile: str = ""
    #: ``render --project``'s project, when one was given.
    project: str | None = None
    #: When that render wrote the file (UTC, ISO 8601), and roster's version.
    rendered_at: str
    roster: str


class Entry(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One file roster wrote."""

    #: The digest of the content roster last wrote (or found equal to what it would
    #: write): ``output_folder.digest``.
    digest: str = ""
    #: Merged into a file the user may edit too (``NativeFile.merged``).
    merged: bool = False
    #: Everything in the file is roster's: ``--prune`` may delete it as a whole.
    exclusive: bool = True
    writers: tuple[Writer, ...]
    #: Format 1's sha256 (hex), read only: :func:`load_ledger` makes it the digest.
    sha256: str = ""


class Ledger(msgspec.Struct, kw_only=True):
    version: int = LEDGER_VERSION
    files: dict[str, Entry] = msgspec.field(default_factory=dict)


_decoder = msgspec.json.Decoder(Ledger)
_encode = msgspec.json.Encoder().encode
_BROKEN_HINT = (
    "restore it from version control, or delete it (then roster forgets which files it "
    "wrote, and it deletes nothing it does not know)"
)


def ledger_path(root: str | os.PathLike[str]) -> Path:
    return Path(root) / LEDGER_FILE


def load_ledger(root: str | os.PathLike[str]) -> Ledger:
    """The ledger of ``root``; an empty one when there is none yet. A ledger that cannot
    be read is an error, never silently replaced (it is the only record of what to prune)."""
    path = ledger_path(root)
    try:
        data = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return Ledger()
    except OSError as exc:
        raise VaultError(f"cannot read the render ledger {path}: {exc.strerror}") from None
    try:
        ledger = _decoder.decode(data)
    except msgspec.ValidationError as exc:
        raise VaultError(
            f"the render ledger {path} is not valid: {exc}",
            hint=_BROKEN_HINT,
        ) from None
    except msgspec.DecodeError:
        raise VaultError(
            f"the render ledger {path} is not valid JSON",
            hint=_BROKEN_HINT,
        ) from None
    if ledger.version > LEDGER_VERSION:
        raise VaultError(
            f"the render ledger {path} was written by a newer roster (format "
            f"{ledger.version}, this one knows {LEDGER_VERSION})",
            hint="upgrade roster",
        )
    for rel, entry in ledger.files.items():
        if not entry.digest:
            if not entry.sha256:
                raise VaultError(
                    f"the render ledger {path} is not valid: {rel} has no digest",
                    hint=_BROKEN_HINT,
                )
            ledger.files[rel] = msgspec.structs.replace(
                entry, digest=LEGACY_PREFIX + entry.sha256, sha256=""
            )
    return ledger


def save_ledger(root: str | os.PathLike[str], ledger: Ledger) -> None:
    """Write ``ledger`` atomically (durably: it is the record of what may be deleted);
    with no entries left, remove the file."""
    path = ledger_path(root)
    if not ledger.files:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        return
    # One line per file, sorted: compact for thousands of files, and a diff shows which
    # files a render changed.
    # (Mapped rather than looped: a third of the time for 20,000 entries.)
    paths = sorted(ledger.files)
    entries = map(ledger.files.__getitem__, paths)
    lines = map(b": ".join, zip(map(_encode, paths), map(_encode, entries), strict=True))
    text = b'{"version": %d, "files": {\n' % LEDGER_VERSION + b",\n".join(lines) + b"\n}}\n"
    atomic_write(path, text)


@contextlib.contextmanager
def locked(root: str | os.PathLike[str]) -> Iterator[None]:
    """Hold an exclusive lock on ``root`` (created if missing) while a render writes
    there: a second render into the same root waits, so neither loses the other's ledger
    entries. The lock is on the folder itself; no lock file is left behind."""
    try:
        import fcntl
    except ImportError:  # no flock on this platform: renders are not serialised
        yield
        return
    os.makedirs(root, exist_ok=True)
    fd = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


class Provenance(NamedTuple):
    """``roster why``: the ledger entry of one file, and what is on disk now."""

    path: str
    root: str
    ledger: str
    entry: Entry
    #: ``unchanged``: the file holds what roster wrote; ``edited``: it changed since;
    #: ``missing``: it is gone.
    state: str

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "root": self.root,
            "ledger": self.ledger,
            "state": self.state,
            "digest": self.entry.digest,
            "merged": self.entry.merged,
            "exclusive": self.entry.exclusive,
            "writers": [msgspec.to_builtins(w) for w in self.entry.writers],
        }


def why(path: str | os.PathLike[str]) -> Provenance:
    """Which render wrote ``path``: the nearest ledger above it that records it."""
    target = Path(os.path.abspath(path))
    for candidate in dict.fromkeys((target, Path(os.path.realpath(target)))):
        for root in candidate.parents:
            ledger_file = ledger_path(root)
            if not ledger_file.is_file():
                continue
            rel = candidate.relative_to(root).as_posix()
            entry = load_ledger(root).files.get(rel)
            if entry is None:
                continue
            try:
                data = candidate.read_bytes()
            except FileNotFoundError:
                state = "missing"
            else:
                state = "unchanged" if digest(data, entry.digest) == entry.digest else "edited"
            return Provenance(str(path), str(root), str(ledger_file), entry, state)
    raise NotFoundError(
        f"no render ledger records {path}: roster does not own it",
        hint=f"roster records every file it renders in {LEDGER_FILE} in the output folder, "
        "and stops tracking a stale file that was edited; a file written by hand or by "
        "another tool is not in it",
    )
