"""check_profile and install_profile against a real virtualenv, a real npm prefix and the
real package registries (issue 15 items 1, 2, 8)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from agent_roster.commands.context import RosterContext
from agent_roster.commands.install import (
    InstallParams,
    InstallProfileParams,
    check_profile,
    install_profile,
    plan_steps,
)
from agent_roster.install.policy import InstallPolicy
from agent_roster.install.requirements import Package, Refused, parse_npm, parse_pip
from agent_roster.resolve.config import load_config

ROSTER = [sys.executable, "-m", "agent_roster"]


def profile(vault: Path, ident: str, install: dict[str, list[str]]) -> None:
    folder = vault / "agent-types" / ident
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "profile.md").write_text(
        f"---\nid: {ident}\nname: {ident.title()}\n---\n\n## Role\n\nWorks.\n\n"
        f"## Install\n\n```json\n{json.dumps(install)}\n```\n",
        encoding="utf-8",
    )


@pytest.fixture(scope="module")
def target_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A fresh virtualenv (with pip) that packages are checked and installed into."""
    folder = tmp_path_factory.mktemp("target") / "venv"
    venv.create(folder, with_pip=True)
    return str(folder / "bin" / "python")


@pytest.fixture
def vault(tmp_path: Path, target_python: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "roster.toml").write_text(
        f'[install]\npython = "{target_python}"\ntimeout = 240\n', encoding="utf-8"
    )
    # npm's global folder for this test only.
    prefix = tmp_path / "npm-global"
    prefix.mkdir()
    monkeypatch.setenv("NPM_CONFIG_PREFIX", str(prefix))
    profile(
        root,
        "tooling",
        {
            "pip": ["six==1.16.0", 'no-such-dist-xyz; python_version < "3"'],
            "npm": ["is-number@7.0.0"],
            "commands": ["git", "roster-no-such-program"],
        },
    )
    return root


def installed_six(python: str) -> bool:
    code = "import importlib.util, sys; sys.exit(importlib.util.find_spec('six') is None)"
    return subprocess.run([python, "-I", "-c", code], check=False).returncode == 0


def test_check_reports_each_missing_entry_and_evaluates_markers(vault: Path) -> None:
    with RosterContext(vault) as ctx:
        result = check_profile(ctx, InstallParams(id="tooling"))
    assert not result.valid
    problems = {(issue.manager, issue.spec): issue.problem for issue in result.issues}
    assert problems == {
        ("pip", "six==1.16.0"): "missing",
        ("npm", "is-number@7.0.0"): "missing",
        ("command", "roster-no-such-program"): "missing",
    }
    # git is on PATH; the marker excludes the other pip entry from this environment.
    assert result.manifest.commands == ["git", "roster-no-such-program"]
    assert not list(vault.parent.glob(".roster")), "check writes no database"


def test_install_without_consent_installs_nothing(vault: Path, target_python: str) -> None:
    with RosterContext(vault) as ctx:
        result = install_profile(ctx, InstallProfileParams(id="tooling"))
    assert not result.consented and not result.installed
    assert [step.manager for step in result.plan] == ["npm", "pip"]
    assert all(step.ok is None for step in result.plan)
    assert not installed_six(target_python)
    cli = subprocess.run(
        [*ROSTER, "--vault", str(vault), "install", "tooling"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )
    assert cli.returncode == 1, cli.stderr
    assert "nothing installed" in cli.stdout and "-- is-number@7.0.0" in cli.stdout
    assert not installed_six(target_python)


def test_install_yes_installs_from_the_real_registries(vault: Path, target_python: str) -> None:
    done = subprocess.run(
        [*ROSTER, "--vault", str(vault), "install", "tooling", "--yes", "--json"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env=os.environ,
    )
    result = json.loads(done.stdout)
    assert sorted(result["installed"]) == ["is-number@7.0.0", "six==1.16.0"], done.stderr
    assert result["manual"] == ["roster-no-such-program"]
    assert result["already_present"] == ["git"]
    assert result["not_applicable"] == ['no-such-dist-xyz; python_version < "3"']
    assert not result["ready"] and done.returncode == 1  # the program is still manual
    assert installed_six(target_python)

    check = subprocess.run(
        [*ROSTER, "--vault", str(vault), "check", "tooling", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    issues = json.loads(check.stdout)["issues"]
    assert [i["spec"] for i in issues] == ["roster-no-such-program"]


def test_injection_and_direct_references_are_refused() -> None:
    strict = InstallPolicy()
    for hostile in ("--index-url=https://evil.example/simple", "-e .", "./local", "a b"):
        assert isinstance(parse_pip(hostile, strict), Refused), hostile
    for hostile in ("--registry=https://evil.example", "file:../x", "git+https://x/y.git"):
        assert isinstance(parse_npm(hostile), Refused), hostile
    url = "pkg @ https://example.com/pkg-1.0-py3-none-any.whl"
    path = "pkg @ file:///tmp/pkg"
    assert "allow_urls" in parse_pip(url, strict).reason  # type: ignore[union-attr]
    assert "allow_paths" in parse_pip(path, strict).reason  # type: ignore[union-attr]
    allowed = InstallPolicy(allow_urls=True, allow_paths=True)
    assert isinstance(parse_pip(url, allowed), Package)
    assert isinstance(parse_pip(path, allowed), Package)
    marker = parse_pip('requests[socks]>=2; python_version>"3.8"', strict)
    assert isinstance(marker, Package) and marker.name == "requests"


def test_every_installer_argv_ends_options_before_the_specs() -> None:
    policy = InstallPolicy(python="/opt/py/bin/python", npm="npm")
    packages = [
        Package(manager="npm", spec="eslint@^9", name="eslint", specifier="^9"),
        Package(manager="pip", spec="six==1.16.0", name="six", specifier="==1.16.0"),
    ]
    npm, pip = plan_steps(packages, policy)
    assert npm.argv == ["npm", "install", "-g", "--no-audit", "--no-fund", "--", "eslint@^9"]
    assert pip.argv[:3] == ["/opt/py/bin/python", "-m", "pip"]
    assert pip.argv[-2:] == ["--", "six==1.16.0"]


def test_a_profile_with_an_option_as_a_package_does_not_validate(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    profile(vault, "evil", {"pip": ["--index-url=https://evil.example/simple"]})
    done = subprocess.run(
        [*ROSTER, "--vault", str(vault), "validate", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    codes = [d["code"] for d in json.loads(done.stdout)["diagnostics"]]
    # An option is refused as one (issue 11 item 2): it would reach pip's argv.
    assert "argv-option-value" in codes and done.returncode == 1


def test_a_lookup_that_hangs_is_stopped_by_the_timeout(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    slow = tmp_path / "slowpython"
    slow.write_text("#!/bin/sh\nsleep 30\n", encoding="utf-8")
    slow.chmod(0o755)
    vault.mkdir()
    (vault / "roster.toml").write_text(
        f'[install]\npython = "{slow}"\ntimeout = 1\n', encoding="utf-8"
    )
    profile(vault, "slow", {"pip": ["six"]})
    with RosterContext(vault) as ctx:
        result = check_profile(ctx, InstallParams(id="slow"))
    (issue,) = result.issues
    assert issue.problem == "unchecked" and "longer than 1 s" in issue.detail


def test_install_policy_errors_are_located_diagnostics(tmp_path: Path) -> None:
    (tmp_path / "roster.toml").write_text(
        '[install]\npython = "--evil"\ntimeout = "soon"\nallow_urls = 1\nfoo = 2\n',
        encoding="utf-8",
    )
    loaded = load_config(tmp_path)
    found = {(d.line, d.code) for d in loaded.diagnostics}
    assert found == {
        (2, "field-value"),
        (3, "field-value"),
        (4, "field-value"),
        (5, "field-unknown"),
    }
    assert loaded.config.install == InstallPolicy()
