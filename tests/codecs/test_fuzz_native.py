"""Issue 11 item 4: a fuzz test per harness, in CI. No native file crashes roster.

Hypothesis draws projects of each harness's native files (``fuzz_native.py``: valid-shaped
JSON, TOML and markdown with frontmatter over the harness's own keys, with wrong types,
missing keys and odd nesting, and now and then damaged or random bytes), and runs discover,
``import`` and ``render`` on them through the command functions: no exception may escape,
and every diagnostic says where (path, line, column) and what (a registered code). The
examples are derandomized, so CI runs the same ones every time (``ROSTER_FUZZ_EXAMPLES``
raises their number, ``ROSTER_FUZZ_RANDOM=1`` draws new ones: for a longer hunt by hand).
A few broken projects also go through the real ``roster`` command: exit 0 or 1, never 70.
Every codec is fuzzed (``test_every_harness_is_fuzzed``); 120 examples per harness keep the
twelve under about 200 s of CI time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_roster.codecs import codec_names
from agent_roster.diagnostics import CODES

from ..trees import build_tree
from .fuzz_native import FILES, HARNESSES, KEYS, VAULT, exercise, projects, to_toml, to_yaml

ROSTER = str(Path(sys.executable).with_name("roster"))


def test_every_harness_is_fuzzed() -> None:
    """A new codec gets its native files in ``fuzz_native.FILES`` (and keys in ``KEYS``)."""
    assert set(HARNESSES) == set(codec_names())
    assert set(KEYS) == set(codec_names())


@pytest.mark.parametrize("harness", HARNESSES)
@settings(
    max_examples=int(os.environ.get("ROSTER_FUZZ_EXAMPLES", "120")),
    deadline=None,
    derandomize=not os.environ.get("ROSTER_FUZZ_RANDOM"),
    database=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)
@given(data=st.data())
def test_no_native_file_crashes_roster(harness: str, data: st.DataObject, tmp_path: Path) -> None:
    files = data.draw(projects(harness), label="files")
    assert exercise(harness, files, root=tmp_path) == []


def _broken(harness: str) -> dict[str, bytes]:
    """Every file ``harness`` reads, each broken a different way: a wrong type in the
    first, a byte that is not UTF-8 in the second, a cut in the third, the rest valid."""
    out: dict[str, bytes] = {}
    for index, (path, kind, base) in enumerate(FILES[harness]):
        doc: dict[str, Any] = json.loads(json.dumps(base))
        if index == 0:
            for key in list(doc)[:2]:
                doc[key] = [1, {"x": None}]
        if kind == "md":
            text = f"---\n{to_yaml(doc)}---\nYou help.\n"
        elif kind == "toml":
            text = to_toml(doc)
        elif kind == "json":
            text = json.dumps(doc)
        else:
            text = "You help.\n"
        data = text.encode("utf-8")
        if index == 1:
            data = data[:3] + b"\xff" + data[3:]
        elif index == 2:
            data = data[: len(data) // 2]
        out[path] = data
    if harness == "defect":
        out["ws/.git/HEAD"] = b"ref: refs/heads/main\n"
    return out


def _located(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        d
        for d in found
        if not d["path"] or d["line"] < 1 or d["column"] < 1 or d["code"] not in CODES
    ]


@pytest.mark.parametrize("harness", HARNESSES)
def test_the_roster_command_reports_broken_files(harness: str, tmp_path: Path) -> None:
    build_tree(tmp_path, _broken(harness))
    workspace, home, vault = tmp_path / "ws", tmp_path / "home", tmp_path / "vault"
    build_tree(vault, VAULT)  # its agents a and b render over the broken files
    for folder in (workspace, home):
        folder.mkdir(parents=True, exist_ok=True)
    roots = ("--workspace", str(workspace), "--home", str(home))
    commands = {
        "discover": ("discover", "--harness", harness, *roots, "--json"),
        "import": ("--vault", str(vault), "import", "--from", harness, *roots, "--json"),
        "render": (
            *("--vault", str(vault), "render", "--to", harness, "--out", str(workspace)),
            "--json",
        ),
    }
    for name, argv in commands.items():
        done = subprocess.run(
            [ROSTER, *argv], capture_output=True, text=True, timeout=300, check=False
        )
        assert done.returncode in (0, 1), (name, done.returncode, done.stderr)
        assert "internal error" not in done.stderr, (name, done.stderr)
        if "--json" in argv:
            assert _located(json.loads(done.stdout)["diagnostics"]) == [], name
    # Discover found what is broken: each harness reads at least the first two files.
    report = json.loads(
        subprocess.run(
            [ROSTER, *commands["discover"]], capture_output=True, text=True, check=False
        ).stdout
    )
    assert any(d["severity"] == "error" for d in report["diagnostics"])
