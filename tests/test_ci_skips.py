"""Under CI a skip is a failure (issue 13 item 5), checked in a pytest of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PLUGIN = Path(__file__).with_name("ci_skips.py")
PROBE = """
import pytest

def test_needs_a_cli():
    pytest.skip("the claude CLI is not installed")

@pytest.mark.xfail(reason="a known bug")
def test_known_bug():
    assert False
"""


@pytest.mark.parametrize(
    ("ci", "code", "summary"), [("true", 1, "1 failed, 1 xfailed"), ("", 0, "1 skipped, 1 xfailed")]
)
def test_a_skip_fails_only_under_ci(tmp_path: Path, ci: str, code: int, summary: str) -> None:
    (tmp_path / "conftest.py").write_text(PLUGIN.read_text())
    (tmp_path / "test_probe.py").write_text(PROBE)
    env = {**os.environ, "CI": ci}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            str(tmp_path),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == code, done.stdout
    assert summary in done.stdout
    if ci:
        assert (
            "CI is set, so a skipped test fails: Skipped: the claude CLI is not installed"
            in done.stdout
        )
