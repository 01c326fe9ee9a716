"""The parse cache: a large vault's clean parses kept between runs, by the file's content.

Parsing is most of a large load (YAML, the markdown structure, the JSON blocks, the checks
against the registry), and between two renders of a vault most files have not changed.
``load_vault(..., cache=True)`` keeps every profile that parsed without an error in one file
in roster's state folder beside the vault (``.roster/parse-cache-<vault>.msgpack``) and
takes a parse from there instead of parsing again when the file is the same. An entry
holds no text (the load reads the file anyway): a long prompt is kept as where it starts
and ends in the file, so the cache of a vault of long prompts stays small to read.

Nothing stale can come back, because an entry is found by what the parse depends on, never
by a file's name or time:

* the file's bytes, as read for this load, and its path in the vault (which gives the
  profile id and scope);
* everything else a parse reads: the server names the profile's scope has, the embedded
  server's name and commands, the probed tools catalog (``context``);
* roster's own code and the libraries it parses with (:func:`code_fingerprint`, in the
  file's header: another version of roster, or an edited checkout, starts afresh).

The key is a 128-bit xxh3 hash of those, which costs a read of the file (the load reads it
anyway) and a small fraction of the time the parse would take. Only clean parses are kept:
a profile with errors is parsed again each time, so its diagnostics come from the parser
itself. A file that cannot be read or decoded, whose checksum does not match, or that
other code wrote, is taken as empty; one that cannot be written is skipped (the cache
speeds loads up, it never decides what they give). The file is replaced atomically, so
concurrent runs each see a whole cache, and keeps only the current vault's entries, so it
does not grow with the vault's history. ``ROSTER_PARSE_CACHE=0`` turns it off.

Trust: the cache file is in the same folder as the database and the launch key, which say
as much about what agents may do; whoever can write there can change those too.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import msgspec
import xxhash

from agent_roster.diagnostics import Diagnostic
from agent_roster.model.profile import AgentProfile
from agent_roster.vault.packed import Stripped, strip
from agent_roster.vault.paths import VaultEntry, state_dir
from agent_roster.vault.profile_parser import ParsedProfile
from agent_roster.vault.writer import atomic_write

#: Below this many profile files a load keeps no cache: it parses them in less time than
#: reading and writing a cache would save.
CACHE_MIN_PROFILES = 1_000
#: The environment variable that turns the cache off (``0``).
ENV = "ROSTER_PARSE_CACHE"
_MAGIC = b"roster parse cache 2\n"
#: Bytes of the payload's checksum (xxh3, 128 bits) after the header: a file cut short or
#: damaged on disk is not used, even where what is left would still decode.
_CHECKSUM = 16
#: A file's cache key from its entry and bytes (:meth:`ParseCache.keyer`).
Keyer = Callable[[VaultEntry, bytes], bytes]
_Entries = dict[bytes, Stripped]
_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(
    dict[bytes, tuple[AgentProfile, tuple[Diagnostic, ...], int, int, int]]
)


def enabled() -> bool:
    """Whether the environment allows the cache (``ROSTER_PARSE_CACHE`` is not ``0``)."""
    return os.environ.get(ENV, "1") != "0"


def cache_path(vault_root: str | os.PathLike[str]) -> Path:
    """The cache file of the vault at ``vault_root``: in the state folder beside it, named
    by the vault's absolute path (two vaults in one folder share that folder)."""
    root = os.path.abspath(vault_root)
    name = xxhash.xxh3_64_hexdigest(os.fsencode(root))
    return state_dir(root) / f"parse-cache-{name}.msgpack"


@functools.cache
def code_fingerprint() -> bytes:
    """What identifies the code a parse ran: the interpreter and library versions, and
    the size and modification time of every module of this package (so an edited checkout
    does not reuse parses an earlier version of the parser made)."""
    import rapidfuzz
    import yaml

    digest = xxhash.xxh3_128()
    versions = (sys.version, yaml.__version__, msgspec.__version__, rapidfuzz.__version__)
    digest.update("\n".join(versions).encode())
    package = Path(__file__).resolve().parent.parent
    for folder, subfolders, names in os.walk(package):
        subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
        for name in sorted(names):
            if name.endswith((".py", ".so", ".pyd")):
                path = os.path.join(folder, name)
                info = os.stat(path)
                rel = os.path.relpath(path, package)
                digest.update(f"{rel}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    return digest.digest()


def context(
    embedded: str,
    commands: tuple[str, ...],
    servers: set[str],
    catalog: Mapping[str, frozenset[str]],
) -> bytes:
    """The parts of a scope's known-tools registry a profile's parse reads, as bytes."""
    shape = [
        embedded,
        sorted(commands),
        sorted(servers),
        sorted((name, sorted(tools)) for name, tools in catalog.items()),
    ]
    return xxhash.xxh3_128_digest(_ENCODER.encode(shape))


class ParseCache:
    """One vault's cache file, read once; :meth:`keep` collects this load's entries and
    :meth:`save` writes them when they differ from what was read."""

    def __init__(self, path: Path, entries: _Entries) -> None:
        self.path = path
        self._read = entries
        self._kept: _Entries = {}

    @classmethod
    def open(cls, path: Path) -> ParseCache:
        """The cache at ``path``; empty when there is none, or it cannot be read or
        decoded, or other code wrote it, or its checksum does not match its content."""
        header = _MAGIC + code_fingerprint()
        try:
            data = path.read_bytes()
        except OSError:
            return cls(path, {})
        start = len(header) + _CHECKSUM
        if not data.startswith(header) or len(data) < start:
            return cls(path, {})
        payload = memoryview(data)[start:]
        if xxhash.xxh3_128_digest(payload) != data[len(header) : start]:
            return cls(path, {})
        try:
            entries = _DECODER.decode(payload)
        except msgspec.MsgspecError:
            return cls(path, {})
        return cls(path, entries)

    def __len__(self) -> int:
        return len(self._read)

    @staticmethod
    def keyer(contexts: Mapping[str | None, bytes]) -> Keyer:
        """The key of a file's bytes, given each scope's :func:`context`."""

        def key(entry: VaultEntry, raw: bytes) -> bytes:
            digest = xxhash.xxh3_128(contexts[entry.project])
            digest.update(entry.rel_path.encode())
            digest.update(b"\0")
            digest.update(raw)
            return digest.digest()

        return key

    def get(self, key: bytes) -> Stripped | None:
        """The parse kept under ``key``, if any."""
        return self._read.get(key)

    def keep(self, key: bytes, parsed: ParsedProfile) -> None:
        """Keep ``parsed`` (a clean parse of the bytes ``key`` was made of) for next time."""
        found = self._read.get(key)
        self._kept[key] = found if found is not None else strip(parsed)

    def save(self) -> None:
        """Write this load's entries, atomically, when they differ from those read; a
        folder that cannot be written is left as it is."""
        if self._kept.keys() == self._read.keys():
            return
        payload = _ENCODER.encode(self._kept)
        checksum = xxhash.xxh3_128_digest(payload)
        data = b"".join((_MAGIC, code_fingerprint(), checksum, payload))
        with contextlib.suppress(OSError):
            atomic_write(self.path, data, mode=0o600, durable=False)
