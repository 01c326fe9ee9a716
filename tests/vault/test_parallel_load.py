"""load_vault with forked workers gives exactly the snapshot a single process gives."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from agent_roster.vault import loader, parallel_load
from agent_roster.vault.loader import load_vault
from agent_roster.vault.packed import WHOLE, pack, unpack
from agent_roster.vault.paths import EntryKind, VaultLayout
from agent_roster.vault.profile_parser import parse_profile

from ..example_copies import EXAMPLES, add_copies


def _vault(tmp_path: Path, copies: int) -> Path:
    root = tmp_path / "vault"
    shutil.copytree(EXAMPLES, root)
    add_copies(root, copies)
    folder = root / "agent-types"
    # Profiles the careful path reports on: invalid JSON, a wrong id, an unknown server.
    broken = folder / "coding-1" / "profile.md"
    broken.write_text(broken.read_text().replace('"model":', '"model" ', 1))
    wrong = folder / "qa-2" / "profile.md"
    wrong.write_text(wrong.read_text().replace("id: qa-2\n", "id: qa-two\n", 1))
    unknown = folder / "qa-3" / "profile.md"
    unknown.write_text(
        unknown.read_text().replace('["playwright",', '["nowhere", "playwright",', 1)
    )
    # Profiles with warnings only, which come back from the workers with them: a tool no
    # registry knows (the fast path's warning) and a misspelt Config key (the careful
    # path's).
    for name, old, new in (
        ("coding-2", '"Read"', '"shell", "Read"'),
        ("qa-3", '"model":', '"modle": 1, "model":'),
    ):
        warned = folder / name / "profile.md"
        text = warned.read_text()
        assert old in text
        warned.write_text(text.replace(old, new, 1))
    return root


def _loads(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[loader.VaultSnapshot, loader.VaultSnapshot]:
    serial = load_vault(root)
    calls: list[int] = []
    real = parallel_load.parse_clean

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(parallel_load, "PARALLEL_MIN_PROFILES", 2)
    monkeypatch.setattr(parallel_load, "CHUNK", 7)
    monkeypatch.setattr(parallel_load, "parse_clean", counting)
    split = load_vault(root, workers=1)
    assert calls == [1]
    return serial, split


def _with_long_profile(tmp_path: Path, lines: int) -> tuple[Path, Path]:
    """The test vault with ``coding-3``'s prompt made ``lines`` lines of prose longer."""
    root = _vault(tmp_path, 8)
    long = root / "agent-types" / "coding-3" / "profile.md"
    long.write_text(long.read_text() + "\n## Notes\n" + "a line of prose\n" * lines)
    return root, long


def _same_as_serial(root: Path, monkeypatch: pytest.MonkeyPatch) -> loader.VaultSnapshot:
    """The parallel load of ``root``, checked equal to the serial one."""
    serial, split = _loads(root, monkeypatch)
    assert split.profiles == serial.profiles
    assert split.all_diagnostics() == serial.all_diagnostics()
    return split


def test_workers_give_the_same_snapshot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _vault(tmp_path, 8)
    serial, split = _loads(root, monkeypatch)
    assert len(serial.profiles) > 50
    assert list(split.profiles) == list(serial.profiles)
    assert split.profiles == serial.profiles
    assert split.servers == serial.servers
    assert split.diagnostics == serial.diagnostics
    warned = [
        d.code for key in ("coding-2", "qa-3") for d in split.profiles[(None, key)].diagnostics
    ]
    assert warned == ["tool-unknown", "field-unknown"]
    assert split.all_diagnostics() == serial.all_diagnostics()
    # The broken ones were reported, with positions, as without workers.
    codes = {d.code for d in serial.all_diagnostics()}
    assert {"json-invalid", "id-mismatch", "mcp-server-unknown"} <= codes, codes
    # Documents of clean profiles are rebuilt from their text, equal to the serial ones.
    key = (None, "coding-5")
    assert split.profiles[key].document == serial.profiles[key].document
    assert split.profiles[key].document.structure.sections  # type: ignore[union-attr]


def test_an_unreadable_server_file_sends_its_scope_back_to_the_serial_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A server file that cannot be read leaves the registry smaller than the workers
    # assumed: their results for that scope are not used. (The tests run as root, for
    # whom permissions never fail a read, so the read itself is made to fail.)
    root = _vault(tmp_path, 4)
    github = os.fspath(root / "mcp-servers" / "github.md")
    real_read = loader._read_file

    def failing(path: str, size: int) -> bytes:
        if path == github:
            raise PermissionError(13, "Permission denied", path)
        return real_read(path, size)

    monkeypatch.setattr(loader, "_read_file", failing)
    serial, split = _loads(root, monkeypatch)
    assert split.profiles == serial.profiles
    assert split.diagnostics == serial.diagnostics
    unreadable = [d for d in serial.diagnostics if d.code == "file-unreadable"]
    assert [d.path for d in unreadable] == ["mcp-servers/github.md"]
    # Profiles naming the server now see it as unknown, as without workers.
    assert any(d.code == "mcp-server-unknown" for d in split.all_diagnostics())


def test_chunks_are_cut_at_a_byte_budget_as_well_as_a_file_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A worker's answer must fit its pipe while this process parses a chunk of its own:
    # a chunk of long prompts is cut by bytes, and the snapshot stays the same.
    root, long = _with_long_profile(tmp_path, 8000)
    monkeypatch.setattr(parallel_load, "CHUNK_BYTES", 32 * 1024)
    monkeypatch.setattr(parallel_load, "SHIPPED_MAX", 1 << 20)
    files = list(VaultLayout(root).iter_files([]))
    monkeypatch.setattr(parallel_load, "CHUNK", 20)
    chunks = parallel_load._chunks(files, ())
    profiles = [i for i, f in enumerate(files) if f[0].kind is EntryKind.PROFILE]
    assert [i for chunk in chunks for i in chunk] == profiles

    def size(chunk: list[int]) -> int:
        return sum(files[i][2].st_size for i in chunk)  # type: ignore[union-attr]

    for chunk in chunks[:-1]:
        assert len(chunk) == 20 or size(chunk) >= 32 * 1024 > size(chunk[:-1])
    assert all(len(chunk) <= 20 for chunk in chunks)
    assert any(len(chunk) < 20 for chunk in chunks[:-1])  # the byte budget cut one
    holding = next(chunk for chunk in chunks if files[chunk[-1]][1] == str(long))
    assert size(holding) >= 32 * 1024
    _same_as_serial(root, monkeypatch)


def test_a_profile_over_the_shipping_limit_is_parsed_here_not_sent_from_a_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A worker's answer must fit its pipe: files over SHIPPED_MAX stay out of the workers'
    # chunks, and the loader's own pass parses them, so the snapshot is the same.
    monkeypatch.setattr(parallel_load, "SHIPPED_MAX", 16 * 1024)
    root, long = _with_long_profile(tmp_path, 2000)
    files = list(VaultLayout(root).iter_files([]))
    chunked = {i for chunk in parallel_load._chunks(files, ()) for i in chunk}
    profiles = {i for i, f in enumerate(files) if f[0].kind is EntryKind.PROFILE}
    kept_here = {i for i in profiles if files[i][1] == str(long)}
    assert files[next(iter(kept_here))][2].st_size > parallel_load.SHIPPED_MAX  # type: ignore[union-attr]
    assert chunked == profiles - kept_here
    split = _same_as_serial(root, monkeypatch)
    assert "a line of prose" in split.profiles[(None, "coding-3")].document.text  # type: ignore[union-attr]


def test_a_long_prompt_crosses_from_a_worker_once_and_comes_back_as_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A document keeping a long body once sends the text around it and the index of the
    # section holding it: the body crosses the pipe inside the profile only, and the
    # document rebuilt here shares it again and gives back the file's text exactly.
    root, long = _with_long_profile(tmp_path, 2000)
    text = long.read_text()
    parsed = parse_profile(text, path="agent-types/coding-3/profile.md", expected_id="coding-3")
    assert parsed.document is not None and parsed.document.pieces is not None
    packed = pack(parsed)
    assert packed[3] != WHOLE
    assert len(packed[2]) + len(packed[4]) < len(text) // 10  # the body is not in them
    wire = parallel_load._DECODER.decode(parallel_load._ENCODER.encode([(7, b"", packed)]))[0]
    assert wire[:2] == (7, b"")
    back = unpack("agent-types/coding-3/profile.md", wire[2])
    assert back.document is not None and back.profile is not None
    pieces = back.document.pieces
    assert pieces is not None and pieces[1] is back.profile.sections[wire[2][3]].body
    assert back.document.text == text
    assert back == parsed
    # A short profile's text comes whole, and an unshared document too.
    short = parse_profile("---\nid: a\nname: A\n---\n## Role\nHi.\n", path="p.md")
    assert pack(short)[2:] == (short.document.text, WHOLE, "")  # type: ignore[union-attr]
    # Parsed by whichever process, the snapshot is the serial one.
    split = _same_as_serial(root, monkeypatch)
    assert split.profiles[(None, "coding-3")].document.text == text  # type: ignore[union-attr]
