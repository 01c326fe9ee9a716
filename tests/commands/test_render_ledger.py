"""Render owns exactly what it writes (issue 13 item 1), through the real ``roster`` command.

Each test runs the installed ``roster`` script as a subprocess against small vaults: the
render ledger (``.roster-ledger.json`` in the output folder) records every file a render
wrote; ``--check`` fails on stale files; ``--prune`` deletes only stale files roster wrote
and nobody edited since; two harnesses or two vaults in one folder keep each other's files;
``roster why`` names the profile, harness and render of a file.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROSTER = str(Path(sys.executable).with_name("roster"))
LEDGER = ".roster-ledger.json"

SERVER = """---
name: {name}
transport: stdio
command: npx
args: ["-y", "@example/{name}"]
---
"""


def profile(pid: str, servers: tuple[str, ...] = ()) -> str:
    return f"""---
id: {pid}
name: {pid.title()}
description: The {pid} agent.
---
## Role
You are {pid}.

## Config
```json
{{"model": "claude-sonnet-4-6"}}
```

## MCP Servers
```json
{json.dumps(list(servers))}
```
"""


def make_vault(root: Path, profiles: dict[str, tuple[str, ...]], servers: tuple[str, ...]) -> Path:
    tree: dict[str, str] = {
        f"agent-types/{p}/profile.md": profile(p, s) for p, s in profiles.items()
    }
    tree.update({f"mcp-servers/{s}.md": SERVER.format(name=s) for s in servers})
    for rel, text in tree.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def roster(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ROSTER, *args], capture_output=True, text=True, cwd=cwd, timeout=120, check=False
    )


def render(vault: Path, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return roster("--vault", str(vault), "render", "--out", str(out), *args)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return make_vault(
        tmp_path / "vault",
        {"coding": ("docs",), "qa": ("docs",), "review": ()},
        ("docs",),
    )


def agent(out: Path, pid: str) -> Path:
    return out / ".claude" / "agents" / f"{pid}.md"


def ledger(out: Path) -> dict[str, dict[str, object]]:
    files = json.loads((out / LEDGER).read_text())["files"]
    assert isinstance(files, dict)
    return files


def test_a_deleted_profile_fails_check_and_prune_removes_it(vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "ws"
    assert render(vault, out, "--to", "claude").returncode == 0
    assert render(vault, out, "--to", "claude", "--check").returncode == 0
    shutil.rmtree(vault / "agent-types" / "qa")
    # The harness would still load qa.md: --check says so and fails.
    checked = render(vault, out, "--to", "claude", "--check")
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert f"stale     {agent(out, 'qa')} (--prune removes it)" in checked.stdout
    assert agent(out, "qa").is_file()
    # A render without --prune reports it and leaves it.
    plain = render(vault, out, "--to", "claude")
    assert plain.returncode == 0 and "stale" in plain.stdout and agent(out, "qa").is_file()
    pruned = render(vault, out, "--to", "claude", "--prune")
    assert pruned.returncode == 0, pruned.stderr
    assert f"removed   {agent(out, 'qa')}" in pruned.stdout
    assert not agent(out, "qa").exists()
    assert agent(out, "coding").is_file() and agent(out, "review").is_file()
    assert ".claude/agents/qa.md" not in ledger(out)
    assert render(vault, out, "--to", "claude", "--check").returncode == 0


def test_a_deleted_system_profile_is_stale_though_a_project_has_its_id(tmp_path: Path) -> None:
    # The example vault's webshop project has its own ``coding``: that must not keep the
    # deleted system profile's rendered file (issue 13).
    vault = tmp_path / "vault"
    shutil.copytree(Path(__file__).resolve().parents[2] / "examples" / "vault", vault)
    assert (vault / "projects" / "webshop" / "agent-types" / "coding" / "profile.md").is_file()
    out = tmp_path / "ws"
    first = render(vault, out, "--to", "claude")
    assert first.returncode == 0, first.stdout + first.stderr
    assert agent(out, "coding").is_file()
    shutil.rmtree(vault / "agent-types" / "coding")
    checked = render(vault, out, "--to", "claude", "--check")
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert f"stale     {agent(out, 'coding')} (--prune removes it)" in checked.stdout
    pruned = render(vault, out, "--to", "claude", "--prune")
    assert pruned.returncode == 0, pruned.stdout + pruned.stderr
    assert f"removed   {agent(out, 'coding')}" in pruned.stdout
    assert not agent(out, "coding").exists() and agent(out, "qa").is_file()
    assert render(vault, out, "--to", "claude", "--check").returncode == 0


def test_a_renamed_profile_replaces_its_file(vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "ws"
    render(vault, out, "--to", "claude", "--to", "opencode")
    (vault / "agent-types" / "review").rename(vault / "agent-types" / "reviewer")
    text = (vault / "agent-types" / "reviewer" / "profile.md").read_text()
    (vault / "agent-types" / "reviewer" / "profile.md").write_text(
        text.replace("id: review", "id: reviewer")
    )
    result = render(vault, out, "--to", "claude", "--to", "opencode", "--prune")
    assert result.returncode == 0, result.stderr
    assert not agent(out, "review").exists() and agent(out, "reviewer").is_file()
    assert not (out / ".opencode" / "agents" / "review.md").exists()
    assert (out / ".opencode" / "agents" / "reviewer.md").is_file()


def test_a_hand_edited_rendered_file_is_never_deleted(vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "ws"
    render(vault, out, "--to", "claude")
    edited = agent(out, "qa").read_text() + "\nMy own note.\n"
    agent(out, "qa").write_text(edited)
    shutil.rmtree(vault / "agent-types" / "qa")
    dry = render(vault, out, "--to", "claude", "--prune", "--dry-run")
    assert "would be kept      " in dry.stdout and "edited since roster wrote it" in dry.stdout
    pruned = render(vault, out, "--to", "claude", "--prune")
    assert pruned.returncode == 0
    assert f"kept      {agent(out, 'qa')} (edited since roster wrote it" in pruned.stdout
    assert agent(out, "qa").read_text() == edited
    # Roster no longer claims it: the next prune leaves it alone without a word.
    assert ".claude/agents/qa.md" not in ledger(out)
    again = render(vault, out, "--to", "claude", "--prune")
    assert "qa.md" not in again.stdout and agent(out, "qa").read_text() == edited


def test_files_roster_did_not_write_are_never_touched(vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "ws"
    mine = out / ".claude" / "agents" / "mine.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("---\nname: mine\ndescription: my own agent\n---\nHello.\n")
    render(vault, out, "--to", "claude")
    for pid in ("coding", "qa", "review"):
        shutil.rmtree(vault / "agent-types" / pid)
    result = render(vault, out, "--to", "claude", "--prune")
    assert result.returncode == 0, result.stderr
    assert mine.read_text().startswith("---\nname: mine")
    assert not agent(out, "coding").exists()
    assert "mine.md" not in result.stdout


def test_check_and_dry_run_write_no_ledger(vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "ws"
    out.mkdir()
    assert render(vault, out, "--to", "claude", "--check").returncode == 1
    assert render(vault, out, "--to", "claude", "--dry-run", "--prune").returncode == 0
    assert list(out.iterdir()) == []
    render(vault, out, "--to", "claude")
    before = (out / LEDGER).read_bytes()
    shutil.rmtree(vault / "agent-types" / "qa")
    dry = render(vault, out, "--to", "claude", "--dry-run", "--prune")
    assert f"would be removed   {agent(out, 'qa')}" in dry.stdout
    render(vault, out, "--to", "claude", "--check", "--prune")
    assert agent(out, "qa").is_file() and (out / LEDGER).read_bytes() == before


def test_two_harnesses_in_one_folder_keep_each_others_files(vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "ws"
    render(vault, out, "--to", "claude")
    render(vault, out, "--to", "opencode", "--prune")
    render(vault, out, "--to", "cursor", "--prune")
    assert agent(out, "qa").is_file() and (out / ".mcp.json").is_file()
    assert (out / ".opencode" / "agents" / "qa.md").is_file()
    shutil.rmtree(vault / "agent-types" / "qa")
    # Pruning one harness removes only that harness's stale file.
    render(vault, out, "--to", "opencode", "--prune")
    assert not (out / ".opencode" / "agents" / "qa.md").exists()
    assert agent(out, "qa").is_file() and (out / ".cursor" / "agents" / "qa.md").is_file()


def test_two_vaults_in_one_folder_keep_each_others_files(tmp_path: Path) -> None:
    first = make_vault(tmp_path / "first", {"alpha": ("docs",)}, ("docs",))
    second = make_vault(tmp_path / "second", {"beta": ("search",)}, ("search",))
    out = tmp_path / "ws"
    render(first, out, "--to", "claude")
    result = render(second, out, "--to", "claude", "--prune")
    assert result.returncode == 0, result.stderr
    assert agent(out, "alpha").is_file() and agent(out, "beta").is_file()
    servers = json.loads((out / ".mcp.json").read_text())["mcpServers"]
    assert set(servers) == {"docs", "search"}  # merged, neither lost
    writers = ledger(out)[".mcp.json"]["writers"]
    assert isinstance(writers, list)
    assert sorted(w["vault"] for w in writers) == ["../first", "../second"]
    # The second vault drops its profile: its agent file goes, the shared file stays for
    # the first vault (the second's claim on it is released).
    shutil.rmtree(second / "agent-types" / "beta")
    render(second, out, "--to", "claude", "--prune")
    assert not agent(out, "beta").exists() and agent(out, "alpha").is_file()
    assert (out / ".mcp.json").is_file()
    writers = ledger(out)[".mcp.json"]["writers"]
    assert isinstance(writers, list) and [w["vault"] for w in writers] == ["../first"]
    assert render(first, out, "--to", "claude", "--check").returncode == 0


def test_a_shared_file_with_user_content_is_never_deleted(tmp_path: Path) -> None:
    vault = make_vault(tmp_path / "vault", {"coding": ("docs",)}, ("docs",))
    out = tmp_path / "ws"
    out.mkdir()
    mine = {"mcpServers": {"mine": {"command": "my-server"}}}
    (out / ".mcp.json").write_text(json.dumps(mine))
    render(vault, out, "--to", "claude")
    servers = json.loads((out / ".mcp.json").read_text())["mcpServers"]
    assert set(servers) == {"mine", "docs"}
    why = roster("why", str(out / ".mcp.json"))
    assert "it also holds content roster did not write" in why.stdout
    shutil.rmtree(vault / "agent-types" / "coding")
    result = render(vault, out, "--to", "claude", "--prune")
    assert result.returncode == 0
    assert "kept      " in result.stdout and "content roster did not write" in result.stdout
    assert json.loads((out / ".mcp.json").read_text())["mcpServers"]["mine"] == {
        "command": "my-server"
    }


def test_a_shared_file_roster_created_goes_with_its_last_agent(tmp_path: Path) -> None:
    vault = make_vault(tmp_path / "vault", {"coding": ("docs",)}, ("docs",))
    out = tmp_path / "ws"
    render(vault, out, "--to", "claude")
    assert (out / ".mcp.json").is_file()
    shutil.rmtree(vault / "agent-types" / "coding")
    result = render(vault, out, "--to", "claude", "--prune")
    assert result.returncode == 0, result.stderr
    assert not (out / ".mcp.json").exists() and not (out / ".claude").exists()
    assert not (out / LEDGER).exists()  # nothing left to own


def test_a_profile_that_fails_to_render_keeps_its_file(vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "ws"
    render(vault, out, "--to", "claude")
    qa = vault / "agent-types" / "qa" / "profile.md"
    qa.write_text(qa.read_text().replace('{"model": "claude-sonnet-4-6"}', '{"model": '))
    result = render(vault, out, "--to", "claude", "--prune")
    assert result.returncode == 1  # the broken profile is an error...
    assert agent(out, "qa").is_file()  # ...and its last good file stays
    assert "removed" not in result.stdout


def test_a_render_of_named_profiles_judges_only_theirs(vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "ws"
    render(vault, out, "--to", "claude")
    result = render(vault, out, "--to", "claude", "--prune", "coding")
    assert result.returncode == 0
    assert agent(out, "qa").is_file() and agent(out, "review").is_file()
    assert render(vault, out, "--to", "claude", "--check").returncode == 0


def test_why_names_profile_harness_and_render(vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "ws"
    render(vault, out, "--to", "claude", "--to", "copilot")
    result = roster("why", str(agent(out, "qa")))
    assert result.returncode == 0, result.stderr
    assert "profile qa: roster " in result.stdout
    assert "render --to claude --scope project of vault ../vault" in result.stdout
    assert "now: holds exactly what roster wrote" in result.stdout
    data = json.loads(roster("why", "--json", ".github/agents/qa.agent.md", cwd=out).stdout)
    assert data["state"] == "unchanged" and data["root"] == str(out)
    assert [(w["harness"], w["profile"]) for w in data["writers"]] == [("copilot", "qa")]
    agent(out, "qa").write_text("changed\n")
    assert "now: edited since roster wrote it" in roster("why", str(agent(out, "qa"))).stdout
    stranger = out / "notes.md"
    stranger.write_text("mine\n")
    missing = roster("why", str(stranger))
    assert missing.returncode == 2 and "roster does not own it" in missing.stderr


def test_concurrent_renders_into_one_folder_keep_every_entry(tmp_path: Path) -> None:
    vaults = [
        make_vault(tmp_path / f"v{i}", {f"agent{i}-{n}": () for n in range(20)}, ())
        for i in range(4)
    ]
    out = tmp_path / "ws"
    procs = [
        subprocess.Popen(
            [ROSTER, "--vault", str(v), "render", "--to", "claude", "--out", str(out)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for v in vaults
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0, 0]
    assert len(ledger(out)) == 80
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


def test_a_broken_ledger_is_an_error_and_nothing_is_written(vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "ws"
    out.mkdir()
    (out / LEDGER).write_text("{not json")
    result = render(vault, out, "--to", "claude")
    assert result.returncode == 2
    assert (
        "render ledger" in result.stderr
        and "hint: restore it from version control" in result.stderr
    )
    assert sorted(os.listdir(out)) == [LEDGER]


def test_a_file_another_vault_wrote_is_taken_over_not_deleted(tmp_path: Path) -> None:
    first = make_vault(tmp_path / "first", {"coding": ()}, ())
    second = make_vault(tmp_path / "second", {"coding": ()}, ())
    (second / "agent-types" / "coding" / "profile.md").write_text(
        profile("coding").replace("You are coding.", "You are the second vault's coder.")
    )
    out = tmp_path / "ws"
    render(first, out, "--to", "claude")
    taken = render(second, out, "--to", "claude")
    assert f"updated   {agent(out, 'coding')} (taken over from the claude render of vault " in (
        taken.stdout
    )
    # The first vault loses its profile: the file is the second vault's now, so it stays.
    shutil.rmtree(first / "agent-types" / "coding")
    pruned = render(first, out, "--to", "claude", "--prune")
    assert pruned.returncode == 0 and "removed" not in pruned.stdout
    assert "second vault's coder" in agent(out, "coding").read_text()
    assert roster("why", str(agent(out, "coding"))).stdout.count("of vault ../second,") == 1


def _as_format_1(out: Path) -> dict[str, object]:
    # The ledger as roster wrote it before format 2: each entry's sha256 (hex) of the file
    # as it is now, under the key "sha256".
    data = json.loads((out / LEDGER).read_text())
    data["version"] = 1
    for rel, entry in data["files"].items():
        del entry["digest"]
        entry["sha256"] = hashlib.sha256((out / rel).read_bytes()).hexdigest()
    (out / LEDGER).write_text(json.dumps(data))
    return data


def test_a_format_1_ledger_is_read_and_upgraded(vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "ws"
    assert render(vault, out, "--to", "claude").returncode == 0
    current = ledger(out)
    assert all(str(e["digest"]).startswith("xxh3-128:") for e in current.values())
    old = _as_format_1(out)
    # Read as it is: a check finds every file current, and why compares as sha256.
    assert render(vault, out, "--to", "claude", "--check").returncode == 0
    assert json.loads((out / LEDGER).read_text()) == old  # --check writes nothing
    assert "now: holds exactly what roster wrote" in roster("why", str(agent(out, "qa"))).stdout
    agent(out, "qa").write_text("changed by hand\n")
    assert "now: edited since roster wrote it" in roster("why", str(agent(out, "qa"))).stdout
    # The first render rewrites it as format 2: the same digests as a fresh render's for
    # the files roster wrote; the edited file is rendered again, as any edited file is.
    shutil.rmtree(vault / "agent-types" / "review")
    result = render(vault, out, "--to", "claude")
    assert result.returncode == 0, result.stderr
    assert json.loads((out / LEDGER).read_text())["version"] == 2
    upgraded = ledger(out)
    assert {rel: e["digest"] for rel, e in upgraded.items()} == {
        rel: e["digest"] for rel, e in current.items()
    }
    # The deleted profile's file is stale, not edited, and --prune removes it.
    assert "stale" in result.stdout and "--prune removes it" in result.stdout
    assert render(vault, out, "--to", "claude", "--prune").returncode == 0
    assert not agent(out, "review").exists()


def test_a_stale_file_edited_under_a_format_1_ledger_is_kept(vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "ws"
    assert render(vault, out, "--to", "claude").returncode == 0
    _as_format_1(out)
    agent(out, "review").write_text("my own notes\n")
    shutil.rmtree(vault / "agent-types" / "review")
    result = render(vault, out, "--to", "claude", "--prune")
    assert result.returncode == 0, result.stderr
    assert "edited since roster wrote it" in result.stdout
    assert agent(out, "review").read_text() == "my own notes\n"
    assert ".claude/agents/review.md" not in ledger(out)  # the user's file now


def test_a_format_1_entry_behind_a_symlink_out_of_the_folder_is_never_read(
    vault: Path, tmp_path: Path
) -> None:
    out = tmp_path / "ws"
    assert render(vault, out, "--to", "claude").returncode == 0
    data = _as_format_1(out)
    # Another render's entry, whose folder is now a symlink leading out of the output
    # folder, to a file holding exactly what the entry's digest says.
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.md").write_text("roster wrote this\n")
    (out / "linked").symlink_to(outside)
    legacy = hashlib.sha256(b"roster wrote this\n").hexdigest()
    writer = {"vault": "../elsewhere", "harness": "copilot", "scope": "project"}
    data["files"]["linked/x.md"] = {  # type: ignore[index]
        "sha256": legacy,
        "writers": [{**writer, "rendered_at": "2026-01-01T00:00:00Z", "roster": "0.1.0"}],
    }
    (out / LEDGER).write_text(json.dumps(data))
    result = render(vault, out, "--to", "claude")
    assert result.returncode == 0, result.stderr
    # Not upgraded: reading it would have matched, and given it this format's digest.
    assert ledger(out)["linked/x.md"]["digest"] == "sha256:" + legacy
    assert (outside / "x.md").read_text() == "roster wrote this\n"
