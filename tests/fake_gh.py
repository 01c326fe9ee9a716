"""A stand-in for ``gh``, the GitHub CLI: GitHub is a network API, the one boundary the
sharing tests replace. The script records each call (argv and stdin) as a JSON line,
serves the gist it last created, and when ``logged_in`` is false answers every command as
gh does without a login: its two-line advice on stderr, exit 4 (gh's ``authError``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import NamedTuple

GIST_URL = "https://gist.github.com/someone/0123456789abcdef0123"
#: What gh (2.x) prints on stderr for any API command when nobody is logged in.
NOT_LOGGED_IN = (
    "To get started with GitHub CLI, please run:  gh auth login\n"
    "Alternatively, populate the GH_TOKEN environment variable with a GitHub API "
    "authentication token.\n"
)


class FakeGh(NamedTuple):
    bin_dir: Path
    record: Path

    def calls(self) -> list[list[str]]:
        """The argv of each call, in order (none yet: an empty list)."""
        if not self.record.exists():
            return []
        return [json.loads(line)["args"] for line in self.record.read_text().splitlines()]


def install_fake_gh(folder: Path, *, logged_in: bool = True) -> FakeGh:
    """Write the fake ``gh`` into ``folder/bin``; put that folder first on PATH."""
    bin_dir = folder / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    record = folder / "gh.json"
    stored = folder / "gist.txt"
    script = bin_dir / "gh"
    script.write_text(
        f"""#!{sys.executable}
import json, sys
args = sys.argv[1:]
data = sys.stdin.read() if args[:2] == ["gist", "create"] else ""
with open({str(record)!r}, "a") as out:
    out.write(json.dumps({{"args": args, "stdin": data}}) + "\\n")
if not {logged_in!r}:
    sys.stderr.write({NOT_LOGGED_IN!r})
    sys.exit(4)
if args[:2] == ["gist", "create"]:
    open({str(stored)!r}, "w").write(data)
    print({GIST_URL!r})
elif args[:2] == ["gist", "view"]:
    sys.stdout.write(open({str(stored)!r}).read())
""",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return FakeGh(bin_dir, record)
