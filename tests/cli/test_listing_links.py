"""``roster mcp list`` and ``roster profile list`` say when a folder they list is a symlink
leading outside the vault (issue 11 item 1: refusals are diagnostics naming the link, never
silent skips). Before, both listed nothing from it, said nothing and exited 0, while
``mcp show``, ``sync`` and ``status`` reported it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROSTER = str(Path(sys.executable).with_name("roster"))
SERVER = "---\nname: evil\ntransport: stdio\ncommand: evil-mcp\n---\n"
PROFILE = "---\nid: evil\nname: Evil\ndescription: d\n---\n## Role\nWork.\n"


def roster(vault: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ROSTER, "--vault", str(vault), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _outside(tmp_path: Path, folder: str, name: str, text: str) -> Path:
    target = tmp_path / "outside" / folder
    (target / name).parent.mkdir(parents=True, exist_ok=True)
    (target / name).write_text(text, encoding="utf-8")
    return target


@pytest.mark.parametrize("project", [None, "p"])
def test_mcp_list_reports_a_registry_folder_linked_outside(
    tmp_path: Path, project: str | None
) -> None:
    vault = tmp_path / "vault"
    (vault / "agent-types").mkdir(parents=True)
    (vault / "mcp-servers").mkdir()
    (vault / "mcp-servers" / "ok.md").write_text(SERVER.replace("evil", "ok"))
    link = Path("projects", project, "mcp-servers") if project else Path("mcp-servers-x")
    if project:
        (vault / "projects" / project / "agent-types").mkdir(parents=True)
        (vault / link).symlink_to(_outside(tmp_path, "servers", "evil.md", SERVER))
    else:  # the system folder itself is the link
        (vault / "mcp-servers" / "ok.md").unlink()
        (vault / "mcp-servers").rmdir()
        (vault / "mcp-servers").symlink_to(_outside(tmp_path, "servers", "evil.md", SERVER))
        link = Path("mcp-servers")
    scope = ["--project", project] if project else []
    text = roster(vault, "mcp", "list", *scope)
    assert text.returncode == 1, text.stdout + text.stderr
    assert "evil" not in text.stdout
    assert f"{link}:1:1: error[path-outside-vault]" in text.stderr
    done = roster(vault, "mcp", "list", *scope, "--json")
    assert done.returncode == 1, done.stderr
    listed = json.loads(done.stdout)
    assert "evil" not in [row["name"] for row in listed["servers"]]
    assert [(d["path"], d["code"]) for d in listed["diagnostics"]] == [
        (str(link), "path-outside-vault")
    ]


def test_mcp_list_of_a_clean_vault_has_no_diagnostics(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "agent-types").mkdir(parents=True)
    (vault / "mcp-servers").mkdir()
    (vault / "mcp-servers" / "ok.md").write_text(SERVER.replace("evil", "ok"))
    done = roster(vault, "mcp", "list", "--json")
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    assert listed["diagnostics"] == [] and "ok" in [row["name"] for row in listed["servers"]]


def test_profile_list_reports_agent_types_linked_outside(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "mcp-servers").mkdir(parents=True)
    (vault / "agent-types").symlink_to(
        _outside(tmp_path, "agent-types", "evil/profile.md", PROFILE)
    )
    for args in ([], ["--json"]):
        done = roster(vault, "profile", "list", *args)
        assert done.returncode == 1, (args, done.stdout, done.stderr)
        assert "Evil" not in done.stdout
        assert "path-outside-vault" in done.stdout, args
    listed = json.loads(roster(vault, "profile", "list", "--json").stdout)
    assert listed["profiles"] == []
    assert [(d["path"], d["code"]) for d in listed["diagnostics"]] == [
        ("agent-types", "path-outside-vault")
    ]
    # The control: the same profile inside the vault is listed, with nothing to report.
    (vault / "agent-types").unlink()
    (vault / "agent-types" / "evil").mkdir(parents=True)
    (vault / "agent-types" / "evil" / "profile.md").write_text(PROFILE)
    done = roster(vault, "profile", "list", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["diagnostics"] == []
