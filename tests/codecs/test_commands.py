"""The harness commands (render, import, discover, can) through their functions and the CLI.

Codec behaviour is tested per codec; here: what happens to the files (written only when
changed, --check, --dry-run, refusal to write outside --out), what import does to the vault
(never overwrites without --overwrite, validates before writing), and `roster can`.
"""

from __future__ import annotations

import gc
import json
import os
import shutil
from pathlib import Path

import pytest

from agent_roster.cli import main, output
from agent_roster.codecs import codec_names, get_codec
from agent_roster.codecs.base import NativeFile, Rendering
from agent_roster.commands import harness
from agent_roster.commands.can import can
from agent_roster.commands.discover import import_agents
from agent_roster.commands.harness import CREATED, UNCHANGED, UPDATED, render_agents
from agent_roster.commands.ledger import LEDGER_FILE
from agent_roster.errors import NotFoundError, UsageError, VaultError
from agent_roster.perf import holding
from agent_roster.vault.loader import load_vault

from ..example_copies import add_copies
from .helpers import EXAMPLES


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    target = tmp_path / "vault"
    shutil.copytree(EXAMPLES, target)
    return target


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_render_writes_then_reports_unchanged(vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "ws"
    first = render_agents(vault, ["claude"], out=out, allow_widening=True)
    assert first.ok
    agent = out / ".claude" / "agents" / "coding.md"
    assert agent.is_file()
    assert {f.status for f in first.files} == {CREATED}
    second = render_agents(vault, ["claude"], out=out, allow_widening=True)
    assert {f.status for f in second.files} == {UNCHANGED}
    assert second.changed == ()


def test_render_check_and_dry_run_write_nothing(vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "ws"
    render_agents(vault, ["claude"], out=out, ids=["coding"], allow_widening=True)
    agent = out / ".claude" / "agents" / "coding.md"
    agent.write_text(agent.read_text() + "\nhand edit\n")
    before = agent.read_text()
    checked = render_agents(
        vault, ["claude"], out=out, ids=["coding"], check=True, allow_widening=True
    )
    assert not checked.ok
    assert [f.status for f in checked.changed] == [UPDATED]
    dry = render_agents(
        vault, ["claude"], out=out, ids=["coding"], dry_run=True, allow_widening=True
    )
    diff = next(f.diff for f in dry.files if f.path.endswith("coding.md"))
    assert "-hand edit" in diff
    assert agent.read_text() == before  # neither wrote
    assert render_agents(vault, ["claude"], out=out, ids=["coding"], allow_widening=True).ok
    assert render_agents(
        vault, ["claude"], out=out, ids=["coding"], check=True, allow_widening=True
    ).ok


def test_render_cli_check_exit_codes(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "ws"
    args = ("--vault", str(vault), "render", "--to", "claude", "--out", str(out))
    args += ("--allow-widening",)  # the example's coding agent: see test_never_widen.py
    code, _, _ = run(capsys, *args, "--check")
    assert code == 1  # nothing rendered yet: every file differs
    code, stdout, _ = run(capsys, *args)
    assert code == 0 and "created" in stdout
    code, stdout, _ = run(capsys, *args, "--check")
    assert code == 0 and "unchanged" in stdout


def test_render_unknown_id_is_a_usage_error(vault: Path, tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match="no profile 'codin'"):
        render_agents(vault, ["claude"], out=tmp_path, ids=["codin"], allow_widening=True)
    with pytest.raises(UsageError, match="unknown harness"):
        render_agents(vault, ["claud"], out=tmp_path)


class _EvilCodec:
    name = "evil"
    title = "Evil"
    native_fields = frozenset({"prompt"})
    partitioned = False
    whole_keys: frozenset[str] = frozenset()

    def __init__(self, path: str) -> None:
        self.path = path

    def discover(self, roots):  # type: ignore[no-untyped-def]
        raise NotImplementedError

    def render(self, request, existing):  # type: ignore[no-untyped-def]
        return Rendering(files=(NativeFile(path=self.path, content="x"),))


@pytest.mark.parametrize(
    "path",
    [
        "../escape.md",
        "/etc/evil.md",
        "link/escape.md",
        # Folders are resolved from their parents' (output_folder._real_folder): a symlink
        # deeper down, or above a folder that does not exist yet, is still followed.
        "link/new/escape.md",
        "deep/link/escape.md",
        "deep/link/new/escape.md",
    ],
)
def test_render_never_writes_outside_out(
    path: str, vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "ws"
    outside = tmp_path / "outside"
    outside.mkdir()
    out.mkdir()
    (out / "link").symlink_to(outside)
    (out / "deep").mkdir()
    (out / "deep" / "link").symlink_to(outside)
    monkeypatch.setattr(harness, "get_codec", lambda name: _EvilCodec(path))
    with pytest.raises(VaultError, match="refusing to write"):
        render_agents(vault, ["evil"], out=out)
    assert list(outside.iterdir()) == []
    assert not (tmp_path / "escape.md").exists()


def test_import_round_trip_into_an_empty_vault(vault: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    render_agents(vault, ["claude"], out=ws, allow_widening=True)
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    report = import_agents(fresh, "claude", workspace=ws, home=tmp_path / "home")
    assert report.ok, [d.format() for d in report.diagnostics]
    created = {f.path for f in report.files if f.status == "created"}
    assert "agent-types/coding/profile.md" in created
    assert any(p.startswith("mcp-servers/") for p in created)
    snapshot = load_vault(fresh)
    assert [d.format() for d in snapshot.all_diagnostics() if d.is_error] == []


def test_import_never_overwrites_without_flag(vault: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    render_agents(vault, ["claude"], out=ws, ids=["coding"], allow_widening=True)
    agent = ws / ".claude" / "agents" / "coding.md"
    agent.write_text(agent.read_text().replace("software engineering agent", "SE agent"))
    target = vault / "agent-types" / "coding" / "profile.md"
    before = target.read_bytes()
    report = import_agents(vault, "claude", workspace=ws, home=tmp_path / "home")
    assert not report.ok
    assert any(d.code == "import-exists" and "coding" in d.path for d in report.diagnostics)
    assert target.read_bytes() == before
    dry = import_agents(
        vault, "claude", workspace=ws, home=tmp_path / "home", overwrite=True, dry_run=True
    )
    assert any(f.status == "overwritten" for f in dry.files)
    assert target.read_bytes() == before
    done = import_agents(vault, "claude", workspace=ws, home=tmp_path / "home", overwrite=True)
    assert done.ok
    assert "SE agent" in target.read_text()


def test_can_answers_with_the_deciding_rule(capsys: pytest.CaptureFixture[str]) -> None:
    answer = can(EXAMPLES, "coding", "Bash", "git push --force origin main")
    assert answer.decision.action.value == "deny"
    assert answer.decision.rule is not None and answer.decision.rule.source == "denied_tools"
    assert can(EXAMPLES, "coding", "Bash", "git status").decision.action.value == "allow"
    assert can(EXAMPLES, "coding", "mcp__github__create_issue").decision.action.value == "deny"
    code, out, _ = run(
        capsys, "--vault", str(EXAMPLES), "can", "coding", "Bash", "rm -rf /", "--json"
    )
    data = json.loads(out)
    assert code == 0
    assert data["action"] == "deny" and data["key"] == "bash"
    assert data["rule"]["pattern"] == "rm -rf *"


def test_render_narrows_a_tool_the_harness_cannot_decide_by_argument(
    vault: Path, tmp_path: Path
) -> None:
    """Issue 12 item 2: the example's coding agent denies `rm -rf` and force pushes while
    Bash is allowed; a Claude Code subagent file cannot say that (its tools list grants the
    whole tool, and Bash asks). Rather than widen, Bash is denied whole, and reported."""
    out = tmp_path / "ws"
    report = render_agents(vault, ["claude"], out=out, ids=["coding", "supervisor"])
    assert report.ok, report.diagnostics
    assert not [d for d in report.diagnostics if d.code == "render-widens"]
    coding = (out / ".claude" / "agents" / "coding.md").read_text()
    head = coding.split("---\n")[1]
    assert "- Bash" in head.split("disallowedTools:")[1]
    narrowed = [
        loss.detail
        for loss in report.losses
        if loss.profile == "coding" and "cannot decide them apart" in loss.detail
    ]
    assert narrowed == [
        "Bash: Claude Code cannot decide them apart, so every call is deny (the profile says "
        "allow/deny by tool or argument; narrower, never wider)"
    ]


def test_render_refuses_an_agent_the_harness_would_let_do_more(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A restriction no narrowing can keep (Cursor's agents have every tool) refuses the
    agent, with every call named, and nothing is written for it."""
    out = tmp_path / "ws"
    report = render_agents(vault, ["cursor"], out=out, ids=["coding"])
    assert not report.ok
    [refusal] = [d for d in report.diagnostics if d.code == "render-widens"]
    assert refusal.path.endswith("agent-types/coding/profile.md")
    assert refusal.message.startswith(
        "agent 'coding' is not written for Cursor: Cursor cannot hold its restrictions ("
    )
    assert "--allow-widening" in refusal.hint
    assert not list(out.rglob("coding*"))
    refused = [loss for loss in report.losses if loss.outcome.value == "refused"]
    assert {loss.profile for loss in refused} == {"coding"}
    assert "WebSearch: the profile says deny, Cursor would allow" in {
        loss.detail for loss in refused
    }
    # The CLI exits 1 and prints the refusal; a file an earlier render left is named.
    render_agents(vault, ["cursor"], out=out, ids=["coding"], allow_widening=True)
    written = [p.relative_to(out).as_posix() for p in out.rglob("coding*")]
    args = ("--vault", str(vault), "render", "--to", "cursor", "--out", str(out), "coding")
    code, stdout, stderr = run(capsys, *args)
    assert code == 1
    assert "refused    allowed_tools: WebSearch: the profile says deny" in stdout
    assert "error[render-widens]" in stderr
    assert f"{written[0]} already there is left as it is" in stderr


def test_allow_widening_writes_and_says_exactly_what_widened(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "ws"
    args = ("--vault", str(vault), "render", "--to", "claude", "--out", str(out), "coding")
    code, stdout, _ = run(capsys, *args, "--allow-widening", "--json")
    assert code == 0
    report = json.loads(stdout)
    widened = [loss for loss in report["losses"] if loss["outcome"] == "widened"]
    assert [loss["detail"] for loss in widened] == [
        "Bash `rm -rf /`: the profile says deny, Claude Code would ask "
        "(written under --allow-widening)",
        "Bash `git push --force`: the profile says deny, Claude Code would ask "
        "(written under --allow-widening)",
        "Bash `git reset --hard`: the profile says deny, Claude Code would ask "
        "(written under --allow-widening)",
        "Bash `rm -rf`: the profile says deny, Claude Code would ask "
        "(written under --allow-widening)",
    ]
    assert (out / ".claude" / "agents" / "coding.md").is_file()
    assert "roster:embedded" not in (out / ".claude" / "agents" / "coding.md").read_text()


@pytest.mark.parametrize(
    ("tool", "argument", "vocabulary", "action"),
    [
        ("Bash", "rm -rf /tmp/x", "canonical", "deny"),
        ("bash", "rm -rf /tmp/x", "opencode", "deny"),
        ("run_shell_command", "git status", "gemini name", "allow"),
        ("Bash(git push --force:*)", None, "canonical", "deny"),
        ("Edit", None, "canonical", "allow"),
        ("edit", None, "opencode", "allow"),
        ("write", None, "opencode", "allow"),
        ("WebSearch", None, "canonical", "deny"),
        ("websearch", None, "opencode", "deny"),
        ("webfetch", None, "opencode", "allow"),
        ("create_task", None, "embedded", "allow"),
        ("agent-queue_create_task", None, "unknown", "allow"),
        ("mcp__github__create_issue", None, "mcp", "deny"),
        ("github_create_issue", None, "unknown", "deny"),
    ],
)
def test_can_reads_every_vocabulary(
    tool: str, argument: str | None, vocabulary: str, action: str
) -> None:
    """Issue 12 item 3: OpenCode permission keys are OpenCode keys, not tools of the
    embedded server; Claude names, other harnesses' names and MCP names are read too."""
    answer = can(EXAMPLES, "coding", tool, argument)
    assert (answer.vocabulary, answer.decision.action.value) == (vocabulary, action)


def test_can_decides_edit_and_write_apart(tmp_path: Path) -> None:
    # A Claude agent with Edit but not Write cannot create files; OpenCode's `edit` key
    # governs both, so its answer is the stricter.
    vault = tmp_path / "vault"
    (vault / "agent-types" / "ed").mkdir(parents=True)
    (vault / "agent-types" / "ed" / "profile.md").write_text(
        '---\nid: ed\nname: ed\n---\n\n## Tools\n```json\n{"allowed": ["Read", "Edit"]}\n```\n'
    )
    assert can(vault, "ed", "Edit").decision.action.value == "allow"
    assert can(vault, "ed", "Write").decision.action.value == "deny"
    assert can(vault, "ed", "edit").decision.action.value == "deny"
    assert can(vault, "ed", "NotebookEdit").decision.action.value == "deny"  # not named


def test_can_unknown_profile_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "--vault", str(EXAMPLES), "can", "nope", "Bash")
    assert code == 2 and "no profile 'nope'" in err


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _timeless(ledger: bytes) -> object:
    files = json.loads(ledger)["files"]
    for entry in files.values():
        for writer in entry["writers"]:
            writer.pop("rendered_at")
    return files


@pytest.mark.parametrize("workers", [1, 3])
def test_a_render_split_across_processes_is_the_whole_render(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    add_copies(vault, 6)
    # A part renders the agents other parts write only where one adds a server to the
    # shared files: the first part's agents here name a server no other agent names, and
    # one the registry lacks (each MCP file reports every id naming it).
    named = (("aac-lone", "context7"), ("aad-missing", "nowhere"), ("aae-missing", "nowhere"))
    for ident, server in named:
        (vault / "agent-types" / ident).mkdir()
        (vault / "agent-types" / ident / "profile.md").write_text(
            f"---\nid: {ident}\nname: {ident}\ndescription: looks things up\n---\n\n"
            f'## Role\n\nYou look things up.\n\n## MCP Servers\n\n```json\n["{server}"]\n```\n'
        )
    harnesses = list(codec_names())
    # A Codex role's check reads config.toml, which only the last part writes: a server
    # the user disabled there is enabled by the render, so a role that denies one of its
    # tools without configuring it widens in a whole render, and must in the first part.
    first = vault / "agent-types" / "aaa-no-merge"
    first.mkdir()
    (first / "profile.md").write_text(
        "---\nid: aaa-no-merge\nname: No merge\ndescription: never merges\n---\n\n"
        "## Role\n\nYou review.\n\n## Tools\n\n```json\n"
        '{"denied": ["mcp__github__merge_pull_request"]}\n```\n'
    )
    # Refused by OpenCode and Kilo (an MCP tool decided by argument), in the first part,
    # while the last part reports Kilo's project file dropping its server: a refused
    # agent's losses are left out wherever a part reports them.
    refused = vault / "agent-types" / "aab-refused"
    refused.mkdir()
    (refused / "profile.md").write_text(
        "---\nid: aab-refused\nname: Refused\ndescription: files issues\n---\n\n"
        "## Role\n\nYou file issues.\n\n## Config\n\n```json\n"
        '{"permission": {"github_create_issue": {"*": "allow", "secret*": "deny"}}}\n```\n\n'
        '## Tools\n\n```json\n{"allowed": ["Read", "mcp__github__*"]}\n```\n\n'
        '## MCP Servers\n\n```json\n["github"]\n```\n'
    )
    for side in ("whole", "split"):
        config = tmp_path / side / ".codex" / "config.toml"
        config.parent.mkdir(parents=True)
        config.write_text('model = "o3"\n\n[mcp_servers.github]\ncommand = "x"\nenabled = false\n')
    whole = render_agents(vault, harnesses, out=tmp_path / "whole")
    assert any(loss.outcome.value == "refused" for loss in whole.losses)
    assert any(
        d.code == "render-widens" and "aaa-no-merge" in d.message and "Codex" in d.message
        for d in whole.diagnostics
    )
    assert any(
        d.code == "render-widens" and "aab-refused" in d.message and "Kilo" in d.message
        for d in whole.diagnostics
    )
    forks: list[int] = []
    real_map = harness.ordered_map

    def recording_map(fn, chunks, workers, **options):  # type: ignore[no-untyped-def]
        forks.append(workers)
        return real_map(fn, chunks, workers, **options)

    monkeypatch.setattr(harness, "PARALLEL_MIN_PROFILES", 2)
    monkeypatch.setattr(harness, "available_workers", lambda: workers)
    monkeypatch.setattr(harness, "ordered_map", recording_map)
    split = render_agents(vault, harnesses, out=tmp_path / "split")
    assert forks == [workers]
    assert {get_codec(h).partitioned for h in harnesses} == {True}  # every codec splits
    split_tree, whole_tree = _tree(tmp_path / "split"), _tree(tmp_path / "whole")
    # The ledgers record the same files, hashes and profiles (the renders' times differ).
    assert _timeless(split_tree.pop(LEDGER_FILE)) == _timeless(whole_tree.pop(LEDGER_FILE))
    assert split_tree == whole_tree
    assert len(whole_tree) > 2 * 6 * 5

    def portable(report: harness.RenderReport) -> object:
        files = [(f.harness, os.path.relpath(f.path, tmp_path), f.status) for f in report.files]
        files = [(h, p.split(os.sep, 1)[1], s) for h, p, s in files]
        return files, report.losses, report.diagnostics

    assert portable(split) == portable(whole)
    # Checking the split output (split again) finds every file current.
    again = render_agents(vault, harnesses, out=tmp_path / "split", check=True)
    assert not again.changed and len(again.files) == len(split.files)


def test_render_never_writes_through_a_symlinked_file(vault: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("keep me")
    agents = tmp_path / "ws" / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "coding.md").symlink_to(outside)
    with pytest.raises(VaultError, match="resolves outside"):
        render_agents(vault, ["claude"], out=tmp_path / "ws", allow_widening=True)
    assert outside.read_text() == "keep me"


def test_render_reports_existing_files_as_updated_or_unchanged(vault: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    first = render_agents(vault, ["claude"], out=ws, allow_widening=True)
    coding = ws / ".claude" / "agents" / "coding.md"
    coding.write_text("edited by hand\n")
    again = render_agents(vault, ["claude"], out=ws, allow_widening=True)
    status = {Path(f.path).name: f.status for f in again.files}
    assert status["coding.md"] == UPDATED
    assert {s for name, s in status.items() if name != "coding.md"} == {UNCHANGED}
    assert coding.read_text() != "edited by hand\n"
    assert {f.status for f in first.files} == {CREATED}


def test_render_prints_each_loss_once_with_its_profiles(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys, "--vault", str(vault), "render", "--to", "opencode", "--out", str(tmp_path)
    )
    assert code == 0
    report = render_agents(vault, ["opencode"], out=tmp_path, check=True)
    by_detail: dict[tuple[str, str], list[str]] = {}
    for loss in report.losses:
        by_detail.setdefault((loss.field, loss.detail), []).append(loss.profile)
    lines = [
        line
        for line in out.splitlines()
        if line.split(" ", 1)[0] in {"dropped", "translated", "embedded"}
    ]
    assert len(lines) == len(by_detail)  # one line per distinct loss
    tags = next(line for line in lines if "tags: OpenCode has no such setting" in line)
    names = by_detail[("tags", "OpenCode has no such setting")]
    assert len(names) == 6
    assert tags.endswith(f"[{', '.join(names[:5])} and 1 more]")
    assert out.rstrip().endswith("(--json lists every profile of every loss)")


def test_a_large_render_prints_a_screenful_and_verbose_prints_every_line(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_roster.cli import harness_commands, output

    add_copies(vault, 6)
    monkeypatch.setattr(harness_commands, "LOSS_GROUPS_SHOWN", 3)
    harnesses = ["--to", "claude", "--to", "opencode"]
    base = ("--vault", str(vault), "render", *harnesses)
    code, out, _ = run(capsys, *base, "--out", str(tmp_path / "a"))
    report = render_agents(vault, ["claude", "opencode"], out=tmp_path / "c")
    assert code == 0 and len(report.files) > output.LINES_SHOWN
    lines = out.splitlines()
    listed = [line for line in lines if line.startswith("created")]
    assert len(listed) == output.LINES_SHOWN
    more = len(report.files) - output.LINES_SHOWN
    assert f"... and {more:,} more files (--verbose lists each one)" in lines
    assert f"{len(report.files):,} created" in lines
    kinds = {(loss.outcome.value, loss.field, loss.detail) for loss in report.losses}
    assert len(kinds) > 3
    shown = [line for line in lines if line.split(" ", 1)[0] in {"dropped", "translated"}]
    assert len(shown) == 3
    assert any(line.startswith(f"... and {len(kinds) - 3:,} more kinds of loss") for line in lines)
    # --verbose: every file and every kind of loss, as a small render prints them.
    code, out, _ = run(capsys, *base, "--dry-run", "--verbose", "--out", str(tmp_path / "b"))
    lines = out.splitlines()
    assert len([line for line in lines if line.startswith("would be created")]) == len(report.files)
    shown = [line for line in lines if line.split(" ", 1)[0] in {"dropped", "translated"}]
    assert len(shown) == len(kinds)
    assert not any("more files" in line or "more kinds" in line for line in lines)


def test_render_names_the_vaults_embedded_server(vault: Path, tmp_path: Path) -> None:
    # Bare command names are written under the name roster.toml gives roster's own server.
    config = vault / "roster.toml"
    config.write_text(config.read_text().replace('name = "agent-queue"', 'name = "roster-cmds"'))
    render_agents(vault, ["claude", "copilot"], out=tmp_path, ids=["supervisor"])
    claude = (tmp_path / ".claude" / "agents" / "supervisor.md").read_text()
    assert "mcp__roster-cmds__create_task" in claude
    assert "agent-queue" not in claude
    copilot = (tmp_path / ".github" / "agents" / "supervisor.agent.md").read_text()
    assert "roster-cmds/create_task" in copilot
    assert "agent-queue" not in copilot


def test_render_of_a_vault_without_profiles_writes_nothing(tmp_path: Path) -> None:
    empty = tmp_path / "vault"
    empty.mkdir()
    report = render_agents(empty, ["claude", "opencode"], out=tmp_path / "ws")
    assert report.ok and report.files == ()
    assert not (tmp_path / "ws").exists() or not any((tmp_path / "ws").rglob("*"))


def test_a_render_hands_its_loaded_vault_only_to_a_holder(vault: Path, tmp_path: Path) -> None:
    # The roster executable holds the loaded vault to its end rather than freeing it
    # object by object (perf.holding); any other caller holds nothing afterwards.
    with holding() as held:
        report = render_agents(vault, ["claude"], out=tmp_path / "held")
    loaded = [item for item in held if isinstance(item, harness.EffectiveSet)]
    assert len(loaded) == 1 and {p.id for p in loaded[0].profiles} == {
        f.path.rsplit("/", 1)[-1].removesuffix(".md")
        for f in report.files
        if "/.claude/agents/" in f.path
    }
    del held, loaded

    def alive() -> int:
        gc.collect()
        return sum(isinstance(item, harness.EffectiveSet) for item in gc.get_objects())

    before = alive()
    render_agents(vault, ["claude"], out=tmp_path / "free")
    assert alive() == before  # nothing outside a holder keeps a render's loaded vault


def test_the_render_command_holds_its_loaded_vault(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept: list[object] = []
    monkeypatch.setattr(output, "keep_to_exit", kept.append)
    assert main(["--vault", str(vault), "render", "--to", "claude", "--out", str(tmp_path)]) == 0
    [(result, loaded)] = kept  # type: ignore[misc]
    assert isinstance(result, harness.RenderResult) and result.files
    assert any(isinstance(item, harness.EffectiveSet) for item in loaded)  # type: ignore[attr-defined]
