"""Parsing a large vault's profiles in forked worker processes as well as this one.

``load_vault(..., workers=N)`` hands the profile files to :func:`parse_clean` first. Only
*clean* results come back from a worker: a profile that parsed without an error, as its
model object, its text and its warnings (msgpack, a few µs a profile; pickling the parsed
document would cost more than parsing it again). Its ``ProfileDocument`` is rebuilt from
the text, as the fast path builds it anyway (a frontmatter read without an error reads
the same again). Anything else (an error, a file that cannot be read) is left for the
loader's own pass, which parses it exactly as without workers, so the snapshot is the
same either way (tests/vault/test_parallel_load.py compares them). Warnings come back too:
most profiles of real vaults have one (a tool no registry knows), and parsing them all
again in this process would undo the workers' work (issue 12 item 8).
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from typing import NamedTuple

import msgspec

from agent_roster.diagnostics import Diagnostic
from agent_roster.known_tools import KnownTools
from agent_roster.model.profile import AgentProfile
from agent_roster.parallel import ordered_map
from agent_roster.vault.packed import Packed, pack, unpack
from agent_roster.vault.parse_cache import Keyer
from agent_roster.vault.paths import EntryKind, RawFile, VaultEntry
from agent_roster.vault.profile_parser import ParsedProfile, parse_profile

#: Below this many profile files a load stays in one process.
PARALLEL_MIN_PROFILES = 2_000
#: Profiles per chunk, and bytes of profile files per chunk: small enough that a worker's
#: answer (the text and the parsed profile, about twice the file) fits the pipe
#: (``parallel._PIPE_SIZE``) while this process is busy with a chunk of its own, large
#: enough to keep the overhead low. Counting bytes matters for long prompts: 200 files of
#: 50 KB made a 20 MB answer, and its worker sat blocked on the full pipe until this process
#: finished its own chunk, so a parallel load of such a vault took longer than a serial one.
CHUNK = 200
CHUNK_BYTES = 256 * 1024
#: A profile file larger than this is parsed by this process (the loader's own pass), not
#: sent to a worker: a chunk of one such file would not fit the pipe (``CHUNK_BYTES``
#: above), and its worker would wait on it until this process finished its own chunk.
SHIPPED_MAX = 1 << 20

#: A worker's answer for one profile: its index, its parse cache key (empty without a
#: cache) and the parse (``vault/packed.py``).
_Clean = tuple[int, bytes, Packed]
_Found = list[tuple[int, bytes, ParsedProfile]]
#: The loader's reader: (entry, path, size, diagnostics out) -> bytes or None.
Reader = Callable[[VaultEntry, str, int, list[Diagnostic]], "bytes | None"]
_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(
    list[tuple[int, bytes, tuple[AgentProfile, tuple[Diagnostic, ...], str, int, str]]]
)


class Parsed(NamedTuple):
    """The clean parses by file index, and the cache key of the bytes each was parsed
    from (when a keyer was given)."""

    profiles: dict[int, ParsedProfile]
    keys: dict[int, bytes]


def assumed_server_names(files: Sequence[RawFile]) -> dict[str | None, set[str]]:
    """Per scope, the server names a profile there is checked against, assuming every
    server file can be read (the loader checks that assumption before using a result)."""
    system = {e.id for e, *_ in files if e.kind is EntryKind.MCP_SERVER and e.project is None}
    names: dict[str | None, set[str]] = {None: system}
    for entry, *_ in files:
        if entry.project is not None:
            names.setdefault(entry.project, set(system))
            if entry.kind is EntryKind.MCP_SERVER:
                names[entry.project].add(entry.id)
    return names


def _chunks(files: Sequence[RawFile], skip: Container[int]) -> list[list[int]]:
    # The indexes of the profile files up to SHIPPED_MAX bytes (but those in ``skip``), in
    # order, cut at CHUNK files
    # or CHUNK_BYTES bytes (by the listing's sizes; a file without one counts as empty),
    # whichever comes first.
    chunks: list[list[int]] = []
    chunk: list[int] = []
    size = 0
    for index, (entry, _, info) in enumerate(files):
        if entry.kind is not EntryKind.PROFILE or index in skip:
            continue
        file_size = info.st_size if info is not None else 0
        if file_size > SHIPPED_MAX:
            continue
        chunk.append(index)
        size += file_size
        if len(chunk) == CHUNK or size >= CHUNK_BYTES:
            chunks.append(chunk)
            chunk, size = [], 0
    if chunk:
        chunks.append(chunk)
    return chunks


def parse_clean(
    files: Sequence[RawFile],
    known: dict[str | None, KnownTools],
    read: Reader,
    workers: int,
    *,
    skip: Container[int] = (),
    keyer: Keyer | None = None,
) -> Parsed:
    """The profiles among ``files`` (but those in ``skip``) that parse without an error, by
    index, parsed by up to ``workers`` forked processes and this one; ``known`` holds each
    scope's known tools, ``read`` the loader's reader (``(entry, path, size, out) ->
    bytes``). With a ``keyer``, each parse comes with the cache key of the very bytes it
    was parsed from (the file may change between a cache lookup and this read)."""
    chunks = _chunks(files, skip)

    def run(chunk: list[int]) -> _Found:
        found: _Found = []
        for index in chunk:
            entry, path, info = files[index]
            scratch: list[Diagnostic] = []
            raw = read(entry, path, info.st_size if info else -1, scratch)
            if raw is None:
                continue
            parsed = parse_profile(
                raw,
                path=entry.rel_path,
                expected_id=entry.id,
                project=entry.project,
                known_tools=known[entry.project],
            )
            if (
                parsed.profile is not None
                and parsed.document is not None
                and not any(d.is_error for d in parsed.diagnostics)
            ):
                found.append((index, keyer(entry, raw) if keyer else b"", parsed))
        return found

    def encode(found: _Found) -> bytes:
        return _ENCODER.encode([(i, key, pack(p)) for i, key, p in found])

    def decode(data: bytearray) -> _Found:
        return [
            (index, key, unpack(files[index][0].rel_path, packed))
            for index, key, packed in _DECODER.decode(data)
        ]

    done = Parsed({}, {})
    for found in ordered_map(run, chunks, workers, encode=encode, decode=decode):
        for index, key, parsed in found:
            done.profiles[index] = parsed
            if key:
                done.keys[index] = key
    return done
