"""Shared test fixtures: a tree builder, a guard against touching the real home, the
oracle kit (a fake model on loopback and a stdio MCP stub, ``tests/oracles/``), under CI,
no skipped tests, and no run on a stale mypyc build (``scripts/native.py``)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from .ci_skips import pytest_runtest_makereport  # noqa: F401 (a hook pytest finds here)
from .file_modules import load_file_module
from .oracles.fixtures import fake_model, mcp_stub  # noqa: F401 (fixtures for every folder)
from .trees import Tree, build_tree


@pytest.fixture
def make_tree(tmp_path: Path):  # type: ignore[no-untyped-def]
    def make(tree: Tree, sub: str = "vault") -> Path:
        root = tmp_path / sub
        root.mkdir(parents=True, exist_ok=True)
        return build_tree(root, tree)

    return make


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Point HOME at a temporary folder and fail the test if the real home changes."""
    real_home = Path(os.path.expanduser("~"))
    fake_home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(fake_home))
    monkeypatch.delenv("ROSTER_VAULT", raising=False)
    monkeypatch.delenv("ROSTER_DB", raising=False)
    before = _snapshot(real_home)
    yield
    assert _snapshot(real_home) == before, "a test wrote into the real home directory"


def _snapshot(home: Path) -> set[str]:
    try:
        return {p.name for p in home.iterdir() if p.name.startswith((".roster", "roster"))}
    except OSError:
        return set()


def native_script() -> ModuleType:
    """``scripts/native.py``, which builds and checks the mypyc build of the hot modules."""
    path = Path(__file__).resolve().parent.parent / "scripts" / "native.py"
    return load_file_module(path, "roster_native_script")


def pytest_configure(config: pytest.Config) -> None:
    """Python imports a compiled module instead of its source: after an edit, an old build
    would have the suite test the code as it was, not as it is."""
    stale = native_script().stale()
    if stale:
        pytest.exit(
            f"compiled modules not built from the sources as they are: {', '.join(stale)}; "
            "run `python scripts/native.py build` (or `clean` for pure Python)",
            returncode=2,
        )
