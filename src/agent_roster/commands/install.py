"""``check_profile`` and ``install_profile`` (seed 001 "Install Manifest", issue 15 items 1
and 2).

Check looks, never changes: programs on PATH, global npm packages (``npm ls -g``), and
distributions in the target Python (by default the one running roster; roster.toml
``[install] python`` names another), with each pip entry's version specifier and
environment marker evaluated there. Install runs ``npm install -g`` and ``<python> -m pip
install`` for what is missing, each an argv list with ``--`` before the package specs and
a timeout per step, and only with consent: without ``yes`` it returns the plan and installs
nothing. Programs are never installed: they are reported as manual steps.

Which Python and which npm run is roster.toml's decision (``[install] python``, ``npm``),
never a request's: a parameter naming a program would let any caller run one.

The profile is read from the vault (its ``extends`` chain and the project override
merged), so neither command needs or changes the database.
"""

from __future__ import annotations

import subprocess
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from agent_roster.argv import npm_install, pip_install
from agent_roster.commands.context import RosterContext
from agent_roster.diagnostics import did_you_mean
from agent_roster.errors import NotFoundError
from agent_roster.install.environment import (
    LookupFailed,
    PythonEnvironment,
    command_path,
    inspect_python,
    npm_present,
    quiet_environment,
)
from agent_roster.install.policy import InstallPolicy
from agent_roster.install.requirements import (
    Package,
    Refused,
    marker_applies,
    parse_command,
    parse_npm,
    parse_pip,
)
from agent_roster.model.profile import AgentProfile, InstallManifest
from agent_roster.resolve.index import ProfileIndex
from agent_roster.vault.paths import check_segment

Problem = Literal["missing", "refused", "unchecked"]


class InstallParams(msgspec.Struct, frozen=True, kw_only=True):
    id: Annotated[str, Meta(description="the profile id")]
    project: Annotated[str | None, Meta(description="project id: use its override")] = None


class InstallProfileParams(InstallParams, frozen=True, kw_only=True):
    yes: Annotated[
        bool, Meta(description="install without asking; without it only the plan is returned")
    ] = False


class ManifestJson(msgspec.Struct, frozen=True, kw_only=True):
    npm: list[str]
    pip: list[str]
    commands: list[str]


class Issue(msgspec.Struct, frozen=True, kw_only=True):
    """One entry that is not ready: ``missing`` (installable or, for a command, manual),
    ``refused`` (never given to an installer) or ``unchecked`` (the look failed)."""

    manager: str
    spec: str
    problem: Problem
    detail: str = ""


class CheckResult(msgspec.Struct, frozen=True, kw_only=True):
    """Seed 001: ``{profile_id, valid, issues, manifest}``; ``valid`` when nothing is
    missing, refused or unchecked."""

    profile_id: str
    valid: bool
    issues: list[Issue]
    manifest: ManifestJson
    python: str
    not_applicable: list[str]


class Step(msgspec.Struct, frozen=True, kw_only=True):
    """One installer run: its argv, and how it ended."""

    manager: str
    argv: list[str]
    specs: list[str]
    ok: bool | None = None
    detail: str = ""


class InstallResult(msgspec.Struct, frozen=True, kw_only=True):
    """Seed 001: ``{profile_id, installed, already_present, manual, ready}``; plus the
    ``plan`` (the steps run, or that would run without consent), what was refused, and
    what failed."""

    profile_id: str
    installed: list[str]
    already_present: list[str]
    manual: list[str]
    ready: bool
    consented: bool
    plan: list[Step]
    refused: list[Issue]
    failed: list[Issue]
    not_applicable: list[str]


def check_profile(ctx: RosterContext, params: InstallParams) -> CheckResult:
    """Check that what a profile's Install manifest needs is present."""
    profile = _profile(ctx, params.id, params.project)
    policy = ctx.config().install
    survey = _survey(profile.install, policy)
    return CheckResult(
        profile_id=profile.id,
        valid=not survey.issues,
        issues=survey.issues,
        manifest=_manifest_json(profile.install),
        python=policy.python,
        not_applicable=survey.not_applicable,
    )


def install_profile(ctx: RosterContext, params: InstallProfileParams) -> InstallResult:
    """Install the npm and pip packages a profile needs and lacks (with consent)."""
    profile = _profile(ctx, params.id, params.project)
    policy = ctx.config().install
    survey = _survey(profile.install, policy)
    plan = plan_steps(survey.missing, policy)
    failed: list[Issue] = [i for i in survey.issues if i.problem == "unchecked"]
    installed: list[str] = []
    steps = plan
    if params.yes:
        steps = []
        for step in plan:
            done = _run_step(step, policy.timeout)
            steps.append(done)
            if done.ok:
                installed.extend(step.specs)
            else:
                failed.extend(
                    Issue(manager=step.manager, spec=spec, problem="missing", detail=done.detail)
                    for spec in step.specs
                )
    refused = [issue for issue in survey.issues if issue.problem == "refused"]
    manual = [p.spec for p in survey.missing if p.manager == "command"]
    if params.yes and installed:
        # Installed is what the installer said; ready is what a fresh look finds.
        after = _survey(profile.install, policy)
        ready = not after.issues
    else:
        ready = not survey.issues
    return InstallResult(
        profile_id=profile.id,
        installed=installed,
        already_present=survey.present,
        manual=manual,
        ready=ready,
        consented=params.yes,
        plan=steps,
        refused=refused,
        failed=failed,
        not_applicable=survey.not_applicable,
    )


# -- the survey ----------------------------------------------------------------------------
class Survey(msgspec.Struct, frozen=True, kw_only=True):
    present: list[str]
    missing: list[Package]
    issues: list[Issue]
    #: pip entries whose environment marker excludes the target environment
    not_applicable: list[str]


def _survey(manifest: InstallManifest, policy: InstallPolicy) -> Survey:
    present: list[str] = []
    missing: list[Package] = []
    issues: list[Issue] = []
    excluded: list[str] = []
    parsed = (
        [parse_command(spec) for spec in manifest.commands]
        + [parse_npm(spec) for spec in manifest.npm]
        + [parse_pip(spec, policy) for spec in manifest.pip]
    )
    packages: list[Package] = []
    for entry in parsed:
        if isinstance(entry, Refused):
            issues.append(
                Issue(
                    manager=entry.manager, spec=entry.spec, problem="refused", detail=entry.reason
                )
            )
        else:
            packages.append(entry)

    for package in (p for p in packages if p.manager == "command"):
        found = command_path(package.name)
        if found:
            present.append(package.spec)
        else:
            missing.append(package)
            issues.append(_missing(package, "not on PATH: install it yourself (manual)"))

    npm = [p for p in packages if p.manager == "npm"]
    if npm:
        try:
            have = npm_present(policy.npm, [p.spec for p in npm], policy.timeout)
        except LookupFailed as exc:
            issues += [_unchecked(p, str(exc)) for p in npm]
        else:
            for package in npm:
                if package.name in have:
                    present.append(package.spec)
                else:
                    missing.append(package)
                    issues.append(_missing(package, "not installed globally (npm ls -g)"))

    pip = [p for p in packages if p.manager == "pip"]
    if pip:
        try:
            environment = inspect_python(policy.python, policy.timeout)
        except LookupFailed as exc:
            issues += [_unchecked(p, str(exc)) for p in pip]
        else:
            for package in pip:
                verdict = _pip_verdict(package, environment)
                if not marker_applies(package, environment.markers):
                    excluded.append(package.spec)
                elif verdict is None:
                    present.append(package.spec)
                elif verdict:
                    missing.append(package)
                    issues.append(_missing(package, verdict))
    return Survey(present=present, missing=missing, issues=issues, not_applicable=excluded)


def _pip_verdict(package: Package, environment: PythonEnvironment) -> str | None:
    """``None`` when satisfied, else why not."""
    from packaging.specifiers import SpecifierSet

    version = environment.versions.get(package.name)
    if version is None:
        return f"not installed in {environment.executable}"
    if package.specifier and not SpecifierSet(package.specifier).contains(
        version, prereleases=True
    ):
        return f"{version} is installed in {environment.executable}; wants {package.specifier}"
    return None


def _missing(package: Package, detail: str) -> Issue:
    return Issue(manager=package.manager, spec=package.spec, problem="missing", detail=detail)


def _unchecked(package: Package, detail: str) -> Issue:
    return Issue(manager=package.manager, spec=package.spec, problem="unchecked", detail=detail)


# -- installing ----------------------------------------------------------------------------
def plan_steps(missing: list[Package], policy: InstallPolicy) -> list[Step]:
    """The installer runs for ``missing``: one ``npm install -g`` and one ``pip install``,
    every spec after ``--`` so none can be read as an option."""
    steps: list[Step] = []
    npm = [p.spec for p in missing if p.manager == "npm"]
    if npm:
        argv = npm_install(npm, npm=policy.npm, global_install=True)
        steps.append(Step(manager="npm", argv=argv, specs=npm))
    pip = [p.spec for p in missing if p.manager == "pip"]
    if pip:
        argv = pip_install(policy.python, pip)
        steps.append(Step(manager="pip", argv=argv, specs=pip))
    return steps


def _run_step(step: Step, timeout: float) -> Step:
    try:
        completed = subprocess.run(
            step.argv,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            stdin=subprocess.DEVNULL,
            env=quiet_environment(),
        )
    except FileNotFoundError:
        return msgspec.structs.replace(step, ok=False, detail=f"{step.argv[0]} is not installed")
    except subprocess.TimeoutExpired:
        detail = f"stopped after {timeout:g} s (roster.toml [install] timeout)"
        return msgspec.structs.replace(step, ok=False, detail=detail)
    if completed.returncode != 0:
        lines = [line for line in (completed.stderr or "").splitlines() if line.strip()]
        detail = f"exit {completed.returncode}: " + " | ".join(lines[-3:])[:500]
        return msgspec.structs.replace(step, ok=False, detail=detail)
    return msgspec.structs.replace(step, ok=True)


# -- the profile ---------------------------------------------------------------------------
def _profile(ctx: RosterContext, profile_id: str, project: str | None) -> AgentProfile:
    check_segment(profile_id, "profile id")
    if project is not None:
        check_segment(project, "project id")
    index = vault_index(ctx)
    effective = index.effective(profile_id, project)
    if effective is None:
        raise NotFoundError(
            f"no profile {profile_id!r}",
            hint=did_you_mean(profile_id, index.system) or "'roster profile list' shows them",
        )
    return effective.profile


def vault_index(ctx: RosterContext) -> ProfileIndex:
    """The resolution index: the daemon's, else one read from the vault (no database)."""
    from agent_roster.vault.loader import load_vault

    if ctx.live is not None:
        return ctx.live.index()
    config = ctx.config()
    snapshot = load_vault(
        ctx.vault, embedded=config.embedded.name, commands=config.embedded.commands
    )
    profiles = [p.profile for p in snapshot.profiles.values() if p.profile is not None and p.ok]
    servers = [s.server for s in snapshot.servers.values() if s.server is not None and s.ok]
    return ProfileIndex(config, profiles, servers, origins=False)


def _manifest_json(manifest: InstallManifest) -> ManifestJson:
    return ManifestJson(
        npm=list(manifest.npm), pip=list(manifest.pip), commands=list(manifest.commands)
    )
