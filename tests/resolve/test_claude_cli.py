"""Acceptance against the real Claude Code CLI (issue 4 item 7).

For every claude_sdk launch spec of the example vault (system scope and project webshop) and
of a small generated vault, the generated argv and MCP config must pass the CLI's own
validation. Without credentials ``claude -p`` checks its options and the MCP config file
(exists, is JSON) and then stops with exactly "Not logged in · Please run /login"; it does not
check the server entries, so each config is also loaded as a project ``.mcp.json`` by
``claude mcp list`` (which reports bad entries as "[Warning] ... Skipped — invalid MCP server
config") and every server is read back with ``claude mcp get NAME``.

Each ``-p`` run gets the spec's own environment. Two lines besides "Not logged in" are
allowed, and only where the spec predicts them: the deny-rule warning for a tool Claude Code
has dropped (``tools.RETIRED_CLAUDE_TOOLS``; the spec notes each one). As root (containers,
CI) Claude Code refuses bypassPermissions unless IS_SANDBOX=1, so root runs set it.

The CLI is found on PATH or under ``$ROSTER_CLAUDE_BIN``; missing, the tests skip, except
with ``$CI`` set, where they fail (``make test`` installs it). Every run gets an empty HOME,
stdin from /dev/null and a 60 s timeout; runs go three at a time to keep the file short.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from agent_roster.commands.resolve import build_index, resolve_launch
from agent_roster.resolve.launch import LaunchSpec
from agent_roster.resolve.tools import RETIRED_CLAUDE_TOOLS
from agent_roster.store import Store, sqlite_url

from .helpers import (
    EXAMPLE_VAULT,
    env_references,
    need_claude,
    option_index,
    write_launch_files,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import vaultgen

NOT_LOGGED_IN = "Not logged in · Please run /login"
FORBIDDEN = ("unknown option", "is invalid", "error:", "Invalid MCP", "MCP config")
EMBEDDED = '[embedded_server]\nname = "agent-queue"\nurl = "http://127.0.0.1:8765/mcp"\n'


class Run(NamedTuple):
    code: int
    output: str


class Case(NamedTuple):
    label: str
    spec: LaunchSpec


def claude(binary: str, args: list[str], cwd: Path, env: dict[str, str]) -> Run:
    home = tempfile.mkdtemp(prefix="claude-home-")
    try:
        done = subprocess.run(
            [binary, *args],
            cwd=cwd,
            env={"HOME": home, "PATH": os.environ.get("PATH", ""), **env},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        return Run(done.returncode, done.stdout + done.stderr)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def specs_of(vault: Path, db: Path, scopes: dict[str, list[str]]) -> list[Case]:
    """Launch specs through the real path: sync into SQLite, index, resolve, build. Every
    system profile in system scope, plus each (project, profile) pair in ``scopes``."""
    with Store.open(sqlite_url(db)) as store:
        index = build_index(store, vault)
    pairs: list[tuple[str, str | None]] = [(ident, None) for ident in sorted(index.system)]
    pairs += [(ident, pid) for pid, ids in scopes.items() for ident in ids]
    cases = []
    for ident, project in pairs:
        spec = resolve_launch(index, vault, profile=ident, project=project).launch
        if spec.runtime == "claude_sdk":
            write_launch_files(spec)
            cases.append(Case(f"{project}/{ident}" if project else ident, spec))
    return cases


@pytest.fixture(scope="module")
def binary() -> str:
    return need_claude()


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Case]]:
    base = tmp_path_factory.mktemp("claude-cli")
    example = Path(shutil.copytree(EXAMPLE_VAULT, base / "example" / "vault"))
    manifest = vaultgen.generate(
        base / "generated" / "vault", profiles=30, servers=12, projects=3, seed=7
    )
    (manifest.root / "roster.toml").write_text(EMBEDDED)
    return {
        "example": specs_of(example, base / "example.db", {"webshop": ["coding"]}),
        "generated": specs_of(manifest.root, base / "generated.db", manifest.overrides),
    }


def entries_of(text: str) -> set[str]:
    """The server entries of one MCP config, each as a canonical JSON string."""
    servers = json.loads(text)["mcpServers"]
    return {json.dumps([name, entry], sort_keys=True) for name, entry in servers.items()}


def covering(texts: list[str]) -> list[str]:
    """A few configs that hold every distinct server entry of ``texts`` (greedy cover).
    ``claude -p`` already checks that each config file exists and is JSON; what ``mcp list``
    adds is the check of each entry, so listing a covering set checks every entry."""
    missing = set().union(*(entries_of(t) for t in texts))
    chosen: list[str] = []
    while missing:
        best = max(texts, key=lambda t: len(entries_of(t) & missing))
        chosen.append(best)
        missing -= entries_of(best)
    return chosen


@pytest.fixture(scope="module")
def runs(binary: str, cases: dict[str, list[Case]]) -> Iterator[dict[str, Any]]:
    """Every CLI run the tests below judge, made once, three at a time."""
    work = Path(tempfile.mkdtemp(prefix="claude-runs-"))
    all_cases = [case for group in cases.values() for case in group]
    texts = list(dict.fromkeys(next(iter(c.spec.files.values())) for c in all_cases))
    configs: dict[str, str] = {}  # MCP config text → project dir holding it as .mcp.json
    for text in covering(texts):
        folder = work / f"project-{len(configs)}"
        folder.mkdir()
        (folder / ".mcp.json").write_text(text)
        configs[text] = str(folder)
    # The launcher provides the variables the configs reference (else: "Missing environment
    # variables" warnings); as root, bypassPermissions needs IS_SANDBOX=1.
    env = {name: f"test-{name.lower()}" for name in env_references(texts)}
    if os.geteuid() == 0:
        env["IS_SANDBOX"] = "1"
    jobs: dict[tuple[str, ...], tuple[list[str], Path, dict[str, str]]] = {}
    for case in all_cases:
        args = case.spec.command("hello")[1:]
        jobs[("print", case.label)] = (args, work, {**env, **case.spec.env})
    seen: set[str] = set()  # each distinct server entry is read back once
    for text, where in configs.items():
        jobs[("list", where)] = (["mcp", "list"], Path(where), env)
        for key in sorted(entries_of(text) - seen):
            name = json.loads(key)[0]
            jobs[("get", where, name)] = (["mcp", "get", name], Path(where), env)
        seen |= entries_of(text)
    with ThreadPoolExecutor(max_workers=3) as pool:
        futures = {key: pool.submit(claude, binary, *job) for key, job in jobs.items()}
        results = {key: future.result() for key, future in futures.items()}
    yield {"results": results, "configs": configs, "texts": texts}
    shutil.rmtree(work, ignore_errors=True)


def expected_warnings(spec: LaunchSpec) -> set[str]:
    """The deny-rule warnings Claude Code prints for retired tools the spec passes on."""
    argv = list(spec.argv)
    if "--disallowed-tools" not in argv:
        return set()
    denied = argv[argv.index("--disallowed-tools") + 1 : option_index(argv, "--mcp-config")]
    return {
        f'Permission deny rule "{name}" matches no known tool — check for typos.'
        for name in denied
        if name in RETIRED_CLAUDE_TOOLS
    }


def print_failures(cases: list[Case], results: dict[tuple[str, ...], Run]) -> list[str]:
    failures = []
    for case in cases:
        run = results[("print", case.label)]
        lines = run.output.strip().splitlines()
        bad = [word for word in FORBIDDEN if word in run.output]
        rest = set(lines) - {NOT_LOGGED_IN}
        if run.code != 1 or NOT_LOGGED_IN not in lines or bad:
            failures.append(f"{case.label}: exit {run.code}: {run.output.strip()[:300]}")
        elif rest != expected_warnings(case.spec) or len(lines) != len(rest) + 1:
            failures.append(f"{case.label}: unexpected output: {run.output.strip()[:300]}")
    return failures


def test_example_argv_is_accepted(cases: dict[str, list[Case]], runs: dict[str, Any]) -> None:
    labels = [case.label for case in cases["example"]]
    assert labels == ["code-review", "coding", "qa", "security-review", "webshop/coding"]
    assert print_failures(cases["example"], runs["results"]) == []
    # The example's code-review denies MultiEdit, which Claude Code 2.x no longer has.
    assert expected_warnings(cases["example"][0].spec)


def test_generated_argv_is_accepted(cases: dict[str, list[Case]], runs: dict[str, Any]) -> None:
    assert len(cases["generated"]) >= 20
    assert any(c.label.count("/") for c in cases["generated"])  # project overrides too
    assert print_failures(cases["generated"], runs["results"]) == []


def test_mcp_configs_pass_mcp_list_and_get(runs: dict[str, Any]) -> None:
    results: dict[tuple[str, ...], Run] = runs["results"]
    failures = []
    checked: set[str] = set()
    for text, folder in runs["configs"].items():
        listed = results[("list", folder)]
        names = list(json.loads(text)["mcpServers"])
        lines = [line for line in listed.output.splitlines() if "[Warning]" in line]
        lines += [line for line in listed.output.splitlines() if "invalid" in line.lower()]
        if listed.code != 0 or lines or any(f"{n}: " not in listed.output for n in names):
            failures.append(f"mcp list for {text}: exit {listed.code}: {listed.output}")
        for name in names:
            got = results.get(("get", folder, name))
            if got is not None and (got.code != 0 or not got.output.startswith(f"{name}:\n")):
                failures.append(f"mcp get {name} for {text}: exit {got.code}: {got.output}")
        checked |= entries_of(text)
    assert failures == []
    # Every entry of every generated config was listed and read back.
    assert checked == set().union(*(entries_of(t) for t in runs["texts"]))
    assert sum(key[0] == "get" for key in results) == len(checked) >= 10
    assert {json.loads(e)[1]["type"] for e in checked} == {"stdio", "http", "sse"}


def test_the_checks_can_fail(binary: str, tmp_path: Path) -> None:
    """The harness would notice a bad spec: an invalid option value, a broken entry."""
    bad = claude(binary, ["-p", "--permission-mode", "full", "--", "hello"], tmp_path, {})
    assert bad.code == 1 and "is invalid" in bad.output
    unknown = claude(binary, ["-p", "--allowed-tool", "Read", "--", "hello"], tmp_path, {})
    assert "unknown option" in unknown.output
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"x": {"type": "stdio"}}}))
    listed = claude(binary, ["mcp", "list"], tmp_path, {})
    assert "[Warning] [x]" in listed.output and "invalid MCP server config" in listed.output
