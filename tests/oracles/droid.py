"""The real Factory Droid CLI (``droid``), offline, pointed at the fake model (issue 16 item 3).

Recipe (``shared/research/harness-oracles.md``, "Factory Droid"): a throw-away ``HOME`` whose
``~/.factory/settings.json`` has a BYOK ``customModels`` entry at the fake model's loopback
URL, chosen by ``sessionDefaultSettings.model`` (``--model custom:X`` refuses a non-default
custom model); no Factory login and no network. Then:

* :meth:`DroidCli.droids`: ``droid exec --auto high PROMPT``; its first request carries a
  system reminder "Custom droids available (from <project> and <user>)" with one line per
  droid, ``- name: description (location: project|personal)``;
* :meth:`DroidCli.tools`: that request's tools and the deferred ones it lists (MCP tools
  are ``<server>___<tool>``);
* :meth:`DroidCli.mcp_list`: ``droid mcp list`` (each server's transport, state and scope).

A subagent cannot run offline (Droid runs it through its daemon, which needs a login), so
what a droid's own tools are is read in the binary, not seen (docs/codecs/droid.md §9).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from .fake_model import Captured, FakeModel

PROMPT = "roster-oracle-probe"
TIMEOUT = 300
_HEADER = re.compile(r"Custom droids available \(from (?P<folders>[^)]*)\):\n")
_DROID = re.compile(
    r"^- (?P<name>[^:]*?):(?: (?P<description>.*?))? \(location: (?P<location>\w+)\)$"
)
_SERVER = re.compile(r"^  (?P<name>\S+)  (?P<kind>\S+)  (?P<state>.*?)  \[(?P<scope>\w+)\]", re.M)


class DroidError(AssertionError):
    """The CLI did not do what the oracle expects (its output is in the message)."""


class Offered(NamedTuple):
    """One custom droid the session offers its Task tool."""

    name: str
    description: str
    location: str  # "project" or "personal"


@dataclass
class DroidCli:
    """One workspace and home, as Factory Droid sees them."""

    binary: str
    model: FakeModel
    workspace: Path
    home: Path

    def _settings(self) -> None:
        path = self.home / ".factory" / "settings.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        settings = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        ident = f"custom:{self.model.model}"
        settings["customModels"] = [
            {
                "model": self.model.model,
                "id": ident,
                "displayName": "Roster fake model",
                "baseUrl": self.model.base_url,
                "apiKey": "offline-test-key",
                "provider": "generic-chat-completion-api",
                "maxOutputTokens": 1000,
            }
        ]
        settings["sessionDefaultSettings"] = {"model": ident}
        path.write_text(json.dumps(settings, indent=2), encoding="utf-8")

    def run(self, *args: str, timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "NO_COLOR": "1",
            "CI": "1",
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

    def prompt(self) -> Captured:
        """The first completion request of one ``droid exec`` run against the fake model."""
        self._settings()
        self.model.clear()
        done = self.run("exec", "--auto", "high", PROMPT)
        prompts = self.model.prompts()
        if done.returncode != 0 or not prompts:
            raise DroidError(
                f"droid exec exited {done.returncode} after {len(prompts)} request(s):\n"
                f"{done.stdout}{done.stderr}"
            )
        return prompts[0]

    def droids(self) -> tuple[list[Offered], str]:
        """The custom droids the session offers, in Droid's order, and the folders the
        reminder names."""
        return offered(self.prompt())

    def mcp_list(self) -> dict[str, tuple[str, str, str]]:
        """``droid mcp list``: server name → (transport, state, scope)."""
        done = self.run("mcp", "list")
        if done.returncode != 0:
            raise DroidError(f"droid mcp list exited {done.returncode}:\n{done.stderr}")
        return {
            m["name"]: (m["kind"], m["state"].strip(), m["scope"])
            for m in _SERVER.finditer(done.stdout)
        }


def offered(captured: Captured) -> tuple[list[Offered], str]:
    """The custom droids one request's system reminder lists, and its folders."""
    text = captured.text("user") + "\n" + captured.text("system")
    header = _HEADER.search(text)
    if header is None:
        return [], ""
    found: list[Offered] = []
    for line in text[header.end() :].splitlines():
        match = _DROID.match(line)
        if match is None:
            break
        found.append(Offered(match["name"], match["description"] or "", match["location"]))
    return found, header["folders"]


def deferred(captured: Captured) -> list[str]:
    """The tool names a request offers, and those its reminder lists as deferred."""
    names = captured.tool_names()
    text = captured.text("user")
    start = text.find("Deferred tools:\n")
    if start >= 0:
        for line in text[start + len("Deferred tools:\n") :].splitlines():
            if not line.strip() or line.startswith("<"):
                break
            names.append(line.strip())
    return names


def git_init(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(folder)], check=True, timeout=60)
