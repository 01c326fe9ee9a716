"""The mypyc build of the render's hot modules (``scripts/native.py``): in use exactly where
it was built, and rendering, byte for byte, what the sources render."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agent_roster.codecs import codec_names

from .conftest import native_script

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import vaultgen

ROOT = Path(__file__).resolve().parents[1]


def test_every_module_on_the_list_exists() -> None:
    native = native_script()
    names = native.modules()
    assert names, "pyproject.toml lists no module to compile"
    for name in names:
        assert native.source_of(name).is_file(), name


def test_a_module_is_compiled_exactly_where_this_interpreter_has_a_build() -> None:
    native = native_script()
    compiled = []
    for name in native.modules():
        module = importlib.import_module(name)
        loaded = str(module.__file__)
        assert loaded.endswith(native.SUFFIX) == native.compiled_of(name).exists(), loaded
        compiled.append(loaded.endswith(native.SUFFIX))
    # CI builds for the project's default environment and must not fall back quietly.
    if os.environ.get("ROSTER_NATIVE") == "require" and Path(sys.prefix) == ROOT / ".venv":
        assert all(compiled), "ROSTER_NATIVE=require, yet a hot module runs from source"


def test_a_changed_source_makes_the_build_stale(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    native = native_script()
    name = native.modules()[0]
    src = tmp_path / "src"
    source = src.joinpath(*name.split(".")).with_suffix(".py")
    source.parent.mkdir(parents=True)
    source.write_text("X = 1\n", encoding="utf-8")
    monkeypatch.setattr(native, "SRC", src)
    monkeypatch.setattr(native, "MANIFEST", src / ".native-build.json")
    monkeypatch.setattr(native, "modules", lambda: [name])
    assert native.stale() == []  # nothing built: nothing stale
    native.compiled_of(name).write_bytes(b"")
    assert native.stale() == [name]  # built, with no record of its source
    record = {"suffix": native.SUFFIX, "sources": native.source_hashes([name])}
    native.MANIFEST.write_text(json.dumps(record), encoding="utf-8")
    assert native.stale() == []
    source.write_text("X = 2\n", encoding="utf-8")
    assert native.stale() == [name]
    record = {"suffix": native.SUFFIX, "sources": native.source_hashes([name])}
    native.MANIFEST.write_text(json.dumps(record), encoding="utf-8")
    assert native.stale() == []
    monkeypatch.setattr(native, "modules", lambda: [])
    assert native.stale() == [name]  # taken off the list, yet Python would still import it
    native.clean()
    assert not native.compiled_of(name).exists() and not native.MANIFEST.exists()


def _render(src: Path, vault: Path, out: Path) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    command = [sys.executable, "-m", "agent_roster", "--vault", str(vault), "render", "--json"]
    command += [arg for name in codec_names() for arg in ("--to", name)]
    done = subprocess.run(
        [*command, "--allow-widening", "--out", str(out)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    report: dict[str, object] = json.loads(done.stdout)
    return report


def _tree(out: Path) -> dict[str, object]:
    found: dict[str, object] = {}
    for path in sorted(out.rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(out).as_posix()
        if rel == ".roster-ledger.json":
            ledger = json.loads(path.read_text(encoding="utf-8"))
            for entry in ledger["files"].values():
                for writer in entry["writers"]:
                    writer.pop("rendered_at")
            found[rel] = ledger
        else:
            found[rel] = path.read_bytes()
    return found


@pytest.mark.parametrize("shape", ["warnings", "many-servers", "big-prompts"])
def test_the_build_renders_what_the_sources_render(tmp_path: Path, shape: str) -> None:
    """Every harness, refusals and widenings included: the same files, the same bytes, the
    same report, whether this interpreter runs the compiled modules or their sources."""
    vault = tmp_path / "vault"
    vaultgen.generate(vault, profiles=60, servers=20, projects=2, shape=shape, seed=11)
    pure = tmp_path / "pure-src"
    shutil.copytree(ROOT / "src", pure, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    # Both into the same folder, moved aside after: the report names files by full path.
    out = tmp_path / "out"
    here = _render(ROOT / "src", vault, out)
    out.rename(tmp_path / "here")
    source = _render(pure, vault, out)
    out.rename(tmp_path / "source")
    assert here == source
    assert _tree(tmp_path / "here") == _tree(tmp_path / "source")
    assert len(_tree(tmp_path / "here")) > 60
