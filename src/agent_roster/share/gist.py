"""Gists through the ``gh`` CLI (its own login, its own network access): create one from an
export, fetch one's raw text. Every call is an argv list with a timeout; a gist reference is
checked before it reaches the argv."""

from __future__ import annotations

import re
import shutil
import subprocess

from agent_roster.argv import gh_gist_create, gh_gist_view
from agent_roster.errors import UsageError

# A gist id, or a gist URL ending in one (optionally with the owner and a revision).
_GIST = re.compile(
    r"^(?:https://gist\.github\.com/(?:[A-Za-z0-9-]+/)?)?(?P<id>[0-9a-f]{20,40})(?:/[0-9a-f]{40})?/?$"
)
TIMEOUT = 60.0
#: gh's exit code when no account is logged in (``cmd/gh``: ``exitAuth``); it then prints
#: "To get started with GitHub CLI, please run:  gh auth login".
_GH_AUTH_ERROR = 4
_ACTS = {"create": "create the gist", "view": "fetch the gist"}


def gist_id(reference: str) -> str | None:
    """The gist id a URL or bare id names, or None when it is not one."""
    found = _GIST.match(reference.strip())
    return found.group("id") if found else None


def fetch(reference: str) -> str:
    ident = gist_id(reference)
    if ident is None:
        raise UsageError(f"{reference!r} is not a gist URL or id")
    return _gh(gh_gist_view(ident), stdin=None)


def create(filename: str, text: str, description: str) -> str:
    """Create a public gist holding ``text`` as ``filename``; its URL."""
    # --filename=/--desc= glue the profile's values to their options (issue 11 item 2).
    out = _gh(gh_gist_create(filename, description), stdin=text)
    url = out.strip().splitlines()[-1] if out.strip() else ""
    if not url.startswith("https://"):
        raise UsageError("gh gist create printed no gist URL", hint=out.strip()[:200])
    return url


def _gh(argv: list[str], *, stdin: str | None) -> str:
    program = shutil.which("gh")
    if program is None:
        raise UsageError(
            "gh (the GitHub CLI) is not installed",
            hint="install it from https://cli.github.com, then run 'gh auth login'",
        )
    try:
        done = subprocess.run(
            [program, *argv[1:]],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise UsageError(f"gh did not answer within {TIMEOUT:g} s") from None
    if done.returncode == _GH_AUTH_ERROR or "gh auth login" in done.stderr:
        raise UsageError(
            f"gh (the GitHub CLI) is not logged in, so it cannot {_ACTS.get(argv[2], argv[2])}",
            hint="run 'gh auth login' (or set GH_TOKEN), then try again",
        )
    if done.returncode != 0:
        message = (done.stderr or done.stdout).strip().splitlines()
        first = message[0] if message else f"exit {done.returncode}"
        hint = "run 'gh auth login'" if "auth" in first.lower() or "login" in first.lower() else ""
        raise UsageError(f"gh {argv[1]} {argv[2]} failed: {first[:300]}", hint=hint)
    return done.stdout
