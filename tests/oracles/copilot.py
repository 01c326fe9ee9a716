"""The real Copilot CLI, offline, pointed at the fake model (issue 16 item 2).

Recipe (``shared/research/harness-oracles.md``): a throw-away HOME, ``COPILOT_OFFLINE=true``
and a "bring your own key" provider on loopback, so no login and no network are needed.
Each call takes a second or two; every one gets a generous timeout, because the suite
shares the machine with other real-CLI tests.

* :meth:`CopilotCli.agents`: ``--agent <none> -p …`` exits 1 with ``No such agent: …,
  available: a, b`` (display names, user layer first);
* :meth:`CopilotCli.request`: ``--agent ID -p …``; the request it sends to the fake model
  carries the agent's body inside ``<agent_instructions>`` and the exact tool list;
* :meth:`CopilotCli.mcp_list`: ``copilot mcp list --json``;
* :meth:`CopilotCli.errors`: the ``[ERROR] <path>: custom agent markdown frontmatter is
  malformed: …`` lines of ``--log-level all --log-dir``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .fake_model import Captured, FakeModel

#: The prompt of every run. Not a word that occurs elsewhere: the CLI's log masks the
#: prompt's text wherever it appears.
PROMPT = "roster-oracle-probe"
NO_AGENT = "roster-no-such-agent"
TIMEOUT = 180
#: What the CLI says before the body it sends (1.0.102).
_INSTRUCTIONS = re.compile(
    r"<agent_instructions>\n[^\n]*instructions above\.\n\n(?P<body>.*?)\n</agent_instructions>",
    re.S,
)
_ERROR = re.compile(r"\[ERROR\] (?P<path>\S+): custom agent markdown frontmatter is malformed: ")


class CopilotError(AssertionError):
    """The CLI did not do what the oracle expects (its output is in the message)."""


@dataclass
class CopilotCli:
    """One workspace and home, as the Copilot CLI sees them."""

    binary: str
    model: FakeModel
    workspace: Path
    home: Path

    def env(self, *, allow_all: bool = False) -> dict[str, str]:
        home = self.home
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "COPILOT_HOME": str(home / ".copilot"),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_STATE_HOME": str(home / ".local" / "state"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "COPILOT_AUTO_UPDATE": "false",
            "COPILOT_OFFLINE": "true",
            "COPILOT_PROVIDER_BASE_URL": self.model.base_url,
            "COPILOT_PROVIDER_API_KEY": "offline-test-key",
            "COPILOT_MODEL": self.model.model,
            "NO_COLOR": "1",
            "CI": "1",
        }
        if allow_all:
            env["COPILOT_ALLOW_ALL"] = "true"
        return env

    def run(
        self, *args: str, allow_all: bool = False, timeout: float = TIMEOUT
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [self.binary, *args],
            cwd=self.workspace,
            env=self.env(allow_all=allow_all),
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            check=False,
        )

    def agents(self, *, log_dir: Path | None = None) -> list[str]:
        """The agents the CLI offers, by display name, in its order."""
        logging = ["--log-level", "all", "--log-dir", str(log_dir)] if log_dir else []
        result = self.run("--agent", NO_AGENT, "-p", PROMPT, *logging)
        output = result.stdout + result.stderr
        found = re.search(rf"No such agent: {NO_AGENT}, available: ?(?P<names>.*)", output)
        if result.returncode != 1 or found is None:
            raise CopilotError(f"no agent list (exit {result.returncode}):\n{output}")
        names = found.group("names").strip()
        return [name.strip() for name in names.split(", ")] if names else []

    def request(self, agent: str, *, allow_all: bool = False) -> Captured:
        """The first completion request of a one-shot prompt to ``agent``."""
        self.model.clear()
        result = self.run("--agent", agent, "-p", PROMPT, allow_all=allow_all)
        prompts = self.model.prompts()
        if result.returncode != 0 or not prompts:
            raise CopilotError(
                f"copilot --agent {agent} exited {result.returncode} after {len(prompts)} "
                f"request(s):\n{result.stdout}{result.stderr}"
            )
        return prompts[0]

    def mcp_list(self, *, allow_all: bool = False) -> dict[str, Any]:
        """``copilot mcp list --json``: server name → entry (with ``source``)."""
        result = self.run("mcp", "list", "--json", allow_all=allow_all)
        if result.returncode != 0:
            raise CopilotError(f"mcp list exited {result.returncode}:\n{result.stderr}")
        servers: dict[str, Any] = json.loads(result.stdout)["mcpServers"]
        return servers

    def errors(self, log_dir: Path) -> dict[str, str]:
        """Each agent file the CLI refused, by the path it logs, with its reason."""
        self.agents(log_dir=log_dir)
        refused: dict[str, str] = {}
        for log in sorted(log_dir.glob("*.log")):
            for line in log.read_text(encoding="utf-8").splitlines():
                found = _ERROR.search(line)
                if found is not None:
                    refused[found.group("path")] = line[found.end() :]
        return refused


def instructions(captured: Captured) -> str | None:
    """The agent body the CLI put in the system prompt (``None`` when there is none)."""
    found = _INSTRUCTIONS.search(captured.text("system"))
    return found.group("body") if found is not None else None


def git_init(folder: Path) -> None:
    """Make ``folder`` a git repository, as a project the CLI runs in is."""
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(folder)], check=True, timeout=60)
