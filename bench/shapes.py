"""The vault shapes ``vaultgen`` can write (issue 12 item 8), and what makes each one.

* ``clean`` - the generator's original vault: no diagnostics at all.
* ``warnings`` - like real vaults: most profiles (85%) allow 1-3 bare tool names that no
  registry knows (custom commands, other harnesses' names), about 1.7 ``tool-unknown``
  warnings per profile, from a vocabulary of a few dozen names.
* ``big-prompts`` - 20-80 KB of prose in each profile's Role section.
* ``many-servers`` - 1,000 registry servers, each stdio one with several ``env`` entries
  and each http/sse one with several ``headers``.

Every shape validates without errors; only ``warnings`` has warnings.
"""

from __future__ import annotations

import random

SHAPES = ("clean", "warnings", "big-prompts", "many-servers")

#: Bare tool names no registry knows: custom commands teams give their agents, and other
#: harnesses' names for built-in tools (which the hint maps to the canonical tool).
UNKNOWN_TOOLS = (
    "shell",
    "read_file",
    "write_file",
    "run_shell_command",
    "apply_patch",
    "run_tests",
    "run_linter",
    "format_code",
    "deploy_preview",
    "open_pull_request",
    "notify_team",
    "search_docs",
    "query_metrics",
    "kubectl",
    "terraform_plan",
    "fetch_logs",
    "create_ticket",
    "summarize_diff",
    "translate",
    "screenshot",
    "browser",
    "code_search",
    "list_files",
    "execute",
    "think",
    "memory_store",
    "memory_recall",
    "calendar",
)
#: Share of profiles with unknown tools, and how many each gets (mean 2: ~1.7 a profile).
WARNING_SHARE = 0.85
#: Servers ``many-servers`` writes (the other shapes keep ``--servers``).
MANY_SERVERS = 1_000
#: Bytes of prose ``big-prompts`` gives each profile's Role, at least and at most.
PROMPT_BYTES = (20_000, 80_000)

_OPENINGS = (
    "When a task arrives",
    "Before you change anything",
    "While you work",
    "If the tests fail",
    "When the reviewer asks for changes",
    "At the end of every task",
    "When the requirement is unclear",
    "If a dependency is missing",
    "When you touch shared code",
    "Whenever you are unsure",
)
_MIDDLES = (
    "read the files the task names and the tests that cover them",
    "write down what you expect to happen and compare it with what does",
    "prefer the smallest change that makes the behaviour correct",
    "keep the public interface stable and note every deviation",
    "run the linters and the type checker, then the whole suite",
    "explain the trade-off you chose in one short paragraph",
    "look for an existing helper before writing a new one",
    "ask the owner of the module rather than guessing their intent",
    "measure twice: once before the change and once after it",
    "leave the code a little clearer than you found it",
)
_ENDINGS = (
    "so that the next person can follow your reasoning.",
    "and record what you learned in the project's notes.",
    "because a quiet failure costs more than a loud one.",
    "and stop when the evidence says the work is done.",
    "since reviewers read the diff, not your intentions.",
    "and mention anything you could not verify.",
)


def unknown_tools(rng: random.Random) -> list[str]:
    """The unknown bare names one ``warnings`` profile allows (often none)."""
    if rng.random() >= WARNING_SHARE:
        return []
    return rng.sample(UNKNOWN_TOOLS, rng.randint(1, 3))


def prose(rng: random.Random) -> list[str]:
    """20-80 KB of plain prose paragraphs (no headings, fences or frontmatter lines), as
    the lines of a Role section."""
    target = rng.randint(*PROMPT_BYTES)
    lines: list[str] = []
    size = 0
    while size < target:
        sentences = [
            f"{rng.choice(_OPENINGS)}, {rng.choice(_MIDDLES)} {rng.choice(_ENDINGS)}"
            for _ in range(rng.randint(3, 7))
        ]
        paragraph = " ".join(sentences)
        lines += ["", paragraph]
        size += len(paragraph) + 2
    return lines


def server_env(rng: random.Random, base: str) -> list[str]:
    """Extra ``env`` lines for a stdio server of ``many-servers``."""
    keys = rng.sample(("REGION", "TIMEOUT_MS", "CACHE_DIR", "PROXY", "ORG", "RETRIES"), 3)
    lines = [f'  {base.upper()}_API_URL: "https://{base}.example.com/api"']
    lines += [f'  {key}: "${{{key}}}"' for key in keys]
    return lines


def server_headers(rng: random.Random, base: str) -> list[str]:
    """Extra ``headers`` lines for an http/sse server of ``many-servers``."""
    lines = [f'  X-{base.capitalize()}-Org: "${{{base.upper()}_ORG}}"']
    if rng.random() < 0.7:
        lines.append('  X-Request-Source: "agent-roster"')
    lines.append(f'  User-Agent: "roster-{base}/1.0"')
    return lines
