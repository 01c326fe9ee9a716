"""What is installed where a profile will run: distributions in the target Python, global
npm packages, programs on PATH. Every look is a subprocess given as an argv list with a
timeout; a look that fails says so instead of guessing "missing"."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence

import msgspec

from agent_roster.argv import npm_list_global

# Run inside the target interpreter (``-I``: no user site, no PYTHON* variables, no
# current folder on sys.path): the versions of every installed distribution, and the
# environment markers are evaluated against, computed as PEP 508 defines them.
_PYTHON_SCRIPT = r"""
import importlib.metadata as m, json, os, platform, sys
def v(info):
    s = "{0.major}.{0.minor}.{0.micro}".format(info)
    if info.releaselevel != "final":
        s += info.releaselevel[0] + str(info.serial)
    return s
versions = {}
for d in m.distributions():
    name = d.metadata["Name"]
    if name:
        versions.setdefault(name, d.version)
env = {
    "implementation_name": sys.implementation.name,
    "implementation_version": v(sys.implementation.version),
    "os_name": os.name,
    "platform_machine": platform.machine(),
    "platform_release": platform.release(),
    "platform_system": platform.system(),
    "platform_version": platform.version(),
    "python_full_version": platform.python_version(),
    "platform_python_implementation": platform.python_implementation(),
    "python_version": ".".join(platform.python_version_tuple()[:2]),
    "sys_platform": sys.platform,
}
print(json.dumps({"versions": versions, "env": env, "executable": sys.executable}))
"""


class LookupFailed(Exception):
    """A look at the environment could not be made (the program is missing, it failed,
    or it took longer than its timeout)."""


class PythonEnvironment(msgspec.Struct, frozen=True, kw_only=True):
    executable: str
    #: canonical distribution name -> version
    versions: dict[str, str]
    markers: dict[str, str]


def inspect_python(python: str, timeout: float) -> PythonEnvironment:
    from packaging.utils import canonicalize_name

    output = run_lookup([python, "-I", "-c", _PYTHON_SCRIPT], timeout)
    try:
        data = json.loads(output)
        versions = {str(canonicalize_name(k)): str(v) for k, v in data["versions"].items()}
        return PythonEnvironment(
            executable=str(data["executable"]), versions=versions, markers=dict(data["env"])
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise LookupFailed(f"{python} did not describe its environment: {exc}") from None


def npm_present(npm: str, specs: Sequence[str], timeout: float) -> dict[str, str]:
    """The globally installed npm packages among ``specs`` that satisfy their range:
    name -> installed version (``npm ls -g`` filters by the specs)."""
    if not specs:
        return {}
    program = shutil.which(npm)
    if program is None:
        raise LookupFailed(f"{npm} is not on PATH")
    argv = npm_list_global(specs, npm=program)
    # A check only reads (issue 13 item 3): npm writes a debug log under ~/.npm/_logs when
    # ls finds a package missing, and makes ~/.npm for its cache; neither here.
    with tempfile.TemporaryDirectory(prefix="roster-npm-") as cache:
        env = {**quiet_environment(), "npm_config_logs_max": "0", "npm_config_cache": cache}
        completed = _run(argv, timeout, env)
    try:
        data = json.loads(completed.stdout or "{}")
    except ValueError:
        raise LookupFailed(f"npm ls printed no JSON (exit {completed.returncode})") from None
    found = data.get("dependencies", {}) if isinstance(data, dict) else {}
    return {
        name: str(info.get("version", ""))
        for name, info in found.items()
        if isinstance(info, dict) and not info.get("invalid") and not info.get("missing")
    }


def command_path(name: str) -> str | None:
    return shutil.which(name)


def run_lookup(argv: Sequence[str], timeout: float) -> str:
    completed = _run(argv, timeout)
    if completed.returncode != 0:
        tail = (completed.stderr or "").strip().splitlines()[-1:] or [""]
        raise LookupFailed(f"{argv[0]} exited {completed.returncode}: {tail[0][:200]}")
    return completed.stdout


def _run(
    argv: Sequence[str], timeout: float, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            list(argv),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            stdin=subprocess.DEVNULL,
            env=env or quiet_environment(),
        )
    except FileNotFoundError:
        raise LookupFailed(f"{argv[0]} is not installed") from None
    except subprocess.TimeoutExpired:
        raise LookupFailed(f"{argv[0]} took longer than {timeout:g} s") from None
    except OSError as exc:
        raise LookupFailed(f"cannot run {argv[0]}: {exc.strerror}") from None


def quiet_environment() -> dict[str, str]:
    """The environment for installer subprocesses: ours, with their update nags and
    prompts off."""
    env = dict(os.environ)
    env.setdefault("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    env.setdefault("PIP_NO_INPUT", "1")
    env.setdefault("npm_config_update_notifier", "false")
    env.setdefault("npm_config_fund", "false")
    env.setdefault("npm_config_audit", "false")
    return env
