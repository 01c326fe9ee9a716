"""Every per-item diagnostic is placed in linear time (issue 11 item 6).

One profile naming 8,000 unknown MCP servers took 49 s to validate: each name's position
was searched by reading the block again. Here every list-shaped block holds 100,000
items, each one reported, and ``roster validate``'s command must finish within 2 s of
CPU time (CPU, not wall-clock time: a loaded CI machine must not decide the verdict) on
the machine the target was set on, scaled by how much slower this one runs Python
(``tests/speed.py``), and grow no faster than linearly from 10,000 items to 100,000.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_roster.commands.validate import validate
from agent_roster.resolve.config import parse_config

from ..speed import within_budget

FENCE = "```"


def _profile(frontmatter: str = "", **blocks: object) -> str:
    text = f"---\nid: p\nname: P\n{frontmatter}---\n\n# P\n\n## Role\nWork.\n\n"
    for heading, value in blocks.items():
        payload = json.dumps(value, indent=1)
        text += f"## {heading.replace('_', ' ')}\n{FENCE}json\n{payload}\n{FENCE}\n\n"
    return text


def _names(prefix: str, n: int) -> list[str]:
    return [f"{prefix}{i}" for i in range(n)]


#: name -> (profile text for n items, the code each item gets)
CASES: dict[str, tuple[Callable[[int], str], str]] = {
    "tools-allowed-unknown": (
        lambda n: _profile(Tools={"allowed": _names("tool", n)}),
        "tool-unknown",
    ),
    "tools-denied-unknown": (
        lambda n: _profile(Tools={"denied": _names("tool", n)}),
        "tool-unknown",
    ),
    "tools-duplicate": (
        lambda n: _profile(Tools={"allowed": ["Read"] * (n + 1)}),
        "tool-duplicate",
    ),
    "tools-conflict": (
        # Tools of a registry server are known, so only the conflicts are reported.
        lambda n: _profile(
            Tools={"allowed": _names("mcp__github__t", n), "denied": _names("mcp__github__t", n)}
        ),
        "tool-conflict",
    ),
    "tools-not-strings": (lambda n: _profile(Tools={"allowed": [1] * n}), "field-type"),
    "mcp-servers-unknown": (
        lambda n: _profile(MCP_Servers=_names("server", n)),
        "mcp-server-unknown",
    ),
    "mcp-servers-duplicate": (
        lambda n: _profile(MCP_Servers=["github"] * (n + 1)),
        "tool-duplicate",
    ),
    "mcp-servers-unsafe": (lambda n: _profile(MCP_Servers=_names("a/", n)), "name-unsafe"),
    "mcp-servers-inline-unknown": (
        lambda n: _profile(MCP_Servers={name: {} for name in _names("server", n)}),
        "mcp-server-unknown",
    ),
    # A value that would be read as an option is argv-option-value (issue 11 item 2).
    "install-npm": (
        lambda n: _profile(Install={"npm": _names("--option", n)}),
        "argv-option-value",
    ),
    "install-pip": (
        lambda n: _profile(Install={"pip": _names("--option", n)}),
        "argv-option-value",
    ),
    "install-commands": (
        lambda n: _profile(Install={"commands": _names("/bin/", n)}),
        "package-name-invalid",
    ),
    "config-unknown-keys": (
        lambda n: _profile(Config={name: 1 for name in _names("key", n)}),
        "field-unknown",
    ),
    "config-permission": (
        lambda n: _profile(Config={"permission": {name: "maybe" for name in _names("t", n)}}),
        "field-value",
    ),
    "frontmatter-duplicate-keys": (
        lambda n: _profile("".join("name: P\n" for _ in range(n))),
        "yaml-duplicate-key",
    ),
    "frontmatter-tags": (
        lambda n: _profile("tags: [" + ", ".join(_names("t", n)) + ", [1]]\n"),
        "field-type",
    ),
}
# Reported once for the whole list, not per item: the list still has to be read in
# linear time.
ONCE = {"frontmatter-tags"}


def _cpu_seconds(tmp_path: Path, name: str, n: int) -> float:
    make, code = CASES[name]
    vault = tmp_path / f"{name}-{n}"
    folder = vault / "agent-types" / "p"
    folder.mkdir(parents=True)
    (vault / "mcp-servers").mkdir()
    (vault / "mcp-servers" / "github.md").write_text(
        "---\nname: github\ntransport: stdio\ncommand: github-mcp\n---\n", encoding="utf-8"
    )
    (folder / "profile.md").write_text(make(n), encoding="utf-8")
    start = time.process_time()
    report = validate([vault], base=tmp_path)
    seconds = time.process_time() - start
    found = sum(1 for d in report.diagnostics if d.code == code)
    assert found == (1 if name in ONCE else n), (name, found)
    return seconds


@pytest.mark.timeout(300)
@pytest.mark.parametrize("name", sorted(CASES))
def test_100000_items_in_one_block_stay_linear(tmp_path: Path, name: str) -> None:
    small = _cpu_seconds(tmp_path, name, 10_000)
    # Each run judged against the machine's speed around it. The other test worker on a
    # two-core machine stretches CPU time too (a CI run under load measured 2.25 s for
    # what takes 1.4 s alone), and a shared machine's speed varies from minute to minute
    # (2.96 s against a bound of 2.64 s read a moment earlier): the better of up to three
    # runs is judged. Quadratic work (49 s before) fails them all.
    runs = itertools.count()  # each run in a folder of its own
    large, bound = within_budget(
        lambda: _cpu_seconds(tmp_path / f"run-{next(runs)}", name, 100_000), 2.0
    )
    assert large < bound, f"{name}: {large:.2f} s of CPU for 100,000 items (bound {bound:.2f})"
    # Ten times the items: linear is 10x, quadratic 100x. The margin absorbs noise in
    # the small run's few hundredths of a second; a neighbour's load on either run gets
    # one more measurement of both, the better of each judged.
    if large >= max(small, 0.02) * 25:
        small = min(small, _cpu_seconds(tmp_path / "again-small", name, 10_000))
        large = min(large, _cpu_seconds(tmp_path / "again-large", name, 100_000))
    assert large < max(small, 0.02) * 25, f"{name}: {small:.3f} s -> {large:.3f} s"


#: roster.toml blocks: name -> (the file's text for n items, the code each item gets).
CONFIG_CASES: dict[str, tuple[Callable[[int], str], str]] = {
    "defaults-unknown-keys": (
        lambda n: "[defaults]\n" + "".join(f"key{i} = 1\n" for i in range(n)),
        "field-unknown",
    ),
    "defaults-bad-values": (
        # The known keys are few: each is set wrong, then n unknown ones follow it.
        lambda n: (
            '[defaults]\nruntime = 5\nmodel = ""\n'
            + "".join(f'"quoted {i}" = 1\n' for i in range(n))
        ),
        "field-unknown",
    ),
    "embedded-server-unknown-keys": (
        lambda n: "[embedded_server]\n" + "".join(f"key{i} = 1\n" for i in range(n)),
        "field-unknown",
    ),
    "notify-webhook-errors": (
        lambda n: "".join(f'[[notify.webhook]]\nurl = "ftp://h/{i}"\n' for i in range(n)),
        "field-value",
    ),
    "notify-command-unknown-keys": (
        lambda n: "".join(f"[[notify.command]]\nk{i} = 1\n" for i in range(n)),
        "field-unknown",
    ),
}


def _config_cpu_seconds(name: str, n: int) -> float:
    make, code = CONFIG_CASES[name]
    raw = make(n).encode("utf-8")
    start = time.process_time()
    loaded = parse_config(raw)
    seconds = time.process_time() - start
    found = [d for d in loaded.diagnostics if d.code == code]
    assert len(found) == n, (name, len(found))
    # Each one located on its own line (the file's last item on its last lines).
    assert found[-1].line > n, (name, found[-1].line)
    return seconds


@pytest.mark.timeout(300)
@pytest.mark.parametrize("name", sorted(CONFIG_CASES))
def test_100000_items_in_roster_toml_stay_linear(name: str) -> None:
    """roster.toml's positions are looked up, not searched for: 5,000 / 10,000 / 20,000
    unknown [defaults] keys took 3.8 / 14.3 / 57.6 s (each key rescanned the file)."""
    small = _config_cpu_seconds(name, 10_000)
    # An outer bound, not the linearity check (the ratio below is): 4 s on the reference
    # machine, where a rescan per item takes minutes. At 2 s, the slowest case (100,000
    # [[notify.command]] tables, about 2 s there) failed a CI run by 0.6% on Python 3.13.
    large, bound = within_budget(lambda: _config_cpu_seconds(name, 100_000), 4.0)
    assert large < bound, f"{name}: {large:.2f} s of CPU for 100,000 items (bound {bound:.2f})"
    if large >= max(small, 0.02) * 25:  # a CI run under load saw 0.127 -> 3.242 s once
        small = min(small, _config_cpu_seconds(name, 10_000))
        large = min(large, _config_cpu_seconds(name, 100_000))
    assert large < max(small, 0.02) * 25, f"{name}: {small:.3f} s -> {large:.3f} s"
