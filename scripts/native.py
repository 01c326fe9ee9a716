"""Compile the render's hot modules with mypyc, in place, for the interpreter running this.

Issues 12 (item 8) and 16 (item 6) ask for render speeds that CPython does not reach on
every machine: a render's time is spread thinly over the codecs, the never-widen check and
the parser, with no function taking more than a few percent. mypyc (part of mypy, which
type-checks the package strictly anyway) compiles those typed modules to C extensions with
the same behaviour; on the 10,000-profile vaults the render then needs about a quarter
less CPU. The list is ``[tool.agent-roster.native] modules`` in ``pyproject.toml``.

    python scripts/native.py build    compile them unless already built from these sources
    python scripts/native.py clean    remove every compiled module (back to pure Python)
    python scripts/native.py status   say which modules are compiled, stale or missing

A compiled module sits next to its source (``permissions.cpython-311-x86_64-linux-gnu.so``
beside ``permissions.py``) and Python imports it instead of the source, so a build records
the hash of every source it compiled (``src/.native-build.json``): ``build`` rebuilds when a
source changed, and the test suite refuses to run on a stale build (``tests/conftest.py``).
Other interpreters ignore a build made for another version (the file name carries the
version) and run the sources.

Compiling is an optimisation, never a requirement: without a C compiler or mypyc, or when
``ROSTER_NATIVE=0``, ``build`` removes any earlier build, says why, and exits 0; everything
works the same in pure Python. ``ROSTER_NATIVE=require`` (CI) makes a failed build an
error instead.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
MANIFEST = SRC / ".native-build.json"
#: The name this interpreter gives an extension module (``.cpython-311-x86_64-linux-gnu.so``).
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def modules() -> list[str]:
    """The dotted names of the modules to compile, as ``pyproject.toml`` lists them."""
    with open(ROOT / "pyproject.toml", "rb") as handle:
        config = tomllib.load(handle)
    return list(config["tool"]["agent-roster"]["native"]["modules"])


def source_of(module: str) -> Path:
    return SRC.joinpath(*module.split(".")).with_suffix(".py")


def compiled_of(module: str) -> Path:
    source = source_of(module)
    return source.with_name(source.stem + SUFFIX)


def source_hashes(names: list[str]) -> dict[str, str]:
    return {name: hashlib.sha256(source_of(name).read_bytes()).hexdigest() for name in names}


def compiled_modules() -> list[str]:
    """The modules compiled for this interpreter that are in ``src/``, listed or not."""
    package = SRC / "agent_roster"
    found = []
    for path in sorted(package.rglob("*" + SUFFIX)):
        parts = path.relative_to(SRC).with_name(path.name.removesuffix(SUFFIX)).parts
        found.append(".".join(parts))
    return found


def stale(names: list[str] | None = None) -> list[str]:
    """Modules of this interpreter's build whose source changed since it was compiled, or
    that are no longer on the list (empty when there is no build for this interpreter)."""
    names = modules() if names is None else names
    built = compiled_modules()
    if not built:
        return []
    try:
        recorded = json.loads(MANIFEST.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return built  # compiled modules with no record of their sources: trust none
    if recorded.get("suffix") != SUFFIX:
        return built
    hashes = recorded.get("sources", {})
    listed = [name for name in built if name in names and source_of(name).exists()]
    now = source_hashes(listed)
    return [name for name in built if name not in now or hashes.get(name) != now[name]]


def clean() -> int:
    """Remove every compiled module of any interpreter, listed or not (a module taken off
    the list would otherwise still be imported, linked to a runtime that is gone), and the
    build's record."""
    removed = 0
    for found in (SRC / "agent_roster").rglob("*.so"):
        found.unlink()
        removed += 1
    for shared in SRC.glob("*__mypyc*.so"):  # the runtime every compiled module links to
        shared.unlink()
        removed += 1
    MANIFEST.unlink(missing_ok=True)
    return removed


def _unavailable() -> str:
    if importlib.util.find_spec("mypyc") is None:
        return "mypyc is not installed (it comes with mypy)"
    if importlib.util.find_spec("setuptools") is None:
        return "setuptools is not installed (mypyc builds with it)"
    compiler = os.environ.get("CC", "cc")
    if shutil.which(compiler) is None and shutil.which("gcc") is None:
        return f"no C compiler ({compiler}) on PATH"
    return ""


def build() -> int:
    mode = os.environ.get("ROSTER_NATIVE", "1")
    names = modules()
    if mode == "0":
        clean()
        print("native: ROSTER_NATIVE=0, running the pure-Python modules")
        return 0
    built = set(compiled_modules()) == set(names)
    if built and not stale(names):
        print(f"native: {len(names)} modules already compiled from these sources")
        return 0
    clean()
    reason = _unavailable()
    if reason:
        return _give_up(reason, mode)
    log = SRC / "build" / "native.log"
    log.parent.mkdir(exist_ok=True)
    paths = [str(source_of(name).relative_to(SRC)) for name in names]
    command = [sys.executable, "-m", "mypyc", "--config-file", str(ROOT / "pyproject.toml")]
    with open(log, "w", encoding="utf-8") as out:
        done = subprocess.run(
            [*command, *paths], cwd=SRC, stdout=out, stderr=subprocess.STDOUT, check=False
        )
    missing = [name for name in names if not compiled_of(name).exists()]
    if done.returncode != 0 or missing:
        clean()
        tail = log.read_text(encoding="utf-8", errors="replace").splitlines()[-15:]
        print("\n".join(tail), file=sys.stderr)
        return _give_up(f"mypyc failed (exit {done.returncode}; full log: {log})", mode)
    record = {"suffix": SUFFIX, "sources": source_hashes(names)}
    MANIFEST.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"native: compiled {len(names)} modules for {SUFFIX}")
    return 0


def _give_up(reason: str, mode: str) -> int:
    if mode == "require":
        print(f"native: {reason}, and ROSTER_NATIVE=require", file=sys.stderr)
        return 1
    print(f"native: {reason}; running the pure-Python modules (same behaviour, slower)")
    return 0


def status() -> int:
    names = modules()
    old = set(stale(names))
    for name in [*names, *sorted(old - set(names))]:
        state = "stale" if name in old else "compiled" if compiled_of(name).exists() else "source"
        print(f"{state:9} {name}")
    return 1 if old else 0


def main(args: list[str]) -> int:
    action = args[0] if args else "build"
    if action == "build":
        return build()
    if action == "clean":
        print(f"native: removed {clean()} compiled files")
        return 0
    if action == "status":
        return status()
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
