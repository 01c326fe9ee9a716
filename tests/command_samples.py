"""A call of every registry command on a copy of the example vault, with the same call as
CLI words: the tests that run each command on every surface (and check that reading writes
nothing) take them from here, and fail when a command has none. :func:`samples` holds the
read-only commands; :func:`write_samples` the writes, each with its own target per surface
and a check of what it leaves behind."""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_roster.commands import projects, share
from agent_roster.commands.context import RosterContext
from agent_roster.commands.sync import open_store
from agent_roster.store import Store
from agent_roster.vault.writer import content_hash
from tests.trees import commit_all, git

CLAUDE_AGENT = "---\nname: helper\ndescription: Helps.\ntools: Read, Grep\n---\nHelp out.\n"


def prepare(vault: Path, harness_home: Path) -> None:
    """What the samples refer to: a project with a task, a database synced with the vault,
    and a Claude Code agent in ``harness_home`` (the workspace and home discover reads)."""
    with RosterContext(vault) as ctx:
        projects.create_project(
            ctx, projects.CreateProjectParams(id="webshop", default_profile_id="coding")
        )
        projects.create_task(
            ctx, projects.CreateTaskParams(id="t1", project_id="webshop", title="Fix the cart")
        )
    agents = harness_home / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "helper.md").write_text(CLAUDE_AGENT)


def samples(harness_home: Path) -> dict[str, tuple[dict[str, Any], list[str]]]:
    """Command name → (parameters, the same call as CLI words after ``--vault``, asking
    for JSON)."""
    home = str(harness_home)
    return {
        "list_profiles": ({}, ["profile", "list", "--json"]),
        "get_profile": ({"id": "coding"}, ["profile", "get", "coding", "--json"]),
        "list_project_profiles": (
            {"project": "webshop"},
            ["project-profile", "list", "webshop", "--json"],
        ),
        "show_effective_profile": (
            {"project": "webshop", "agent_type": "coding"},
            ["project-profile", "show", "webshop", "coding", "--json"],
        ),
        "list_available_tools": ({}, ["tools", "--json"]),
        "check_profile": ({"id": "code-review"}, ["check", "code-review", "--json"]),
        "export_profile": ({"id": "code-review"}, ["export", "code-review", "--json"]),
        "source_list": ({}, ["source", "list", "--json"]),
        "validate_vault": ({}, ["validate", "--format", "json"]),
        "list_mcp_servers": ({}, ["mcp", "list", "--json"]),
        "get_mcp_server": ({"name": "github"}, ["mcp", "show", "github", "--json"]),
        "list_projects": ({}, ["project", "list", "--json"]),
        "get_task": ({"id": "t1"}, ["task", "show", "t1", "--json"]),
        "get_status": ({}, ["status", "--json"]),
        "resolve_profile": ({"task": "t1"}, ["resolve", "--task", "t1", "--json"]),
        "can_use_tool": (
            {"profile": "coding", "tool": "Bash", "argument": "git status"},
            ["can", "coding", "Bash", "git status", "--json"],
        ),
        "discover_agents": (
            {"harness": "claude", "workspace": home, "home": home},
            ["discover", "--harness", "claude", "--workspace", home, "--home", home, "--json"],
        ),
    }


# -- write commands -------------------------------------------------------------------------
#: Each surface's tag: a write run on the CLI acts on ``...-viacli``, over HTTP on
#: ``...-viahttp``, over MCP on ``...-viamcp``, so the three calls never meet; a test
#: comparing their results replaces the tag (``via(cli|http|mcp)``) before comparing.
TAGS = {"cli": "viacli", "http": "viahttp", "mcp": "viamcp"}
STUB = Path(__file__).resolve().parent / "oracles" / "mcp_stub.py"


def _nothing(tag: str) -> None:
    pass


@dataclass(frozen=True)
class WriteSample:
    """One write command's call for a surface's ``tag``: its parameters and the same call as
    CLI words (both computed right before the call, so a ``base_hash`` is the file's current
    one), what to set up first, and a check of the effect left behind (given the result)."""

    params: Callable[[str], dict[str, Any]]
    words: Callable[[str], list[str]]
    effect: Callable[[str, dict[str, Any]], None]
    before: Callable[[str], None] = _nothing


def _profile_text(ident: str, role: str = "Works.", extra: str = "") -> str:
    return f"---\nid: {ident}\nname: {ident}\n---\n\n## Role\n\n{role}\n{extra}"


def _stub_server(name: str) -> str:
    return (
        f"---\nname: {name}\ntransport: stdio\ncommand: {json.dumps(sys.executable)}\n"
        f"args: {json.dumps([str(STUB)])}\n---\n\n# {name}\n"
    )


def prepare_writes(vault: Path, work: Path) -> None:
    """What the write samples act on, for each tag: every registry server of the vault
    replaced by a local stub (a probe starts nothing that downloads), a profile for sync to
    find changed, a profile whose Install manifest needs only git, a Claude Code workspace
    with an agent, and a git repository holding a vault layout (a source); and the YAML of
    a shared profile to import."""
    for server in (vault / "mcp-servers").glob("*.md"):
        server.write_text(_stub_server(server.stem), encoding="utf-8")
    for tag in TAGS.values():
        (vault / "mcp-servers" / f"stub-{tag}.md").write_text(_stub_server(f"stub-{tag}"))
        synced = vault / "agent-types" / f"synced-{tag}"
        synced.mkdir(parents=True)
        (synced / "profile.md").write_text(_profile_text(f"synced-{tag}"))
        install = json.dumps({"commands": ["git"]})
        folder = vault / "agent-types" / f"tooling-{tag}"
        folder.mkdir(parents=True)
        (folder / "profile.md").write_text(
            _profile_text(f"tooling-{tag}", extra=f"\n## Install\n\n```json\n{install}\n```\n")
        )
        agents = work / f"workspace-{tag}" / ".claude" / "agents"
        agents.mkdir(parents=True)
        (agents / f"helper-{tag}.md").write_text(CLAUDE_AGENT.replace("helper", f"helper-{tag}"))
        (work / f"home-{tag}").mkdir()
        repo = work / f"team-{tag}"
        (repo / "agent-types" / f"team-{tag}").mkdir(parents=True)
        (repo / "agent-types" / f"team-{tag}" / "profile.md").write_text(
            _profile_text(f"team-{tag}")
        )
        git(repo, "init", "-q", "-b", "main")
        commit_all(repo, "a profile")
    with RosterContext(vault) as ctx:
        shared = share.export_profile(ctx, share.ExportParams(id="code-review")).yaml
    (work / "shared.yaml").write_text(shared, encoding="utf-8")


def _hash(path: Path) -> str:
    return content_hash(path.read_bytes())


@contextlib.contextmanager
def _store(vault: Path) -> Iterator[Store]:
    store = open_store(vault)
    try:
        yield store
    finally:
        store.close()


def write_samples(vault: Path, work: Path) -> dict[str, WriteSample]:
    """Write command name → its sample (see :class:`WriteSample`); run them in the
    registry's order, each on every surface before the next (an edit finds its create's
    file, a delete its edit's)."""

    def profile(tag: str, kind: str = "x", project: str | None = None) -> Path:
        scope = vault / "projects" / project if project else vault
        return scope / "agent-types" / f"{kind}-{tag}" / "profile.md"

    def override(tag: str) -> Path:
        return vault / "projects" / f"p-{tag}" / "agent-types" / "qa" / "profile.md"

    def server(tag: str) -> Path:
        return vault / "mcp-servers" / f"srv-{tag}.md"

    def created_profile(tag: str, result: dict[str, Any]) -> None:
        assert result["changed"] and result["content_hash"] == _hash(profile(tag))
        assert "name: Made" in profile(tag).read_text()
        with _store(vault) as store:
            assert store.get_profile(f"x-{tag}") is not None

    def edited_profile(tag: str, result: dict[str, Any]) -> None:
        assert result["changed"] and result["content_hash"] == _hash(profile(tag))
        assert "description: Edited" in profile(tag).read_text()

    def deleted_profile(tag: str, result: dict[str, Any]) -> None:
        assert not profile(tag).exists() and result["removed"]
        with _store(vault) as store:
            assert store.get_profile(f"x-{tag}") is None

    def created_override(tag: str, result: dict[str, Any]) -> None:
        assert result["changed"] and result["content_hash"] == _hash(override(tag))

    def edited_override(tag: str, result: dict[str, Any]) -> None:
        assert result["changed"] and '"model": "opus"' in override(tag).read_text()

    def deleted_override(tag: str, result: dict[str, Any]) -> None:
        assert not override(tag).exists() and result["removed"]

    def installed(tag: str, result: dict[str, Any]) -> None:
        assert result["ready"] and result["consented"] and result["already_present"] == ["git"]
        assert result["plan"] == [] and result["installed"] == []

    def imported(tag: str, result: dict[str, Any]) -> None:
        assert result["imported"] and profile(tag, "shared").is_file()

    def created_server(tag: str, result: dict[str, Any]) -> None:
        assert str(STUB) in server(tag).read_text()
        with _store(vault) as store:
            assert store.get_mcp_server(f"srv-{tag}") is not None

    def edited_server(tag: str, result: dict[str, Any]) -> None:
        assert "description: Edited" in server(tag).read_text()
        assert result["content_hash"] == _hash(server(tag))

    def deleted_server(tag: str, result: dict[str, Any]) -> None:
        assert not server(tag).exists() and result["removed"]

    def probed(tag: str, result: dict[str, Any]) -> None:
        (answer,) = result["results"]
        assert answer["ok"] and [t["name"] for t in answer["tools"]] == ["echo"]
        with _store(vault) as store:
            assert store.tool_catalog()[(f"stub-{tag}", None)].result.ok

    started: dict[str, float] = {}

    def catalogued(tag: str, result: dict[str, Any]) -> None:
        rows = {row["server"]: row for row in result["servers"]}
        assert rows[f"stub-{tag}"]["status"] == "fresh" and rows["github"]["ok"]
        with _store(vault) as store:  # refresh probed every server again, just now
            stamps = [entry.probed_at for entry in store.tool_catalog().values()]
        assert stamps and min(stamps) >= started[tag]

    def project_row(tag: str, name: str, default: str | None) -> None:
        with _store(vault) as store:
            found = store.get_project(f"proj-{tag}")
        assert found is not None and (found.name, found.default_profile_id) == (name, default)

    def task_row(tag: str, title: str, profile_id: str | None) -> None:
        with _store(vault) as store:
            found = store.get_task(f"task-{tag}")
        assert found is not None and (found.title, found.profile_id) == (title, profile_id)

    def sync_first(tag: str) -> None:  # a file changed behind the database's back
        profile(tag, "synced").write_text(_profile_text(f"synced-{tag}", "Works harder."))

    def synced(tag: str, result: dict[str, Any]) -> None:
        assert result["written"] == 1
        with _store(vault) as store:
            found = store.get_profile(f"synced-{tag}")
        assert found is not None and "Works harder." in json.dumps(found.to_json_dict())

    def from_harness(tag: str, result: dict[str, Any]) -> None:
        assert [f["status"] for f in result["files"]] == ["created"]
        assert profile(tag, "helper").is_file()

    def rendered(tag: str, result: dict[str, Any]) -> None:
        assert (work / f"out-{tag}" / ".claude" / "agents" / "code-review.md").is_file()

    def sourced(tag: str) -> Path:
        return profile(tag, "team")

    def source_added(tag: str, result: dict[str, Any]) -> None:
        assert (
            result["ok"]
            and sourced(tag).read_bytes()
            == (work / f"team-{tag}" / "agent-types" / f"team-{tag}" / "profile.md").read_bytes()
        )
        assert f"src-{tag}" in json.loads((vault / "roster.lock").read_text())["sources"]

    def update_first(tag: str) -> None:
        repo = work / f"team-{tag}"
        (repo / "agent-types" / f"team-{tag}" / "profile.md").write_text(
            _profile_text(f"team-{tag}", "Works harder.")
        )
        commit_all(repo, "harder")

    def source_updated(tag: str, result: dict[str, Any]) -> None:
        assert result["ok"] and "Works harder." in sourced(tag).read_text()

    def sync_sources_first(tag: str) -> None:
        for each in TAGS.values():  # sync acts on every source: each restores all three
            sourced(each).unlink()

    def sources_synced(tag: str, result: dict[str, Any]) -> None:
        assert result["ok"] and all(sourced(each).is_file() for each in TAGS.values())

    def source_removed(tag: str, result: dict[str, Any]) -> None:
        assert result["ok"] and not sourced(tag).exists()
        assert f"src-{tag}" not in json.loads((vault / "roster.lock").read_text())["sources"]

    def starting(tag: str) -> None:
        started[tag] = time.time()

    return {
        "create_profile": WriteSample(
            lambda t: {"id": f"x-{t}", "name": "Made", "allowed_tools": ["Read"]},
            lambda t: ["profile", "create", f"x-{t}", "--name", "Made", "--allowed-tools", "Read"],
            created_profile,
        ),
        "edit_profile": WriteSample(
            lambda t: {"id": f"x-{t}", "description": "Edited", "base_hash": _hash(profile(t))},
            lambda t: ["profile", "edit", f"x-{t}", "--description", "Edited"],
            edited_profile,
        ),
        "delete_profile": WriteSample(
            lambda t: {"id": f"x-{t}", "base_hash": _hash(profile(t))},
            lambda t: ["profile", "delete", f"x-{t}"],
            deleted_profile,
        ),
        "create_project_profile": WriteSample(
            lambda t: {"project": f"p-{t}", "agent_type": "qa", "seed_from_global": True},
            lambda t: ["project-profile", "create", f"p-{t}", "qa", "--seed"],
            created_override,
        ),
        "edit_project_profile": WriteSample(
            lambda t: {
                "project": f"p-{t}",
                "agent_type": "qa",
                "config": {"model": "opus"},
                "base_hash": _hash(override(t)),
            },
            lambda t: ["project-profile", "edit", f"p-{t}", "qa", "--set", "model=opus"],
            edited_override,
        ),
        "delete_project_profile": WriteSample(
            lambda t: {"project": f"p-{t}", "agent_type": "qa", "base_hash": _hash(override(t))},
            lambda t: ["project-profile", "delete", f"p-{t}", "qa"],
            deleted_override,
        ),
        "install_profile": WriteSample(
            lambda t: {"id": f"tooling-{t}", "yes": True},
            lambda t: ["install", f"tooling-{t}", "--yes"],
            installed,
        ),
        "import_profile": WriteSample(
            lambda t: {"yaml": (work / "shared.yaml").read_text(), "id": f"shared-{t}"},
            lambda t: ["import", str(work / "shared.yaml"), "--id", f"shared-{t}"],
            imported,
        ),
        "create_mcp_server": WriteSample(
            lambda t: {"name": f"srv-{t}", "command": sys.executable, "args": [str(STUB)]},
            lambda t: ["mcp", "add", f"srv-{t}", "--command", sys.executable, "--arg", str(STUB)],
            created_server,
        ),
        "edit_mcp_server": WriteSample(
            lambda t: {"name": f"srv-{t}", "description": "Edited", "base_hash": _hash(server(t))},
            lambda t: ["mcp", "edit", f"srv-{t}", "--description", "Edited"],
            edited_server,
        ),
        "delete_mcp_server": WriteSample(
            lambda t: {"name": f"srv-{t}", "base_hash": _hash(server(t))},
            lambda t: ["mcp", "remove", f"srv-{t}"],
            deleted_server,
        ),
        "probe_mcp_server": WriteSample(
            lambda t: {"name": f"stub-{t}"},
            lambda t: ["mcp", "probe", f"stub-{t}"],
            probed,
        ),
        "list_mcp_tool_catalog": WriteSample(
            lambda t: {"refresh": True},
            lambda t: ["mcp", "catalog", "--refresh"],
            catalogued,
            starting,
        ),
        "create_project": WriteSample(
            lambda t: {"id": f"proj-{t}", "name": "Shop", "default_profile_id": "coding"},
            lambda t: [
                "project",
                "create",
                f"proj-{t}",
                "--name",
                "Shop",
                "--default-profile",
                "coding",
            ],
            lambda t, r: project_row(t, "Shop", "coding"),
        ),
        "edit_project": WriteSample(
            lambda t: {"id": f"proj-{t}", "name": "Renamed", "default_profile_id": None},
            lambda t: [
                "project",
                "edit",
                f"proj-{t}",
                "--name",
                "Renamed",
                "--clear-default-profile",
            ],
            lambda t, r: project_row(t, "Renamed", None),
        ),
        "create_task": WriteSample(
            lambda t: {
                "id": f"task-{t}",
                "project_id": f"proj-{t}",
                "title": "Do",
                "profile_id": "qa",
            },
            lambda t: [
                "task",
                "create",
                f"task-{t}",
                "--project",
                f"proj-{t}",
                "--title",
                "Do",
                "--profile",
                "qa",
            ],
            lambda t, r: task_row(t, "Do", "qa"),
        ),
        "edit_task": WriteSample(
            lambda t: {"id": f"task-{t}", "title": "Done", "profile_id": None},
            lambda t: ["task", "edit", f"task-{t}", "--title", "Done", "--clear-profile"],
            lambda t, r: task_row(t, "Done", None),
        ),
        "sync_vault": WriteSample(lambda t: {}, lambda t: ["sync"], synced, sync_first),
        "import_from_harness": WriteSample(
            lambda t: {
                "harness": "claude",
                "workspace": str(work / f"workspace-{t}"),
                "home": str(work / f"home-{t}"),
            },
            lambda t: [
                "import",
                "--from",
                "claude",
                "--workspace",
                str(work / f"workspace-{t}"),
                "--home",
                str(work / f"home-{t}"),
            ],
            from_harness,
        ),
        "render_to_harness": WriteSample(
            lambda t: {"to": ["claude"], "ids": ["code-review"], "out": str(work / f"out-{t}")},
            lambda t: ["render", "--to", "claude", "--out", str(work / f"out-{t}"), "code-review"],
            rendered,
        ),
        "source_add": WriteSample(
            lambda t: {"url": str(work / f"team-{t}"), "name": f"src-{t}"},
            lambda t: ["source", "add", str(work / f"team-{t}"), "--name", f"src-{t}"],
            source_added,
        ),
        "source_update": WriteSample(
            lambda t: {"name": f"src-{t}"},
            lambda t: ["source", "update", f"src-{t}"],
            source_updated,
            update_first,
        ),
        "source_sync": WriteSample(
            lambda t: {}, lambda t: ["source", "sync"], sources_synced, sync_sources_first
        ),
        "source_remove": WriteSample(
            lambda t: {"name": f"src-{t}"},
            lambda t: ["source", "remove", f"src-{t}"],
            source_removed,
        ),
    }
