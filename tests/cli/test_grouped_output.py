"""Readable output at scale (issue 12 item 9): diagnostics that share a code and message
are one line with their count and first places in the text of validate, sync, status,
render and import; ``--verbose`` lists every one, JSON always does."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent_roster.cli import main
from agent_roster.cli.output import GROUP_ABOVE, MESSAGES_SHOWN, grouped_lines, print_diagnostics
from agent_roster.diagnostics import make

ROSTER = str(Path(sys.executable).with_name("roster"))
#: Twenty tool names no registry knows (bare names of other harnesses' tools among them).
UNKNOWN = [f"custom_tool_{i}" for i in range(18)] + ["shell", "read_file"]
#: A screenful: 20 groups of a line and a hint, the note and the summary.
SCREENFUL = 2 * len(UNKNOWN) + 2


def _profile(ident: str, tools: list[str]) -> str:
    allowed = ", ".join(f'"{t}"' for t in ["Read", *tools])
    return (
        f"---\nid: {ident}\nname: {ident}\n---\n\n## Role\nWork.\n\n"
        f'## Tools\n```json\n{{"allowed": [{allowed}]}}\n```\n'
    )


@pytest.fixture(scope="module")
def noisy_vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """8,500 profiles with two unknown tools each: 17,000 warnings, twenty messages."""
    vault = tmp_path_factory.mktemp("noisy") / "vault"
    for i in range(8_500):
        folder = vault / "agent-types" / f"agent-{i:05}"
        folder.mkdir(parents=True)
        pair = [UNKNOWN[i % 20], UNKNOWN[(i + 7) % 20]]
        (folder / "profile.md").write_text(_profile(f"agent-{i:05}", pair), encoding="utf-8")
    return vault


def _validate(vault: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ROSTER, "--vault", str(vault), "validate", *args],
        capture_output=True,
        text=True,
        cwd=vault.parent,
        timeout=300,
        check=False,
    )


@pytest.mark.timeout(600)
def test_17000_warnings_print_a_screenful(noisy_vault: Path) -> None:
    done = _validate(noisy_vault)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) <= SCREENFUL, "\n".join(lines[:80])
    assert lines[-1] == "8500 files checked: 0 errors, 17000 warnings — ok"
    assert lines[-2] == "(--verbose lists each one)"
    shell = lines.index(
        "warning[tool-unknown] tool 'shell' is not a known tool (850 times: "
        "vault/agent-types/agent-00011/profile.md:11:40, "
        "vault/agent-types/agent-00018/profile.md:11:22, "
        "vault/agent-types/agent-00031/profile.md:11:40 and 847 more)"
    )
    assert lines[shell + 1] == "    hint: did you mean 'Bash'? ('shell' is codex's name for it)"
    counts = [line.split("(", 1)[1].split(" times")[0] for line in lines if " times: " in line]
    assert sorted(counts) == ["850"] * 20


@pytest.mark.timeout(600)
def test_verbose_and_json_list_every_warning(noisy_vault: Path) -> None:
    verbose = _validate(noisy_vault, "--verbose")
    assert verbose.returncode == 0, verbose.stderr
    # Each warning is its line and its hint's, then the summary.
    assert len(verbose.stdout.splitlines()) == 2 * 17_000 + 1
    as_json = _validate(noisy_vault, "--format", "json")
    assert len(json.loads(as_json.stdout)["diagnostics"]) == 17_000


def _diagnostics(count: int, message: str = "tool 'x' is not a known tool") -> list[object]:
    return [
        make("tool-unknown", message, path=f"agent-types/a{i}/profile.md", line=9, column=4)
        for i in range(count)
    ]


def test_a_few_alike_are_printed_as_they_are() -> None:
    few = _diagnostics(GROUP_ABOVE)
    assert grouped_lines(few) == [d.format() for d in few]  # type: ignore[attr-defined]


def test_more_are_one_line_with_the_count_and_the_first_places() -> None:
    found = _diagnostics(GROUP_ABOVE + 2) + _diagnostics(1, "tool 'y' is not a known tool")
    assert grouped_lines(found) == [  # type: ignore[arg-type]
        "warning[tool-unknown] tool 'x' is not a known tool (5 times: "
        "agent-types/a0/profile.md:9:4, agent-types/a1/profile.md:9:4, "
        "agent-types/a2/profile.md:9:4 and 2 more)",
        "agent-types/a0/profile.md:9:4: warning[tool-unknown] tool 'y' is not a known tool",
        "(--verbose lists each one)",
    ]
    stream = io.StringIO()
    print_diagnostics(found, "github", stream)  # type: ignore[arg-type]
    assert len(stream.getvalue().splitlines()) == 6  # every annotation


BROKEN = """---
id: {ident}
name: Broken
---
## Role
Work.

## Config
```json
{{"max_turns": 0}}
```
"""


def test_sync_status_render_and_import_group_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = tmp_path / "vault"
    for i in range(6):  # the same error in six profiles
        folder = vault / "agent-types" / f"a{i}"
        folder.mkdir(parents=True)
        (folder / "profile.md").write_text(BROKEN.format(ident=f"a{i}"), encoding="utf-8")
    workspace = tmp_path / "workspace"
    agents = workspace / ".claude" / "agents"
    agents.mkdir(parents=True)
    for i in range(6):  # six agents naming a tool of another harness: six warnings on import
        (agents / f"helper{i}.md").write_text(
            f"---\nname: helper{i}\ndescription: Helps.\ntools: Read, shell\n---\nHelp.\n",
            encoding="utf-8",
        )
    db = f"sqlite:///{tmp_path / 'roster.db'}"
    error = "error[field-value] Config 'max_turns' must be a positive integer, got 0 (6 times: "
    warning = "warning[tool-unknown] tool 'shell' is not a known tool (6 times: "
    commands = {
        "sync": (["--db", db, "sync"], error),
        "status": (["--db", db, "status"], error),
        "render": (["render", "--to", "claude", "--out", str(tmp_path / "out")], error),
        "import": (
            ["import", "--from", "claude", "--workspace", str(workspace), "--home", str(tmp_path)],
            warning,
        ),
    }
    for name, (argv, grouped) in commands.items():
        main(["--vault", str(vault), *argv])
        text = "".join(capsys.readouterr())
        assert [line for line in text.splitlines() if line.startswith(grouped)], (name, text)
        assert "(--verbose lists each one)" in text, (name, text)
        if name == "import":  # again, over the files it wrote
            argv = [*argv, "--overwrite"]
        if name == "sync":  # a failure is an event once per content: a new database
            argv = ["--db", f"sqlite:///{tmp_path / 'again.db'}", "sync"]
        main(["--vault", str(vault), *argv, "--verbose"])
        text = "".join(capsys.readouterr())
        code = grouped.split("]")[0].split("[")[1]
        assert text.count(f"[{code}]") == 6, (name, text)
        assert " times: " not in text, (name, text)


RESTRICTED = """---
id: {ident}
name: {ident}
description: Reviews code.
---
## Role
Review.

## Tools
```json
{{"allowed": ["Read", "Grep"], "denied": ["Bash", "Edit", "WebFetch"]}}
```
"""


def test_messages_that_name_their_profile_are_bounded_per_code(tmp_path: Path) -> None:
    """A render that refuses 40 agents (each message names its agent, so none repeat
    exactly) prints a few of them and one line for the rest, not one per agent."""
    vault = tmp_path / "vault"
    for i in range(40):
        folder = vault / "agent-types" / f"r{i:02}"
        folder.mkdir(parents=True)
        (folder / "profile.md").write_text(RESTRICTED.format(ident=f"r{i:02}"), "utf-8")
    argv = [ROSTER, "--vault", str(vault), "render", "--to", "cursor", "--out"]
    done = subprocess.run(
        [*argv, str(tmp_path / "out")], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 1, done.stdout + done.stderr
    text = done.stdout + done.stderr
    refused = [line for line in text.splitlines() if "error[render-widens] agent 'r" in line]
    assert len(refused) == MESSAGES_SHOWN, text
    summary = [line for line in text.splitlines() if "error[render-widens] ... and 35 more" in line]
    assert len(summary) == 1 and "agent-types/r05/profile.md:1:1" in summary[0], text
    assert "(--verbose lists each one)" in text
    assert len(text.splitlines()) < 40, text
    verbose = subprocess.run(
        [*argv, str(tmp_path / "out2"), "--verbose"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    every = verbose.stdout + verbose.stderr
    assert every.count("error[render-widens] agent 'r") == 40, every
