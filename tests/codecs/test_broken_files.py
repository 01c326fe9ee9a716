"""Issue 11 item 4: no harness file crashes roster. Each finding of the issue, as a test.

Every one of these crashed (exit 70) before: a render over a file that is not UTF-8 (all
eight harnesses), a render merging into a ``.defect/config.toml`` with a TOML error, and
discover and ``import --from`` on an AGH ``mcp.json`` or a defect ``config.toml`` that is
not UTF-8, on ``args = 1`` in a defect server and on ``"args": 1`` in Gemini's
``settings.json``. Now each is a diagnostic with its file, line, column and code; the
command exits 1 and leaves the broken file as it is.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from agent_roster.cli import main
from agent_roster.codecs import codec_names
from agent_roster.commands.discover import discover, import_agents
from agent_roster.commands.harness import render_agents
from agent_roster.diagnostics import Diagnostic

from ..trees import build_tree
from .helpers import EXAMPLES

# The example vault's coding agents restrict Bash by argument, which most harnesses cannot
# hold: these tests are about files, so they render with --allow-widening.


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    target = tmp_path / "vault"
    shutil.copytree(EXAMPLES, target)
    return target


def errors(diagnostics: tuple[Diagnostic, ...]) -> list[tuple[str, str, int, int]]:
    return [(d.code, d.path, d.line, d.column) for d in diagnostics if d.is_error]


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out + captured.err


# -- render over a file that is not UTF-8 (all eight harnesses) ---------------------------


@pytest.mark.parametrize("harness", codec_names())
def test_render_leaves_every_file_it_cannot_read_alone(
    harness: str, vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "ws"
    first = render_agents(vault, [harness], out=out, allow_widening=True)
    paths = sorted(Path(f.path) for f in first.files)
    assert paths, "the example vault renders files for every harness"
    # Every file the render writes, agent files and merged MCP/settings files alike, now
    # holds a byte that is not UTF-8, each at its own line and column.
    broken = {path: b"ok\n" * (n % 3) + b"caf\xe9" + b"x" * n for n, path in enumerate(paths)}
    for path, data in broken.items():
        path.write_bytes(data)
    report = render_agents(vault, [harness], out=out, allow_widening=True)
    expected = sorted(("encoding-invalid", str(path), n % 3 + 1, 4) for n, path in enumerate(paths))
    assert sorted(errors(report.diagnostics)) == expected
    assert all(path.read_bytes() == data for path, data in broken.items())
    found = next(d for d in report.diagnostics if d.code == "encoding-invalid")
    assert found.message == "byte 0xe9 is not valid UTF-8"
    assert "render leaves a file it cannot read as it is" in found.hint
    # The same through the CLI: exit 1 (problems found), never 70 (a bug), and located.
    # --verbose: one line per diagnostic (without it, repeats are grouped).
    code, text = run_cli(
        capsys,
        "--vault",
        str(vault),
        "render",
        "--to",
        harness,
        "--out",
        str(out),
        "--allow-widening",
        "--verbose",
    )
    assert code == 1
    assert f"{paths[0]}:1:4: error[encoding-invalid] byte 0xe9 is not valid UTF-8" in text
    for flag in ("--check", "--dry-run"):
        code, _ = run_cli(
            capsys,
            "--vault",
            str(vault),
            "render",
            "--to",
            harness,
            "--out",
            str(out),
            "--allow-widening",
            flag,
        )
        assert code == 1


def test_render_over_one_unreadable_agent_file_writes_the_others(
    vault: Path, tmp_path: Path
) -> None:
    out = tmp_path / "ws"
    render_agents(vault, ["claude"], out=out, allow_widening=True)
    agent = out / ".claude" / "agents" / "coding.md"
    agent.write_bytes(b"---\nname: coding\n\xff\n")
    (out / ".claude" / "agents" / "qa.md").unlink()
    report = render_agents(vault, ["claude"], out=out, allow_widening=True)
    assert errors(report.diagnostics) == [("encoding-invalid", str(agent), 3, 1)]
    assert agent.read_bytes() == b"---\nname: coding\n\xff\n"
    assert (out / ".claude" / "agents" / "qa.md").is_file()


# -- render merging into a .defect/config.toml with a TOML error --------------------------


def test_render_leaves_a_defect_config_with_a_toml_error_alone(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "ws"
    config = out / ".defect" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('model = "m"\n[mcp\n')
    report = render_agents(vault, ["defect"], out=out, allow_widening=True)
    [problem] = [d for d in report.diagnostics if d.is_error]
    assert (problem.code, problem.path, problem.line, problem.column) == (
        "render-unsupported",
        ".defect/config.toml",
        2,
        5,
    )
    assert problem.message == (
        "cannot merge MCP servers into .defect/config.toml: expected ']' to close the "
        "[table] header; render leaves the file as it is"
    )
    assert config.read_text() == 'model = "m"\n[mcp\n'
    assert (out / ".defect" / "agents" / "coding" / "config.toml").is_file()
    code, text = run_cli(
        capsys,
        "--vault",
        str(vault),
        "render",
        "--to",
        "defect",
        "--out",
        str(out),
        "--allow-widening",
    )
    assert code == 1 and ".defect/config.toml:2:5: error[render-unsupported]" in text


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        ("[mcp]\nservers = 1\n", 2, 1, "mcp.servers is not a table"),
        ("mcp = []\n", 1, 1, "mcp is not a table"),
        ('[mcp]\nenabled_servers = "a"\n', 2, 1, "mcp.enabled_servers is not an array"),
    ],
)
def test_render_leaves_a_defect_config_of_the_wrong_shape_alone(
    vault: Path, tmp_path: Path, text: str, line: int, column: int, message: str
) -> None:
    out = tmp_path / "ws"
    config = out / ".defect" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(text)
    report = render_agents(vault, ["defect"], out=out, allow_widening=True)
    assert errors(report.diagnostics) == [
        ("render-unsupported", ".defect/config.toml", line, column)
    ]
    assert message in report.diagnostics[-1].message
    assert config.read_text() == text


# -- discover and import on broken harness files ------------------------------------------

#: (harness, files under the workspace, the error each finding now is).
FINDINGS = {
    "agh mcp.json not UTF-8": (
        "agh",
        {
            ".agh/agents/a/AGENT.md": "---\nname: a\n---\nYou help.\n",
            ".agh/agents/a/mcp.json": b'{"mcpServers": {"s\xff": {}}}',
        },
        ("encoding-invalid", ".agh/agents/a/mcp.json", 1, 19),
    ),
    "defect agent config.toml not UTF-8": (
        "defect",
        {".git/HEAD": "", ".defect/agents/a/config.toml": b'description = "caf\xe9"\n'},
        ("encoding-invalid", ".defect/agents/a/config.toml", 1, 19),
    ),
    "defect main config.toml not UTF-8": (
        "defect",
        {
            ".git/HEAD": "",
            ".defect/config.toml": b"# caf\xe9\n",
            ".defect/agents/a.md": "+++\ndescription = 'd'\n+++\nYou help.\n",
        },
        ("encoding-invalid", ".defect/config.toml", 1, 6),
    ),
    "defect args = 1": (
        "defect",
        {
            ".git/HEAD": "",
            ".defect/config.toml": '[mcp.servers.s]\ntransport = "stdio"\ncommand = "x"\n'
            "args = 1\n",
            ".defect/agents/a.md": "+++\ndescription = 'd'\n[tools]\nallow = ['mcp__s__*']\n"
            "+++\nYou help.\n",
        },
        ("harness-field-type", ".defect/config.toml", 4, 1),
    ),
    "gemini args: 1": (
        "gemini",
        {
            ".gemini/settings.json": '{\n  "mcpServers": {\n    "s": {"command": "x", '
            '"args": 1}\n  }\n}\n',
            ".gemini/agents/a.md": "---\nname: a\ndescription: d\nmcp_servers:\n  s:\n"
            "    command: x\n---\nYou help.\n",
        },
        ("harness-field-type", ".gemini/settings.json", 3, 35),
    ),
}
MESSAGES = {
    "defect args = 1": "mcp.servers.s.args: invalid type: integer `1`, expected a sequence",
    "gemini args: 1": "mcpServers.s.args: Expected array, received number",
}


def _workspace(tmp_path: Path, files: dict[str, str | bytes]) -> tuple[Path, Path]:
    workspace, home = tmp_path / "ws", tmp_path / "home"
    build_tree(workspace, files)
    home.mkdir()
    return workspace, home


@pytest.mark.parametrize("finding", list(FINDINGS))
def test_discover_and_import_report_a_broken_file(
    finding: str, vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    harness, files, (code, rel, line, column) = FINDINGS[finding]
    workspace, home = _workspace(tmp_path, files)
    where = str(workspace / rel)
    found = discover(harness, workspace=workspace, home=home)
    assert (code, where, line, column) in errors(found.diagnostics)
    if finding in MESSAGES:
        assert any(MESSAGES[finding] in d.message for d in found.diagnostics)
    before = sorted(p.relative_to(vault) for p in vault.rglob("*"))
    report = import_agents(vault, harness, workspace=workspace, home=home)
    assert (code, where, line, column) in errors(report.diagnostics)
    assert report.refused and not report.ok
    if harness == "agh":  # AGH refuses the whole load on one bad file: nothing imported
        assert sorted(p.relative_to(vault) for p in vault.rglob("*")) == before
    # The CLI: exit 1, the located diagnostic, and no crash report.
    for command in (
        ("discover", "--harness", harness),
        ("--vault", str(vault), "import", "--from", harness, "--dry-run"),
    ):
        exit_code, text = run_cli(
            capsys, *command, "--workspace", str(workspace), "--home", str(home)
        )
        assert exit_code == 1, text
        assert f"{where}:{line}:{column}: error[{code}]" in text
        assert "internal error" not in text


def test_discover_json_lists_the_broken_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, files, (code, rel, line, column) = FINDINGS["gemini args: 1"]
    workspace, home = _workspace(tmp_path, files)
    exit_code, text = run_cli(
        capsys,
        "discover",
        "--harness",
        "gemini",
        "--workspace",
        str(workspace),
        "--home",
        str(home),
        "--json",
    )
    assert exit_code == 1
    found = json.loads(text)["diagnostics"]
    assert {
        "path": str(workspace / rel),
        "line": line,
        "column": column,
        "severity": "error",
        "code": code,
    }.items() <= next(d for d in found if d["code"] == code).items()


# -- something other than a file in the way of render --------------------------------------


@pytest.mark.parametrize("harness", codec_names())
def test_render_leaves_folders_fifos_and_files_in_the_way_alone(
    harness: str, vault: Path, tmp_path: Path
) -> None:
    out = tmp_path / "ws"
    paths = sorted(
        Path(f.path) for f in render_agents(vault, [harness], out=out, allow_widening=True).files
    )
    shutil.rmtree(out)
    # A folder where the first file goes, a FIFO where the second goes (reading one
    # blocks: render must not hang).
    paths[0].mkdir(parents=True)
    paths[1].parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(paths[1])
    report = render_agents(vault, [harness], out=out, allow_widening=True)
    found = sorted((d.code, d.path) for d in report.diagnostics if d.is_error)
    expected = [("file-unreadable", str(paths[0])), ("file-unreadable", str(paths[1]))]
    assert found == sorted(expected)
    assert paths[0].is_dir() and paths[1].is_fifo()
    [folder] = [d for d in report.diagnostics if d.path == str(paths[0])]
    assert "not a regular file" in folder.message


def test_render_reports_a_file_where_its_folder_goes(vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "ws"
    out.mkdir()
    (out / ".claude").write_text("in the way\n")
    report = render_agents(vault, ["claude"], out=out, allow_widening=True)
    unwritable = [d for d in report.diagnostics if d.code == "file-unwritable"]
    assert unwritable and all(
        d.path.startswith(str(out / ".claude" / "agents")) for d in unwritable
    )
    assert {d.message.split(": ", 1)[1] for d in unwritable} == {"Not a directory"}
    assert (out / ".claude").read_text() == "in the way\n"
    assert (out / ".mcp.json").is_file()  # the files that could be written were
    assert not report.ok


def test_discover_reports_a_fifo_where_a_prompt_file_goes(tmp_path: Path) -> None:
    """Reading a FIFO blocks until someone writes to it: discover must not hang."""
    workspace, home = _workspace(
        tmp_path, {".git/HEAD": "", ".defect/agents/a/config.toml": 'description = "d"\n'}
    )
    prompt = workspace / ".defect" / "agents" / "a" / "system.md"
    os.mkfifo(prompt)
    found = discover("defect", workspace=workspace, home=home)
    assert errors(found.diagnostics) == [("file-unreadable", str(prompt), 1, 1)]
    assert "not a regular file" in found.diagnostics[0].message


# -- values a vault file cannot hold, numbers out of range ---------------------------------


def test_import_drops_a_toml_date_it_cannot_store_and_says_so(vault: Path, tmp_path: Path) -> None:
    """A TOML date or time in a pass-through value crashed the import (JSON has none)."""
    role = (
        'name = "a"\ndescription = "d"\ndeveloper_instructions = "p"\n'
        "features = { since = 1979-05-27T07:32:00Z }\nskills = { x = 1 }\n"
    )
    workspace, home = _workspace(tmp_path, {".codex/agents/a.toml": role})
    report = import_agents(vault, "codex", workspace=workspace, home=home)
    assert report.ok and [f.status for f in report.files] == ["created"]
    [dropped] = [loss for loss in report.losses if loss.field == "harness.codex.features"]
    assert dropped.outcome.value == "dropped"
    assert dropped.detail == (
        "holds a date, a time, NaN or infinity, which a vault file (JSON) cannot hold; not imported"
    )
    text = (vault / "agent-types" / "a" / "profile.md").read_text()
    assert '"skills"' in text and "features" not in text


def test_gemini_refuses_an_infinite_turn_limit(tmp_path: Path) -> None:
    """``max_turns: .inf`` crashed discover (int of infinity); zod says it is no integer."""
    agent = "---\nname: a\ndescription: d\nmax_turns: .inf\n---\nYou help.\n"
    workspace, home = _workspace(tmp_path, {".gemini/agents/a.md": agent})
    found = discover("gemini", workspace=workspace, home=home)
    [problem] = [d for d in found.diagnostics if d.is_error]
    assert problem.code == "harness-field-type" and (problem.line, problem.column) == (4, 1)
    assert problem.message.endswith("max_turns: Expected integer, received float")


@pytest.mark.parametrize(
    ("harness", "rel", "text", "expected"),
    [
        # Found by the fuzz tests: each crashed discover.
        (
            "gemini",
            ".gemini/agents/a.md",
            "---\nname: a\ndescription: d\nmax_turns: null\n---\nYou help.\n",
            ("harness-field-type", 4, "max_turns: Expected number, received null"),
        ),
        (
            "agh",
            ".agh/agents/a/AGENT.md",
            "---\nname: a\nmcp_servers: true\n---\nYou help.\n",
            ("harness-field-type", 3, "agent.mcp_servers must be a list of objects"),
        ),
    ],
)
def test_a_value_of_the_wrong_type_is_refused_where_it_is(
    harness: str, rel: str, text: str, expected: tuple[str, int, str], tmp_path: Path
) -> None:
    workspace, home = _workspace(tmp_path, {rel: text})
    found = discover(harness, workspace=workspace, home=home)
    [problem] = [d for d in found.diagnostics if d.is_error]
    assert (problem.code, problem.line) == expected[:2]
    assert problem.message.endswith(expected[2])
