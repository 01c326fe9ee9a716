"""The roster CLI: exit codes, output formats and the error boundary, through main()."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent_roster.cli import main

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "vault"

GOOD = """---
id: coding
name: Coding Agent
---
## Role
Write code.

## Config
```json
{"model": "claude-sonnet-4-6", "permission_mode": "acceptEdits"}
```
"""

BROKEN = """---
id: other
name: Broken
---
## Config
```json
{"model": "x",
 "max_tokens_per_task": true,}
```

## Tools
```
{"allowed": []}
```
"""


@pytest.fixture
def vault(make_tree):  # type: ignore[no-untyped-def]
    return make_tree({"agent-types/coding/profile.md": GOOD})


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--version")
    assert code == 0
    assert out.strip() == "roster, version 0.1.0"


@pytest.mark.parametrize(("args", "code"), [(["--version"], 0), (["no-such-command"], 2)])
def test_the_executable_exits_with_mains_code_its_objects_frozen(
    args: list[str], code: int
) -> None:
    # `python -m agent_roster` (and the `roster` script) end through cli.run: main's exit
    # code, output flushed, exit handlers run, and the last collection skipped (frozen).
    probe = (
        "import atexit, gc, sys; before = gc.get_freeze_count(); "  # 3.12 freezes some
        "atexit.register(lambda: print('frozen', gc.get_freeze_count() > before, "
        "file=sys.stderr)); "
        "from agent_roster.__main__ import run; run()"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, *args], capture_output=True, text=True, check=False
    )
    assert done.returncode == code, done.stderr
    assert done.stderr.rstrip().endswith("frozen True")
    if code == 0:
        assert done.stdout.strip()  # the version, flushed before the process ended


def test_validate_clean_vault_exits_zero(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--vault", str(vault), "validate")
    assert code == 0
    assert "1 file checked: 0 errors, 0 warnings — ok" in out


def test_validate_reports_every_problem_with_position(
    make_tree,
    capsys: pytest.CaptureFixture[str],  # type: ignore[no-untyped-def]
) -> None:
    root = make_tree({"agent-types/coding/profile.md": BROKEN})
    code, out, _ = run(capsys, "validate", str(root), "--format", "json")
    assert code == 1
    report = json.loads(out)
    assert report["files"] == 1
    assert report["errors"] == 3
    found = {(d["code"], d["line"], d["column"]) for d in report["diagnostics"]}
    assert found == {
        ("id-mismatch", 2, 5),
        ("json-invalid", 8, 29),
        ("json-fence-untagged", 12, 1),
    }
    for d in report["diagnostics"]:
        assert set(d) == {"path", "line", "column", "severity", "code", "message", "hint"}
        assert d["path"].endswith("agent-types/coding/profile.md")
        assert d["hint"]


def test_validate_strict_counts_warnings(make_tree, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    text = GOOD.replace('"acceptEdits"}', '"acceptEdits", "colour": "red"}')
    root = make_tree({"agent-types/coding/profile.md": text})
    assert run(capsys, "validate", str(root))[0] == 0
    code, out, _ = run(capsys, "validate", str(root), "--strict")
    assert code == 1
    assert "warning[field-unknown] unknown Config key 'colour'" in out
    assert "did you mean 'color'?" in out


def test_validate_github_annotations(make_tree, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    root = make_tree({"agent-types/coding/profile.md": BROKEN})
    code, out, err = run(capsys, "validate", str(root), "--format", "github")
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("::error file=")
    assert ",line=2,col=5,title=id-mismatch::frontmatter id 'other' does not match" in lines[0]
    assert "FAILED" in err


def test_validate_single_file_uses_its_vault(make_tree, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    root = make_tree(
        {
            "agent-types/coding/profile.md": GOOD,
            "agent-types/other/profile.md": BROKEN.replace("id: other", "id: other"),
        }
    )
    code, out, _ = run(capsys, "validate", str(root / "agent-types/coding/profile.md"))
    assert code == 0
    code, out, _ = run(
        capsys, "validate", str(root / "agent-types/other/profile.md"), "--format", "json"
    )
    report = json.loads(out)
    assert code == 1
    assert {d["code"] for d in report["diagnostics"]} == {"json-invalid", "json-fence-untagged"}


def test_validate_missing_path_is_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "validate", str(tmp_path / "nope"))
    assert code == 2
    assert "does not exist" in err


def test_vault_from_environment(
    vault: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ROSTER_VAULT", str(vault))
    code, out, _ = run(capsys, "show", "coding", "--json")
    assert code == 0
    assert json.loads(out)["id"] == "coding"


def test_show_json_has_documented_fields(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--vault", str(vault), "show", "coding", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["model"] == "claude-sonnet-4-6"
    assert data["permission_mode"] == "acceptEdits"
    assert data["prompt"] == "Write code."  # Role: the prefix, no heading
    assert data["system_prompt_suffix"] == data["prompt"]
    assert data["source"] == "agent-types/coding/profile.md"
    for key in (
        "id",
        "name",
        "description",
        "allowed_tools",
        "denied_tools",
        "mcp_servers",
        "install",
        "tags",
        "max_tokens_per_task",
        "runtime",
        "agent_name",
        "role",
        "rules",
        "reflection",
        "sections",
        "extends",
        "created_at",
        "updated_at",
    ):
        assert key in data


def test_show_text(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--vault", str(vault), "show", "coding")
    assert code == 0
    assert "model                claude-sonnet-4-6" in out
    assert out.rstrip().endswith("\n\nWrite code.")


def test_show_unknown_profile_suggests(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "--vault", str(vault), "show", "codin")
    assert code == 2
    assert "no profile 'codin'" in err
    assert "did you mean 'coding'?" in err


def test_show_unknown_profile_json_error(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--vault", str(vault), "show", "nope", "--json")
    assert code == 2
    assert json.loads(out)["error"]["code"] == "not-found"


def test_show_rejects_unsafe_id(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "--vault", str(vault), "show", "../../etc")
    assert code == 2
    assert "must not contain" in err


def test_show_broken_profile_exits_one_but_shows_what_parsed(
    make_tree,
    capsys: pytest.CaptureFixture[str],  # type: ignore[no-untyped-def]
) -> None:
    root = make_tree({"agent-types/coding/profile.md": GOOD + "\n## Tools\n```json\n[]\n```\n"})
    code, out, err = run(capsys, "--vault", str(root), "show", "coding")
    assert code == 1
    assert "claude-sonnet-4-6" in out
    assert "json-type" in err


def test_init_creates_then_keeps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "new-vault"
    code, out, _ = run(capsys, "init", str(target))
    assert code == 0
    assert (target / "agent-types" / "coding" / "profile.md").is_file()
    assert (target / "roster.toml").is_file()
    edited = target / "agent-types" / "coding" / "profile.md"
    edited.write_text(edited.read_text() + "\n<!-- mine -->\n")
    code, out, _ = run(capsys, "init", str(target))
    assert code == 0
    assert "0 created" in out
    assert edited.read_text().endswith("<!-- mine -->\n")
    assert run(capsys, "validate", str(target), "--strict")[0] == 0


def test_schema_prints_every_schema(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "schema")
    assert code == 0
    assert set(json.loads(out)) == {
        "profile-frontmatter",
        "profile-config",
        "profile-tools",
        "profile-mcp-servers",
        "profile-install",
        "mcp-server",
    }


def test_schema_check_detects_drift(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "schema", "--out", str(tmp_path))[0] == 0
    assert run(capsys, "schema", "--check", str(tmp_path))[0] == 0
    (tmp_path / "profile-config.schema.json").write_text("{}\n")
    code, _, err = run(capsys, "schema", "--check", str(tmp_path))
    assert code == 1
    assert "profile-config.schema.json is out of date" in err


def test_committed_schemas_match_code(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "schema", "--check", str(REPO / "schemas"))
    assert code == 0, err


def test_example_vault_is_clean(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", str(EXAMPLE), "--strict")
    assert code == 0, out


def test_internal_errors_are_reported_as_bugs(
    vault: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import agent_roster.commands.validate as module

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(module, "load_vault", boom)
    code, _, err = run(capsys, "validate", str(vault))
    assert code == 70
    assert "internal error" in err


def run_roster(vault: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``python -m agent_roster --vault VAULT ARGS...`` as a real process (the executable's
    own entry point, ``cli.app.run``), its output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "agent_roster", "--vault", str(vault), *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )


def test_console_script_runs_in_a_subprocess(vault: Path) -> None:
    done = run_roster(vault, "validate", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["errors"] == 0
