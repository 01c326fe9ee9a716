"""The real Qoder CLI (``qodercli``), offline, with no login and no model (issue 16 item 3).

Recipe (``shared/research/harness-oracles.md``, "Qoder CLI"): a throw-away ``HOME`` and a
git workspace. Three commands show what Qoder loaded without reaching any server:

* :meth:`QoderCli.agents`: ``qodercli agents list`` (``agents --setting-sources ...``) prints the
  agents per layer (Project, User, Built-in), a shadowed one as ``(shadowed by Project)``,
  and "N errors loading agent configs" for the files it refused;
* :meth:`QoderCli.init`: ``qodercli -p x --output-format stream-json [--agent NAME]``
  prints its ``init`` message before it finds there is no login: the session's exact tool
  list (with ``--agent``, the named agent's built-in tools; a session agent keeps every MCP
  tool, which a subagent does not), its model, the MCP servers and their status;
* :meth:`QoderCli.mcp_list` / :meth:`QoderCli.mcp_get`: ``qodercli mcp list`` / ``mcp get``
  (each server's scope and file).

Each call takes 10 to 20 s (Qoder gives up on its own servers first), so tests batch.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

TIMEOUT = 180
_ERRORS = re.compile(r"^(\d+) errors? loading agent configs", re.M)
_SECTION = re.compile(r"^(Project|User|Built-in|Plugin|Local)[^:\n]*:$")
_AGENT = re.compile(r"^  (?P<shadowed>\(shadowed by [^)]*\) )?(?P<name>.+?) · (?P<model>.+)$")
_SERVER = re.compile(r"^\S+ (?P<name>[^:\s]+): (?P<target>.*) - (?P<state>[A-Za-z][^\n·]*)", re.M)


class QoderError(AssertionError):
    """The CLI did not do what the oracle expects (its output is in the message)."""


class Listed(NamedTuple):
    """One line of ``qodercli agents list``."""

    layer: str  # "Project", "User" or "Built-in"
    name: str
    model: str  # as Qoder shows it: "Inherit", "Sonnet"…
    shadowed: bool


@dataclass
class QoderCli:
    """One workspace and home, as Qoder CLI sees them."""

    binary: str
    workspace: Path
    home: Path

    def run(self, *args: str, timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "NO_COLOR": "1",
        }
        return subprocess.run(
            [self.binary, *args],
            cwd=self.workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            check=False,
        )

    def agents(self, *sources: str) -> tuple[list[Listed], int]:
        """Every agent line of ``agents list`` (only ``sources`` when given), and how many
        files Qoder refused."""
        # ``agents --setting-sources S`` filters; ``agents list --setting-sources S`` does
        # not (1.1.52).
        command = ["--setting-sources", ",".join(sources)] if sources else ["list"]
        done = self.run("agents", *command)
        if done.returncode != 0:
            raise QoderError(f"qodercli agents list exited {done.returncode}:\n{done.stderr}")
        return parse_agents(done.stdout + done.stderr)

    def init(self, agent: str | None = None) -> dict[str, Any]:
        """The ``init`` message of a print-mode session (with ``agent`` as its agent)."""
        extra = ["--agent", agent] if agent else []
        done = self.run("-p", "roster-oracle", "--output-format", "stream-json", *extra)
        for line in done.stdout.splitlines():
            if line.startswith("{"):
                message = json.loads(line)
                if message.get("subtype") == "init":
                    return dict(message)
        raise QoderError(f"no init message from qodercli:\n{done.stdout}{done.stderr}")

    def mcp_list(self) -> dict[str, tuple[str, str]]:
        """``mcp list``: server name → (what it runs, its state)."""
        done = self.run("mcp", "list")
        if done.returncode != 0:
            raise QoderError(f"qodercli mcp list exited {done.returncode}:\n{done.stderr}")
        return {
            m["name"]: (m["target"].strip(), m["state"].strip())
            for m in _SERVER.finditer(done.stdout)
        }

    def mcp_get(self, name: str) -> dict[str, str]:
        """``mcp get NAME``: its ``Key: value`` lines (``Scope``, ``Location``, ``Type``…);
        empty when Qoder does not know the server."""
        done = self.run("mcp", "get", name)
        fields: dict[str, str] = {}
        for line in done.stdout.splitlines():
            key, sep, value = line.strip().partition(": ")
            if sep and line.startswith("  ") and not line.startswith("    "):
                fields[key] = value.strip()
        return fields


def parse_agents(text: str) -> tuple[list[Listed], int]:
    """The agent lines of ``agents list`` output, and the count of refused files."""
    found = _ERRORS.search(text)
    errors = int(found.group(1)) if found else 0
    layer = ""
    listed: list[Listed] = []
    for line in text.splitlines():
        section = _SECTION.match(line)
        if section:
            layer = section.group(1)
            continue
        agent = _AGENT.match(line)
        if agent and layer:
            listed.append(
                Listed(layer, agent["name"], agent["model"].strip(), bool(agent["shadowed"]))
            )
    return listed, errors


def git_init(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(folder)], check=True, timeout=60)
