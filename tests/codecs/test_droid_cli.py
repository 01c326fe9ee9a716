"""Acceptance against the real Factory Droid CLI (``@factory/cli-linux-x64`` 0.225.2,
``bin/droid``), offline, against the fake model on loopback (tests/oracles/droid.py):

* discovery: on the same files, ``roster discover`` finds exactly the custom droids
  ``droid exec`` offers its Task tool, with their descriptions and locations (project or
  personal: the project's wins a name), Droid's lenient reading included (a file with no
  frontmatter or a wrong type is a droid named after its file); ``roster import`` writes
  them;
* render: rendered droids, at project and user scope, are offered with their location and
  description; a droid's MCP tool is written with the id Droid gives that tool
  (``<server>___<tool>``, seen in the session's tools);
* ``droid mcp list``: the rendered servers connect, each with its scope.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from agent_roster.codecs.base import RenderRequest, Roots, Scope
from agent_roster.codecs.droid.codec import CODEC
from agent_roster.commands.discover import import_agents
from agent_roster.model.profile import AgentProfile, PromptSection

from ..oracles.droid import DroidCli, deferred, git_init
from ..oracles.fake_model import FakeModel
from ..oracles.fixtures import McpStub
from ..trees import build_tree
from .droid_trees import HOME, OFFERED, WORKSPACE, add_symlink
from .helpers import need_harness, write_rendering

pytestmark = pytest.mark.timeout(900)


def _cli(model: FakeModel, tmp_path: Path) -> DroidCli:
    binary = need_harness("droid")
    workspace, home = tmp_path / "ws", tmp_path / "home"
    git_init(workspace)
    home.mkdir(parents=True)
    return DroidCli(binary, model, workspace, home)


def test_discover_finds_the_droids_droid_offers(fake_model: FakeModel, tmp_path: Path) -> None:
    cli = _cli(fake_model, tmp_path)
    build_tree(cli.workspace, WORKSPACE)
    build_tree(cli.home, HOME)
    add_symlink(cli.workspace, tmp_path / "outside.md")
    # Before Droid runs: it writes droids of its own into ~/.factory/droids on start.
    found = CODEC.discover(Roots(workspace=cli.workspace, home=cli.home))
    vault = tmp_path / "vault"
    vault.mkdir()
    report = import_agents(vault, "droid", workspace=cli.workspace, home=cli.home)
    offered, folders = cli.droids()
    assert folders == f"{cli.workspace / '.factory/droids'} and {cli.home / '.factory/droids'}"
    theirs = {d.name: (d.description, d.location) for d in offered}
    assert len(offered) == len(theirs)  # one droid per name
    assert theirs == OFFERED
    location = {True: "project", False: "personal"}
    ours = {
        p.id: (p.description, location[Path(p.source).is_relative_to(cli.workspace)])
        for p in found.profiles
    }
    assert ours == theirs
    assert not report.refused
    assert sorted(f.name for f in report.files if f.kind == "profile") == sorted(OFFERED)


ROLE = "You check the code you are given and report what you find."


def _profile(ident: str, **kw: object) -> AgentProfile:
    sections = (PromptSection(heading="Role", body=f"{ROLE} ({ident})"),)
    return AgentProfile(id=ident, name=ident, description=f"{ident} droid", sections=sections, **kw)  # type: ignore[arg-type]


def test_rendered_droids_are_offered_where_they_were_written(
    fake_model: FakeModel, mcp_stub: McpStub, tmp_path: Path
) -> None:
    cli = _cli(fake_model, tmp_path)
    servers = {"local": mcp_stub.server("local", "echo", "spare")}
    user = [
        _profile("d-tools", allowed_tools=("Read", "mcp__local__echo"), mcp_servers=("local",)),
        _profile("d-plan", permission_mode="plan"),
    ]
    project = [_profile("d-deny", denied_tools=("Bash", "WebFetch")), _profile("d-plain")]
    for scope, root, profiles in (
        (Scope.USER, cli.home, user),
        (Scope.PROJECT, cli.workspace, project),
    ):
        request = RenderRequest(profiles=tuple(profiles), servers=servers, scope=scope)
        rendering = CODEC.render(request, lambda rel: None)
        assert not rendering.diagnostics, [d.format() for d in rendering.diagnostics]
        write_rendering(rendering, root)
    offered, _ = cli.droids()
    assert {d.name: (d.description, d.location) for d in offered} == {
        "d-tools": ("d-tools droid", "personal"),
        "d-plan": ("d-plan droid", "personal"),
        "d-deny": ("d-deny droid", "project"),
        "d-plain": ("d-plain droid", "project"),
    }
    # The MCP tool id render wrote is the one Droid gives the stub's tool.
    session = deferred(fake_model.prompts()[0])
    front = yaml.safe_load(
        (cli.home / ".factory/droids/d-tools.md").read_text(encoding="utf-8").split("---\n")[1]
    )
    assert front["tools"] == ["Read", "local___echo"]
    # Droid starts its MCP servers while the session starts: on a loaded machine its first
    # request can go out before the stub has listed its tools. A new session then has them.
    for _ in range(3):
        if {"local___echo", "local___spare"} <= set(session):
            break
        session = deferred(cli.prompt())
    assert {"local___echo", "local___spare"} <= set(session)
    assert {"Read", "LS", "Grep", "Glob"} <= set(session)
    found = CODEC.discover(Roots(workspace=cli.workspace, home=cli.home))
    back = {p.id: p for p in found.profiles}
    assert back["d-tools"].allowed_tools == ("Read", "mcp__local__echo")


def test_mcp_list_shows_the_rendered_servers(mcp_stub: McpStub, tmp_path: Path) -> None:
    with FakeModel() as model:
        cli = _cli(model, tmp_path)
        for scope, root, name in (
            (Scope.USER, cli.home, "mine"),
            (Scope.PROJECT, cli.workspace, "shared"),
        ):
            profile = _profile(f"d-{name}", mcp_servers=(name,))
            request = RenderRequest(
                profiles=(profile,), servers={name: mcp_stub.server(name)}, scope=scope
            )
            write_rendering(CODEC.render(request, lambda rel: None), root)
        listed = cli.mcp_list()
    assert listed == {
        "mine": ("stdio", "connected", "user"),
        "shared": ("stdio", "connected", "project"),
    }
    found = CODEC.discover(Roots(workspace=cli.workspace, home=cli.home))
    assert sorted(s.name for s in found.servers) == ["mine", "shared"]
