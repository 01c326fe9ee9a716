"""The real Qwen Code CLI, offline, pointed at the fake model (issue 16 item 3).

Recipe (``shared/research/harness-oracles.md``): a throw-away HOME and
``qwen --auth-type openai --openai-base-url http://127.0.0.1:P/v1 --openai-api-key x -m
fake PROMPT``; no login and no network. What Qwen loaded shows in the requests it sends:

* :meth:`QwenCli.agents`: the ``agent`` tool's description lists every subagent it offers,
  ``- **name**: description``, project first, then user, then built-in;
* :meth:`QwenCli.subagents`: the fake model calls the ``agent`` tool for each name (the
  main agent runs with ``--approval-mode yolo`` so the call is not held for approval); the
  subagent's own request carries its prompt first in the system text and its exact tools;
* :meth:`QwenCli.mcp_list`: ``qwen mcp list`` (each server tried, or ``Pending approval``).

A run takes 10 to 40 s on a loaded machine, so each call has a generous timeout.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .fake_model import Captured, FakeModel, ToolCall

PROMPT = "roster-oracle-probe"
TASK = "roster-oracle-task"
TIMEOUT = 300
#: The main agent's system prompt starts so (a subagent's starts with its own prompt).
MAIN = "You are Qwen Code"
_AGENT_LINE = re.compile(r"^- \*\*(?P<name>[^*]+)\*\*: (?P<description>.*)$", re.M)
_SERVER_LINE = re.compile(r"^\S+ (?P<name>[^:\s]+): (?P<target>.*) - (?P<state>[^-\n]+)$", re.M)


class QwenError(AssertionError):
    """The CLI did not do what the oracle expects (its output is in the message)."""


@dataclass
class QwenCli:
    """One workspace and home, as Qwen Code sees them."""

    binary: str
    model: FakeModel
    workspace: Path
    home: Path

    def run(self, *args: str, timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
        home = self.home
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "NO_COLOR": "1",
            "CI": "1",
            "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1",
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

    def prompt(self, *extra: str) -> list[Captured]:
        """Every completion request of one prompt run against the fake model."""
        self.model.clear()
        done = self.run(
            "--auth-type",
            "openai",
            "--openai-base-url",
            self.model.base_url,
            "--openai-api-key",
            "offline-test-key",
            "-m",
            self.model.model,
            *extra,
            PROMPT,
        )
        prompts = self.model.prompts()
        if done.returncode != 0 or not prompts:
            raise QwenError(
                f"qwen exited {done.returncode} after {len(prompts)} request(s):\n"
                f"{done.stdout}{done.stderr}"
            )
        return prompts

    def agents(self) -> dict[str, str]:
        """The subagents the main agent is offered, name → description, in Qwen's order."""
        return offered(self.prompt()[0])

    def subagents(self, *names: str) -> dict[str, Captured]:
        """Each named subagent's first request (its system text starts with its prompt)."""
        self.model.script[:] = [
            ToolCall(
                "agent",
                {
                    "description": "roster oracle",
                    "prompt": f"{TASK} {name}",
                    "subagent_type": name,
                    "run_in_background": False,
                },
                context=MAIN,
            )
            for name in names
        ]
        requests = self.prompt("--approval-mode", "yolo")
        found: dict[str, Captured] = {}
        for captured in requests:
            for name in names:
                if name not in found and captured.text("user").endswith(f"{TASK} {name}"):
                    found[name] = captured
        missing = [name for name in names if name not in found]
        if missing or self.model.script:
            raise QwenError(f"no request from subagents {missing}")
        return found

    def mcp_list(self) -> dict[str, str]:
        """``qwen mcp list``: server name → its state (``Connected``, ``Pending approval``…)."""
        done = self.run("mcp", "list")
        if done.returncode != 0:
            raise QwenError(f"qwen mcp list exited {done.returncode}:\n{done.stderr}")
        return {m["name"]: m["state"].strip() for m in _SERVER_LINE.finditer(done.stdout)}


def offered(captured: Captured) -> dict[str, str]:
    """The subagents a main-agent request offers in its ``agent`` tool, name → description."""
    tool = next((t for t in captured.tools() if t["name"] == "agent"), None)
    if tool is None:
        raise QwenError(f"no agent tool in {captured.tool_names()}")
    return {m["name"]: m["description"] for m in _AGENT_LINE.finditer(tool["description"])}


def system_prompt(captured: Captured) -> str:
    """A subagent's own prompt: its system text up to the rules Qwen appends."""
    text = captured.text("system")
    return text.split("\n\nImportant Rules:", 1)[0]


def git_init(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(folder)], check=True, timeout=60)
