"""roster.toml ``[install]``: where and how ``roster install`` may install.

```toml
[install]
python = "/opt/agents/bin/python"  # the environment pip installs into (default: roster's)
npm = "npm"                        # the npm program (a name on PATH or a path)
timeout = 300                      # seconds per step (a check or one install)
allow_urls = false                 # pip "name @ https://..." requirements
allow_paths = false                # pip "name @ file:///..." requirements
```

Options never come from a profile (a requirement that reads as an option does not even
parse); a URL or a local path runs whatever it points at, so both are refused unless the
vault's owner allows them here.
"""

from __future__ import annotations

import sys
from typing import Any, NamedTuple

import msgspec


class InstallPolicy(msgspec.Struct, frozen=True, kw_only=True):
    python: str = sys.executable
    npm: str = "npm"
    timeout: float = 300.0
    allow_urls: bool = False
    allow_paths: bool = False


class PolicyProblem(NamedTuple):
    """A wrong ``[install]`` entry: the key (``None``: the table), a code and a message;
    the config loader places it in roster.toml."""

    key: str | None
    code: str
    message: str


def policy_from(table: Any) -> tuple[InstallPolicy, list[PolicyProblem]]:
    """The policy an ``[install]`` table sets; a wrong value keeps its default."""
    problems: list[PolicyProblem] = []
    if not isinstance(table, dict):
        problems.append(PolicyProblem(None, "field-value", "[install] must be a table"))
        return InstallPolicy(), problems
    values: dict[str, Any] = {}
    value: Any
    for key, value in table.items():
        if key not in _KINDS:
            problems.append(
                PolicyProblem(key, "field-unknown", f"unknown key {key!r} in [install]")
            )
            continue
        wanted = _KINDS[key]
        if not isinstance(value, wanted) or (key == "timeout" and isinstance(value, bool)):
            problems.append(
                PolicyProblem(key, "field-value", f"[install] {key} must be {_kind(wanted)}")
            )
            continue
        if isinstance(value, int | float) and key == "timeout" and not 0 < value <= 3600:
            problems.append(
                PolicyProblem(key, "field-value", "[install] timeout must be 0 to 3600 seconds")
            )
            continue
        if isinstance(value, str) and (not value.strip() or value.startswith("-")):
            problems.append(
                PolicyProblem(key, "field-value", f"[install] {key} must name a program")
            )
            continue
        values[key] = float(value) if isinstance(value, int | float) and key == "timeout" else value
    return InstallPolicy(**values), problems


_KINDS: dict[str, tuple[type, ...]] = {
    "python": (str,),
    "npm": (str,),
    "timeout": (int, float),
    "allow_urls": (bool,),
    "allow_paths": (bool,),
}


def _kind(kinds: tuple[type, ...]) -> str:
    return {str: "a string", bool: "true or false", int: "a number"}[kinds[0]]
