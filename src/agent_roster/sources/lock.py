"""``roster.lock``: for each source, what it was asked for, the commit it resolved to, and
the SHA-256 of every file it brought into the vault (vault-relative paths). Written
atomically, keys sorted, so it diffs well in review."""

from __future__ import annotations

import hashlib
from pathlib import Path

import msgspec

from agent_roster.errors import UsageError

LOCK_FILE = "roster.lock"
VERSION = 1


class Declared(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A source as roster.toml declares it."""

    url: str
    ref: str = ""
    path: str = ""
    only: tuple[str, ...] = ()


class LockedSource(msgspec.Struct, frozen=True, kw_only=True):
    declared: Declared
    commit: str
    #: vault-relative path -> sha256 hex of the content the source brought
    files: dict[str, str]


class Lock(msgspec.Struct, frozen=True, kw_only=True):
    version: int = VERSION
    sources: dict[str, LockedSource] = msgspec.field(default_factory=dict)


_encoder = msgspec.json.Encoder(order="sorted")
_decoder = msgspec.json.Decoder(Lock)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_lock(vault: Path) -> Lock:
    path = vault / LOCK_FILE
    if not path.is_file():
        return Lock()
    try:
        lock = _decoder.decode(path.read_bytes())
    except msgspec.DecodeError as exc:
        raise UsageError(
            f"{LOCK_FILE} is not a lock file roster can read: {exc}",
            hint="restore it from version control, or delete it and run 'roster source update'",
        ) from None
    if lock.version != VERSION:
        raise UsageError(f"{LOCK_FILE} is version {lock.version}; this roster reads {VERSION}")
    return lock


def lock_text(lock: Lock) -> bytes:
    return msgspec.json.format(_encoder.encode(lock), indent=2) + b"\n"
