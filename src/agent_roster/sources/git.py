"""The git a source needs, as argv lists with a timeout: a bare mirror per source in the
cache folder, refs resolved to commits, and a subfolder's files read at one commit through
``git archive`` (a tar stream read in memory: nothing is checked out, so no hook, filter or
symlink of the source's runs or lands anywhere).

Only the file, git, http(s) and ssh transports are allowed (``GIT_ALLOW_PROTOCOL``): a URL
such as ``ext::`` would run a command."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import tarfile
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from agent_roster.errors import LiteralSecretError, UsageError
from agent_roster.redact import MASK, redact_text

TIMEOUT = 300.0
_COMMIT = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")
_SAFE_REF = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/+-]*$")
#: The most a source may bring, so a hostile repository cannot fill the disk through us.
MAX_BYTES = 64 << 20


def check_url(url: str) -> str:
    """A source location as git will get it: a URL or a local path, never an option, and
    never one carrying credentials (it is written into roster.toml and roster.lock)."""
    text = url.strip()
    if not text or text.startswith("-") or "\n" in text or "\0" in text:
        raise UsageError(f"{url!r} is not a repository URL or path")
    if "::" in text.split("/", 1)[0]:
        raise UsageError(f"{url!r} uses a git remote helper; only file, git, http(s) and ssh")
    shown = _without_credentials(text)
    if shown is not None:
        raise LiteralSecretError(
            f"refusing a source URL with credentials in it ({shown}): it would be written "
            "into roster.toml and roster.lock, which people sync and commit",
            hint="give the URL without them and let git supply them: a credential helper "
            "(git config --global credential.helper ..., or 'gh auth setup-git' for "
            "GitHub), or an SSH URL",
        )
    return text


def _without_credentials(text: str) -> str | None:
    """``text`` with its credentials masked when it carries any (a password, or a token
    as the user name: ``https://ghp_...@github.com/...``), else None. A user name alone
    (``ssh://git@host/...``, ``git@host:org/repo``) is no secret."""
    if "://" not in text:
        return None
    try:
        parts = urlsplit(text)
        password, user = parts.password, parts.username
    except ValueError:
        return None
    if password is None and (not user or redact_text(user) == user):
        return None
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{MASK}@{host}"))


def check_ref(ref: str) -> str:
    if not _SAFE_REF.match(ref) or ".." in ref or ref.endswith((".lock", "/")):
        raise UsageError(f"{ref!r} is not a branch, tag or commit")
    return ref


def mirror(cache: Path, url: str) -> Path:
    """A bare mirror of ``url`` at ``cache`` (cloned once, fetched after)."""
    if (cache / "HEAD").is_file():
        run(["git", "-C", str(cache), "remote", "set-url", "origin", "--", url])
        run(["git", "-C", str(cache), "fetch", "--quiet", "--prune", "--tags", "--force", "origin"])
        return cache
    cache.parent.mkdir(parents=True, exist_ok=True)
    partial = cache.with_name(cache.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    run(["git", "clone", "--quiet", "--mirror", "--", url, str(partial)])
    os.replace(partial, cache)
    return cache


def resolve(cache: Path, ref: str | None) -> str:
    """The commit ``ref`` names (default: the source's HEAD)."""
    wanted = check_ref(ref) if ref else "HEAD"
    out = run(["git", "-C", str(cache), "rev-parse", "--verify", "--quiet", f"{wanted}^{{commit}}"])
    commit = out.strip()
    if not _COMMIT.match(commit):
        raise UsageError(f"the source has no branch, tag or commit {wanted!r}")
    return commit


def has_commit(cache: Path, commit: str) -> bool:
    if not (cache / "HEAD").is_file():
        return False
    done = _run(["git", "-C", str(cache), "cat-file", "-e", f"{commit}^{{commit}}"], check=False)
    return done.returncode == 0


def files_at(cache: Path, commit: str, subdir: str) -> dict[str, bytes]:
    """Every regular file under ``subdir`` at ``commit``, by path relative to ``subdir``."""
    prefix = subdir.strip("/")
    argv = ["git", "-C", str(cache), "archive", "--format=tar", commit]
    if prefix:
        argv += ["--", prefix]
    data = _run(argv, binary=True).stdout
    files: dict[str, bytes] = {}
    total = 0
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as archive:
        for member in archive:
            if not member.isreg():
                continue  # links and folders carry nothing we copy
            name = member.name
            if prefix:
                if not name.startswith(prefix + "/"):
                    continue
                name = name[len(prefix) + 1 :]
            total += member.size
            if total > MAX_BYTES:
                raise UsageError(f"the source brings more than {MAX_BYTES >> 20} MiB")
            extracted = archive.extractfile(member)
            if extracted is not None:
                files[name] = extracted.read()
    return files


def run(argv: Sequence[str]) -> str:
    return _run(argv).stdout.decode("utf-8", "replace")


def _run(
    argv: Sequence[str], *, check: bool = True, binary: bool = False
) -> subprocess.CompletedProcess[bytes]:
    env = {
        **os.environ,
        "GIT_ALLOW_PROTOCOL": "file:git:http:https:ssh",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    try:
        done = subprocess.run(
            list(argv), capture_output=True, timeout=TIMEOUT, check=False, env=env
        )
    except FileNotFoundError:
        raise UsageError("git is not installed", hint="install git to use sources") from None
    except subprocess.TimeoutExpired:
        raise UsageError(
            f"git {argv[3] if len(argv) > 3 else ''} took over {TIMEOUT:g} s"
        ) from None
    if check and done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        message = lines[-1] if lines else f"exit {done.returncode}"
        raise UsageError(f"git failed: {message[:300]}")
    return done
