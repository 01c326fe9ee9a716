"""Per-launch credentials for the embedded MCP server (issue 14 item 3).

A launch spec attaches the embedded server with a bearer token bound to the task and the
profile it was built for. The token is ``<payload>.<signature>``: the payload is base64url
JSON (profile, project, task, expiry), the signature an HMAC-SHA256 with the vault's launch
key, which is made once and kept 0600 beside the database. Any process that can read the key
(``roster resolve``/``roster run`` as the same user) can mint a token, and the daemon checks
one without keeping state; rotating the key (deleting the file) revokes every token.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
import time
from pathlib import Path

import msgspec

from agent_roster.errors import ForbiddenError

KEY_FILE = "launch.key"
#: A token is good for this long after the launch spec was built.
LIFETIME_SECONDS = 7 * 24 * 3600


class Claims(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Whom a token names: the profile (``""``: roster.toml's default), its project and the
    task of the launch, and when it expires (seconds since the epoch)."""

    profile: str
    project: str | None = None
    task: str | None = None
    exp: int = 0


def launch_key(folder: Path) -> bytes:
    """The vault's signing key (``.roster/launch.key``), made on first use."""
    path = folder / KEY_FILE
    try:
        return bytes.fromhex(path.read_text(encoding="ascii").strip())
    except FileNotFoundError:
        pass
    folder.mkdir(parents=True, exist_ok=True)
    key = secrets.token_bytes(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first: use theirs
        return bytes.fromhex(path.read_text(encoding="ascii").strip())
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(key.hex() + "\n")
    return key


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def mint(
    key: bytes,
    profile: str,
    *,
    project: str | None = None,
    task: str | None = None,
    now: float | None = None,
) -> str:
    """A token naming a launch's profile, project and task, good for
    :data:`LIFETIME_SECONDS`."""
    claims = Claims(
        profile=profile,
        project=project,
        task=task,
        exp=int((now or time.time()) + LIFETIME_SECONDS),
    )
    payload = _b64(msgspec.json.encode(claims))
    signature = _b64(hmac.new(key, payload.encode(), hashlib.sha256).digest())
    return f"{payload}.{signature}"


def verify(key: bytes, token: str, *, now: float | None = None) -> Claims:
    """Whom a token names; :class:`ForbiddenError` when it is forged or expired."""
    payload, sep, signature = token.partition(".")
    expected = _b64(hmac.new(key, payload.encode(), hashlib.sha256).digest())
    if not sep or not hmac.compare_digest(signature, expected):
        raise ForbiddenError("the launch token is not valid", hint="build a new launch spec")
    try:
        claims = msgspec.json.decode(_unb64(payload), type=Claims)
    except (ValueError, msgspec.DecodeError):
        raise ForbiddenError("the launch token is not valid") from None
    if claims.exp < (now or time.time()):
        raise ForbiddenError("the launch token has expired", hint="build a new launch spec")
    return claims
