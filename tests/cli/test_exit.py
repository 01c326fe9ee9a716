"""How the ``roster`` executable ends (cli.app.run): through ``os._exit`` once the
command is done, which must still run exit handlers, deliver all output, keep the
command's exit status and wait for threads that are still working."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.cli.test_cli import GOOD, run_roster


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def test_leaving_runs_exit_handlers_flushes_output_and_keeps_the_status() -> None:
    done = _python(
        """
        import atexit, sys
        from agent_roster.cli.app import _leave
        atexit.register(lambda: print("handler ran"))
        sys.stdout.write("x" * 200_000)  # more than any buffer: flushed in pieces and at the end
        print()
        print("last line", file=sys.stderr)
        _leave(3)
        """
    )
    assert done.returncode == 3
    lines = done.stdout.splitlines()
    assert lines == ["x" * 200_000, "handler ran"]
    assert done.stderr == "last line\n"


def test_leaving_waits_for_a_thread_that_is_still_working() -> None:
    done = _python(
        """
        import threading, time
        from agent_roster.cli.app import _leave
        def work():
            time.sleep(0.3)
            print("thread finished", flush=True)
        threading.Thread(target=work).start()
        _leave(0)
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "thread finished\n"


def test_a_closed_output_pipe_gives_the_interpreter_status() -> None:
    # CPython exits 120 when it cannot flush stdout at exit; roster's exit does the same.
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from agent_roster.cli.app import _leave; print('ok'); _leave(0)",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # Block-buffered output, as a pipe has by default: the write fails at the flush.
        env={k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"},
    )
    assert process.stdout is not None
    process.stdout.close()
    _, err = process.communicate(timeout=60)
    assert process.returncode == 120, err


def test_the_executable_prints_the_whole_render_report(make_tree, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    named = "id: agent-{n:02d}\ndescription: Agent {n}"
    files = {
        f"agent-types/agent-{n:02d}/profile.md": GOOD.replace("id: coding", named.format(n=n))
        for n in range(30)
    }
    vault = make_tree(files)
    out = tmp_path / "out"
    done = run_roster(
        vault, "render", "--to", "claude", "--out", str(out), "--verbose", timeout=120
    )
    assert done.returncode == 0, done.stderr
    written = sorted(p.name for p in (out / ".claude" / "agents").iterdir())
    assert written == [f"agent-{n:02d}.md" for n in range(30)]
    # Every file's line reached the pipe, the last one included.
    for name in written:
        assert f"created   {out / '.claude' / 'agents' / name}" in done.stdout
