"""The real Kilo Code CLI, offline (issue 16 item 3).

``kilo`` reads its configuration without a model or a login: ``kilo debug config`` prints
the merged configuration (the ``agent`` and ``mcp`` keys as loaded from every layer),
``kilo agent list`` the agents it offers with their mode, ``kilo debug agent NAME`` one
agent as it runs (model, prompt, the full permission rule list) and ``kilo mcp list`` each
server with its state. Every run gets a throw-away HOME and XDG folders, ``--pure`` (no
external plugins) and the switches that keep Kilo off the network. Under load one call
takes 10 to 30 s (the binary is 170 MB), so each has a generous timeout.

The platform package is installed by name (``@kilocode/cli-linux-x64``; the wrapper does
not install from this registry), so the binary is not on ``.bin``
(``tests.codecs.helpers.need_harness("kilo")`` knows where it is).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TIMEOUT = 240
OFFLINE = {
    "KILO_DISABLE_AUTOUPDATE": "1",
    "KILO_DISABLE_MODELS_FETCH": "1",
    "KILO_DISABLE_LSP_DOWNLOAD": "1",
    "KILO_DISABLE_DEFAULT_PLUGINS": "1",
    "KILO_DISABLE_SHARE": "1",
    "KILO_DISABLE_CLAUDE_CODE": "1",
    "KILO_DISABLE_SESSION_INGEST": "1",
    "KILO_TELEMETRY_LEVEL": "off",
}
#: ``name (mode)`` lines of ``kilo agent list`` (each followed by its rules as JSON).
_AGENT_LINE = re.compile(r"^(?P<name>\S+) \((?P<mode>subagent|primary|all)\)$", re.M)
#: ``●  ✓ name connected`` / ``●  ✗ name failed`` lines of ``kilo mcp list``.
_SERVER_LINE = re.compile(r"^●\s+\S+\s+(?P<name>\S+)\s+(?:\x1b\[\d+m)?(?P<state>[\w ]+?)\s*$", re.M)


class KiloError(AssertionError):
    """The CLI did not do what the oracle expects (its output is in the message)."""


@dataclass
class KiloCli:
    """One workspace and home, as the Kilo CLI sees them."""

    binary: str
    workspace: Path
    home: Path
    env: dict[str, str] | None = None

    def run(self, *args: str, timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
        home = self.home
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_STATE_HOME": str(home / ".local" / "state"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "NO_COLOR": "1",
            "CI": "1",
            **OFFLINE,
            **(self.env or {}),
        }
        # stdout goes to a file, not a pipe: the CLI exits without waiting for a pipe's
        # pending writes, so under load `agent list` (tens of KB) came back cut short.
        with tempfile.TemporaryFile("w+", encoding="utf-8") as out:
            done = subprocess.run(
                [self.binary, *args, "--pure"],
                cwd=self.workspace,
                env=env,
                stdout=out,
                stderr=subprocess.PIPE,
                text=True,
                timeout=timeout,
                stdin=subprocess.DEVNULL,
                check=False,
            )
            out.seek(0)
            return subprocess.CompletedProcess(done.args, done.returncode, out.read(), done.stderr)

    def _ok(self, *args: str) -> str:
        done = self.run(*args)
        if done.returncode != 0:
            raise KiloError(f"kilo {' '.join(args)} exited {done.returncode}:\n{done.stderr}")
        return done.stdout

    def config(self) -> dict[str, Any]:
        """``kilo debug config``: the merged configuration."""
        loaded: dict[str, Any] = json.loads(self._ok("debug", "config"))
        return loaded

    def agents(self) -> dict[str, str]:
        """``kilo agent list``: every agent Kilo offers (built-ins too) → its mode."""
        return {m["name"]: m["mode"] for m in _AGENT_LINE.finditer(self._ok("agent", "list"))}

    def agent(self, name: str) -> dict[str, Any]:
        """``kilo debug agent NAME``: the agent as Kilo runs it."""
        info: dict[str, Any] = json.loads(self._ok("debug", "agent", name))
        return info

    def mcp_list(self) -> dict[str, str]:
        """``kilo mcp list``: server name → its state (``connected``, ``failed``…)."""
        text = self._ok("mcp", "list")
        return {m["name"]: m["state"].strip() for m in _SERVER_LINE.finditer(text)}
