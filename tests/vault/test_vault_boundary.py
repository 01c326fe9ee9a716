"""No way out of the vault (issue 11 item 1): symlinks at every depth, for reads and writes.

Each link points at real, valid content outside the vault that carries a marker, so a read
that got through would show up in the output; each write test checks the folder outside
stays exactly as it was. A link that stays inside the vault, and a vault given as a symlink
itself, keep working.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_roster.cli import main
from agent_roster.commands.init import init_vault
from agent_roster.commands.show import show_profile
from agent_roster.errors import PathOutsideVaultError
from agent_roster.vault import guard
from agent_roster.vault.loader import load_vault
from agent_roster.vault.paths import VaultLayout
from agent_roster.vault.writer import write_in_vault

from .helpers import spy_reads

MARKER = "OUTSIDE-THE-VAULT"
PROFILE = (
    "---\nid: {0}\nname: {0} agent\ndescription: " + MARKER + "\n---\n## Role\n" + MARKER + "\n"
)
SERVER = "---\ntransport: stdio\ncommand: " + MARKER.lower() + "\n---\n"

# Where the link sits (vault-relative), and the layout below it that holds a profile (or a
# server) whose content would be loaded through it. The link is what every refusal names.
LINKED_FOLDERS = [
    ("agent-types", {"coding/profile.md": PROFILE.format("coding")}),
    ("mcp-servers", {"github.md": SERVER}),
    ("projects", {"web/agent-types/coding/profile.md": PROFILE.format("coding")}),
    ("projects/web", {"agent-types/coding/profile.md": PROFILE.format("coding")}),
    ("projects/web/agent-types", {"coding/profile.md": PROFILE.format("coding")}),
    ("projects/web/mcp-servers", {"jira.md": SERVER}),
    ("agent-types/coding", {"profile.md": PROFILE.format("coding")}),
    ("projects/web/agent-types/coding", {"profile.md": PROFILE.format("coding")}),
]
LINKED_FILES = [
    ("agent-types/coding/profile.md", PROFILE.format("coding")),
    ("mcp-servers/github.md", SERVER),
    ("projects/web/agent-types/coding/profile.md", PROFILE.format("coding")),
    ("projects/web/mcp-servers/jira.md", SERVER),
]


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def _linked(make_tree, link: str, tree: dict[str, str]) -> tuple[Path, Path]:  # type: ignore[no-untyped-def]
    """A vault whose ``link`` is a symlink to a folder outside holding ``tree``."""
    vault = make_tree({"roster.toml": ""})
    outside = make_tree(tree, sub="outside")
    (vault / link).parent.mkdir(parents=True, exist_ok=True)
    (vault / link).symlink_to(outside, target_is_directory=True)
    return vault, outside


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(("link", "tree"), LINKED_FOLDERS, ids=[f for f, _ in LINKED_FOLDERS])
def test_a_linked_folder_leaving_the_vault_is_named_and_never_read(
    make_tree,  # type: ignore[no-untyped-def]
    link: str,
    tree: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    vault, outside = _linked(make_tree, link, tree)
    read = spy_reads(monkeypatch)
    snapshot = load_vault(vault)
    assert not [p for p in read if p.startswith(str(outside))]
    assert [(d.path, d.code, d.severity.value) for d in snapshot.unloaded] == [
        (link, "path-outside-vault", "error")
    ]
    assert snapshot.unloaded[0].message == (
        f"{link} is a symlink that leads outside the vault; nothing under it was read"
    )
    assert snapshot.profiles == {} and snapshot.servers == {}

    # validate fails and names the link; nothing from outside is printed.
    code, out, _ = run(capsys, "validate", str(vault))
    assert code == 1
    assert f"vault/{link}:1:1: error[path-outside-vault]" in out
    assert MARKER not in out and MARKER.lower() not in out
    assert "1 file checked: 1 errors" in out


@pytest.mark.parametrize(("link", "content"), LINKED_FILES, ids=[f for f, _ in LINKED_FILES])
def test_a_linked_file_leaving_the_vault_is_named_and_never_read(
    make_tree,  # type: ignore[no-untyped-def]
    link: str,
    content: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    vault = make_tree({"agent-types/qa/profile.md": "---\nid: qa\nname: QA\n---\n"})
    outside = make_tree({"secret.md": content}, sub="outside")
    (vault / link).parent.mkdir(parents=True, exist_ok=True)
    (vault / link).symlink_to(outside / "secret.md")
    snapshot = load_vault(vault)
    assert [(d.path, d.code) for d in snapshot.unloaded] == [(link, "path-outside-vault")]
    assert snapshot.unloaded[0].message == (
        f"{link} is a symlink that leads outside the vault; it was not read"
    )
    code, out, _ = run(capsys, "validate", str(vault))
    assert code == 1 and MARKER not in out and MARKER.lower() not in out


@pytest.mark.parametrize(
    "link", ["agent-types", "agent-types/coding", "agent-types/coding/profile.md"]
)
def test_show_refuses_a_profile_behind_a_link(
    make_tree,  # type: ignore[no-untyped-def]
    link: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Seen on main: `show` printed the outside file as the vault's profile."""
    vault = make_tree({"roster.toml": ""})
    outside = make_tree({"agent-types/coding/profile.md": PROFILE.format("coding")}, sub="out")
    target = outside / link
    (vault / link).parent.mkdir(parents=True, exist_ok=True)
    (vault / link).symlink_to(target, target_is_directory=target.is_dir())
    shown = show_profile(vault, "coding")
    assert shown.profile is None
    assert [(d.path, d.code) for d in shown.diagnostics] == [(link, "path-outside-vault")]
    code, out, err = run(capsys, "--vault", str(vault), "show", "coding")
    assert code == 1
    assert MARKER not in out + err
    assert f"{link}:1:1: error[path-outside-vault]" in err


def test_links_that_stay_inside_and_a_vault_given_as_a_link_are_fine(
    make_tree,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    real = make_tree(
        {
            "shared/agents/coding/profile.md": PROFILE.format("coding").replace(MARKER, "in"),
            "shared/servers/github.md": SERVER.replace(MARKER.lower(), "gh"),
            "templates/knowledge/coding/notes.md": "# Notes\n",
        }
    )
    (real / "agent-types").symlink_to(real / "shared/agents", target_is_directory=True)
    (real / "mcp-servers").symlink_to(real / "shared/servers", target_is_directory=True)
    vault = tmp_path / "vault-link"
    vault.symlink_to(real, target_is_directory=True)
    snapshot = load_vault(vault)
    assert snapshot.unloaded == ()
    assert snapshot.profiles[(None, "coding")].ok
    assert snapshot.servers[(None, "github")].ok
    layout = VaultLayout(vault)
    # Writes through the in-vault links land inside, where the links lead.
    assert write_in_vault(layout, vault / "agent-types/coding/memory/a.md", "a")
    assert (real / "shared/agents/coding/memory/a.md").read_text() == "a"
    assert guard.read_in_vault(layout, vault / "agent-types/coding/memory/a.md") == b"a"


def test_a_link_chain_that_ends_outside_is_refused(make_tree) -> None:  # type: ignore[no-untyped-def]
    # agent-types -> hop (inside) -> outside: the first link on the way is named.
    vault = make_tree({"roster.toml": ""})
    outside = make_tree({"coding/profile.md": PROFILE.format("coding")}, sub="outside")
    (vault / "hop").symlink_to(outside, target_is_directory=True)
    (vault / "agent-types").symlink_to(vault / "hop", target_is_directory=True)
    snapshot = load_vault(vault)
    assert [d.path for d in snapshot.unloaded] == ["agent-types"]
    layout = VaultLayout(vault)
    with pytest.raises(PathOutsideVaultError) as caught:
        write_in_vault(layout, vault / "agent-types/coding/memory/x.md", "x")
    assert caught.value.diagnostics[0].path == "agent-types"
    assert _files(outside) == {"coding/profile.md": PROFILE.format("coding").encode()}


def test_init_never_writes_through_a_linked_folder(
    make_tree,  # type: ignore[no-untyped-def]
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Seen on main: `roster init` wrote the starter profiles to where agent-types/ led."""
    outside = make_tree({"keep.md": "mine"}, sub="outside")
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "agent-types").symlink_to(outside, target_is_directory=True)
    result = init_vault(vault)
    assert _files(outside) == {"keep.md": b"mine"}
    assert [(d.path, d.code) for d in result.refused] == [("agent-types", "path-outside-vault")]
    assert result.refused[0].message == (
        "agent-types is a symlink that leads outside the vault; nothing is written through it"
    )
    assert not any(rel.startswith("agent-types/") for rel in result.created)
    assert "roster.toml" in result.created  # the rest of the vault is created
    code, out, _ = run(capsys, "init", str(vault))
    assert code == 1
    assert "error[path-outside-vault]" in out and "incomplete" in out
    assert _files(outside) == {"keep.md": b"mine"}


@pytest.mark.parametrize("link", ["agent-types", "agent-types/coding", "agent-types/coding/memory"])
def test_write_in_vault_refuses_every_folder_on_the_way(
    make_tree,  # type: ignore[no-untyped-def]
    link: str,
) -> None:
    vault = make_tree({"roster.toml": ""})
    outside = make_tree({"keep.md": "mine"}, sub="outside")
    (vault / link).parent.mkdir(parents=True, exist_ok=True)
    (vault / link).symlink_to(outside, target_is_directory=True)
    layout = VaultLayout(vault)
    with pytest.raises(PathOutsideVaultError) as caught:
        write_in_vault(layout, vault / "agent-types/coding/memory/new/x.md", "x")
    assert [d.path for d in caught.value.diagnostics] == [link]
    with pytest.raises(PathOutsideVaultError):
        guard.read_in_vault(layout, vault / "agent-types/coding/memory/keep.md")
    with pytest.raises(PathOutsideVaultError):
        guard.remove_in_vault(layout, vault / "agent-types/coding/memory/keep.md")
    assert _files(outside) == {"keep.md": b"mine"}  # no folder made, nothing written


def test_a_link_at_the_written_name_is_replaced_not_followed(make_tree) -> None:  # type: ignore[no-untyped-def]
    vault = make_tree({"agent-types/coding/x": "x"})
    outside = make_tree({"target.md": "mine"}, sub="outside")
    path = vault / "agent-types/coding/profile.md"
    path.symlink_to(outside / "target.md")
    layout = VaultLayout(vault)
    # Never overwrite: a link (even a dangling one) counts as something there.
    assert write_in_vault(layout, path, "new") is False
    assert write_in_vault(layout, path, "new", overwrite=True) is True
    assert not path.is_symlink() and path.read_text() == "new"
    assert (outside / "target.md").read_text() == "mine"


def test_read_in_vault_refuses_what_is_not_a_file(make_tree) -> None:  # type: ignore[no-untyped-def]
    vault = make_tree({"agent-types/coding/profile.md": {}})
    os.mkfifo(vault / "agent-types/fifo.md")
    layout = VaultLayout(vault)
    with pytest.raises(IsADirectoryError):
        guard.read_in_vault(layout, vault / "agent-types/coding/profile.md")
    with pytest.raises(OSError, match="not a regular file"):  # and does not hang
        guard.read_in_vault(layout, vault / "agent-types/fifo.md")


def test_commands_that_write_never_write_through_a_link(make_tree) -> None:  # type: ignore[no-untyped-def]
    from agent_roster.commands import mcp_registry as reg
    from agent_roster.commands import project_profiles as pp
    from agent_roster.commands.context import RosterContext
    from agent_roster.vault import patch

    vault, outside = _linked(
        make_tree,
        "projects/web",
        {
            "agent-types/coding/profile.md": PROFILE.format("coding"),
            "mcp-servers/jira.md": SERVER,
        },
    )
    before = _files(outside)
    layout = VaultLayout(vault)
    ctx = RosterContext(vault)
    for attempt in (
        lambda: pp.create_project_profile(
            ctx, pp.CreateProjectProfileParams(project="web", agent_type="qa")
        ),
        lambda: pp.delete_project_profile(
            ctx, pp.DeleteProjectProfileParams(project="web", agent_type="coding", base_hash="x")
        ),
        lambda: reg.create_mcp_server(
            ctx, reg.CreateMcpServerParams(name="gh", command="gh", project="web")
        ),
        lambda: reg.delete_mcp_server(
            ctx, reg.DeleteMcpServerParams(name="jira", project="web", base_hash="x")
        ),
        lambda: patch.patch_profile(
            layout, "coding", [patch.set_config({"model": "m"})], project="web"
        ),
    ):
        with pytest.raises(PathOutsideVaultError) as caught:
            attempt()
        assert [d.path for d in caught.value.diagnostics] == ["projects/web"]
    ctx.close()
    assert _files(outside) == before


def test_import_never_writes_through_a_link(make_tree, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from agent_roster.commands.discover import import_agents

    workspace = make_tree(
        {".claude/agents/coding.md": "---\nname: coding\ndescription: d\n---\nWrite code.\n"},
        sub="ws",
    )
    vault, outside = _linked(make_tree, "agent-types", {"keep.md": "mine"})
    before = _files(outside)
    report = import_agents(vault, "claude", workspace=workspace, home=tmp_path / "home")
    assert _files(outside) == before
    assert not report.ok
    assert [(d.path, d.code) for d in report.diagnostics] == [
        ("agent-types", "path-outside-vault"),  # the vault scan
        ("agent-types", "path-outside-vault"),  # the write
    ]
    assert [(f.path, f.status) for f in report.files] == [
        ("agent-types/coding/profile.md", "skipped")
    ]


def test_a_roster_toml_leading_outside_is_not_read(make_tree) -> None:  # type: ignore[no-untyped-def]
    from agent_roster.resolve.config import load_config

    vault = make_tree({"agent-types/qa/profile.md": PROFILE.format("qa")})
    outside = make_tree({"roster.toml": '[defaults]\nmodel = "outside-model"\n'}, sub="out")
    (vault / "roster.toml").symlink_to(outside / "roster.toml")
    loaded = load_config(vault)
    assert loaded.config.defaults.model != "outside-model"
    assert [(d.path, d.code) for d in loaded.diagnostics] == [("roster.toml", "path-outside-vault")]
