"""The example vault and the starter vault render for every harness without an error
(issue 13 item 6), through the real ``roster`` command: a newcomer's first ``render --to X``
must not fail on the vault we ship."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent_roster.codecs import codec_names, get_codec

from .helpers import EXAMPLES

ROSTER = str(Path(sys.executable).with_name("roster"))


def roster(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ROSTER, *args], capture_output=True, text=True, cwd=cwd, timeout=300, check=False
    )


@pytest.mark.parametrize(
    ("which", "project"), [("example", None), ("example", "webshop"), ("starter", None)]
)
def test_the_shipped_vaults_render_for_every_harness(
    tmp_path: Path, which: str, project: str | None
) -> None:
    """Every profile is written, or refused because the harness cannot hold one of its
    restrictions (issue 12 item 2: the shipped coding agents deny `rm -rf` while Bash is
    allowed, which only OpenCode can say); no other error. With --allow-widening every
    profile is written and the report says what widened."""
    if which == "starter":  # what `roster init` writes
        assert roster("init", "vault", cwd=tmp_path).returncode == 0
        vault = tmp_path / "vault"
    else:
        vault = EXAMPLES
    harnesses = codec_names()
    assert len(harnesses) >= 8
    to = [arg for name in harnesses for arg in ("--to", name)]
    scope = ["--project", project] if project else []
    args = ["--vault", str(vault), "render", *to, *scope, "--out", "ws", "--json"]
    done = roster(*args, cwd=tmp_path)
    report = json.loads(done.stdout)
    errors = [d for d in report["diagnostics"] if d["severity"] == "error"]
    assert {d["code"] for d in errors} <= {"render-widens"}, done.stderr
    assert done.returncode == (1 if errors else 0)
    refused = {
        (loss["profile"], harness)
        for loss in report["losses"]
        if loss["outcome"] == "refused"
        for harness in harnesses
        if f"{_TITLES[harness]} would" in loss["detail"]
    }
    assert not [h for p, h in refused if h == "opencode"]  # OpenCode holds every rule
    ids = {p.parent.name for p in (vault / "agent-types").glob("*/profile.md")}
    for harness in harnesses:
        written = " ".join(f["path"] for f in report["files"] if f["harness"] == harness)
        for pid in ids:
            assert (pid in written) != ((pid, harness) in refused), (harness, pid, written)
    (tmp_path / "wide").mkdir()
    wide = roster(*args[:-1], "--allow-widening", "--json", cwd=tmp_path / "wide")
    report = json.loads(wide.stdout)
    assert wide.returncode == 0 and not [
        d for d in report["diagnostics"] if d["severity"] == "error"
    ], wide.stderr
    widened = {loss["profile"] for loss in report["losses"] if loss["outcome"] == "widened"}
    # Under --allow-widening nothing is narrowed either: each agent is written as close to
    # its profile as the harness holds, so the narrowed ones widen too (and say so).
    assert widened >= {pid for pid, _ in refused}
    for harness in harnesses:
        written = " ".join(f["path"] for f in report["files"] if f["harness"] == harness)
        assert all(pid in written for pid in ids), (harness, written)
    assert roster(*args[:-1], "--allow-widening", "--check", cwd=tmp_path / "wide").returncode == 0


_TITLES = {name: get_codec(name).title for name in codec_names()}
