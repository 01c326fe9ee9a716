"""Benchmark: what masking secrets costs the output of a clean vault (issue 11 item 3).

Every line and every ``--json`` document the CLI prints passes ``agent_roster.redact``. The
issue asks that this not slow the render of a clean vault. A vault of ``--profiles`` system
profiles (``vaultgen``, no secrets: its servers use ``${VAR}`` references) is generated, and
``roster render --to claude --to opencode`` runs in this process through ``cli.main`` in
three forms, each into a fresh folder: text, ``--json`` and ``--dry-run`` (a diff of every
file). Output goes to a buffer (the terminal is not measured).

On a shared machine two runs of the same command differ by more than the cost measured
here, so the cost is measured inside each run: the redaction functions the output paths
call are wrapped with a timer, and their time is compared with the wall time of the same
command (**share**). The baseline is the command itself. Each form also runs once with
redaction replaced by the identity, and the two outputs must be equal: masking a clean
vault must change nothing. Targets (best share of ``--reps``): at most 5 % for the text
render, the everyday path, and 10 % for ``--json``, where every string of a large document
is read once more (``json.dumps`` itself costs about twice that). The dry run, a preview
that diffs every file, is shown without a target. Prints a table, PASS/FAIL lines and,
last, one JSON line; exits 1 when a target is missed or an output differs.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import vaultgen
from agent_roster import redact
from agent_roster.cli import app, output
from agent_roster.commands import output_folder

#: Largest share of a command's wall time redaction may take, per form.
TARGETS = {"text": 0.05, "json": 0.10}
FORMS = {"text": [], "json": ["--json"], "dry-run": ["--dry-run"]}


@contextlib.contextmanager
def unredacted() -> Iterator[None]:
    """The output paths with redaction replaced by the identity."""
    saved = (output.redact_text, output.redact_data, output_folder.redact_text)
    output.redact_text = output_folder.redact_text = lambda text: text  # type: ignore[assignment]
    output.redact_data = lambda data, **_: data  # type: ignore[assignment]
    try:
        yield
    finally:
        output.redact_text, output.redact_data, output_folder.redact_text = saved


@contextlib.contextmanager
def timed(spent: list[float]) -> Iterator[None]:
    """The output paths' redaction functions, each call timed into ``spent``."""
    saved = (output.redact_text, output.redact_data, output_folder.redact_text)

    def wrap(function: Any) -> Any:
        def timed_call(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                spent.append(time.perf_counter() - start)

        return timed_call

    output.redact_text = wrap(saved[0])  # type: ignore[assignment]
    output.redact_data = wrap(saved[1])  # type: ignore[assignment]
    output_folder.redact_text = wrap(saved[2])  # type: ignore[assignment]
    try:
        yield
    finally:
        output.redact_text, output.redact_data, output_folder.redact_text = saved


def run(vault: Path, out: Path, extra: list[str]) -> tuple[float, str]:
    argv = ["--vault", str(vault), "render", "--to", "claude", "--to", "opencode"]
    argv += ["--out", str(out), *extra]
    buffer = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(io.StringIO()):
        code = app.main(argv)
    seconds = time.perf_counter() - start
    if code not in (0, 1):
        raise SystemExit(f"render {extra} exited {code}")
    return seconds, buffer.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--tmp", default="/dev/shm" if os.path.isdir("/dev/shm") else None)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="roster-bench-redact-", dir=args.tmp))
    try:
        manifest = vaultgen.generate(work / "vault", profiles=args.profiles, servers=200)
        print(f"vault: {args.profiles:,} profiles in {manifest.seconds:.1f} s ({work})")
        shares: dict[str, list[tuple[float, float]]] = {form: [] for form in FORMS}
        printed: dict[tuple[str, str], str] = {}
        out = work / "out"
        for _ in range(args.reps):
            for form, extra in FORMS.items():
                shutil.rmtree(out, ignore_errors=True)  # fresh: a dry run diffs every file
                redact._redact_short.cache_clear()  # every run starts cold
                spent: list[float] = []
                with timed(spent):
                    seconds, printed[(form, "ours")] = run(work / "vault", out, extra)
                shares[form].append((sum(spent) / seconds, seconds))
        for form, extra in FORMS.items():
            shutil.rmtree(out, ignore_errors=True)
            with unredacted():
                _, printed[(form, "baseline")] = run(work / "vault", out, extra)
        failures: list[str] = []
        rows: dict[str, Any] = {}
        print(f"{'form':<9} {'command s':>10} {'redaction s':>12} {'share':>7} {'output MB':>10}")
        for form in FORMS:
            share, seconds = min(shares[form])
            size = len(printed[(form, "ours")]) / 1e6
            print(
                f"{form:<9} {seconds:>10.2f} {share * seconds:>12.3f} {share:>7.1%} {size:>10.2f}"
            )
            rows[form] = {"seconds": seconds, "share": share, "mb": size}
            if printed[(form, "ours")] != printed[(form, "baseline")]:
                failures.append(f"{form}: redaction changed the output of a clean vault")
            if share > TARGETS.get(form, 1.0):
                failures.append(
                    f"{form}: redaction took {share:.1%} of the command "
                    f"(target <= {TARGETS[form]:.0%})"
                )
        sample = printed[("json", "ours")] + printed[("dry-run", "ours")]
        start = time.perf_counter()
        redact.redact_text(sample)
        mbps = len(sample) / 1e6 / (time.perf_counter() - start)
        print(f"redact_text on the clean output: {mbps:.1f} MB/s")
        for line in failures:
            print(f"FAIL {line}")
        if not failures:
            print("PASS redaction within its share of the text (5 %) and --json (10 %) renders")
        print(json.dumps({"forms": rows, "mb_per_s": mbps, "passed": not failures}))
        return 1 if failures else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
