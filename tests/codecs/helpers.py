"""Shared helpers for codec tests: the real harness CLIs and the round trip every codec
must pass (``import(render(p)) == p`` on the codec's native fields, README D12)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from agent_roster.codecs.base import (
    Codec,
    Discovery,
    Loss,
    LossOutcome,
    Rendering,
    RenderRequest,
    Roots,
    Scope,
)
from agent_roster.codecs.guard import render_guarded
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile

from ..trees import build_tree

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "vault"

#: npm package of each harness CLI the acceptance tests run (``make test`` installs them:
#: ``scripts/harness-clis``).
NPM_PACKAGES = {
    "claude": "@anthropic-ai/claude-code",
    "opencode": "opencode-ai",
    "gemini": "@google/gemini-cli",
    "codex": "@openai/codex",
    "rulesync": "rulesync",
    "copilot": "@github/copilot",
    # The platform package, installed by name: the wrapper does not install here.
    "kilo": "@kilocode/cli-linux-x64",
    "qwen": "@qwen-code/qwen-code",
    "qodercli": "@qoder-ai/qodercli",
    # The platform package, installed by name: the wrapper does not install here.
    "droid": "@factory/cli-linux-x64",
}
#: CLIs whose package links no ``.bin`` entry: the binary inside the package.
_PACKAGE_BINARIES = {
    "kilo": "@kilocode/cli-linux-x64/bin/kilo",
    "droid": "@factory/cli-linux-x64/bin/droid",
}


def harness_binary(name: str) -> str | None:
    """A harness CLI: ``.tools/npm/node_modules/.bin/NAME`` (where ``make test`` installs the
    pinned versions; a platform package's own ``bin/``) first, else ``NAME`` on PATH."""
    modules = REPO / ".tools" / "npm" / "node_modules"
    local = modules / _PACKAGE_BINARIES.get(name, f".bin/{name}")
    if os.access(local, os.X_OK):
        return str(local)
    return shutil.which(name)


def need_harness(name: str) -> str:
    """The CLI's path; skips when it is missing, except under CI where that is a failure."""
    found = harness_binary(name)
    if found is not None:
        return found
    reason = (
        f"the {name} CLI is not installed (npm install --prefix .tools/npm {NPM_PACKAGES[name]})"
    )
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but {reason}")
    pytest.skip(reason)


def run_harness(
    argv: Sequence[str],
    *,
    cwd: Path,
    home: Path,
    env: Mapping[str, str] | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """Run a harness CLI with an isolated HOME (and XDG folders inside it), no stdin."""
    full_env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "NO_COLOR": "1",
        "CI": "1",
        **(env or {}),
    }
    return subprocess.run(
        list(argv),
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def write_rendering(rendering: Rendering, root: Path) -> list[Path]:
    """Write a render's files under ``root`` (what ``roster render --out root`` does)."""
    written = []
    for native in rendering.files:
        path = root / native.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(native.content, encoding="utf-8")
        written.append(path)
    return written


def discover_in(codec: Codec, root: Path, files: Mapping[str, str]) -> Discovery:
    """Write ``files`` (paths under ``root``: ``ws/...`` for the workspace, ``home/...``
    for the home folder) and discover from ``root/ws`` and ``root/home``."""
    build_tree(root, files)
    (root / "ws").mkdir(exist_ok=True)
    (root / "home").mkdir(exist_ok=True)
    return codec.discover(Roots(workspace=root / "ws", home=root / "home"))


def render_with(
    codec: Codec,
    profiles: Iterable[AgentProfile],
    servers: Mapping[str, McpServer] | None = None,
    existing: Mapping[str, str] | None = None,
    scope: Scope = Scope.PROJECT,
) -> Rendering:
    """``codec`` rendering ``profiles``, with ``existing`` as the files already there."""
    request = RenderRequest(profiles=tuple(profiles), servers=dict(servers or {}), scope=scope)
    return codec.render(request, dict(existing or {}).get)


def loss_outcomes(rendering: Rendering) -> dict[str, LossOutcome]:
    """Each lost field's outcome (the last, when a field is lost more than once)."""
    return {loss.field: loss.outcome for loss in rendering.losses}


def render_and_discover(
    codec: Codec,
    profiles: Iterable[AgentProfile],
    servers: Mapping[str, McpServer],
    scope: Scope = Scope.PROJECT,
    root: Path | None = None,
    *,
    allow_widening: bool = False,
) -> tuple[Rendering, Discovery]:
    """Render into a fresh workspace (or home, for user scope) and discover from it."""
    base = root or Path(tempfile.mkdtemp(prefix=f"roundtrip-{codec.name}-"))
    workspace, home = base / "workspace", base / "home"
    workspace.mkdir(parents=True, exist_ok=True)
    home.mkdir(parents=True, exist_ok=True)
    target = workspace if scope is Scope.PROJECT else home
    request = RenderRequest(
        profiles=tuple(profiles),
        servers=dict(servers),
        scope=scope,
        allow_widening=allow_widening,
    )

    def existing(rel: str) -> str | None:
        path = target / rel
        return path.read_text(encoding="utf-8") if path.is_file() else None

    # As `roster render` does: the codec, then the check that refuses an agent the harness
    # would let do more than its profile (codecs/guard.py).
    rendering = render_guarded(codec, request, existing)
    write_rendering(rendering, target)
    return rendering, codec.discover(Roots(workspace=workspace, home=home))


#: Canonical fields every codec either carries or reports as lost.
CHECKED_FIELDS = (
    "name",
    "description",
    "model",
    "permission_mode",
    "max_turns",
    "temperature",
    "top_p",
    "mode",
    "color",
    "permission",
    "allowed_tools",
    "denied_tools",
    "mcp_servers",
    "prompt",
)
#: Fields whose meaning is the effective ordered rule list (README D9, D12): a codec that
#: folds them into native rules round-trips when that list is unchanged.
PERMISSION_FIELDS = frozenset({"permission_mode", "allowed_tools", "denied_tools", "permission"})


def field_value(profile: AgentProfile, field: str) -> Any:
    return profile.prompt if field == "prompt" else getattr(profile, field)


def effective_rule_list(profile: AgentProfile) -> list[tuple[str, str, str]]:
    from agent_roster.codecs.permissions import effective_rules

    return [
        (r.rule.permission, r.rule.pattern, r.rule.action.value) for r in effective_rules(profile)
    ]


def same_decisions(original: AgentProfile, back: AgentProfile) -> bool:
    """Whether ``back`` decides every call ``original`` restricts as ``original`` does (the
    render check's probes of both). A call ``original`` says nothing about is the runtime's
    default, which an import writes as the harness's own default (issue 12 item 2)."""
    from agent_roster.codecs.semantics import canonical, check_probes

    for probe in dict.fromkeys((*check_probes(original), *check_probes(back))):
        want = canonical(original, probe)
        if want.rule is not None and canonical(back, probe).action != want.action:
            return False
    return True


def same_field(original: AgentProfile, back: AgentProfile, field: str) -> bool:
    """Whether ``field`` survived the round trip (permission fields: as a whole, by the
    decisions they make)."""
    if field_value(original, field) == field_value(back, field):
        return True
    if field not in PERMISSION_FIELDS:
        return False
    return effective_rule_list(original) == effective_rule_list(back) or same_decisions(
        original, back
    )


def roundtrip_differences(
    codec: Codec,
    originals: Iterable[AgentProfile],
    discovered: Iterable[AgentProfile],
    losses: Iterable[Loss] = (),
) -> list[str]:
    """Every native field where ``import(render(p))`` differs from ``p`` (empty when equal),
    plus profiles that did not come back. A field the render reported as lost for a profile
    (``losses``) is not compared for it: D12 holds where render accepts a field without a
    loss (a Kilo project server holding ``${VAR}`` is dropped, and says so)."""
    found = {p.id: p for p in discovered}
    lost = {(loss.profile, loss.field) for loss in losses}
    problems = []
    for original in originals:
        back = found.get(original.id)
        if back is None:
            problems.append(f"{original.id}: not discovered after render")
            continue
        for field in sorted(codec.native_fields):
            if (original.id, field) in lost:
                continue
            want, got = field_value(original, field), field_value(back, field)
            if not same_field(original, back, field):
                problems.append(f"{original.id}.{field}: rendered {want!r}, discovered {got!r}")
    return problems
