"""The parse cache: a load that takes parses from it gives exactly the snapshot a load that
parses every file gives, and nothing stale ever comes back."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from agent_roster.vault import loader, parallel_load, parse_cache
from agent_roster.vault.loader import VaultSnapshot, load_vault
from agent_roster.vault.parse_cache import ParseCache, cache_path

from ..example_copies import EXAMPLES, add_copies


@pytest.fixture(autouse=True)
def _small_vaults_use_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # The test vaults have a few dozen profiles; the real threshold is a thousand.
    monkeypatch.setattr(parse_cache, "CACHE_MIN_PROFILES", 10)
    monkeypatch.delenv(parse_cache.ENV, raising=False)


def _vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    shutil.copytree(EXAMPLES, root)
    add_copies(root, 4)
    folder = root / "agent-types"
    # One profile with an error (never cached), one with a warning (cached with it), and
    # one with a long prompt (kept once, around its body).
    broken = folder / "coding-1" / "profile.md"
    broken.write_text(broken.read_text().replace('"model":', '"model" ', 1))
    warned = folder / "coding-2" / "profile.md"
    warned.write_text(warned.read_text().replace('"Read"', '"shell", "Read"', 1))
    long = folder / "coding-3" / "profile.md"
    long.write_text(long.read_text() + "\n## Notes\n" + "a line of prose\n" * 3000)
    return root


class _Parses:
    """Counts the files the loader's own pass parses, by path."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.paths: list[str] = []
        real = loader.parse_profile

        def counting(raw, **kwargs):  # type: ignore[no-untyped-def]
            self.paths.append(kwargs["path"])
            return real(raw, **kwargs)

        monkeypatch.setattr(loader, "parse_profile", counting)

    def take(self) -> list[str]:
        taken, self.paths = self.paths, []
        return taken


def _same(a: VaultSnapshot, b: VaultSnapshot) -> None:
    assert list(a.profiles) == list(b.profiles)
    assert a.profiles == b.profiles
    assert a.servers == b.servers
    assert a.all_diagnostics() == b.all_diagnostics()
    for key, parsed in a.profiles.items():
        other = b.profiles[key].document
        assert parsed.document is not None and other is not None
        assert parsed.document.text == other.text


def test_a_second_load_parses_only_what_cannot_be_cached_and_gives_the_same_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _vault(tmp_path)
    monkeypatch.setenv(parse_cache.ENV, "0")
    plain = load_vault(root, cache=True)
    assert not cache_path(root).exists()  # turned off: nothing written
    monkeypatch.delenv(parse_cache.ENV)
    parses = _Parses(monkeypatch)
    first = load_vault(root, cache=True)
    profiles = len(first.profiles)
    assert len(parses.take()) == profiles > 30
    path = cache_path(root)
    assert path.parent == tmp_path / ".roster"  # beside the vault, not in it
    assert len(ParseCache.open(path)) == profiles - 1  # all but the broken one
    second = load_vault(root, cache=True)
    assert parses.take() == ["agent-types/coding-1/profile.md"]  # errors are parsed afresh
    _same(first, plain)
    _same(second, plain)
    codes = {d.code for d in second.all_diagnostics()}
    assert {"json-invalid", "tool-unknown"} <= codes
    long = second.profiles[(None, "coding-3")]
    assert long.document is not None and long.document.pieces is not None  # kept once
    assert long.profile is not None
    held = long.document.pieces[1]
    assert any(section.body is held for section in long.profile.sections)
    # Entries hold no text: the prose is read from the file each time.
    assert b"a line of prose" not in path.read_bytes()
    # Nothing changed: the file is not written again.
    written = path.stat().st_mtime_ns
    load_vault(root, cache=True)
    assert path.stat().st_mtime_ns == written


def test_an_edited_file_is_parsed_again_even_with_its_old_size_and_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _vault(tmp_path)
    load_vault(root, cache=True)
    parses = _Parses(monkeypatch)
    edited = root / "agent-types" / "qa-2" / "profile.md"
    before = edited.read_bytes()
    # The same size and modification time: only the content tells the change.
    info = edited.stat()
    after = before.replace(b"name: ", b"name: X", 1)[: len(before)]
    edited.write_bytes(after)
    os.utime(edited, ns=(info.st_atime_ns, info.st_mtime_ns))
    changed = load_vault(root, cache=True)
    assert sorted(parses.take()) == [
        "agent-types/coding-1/profile.md",
        "agent-types/qa-2/profile.md",
    ]
    profile = changed.profiles[(None, "qa-2")].profile
    assert profile is not None and profile.name.startswith("X")
    edited.write_bytes(before)
    undone = load_vault(root, cache=True)
    # The cache keeps only the current vault's entries: the first version's parse is gone,
    # so it is parsed again, and comes back as it was.
    assert sorted(parses.take()) == [
        "agent-types/coding-1/profile.md",
        "agent-types/qa-2/profile.md",
    ]
    monkeypatch.setenv(parse_cache.ENV, "0")
    _same(undone, load_vault(root))


def test_a_registry_change_reparses_the_scope_whose_checks_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A profile's warnings depend on the servers its scope has: a new server file makes
    # every profile's key new, and the tool it offers is no longer unknown.
    root = _vault(tmp_path)
    first = load_vault(root, cache=True)
    warned = [d.message for d in first.profiles[(None, "coding-2")].diagnostics]
    assert any("shell" in m for m in warned)
    parses = _Parses(monkeypatch)
    (root / "mcp-servers" / "shell.md").write_text(
        (root / "mcp-servers" / "github.md").read_text().replace("github", "shell")
    )
    again = load_vault(root, cache=True)
    assert len(parses.take()) == len(again.profiles)
    monkeypatch.setenv(parse_cache.ENV, "0")
    _same(again, load_vault(root))


def test_embedded_commands_and_the_catalog_are_part_of_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _vault(tmp_path)
    load_vault(root, cache=True)
    parses = _Parses(monkeypatch)
    load_vault(root, cache=True, commands=["shell"])
    assert len(parses.take()) > 30
    load_vault(root, cache=True, commands=["shell"])
    assert len(parses.take()) == 1
    catalog = {(None, "github"): frozenset({"create_issue"})}
    load_vault(root, cache=True, commands=["shell"], catalog=catalog)
    assert len(parses.take()) > 30


def test_a_cache_from_other_code_or_corrupt_is_ignored_and_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _vault(tmp_path)
    first = load_vault(root, cache=True)
    path = cache_path(root)
    data = path.read_bytes()
    parses = _Parses(monkeypatch)
    fingerprint = len(b"roster parse cache 2\n")
    assert data[fingerprint : fingerprint + 16] == parse_cache.code_fingerprint()
    for spoiled in (
        data[: len(data) // 2],  # cut short
        data.replace(b"roster parse cache 2", b"roster parse cache 0", 1),  # another format
        data[:fingerprint] + bytes(16) + data[fingerprint + 16 :],  # other code's
        data[:-3] + b"\x00" + data[-2:],  # one byte damaged
        b"",
    ):
        path.write_bytes(spoiled)
        again = load_vault(root, cache=True)
        assert len(parses.take()) == len(first.profiles)
        _same(again, first)
        assert path.read_bytes() == data  # rewritten whole
    # Another version of the code (here: an edited module) does not use it either.
    monkeypatch.setattr(parse_cache, "code_fingerprint", lambda: b"\x01" * 16)
    load_vault(root, cache=True)
    assert len(parses.take()) == len(first.profiles)


def test_the_fingerprint_follows_the_package_code(tmp_path: Path) -> None:
    package = Path(parse_cache.__file__).resolve().parent.parent
    parse_cache.code_fingerprint.cache_clear()
    before = parse_cache.code_fingerprint()
    module = package / "vault" / "packed.py"
    info = module.stat()
    try:
        os.utime(module, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000))
        parse_cache.code_fingerprint.cache_clear()
        assert parse_cache.code_fingerprint() != before
    finally:
        os.utime(module, ns=(info.st_atime_ns, info.st_mtime_ns))
        parse_cache.code_fingerprint.cache_clear()
    assert parse_cache.code_fingerprint() == before


def test_a_state_folder_that_cannot_be_written_costs_the_cache_only(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    (tmp_path / ".roster").write_text("a file where the folder would be")
    first = load_vault(root, cache=True)
    assert (tmp_path / ".roster").read_text() == "a file where the folder would be"
    _same(first, load_vault(root))


def test_small_vaults_keep_no_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _vault(tmp_path)
    monkeypatch.setattr(parse_cache, "CACHE_MIN_PROFILES", 1000)
    load_vault(root, cache=True)
    assert not cache_path(root).exists()


def test_workers_and_the_cache_together_give_the_same_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The workers key each parse by the bytes they read; a second load finds them all.
    root = _vault(tmp_path)
    serial = load_vault(root)
    monkeypatch.setattr(parallel_load, "PARALLEL_MIN_PROFILES", 2)
    monkeypatch.setattr(parallel_load, "CHUNK", 7)
    split = load_vault(root, workers=1, cache=True)
    _same(split, serial)
    parses = _Parses(monkeypatch)
    warm = load_vault(root, workers=1, cache=True)
    assert parses.take() == ["agent-types/coding-1/profile.md"]
    _same(warm, serial)
    # Each kept key is the key of the file as it is now.
    kept = ParseCache.open(cache_path(root))
    assert len(kept) == len(serial.profiles) - 1


def test_a_scope_whose_registry_changed_during_the_load_is_not_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A server file that cannot be read makes the registry smaller than the key assumed:
    # the profiles of that scope are parsed against the real one and not kept.
    root = _vault(tmp_path)
    github = os.fspath(root / "mcp-servers" / "github.md")
    real_read = loader._read_file

    def failing(path: str, size: int) -> bytes:
        if path == github:
            raise PermissionError(13, "Permission denied", path)
        return real_read(path, size)

    monkeypatch.setattr(loader, "_read_file", failing)
    snapshot = load_vault(root, cache=True)
    assert any(d.code == "file-unreadable" for d in snapshot.diagnostics)
    assert len(ParseCache.open(cache_path(root))) == 0


def test_a_render_after_an_edit_writes_the_edit(tmp_path: Path) -> None:
    # The render path (load_effective) uses the cache: the second render takes the parses
    # from it, and a prompt edited in between comes out in the rendered file.
    from agent_roster.commands.harness import render_agents

    root = _vault(tmp_path)
    out = tmp_path / "out"
    render_agents(root, ["claude"], out=out, allow_widening=True)
    assert cache_path(root).exists()
    edited = root / "agent-types" / "qa-2" / "profile.md"
    edited.write_text(edited.read_text().replace("## Role\n", "## Role\nEdited line.\n", 1))
    report = render_agents(root, ["claude"], out=out, allow_widening=True)
    changed = [f.path for f in report.files if f.status == "updated"]
    assert changed == [str(out / ".claude" / "agents" / "qa-2.md")]
    assert "Edited line." in (out / ".claude" / "agents" / "qa-2.md").read_text()
