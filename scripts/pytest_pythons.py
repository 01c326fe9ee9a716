"""Run the test suite on every Python this machine has that the package supports.

Issue 13 item 5: ``pyproject.toml`` says ``requires-python >= 3.11``, so the suite must pass
on each of those, not only on the interpreter ``.venv`` happens to use. ``make test`` (and so
CI) runs this after ruff and mypy::

    python scripts/pytest_pythons.py [PYTEST ARGS...]

For each minor version from the lowest supported one up, it looks for an interpreter (``uv
python find``, then pyenv's versions folder, then ``python3.X`` on PATH and in /usr/bin,
/usr/local/bin; nothing is downloaded), gives it its own virtual environment
(``.venvs/3.X``, built by ``uv sync --frozen`` from the same ``uv.lock``; the default
``.venv`` when it is that version), runs pytest there with the arguments given, and
prints one summary line per version with its wall time, then the totals. ``ROSTER_PYTHONS``
(``"3.11 3.13"``) limits the versions. With ``CI`` set, a missing 3.11, 3.12 or 3.13
is a failure. The exit status is 0 only when every run passed.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UV = ROOT / ".tools" / "bin" / "uv"
REQUIRED_IN_CI = ("3.11", "3.12", "3.13")
LAST_MINOR = 20
_COUNTS = re.compile(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed)")


def lowest_supported() -> int:
    spec = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    found = re.fullmatch(r">=\s*3\.(\d+)", spec.strip())
    if found is None:
        raise SystemExit(f"pytest_pythons: cannot read requires-python {spec!r}")
    return int(found.group(1))


def version_of(exe: str) -> str | None:
    """``3.X.Y`` of a working interpreter, or None (a pyenv shim for a version that is not
    selected fails here)."""
    try:
        done = subprocess.run(
            [exe, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except OSError:
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def candidates(minor: int) -> list[str]:
    wanted = f"3.{minor}"
    found: list[str] = []
    if UV.exists():
        done = subprocess.run(
            [str(UV), "python", "find", "--no-python-downloads", "--no-project", wanted],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode == 0 and done.stdout.strip():
            found.append(done.stdout.strip())
    pyenv = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    patches = glob.glob(os.path.join(pyenv, "versions", f"{wanted}.*", "bin", f"python{wanted}"))
    found.extend(sorted(patches, key=_patch_order, reverse=True))
    for folder in ("", "/usr/local/bin", "/usr/bin"):
        exe = os.path.join(folder, f"python{wanted}") if folder else shutil.which(f"python{wanted}")
        if exe and os.access(exe, os.X_OK):
            found.append(exe)
    return found


def _patch_order(path: str) -> tuple[int, ...]:
    version = Path(path).parents[1].name
    return tuple(int(part) if part.isdigit() else -1 for part in version.split("."))


def interpreters() -> dict[str, tuple[str, str]]:
    """minor version ("3.12") -> (interpreter, full version), for every supported minor
    version found here."""
    only = os.environ.get("ROSTER_PYTHONS", "").split()
    result: dict[str, tuple[str, str]] = {}
    for minor in range(lowest_supported(), LAST_MINOR):
        wanted = f"3.{minor}"
        if only and wanted not in only:
            continue
        for exe in candidates(minor):
            full = version_of(exe)
            if full is not None and full.startswith(wanted + "."):
                result[wanted] = (exe, full)
                break
    return result


def environment(minor: str, exe: str, full: str) -> Path:
    """The virtual environment to test ``minor`` in, synced from uv.lock."""
    default = ROOT / ".venv"
    if version_of(str(default / "bin" / "python")) == full:
        return default
    venv = ROOT / ".venvs" / minor
    env = {**os.environ, "UV_PROJECT_ENVIRONMENT": str(venv)}
    # Bytecode compiled as `make setup-dev` does: the tests start `roster` hundreds of times.
    subprocess.run(
        [str(UV), "sync", "--frozen", "--quiet", "--compile-bytecode", "--python", exe],
        cwd=ROOT,
        env=env,
        check=True,
    )
    python = str(venv / "bin" / "python")
    subprocess.run([python, "-m", "compileall", "-q", "src"], cwd=ROOT, check=True)
    return venv


def main(args: list[str]) -> int:
    found = interpreters()
    ci = os.environ.get("CI", "") not in ("", "0", "false")
    missing = [v for v in REQUIRED_IN_CI if v not in found]
    if os.environ.get("ROSTER_PYTHONS"):
        missing = [v for v in missing if v in os.environ["ROSTER_PYTHONS"].split()]
    listed = ", ".join(f"{v} ({full} at {exe})" for v, (exe, full) in found.items())
    print(f"pytest_pythons: testing on {listed or 'nothing'}", flush=True)
    for version in missing:
        print(f"pytest_pythons: Python {version} is not on this machine", flush=True)
    results: list[tuple[str, int, float, str]] = []
    for minor, (exe, full) in found.items():
        venv = environment(minor, exe, full)
        print(f"\n=== Python {full}: {venv.relative_to(ROOT)}/bin/python -m pytest", flush=True)
        started = time.monotonic()
        proc = subprocess.Popen(
            [str(venv / "bin" / "python"), "-m", "pytest", *args],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert proc.stdout is not None
        last = ""
        for line in proc.stdout:
            sys.stdout.write(line)
            if line.strip():
                last = line.strip()
        code = proc.wait()
        results.append((full, code, time.monotonic() - started, last.strip("= ")))
    print("\npytest_pythons: per Python")
    totals: dict[str, int] = {}
    for full, code, seconds, last in results:
        print(f"  {full:<8} {'ok    ' if code == 0 else f'exit {code}'} {seconds:6.0f} s  {last}")
        for count, kind in _COUNTS.findall(last):
            kind = "errors" if kind.startswith("error") else kind
            totals[kind] = totals.get(kind, 0) + int(count)
    failed = [full for full, code, _, _ in results if code != 0]
    if not results:
        print("pytest_pythons: no supported Python found", file=sys.stderr)
        return 1
    if ci and missing:
        print(f"pytest_pythons: CI is set and Python {', '.join(missing)} is missing")
        return 1
    print(
        f"pythons: {totals.get('passed', 0)} passed, "
        f"{totals.get('failed', 0) + totals.get('errors', 0)} failed"
        + (f", {totals['skipped']} skipped" if totals.get("skipped") else "")
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
