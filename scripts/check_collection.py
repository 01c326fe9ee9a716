"""Check ``roster can`` and the never-widen render against a real collection of agents.

Issue 12: imported agents must be decided exactly as their own harness decides them, and
no render may let an agent do more than its source allowed. The property tests check this
on generated agents; this script checks it on agents people wrote (a public collection
checked out somewhere)::

    python scripts/check_collection.py claude path/to/workspace [--targets opencode ...]

The workspace holds the agents where the harness reads them (``.claude/agents/*.md`` for
Claude Code, ``.opencode/agents`` for OpenCode...). For every agent the harness loads
from it, the script asks the harness (``Codec.decide`` on the file) and ``roster can`` (on
the profile ``roster import`` wrote into a fresh vault) about the fixed probes, then
renders the imported profile to every target and asks each target about its own file.
It prints the agreements, each disagreement and each widening, and exits 1 when there is
any disagreement or widening (2 when the workspace holds no agent).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from agent_roster.codecs import codec_names, get_codec
from agent_roster.codecs.base import NativeAgent, Roots, Scope
from agent_roster.codecs.guard import render_guarded
from agent_roster.codecs.semantics import FIXED_PROBES, wider
from agent_roster.commands.can import can
from agent_roster.commands.discover import import_agents
from agent_roster.commands.harness import load_effective


def reader(root: Path) -> Callable[[str], str | None]:
    def read(path: str) -> str | None:
        target = root / path
        return target.read_text(encoding="utf-8") if target.is_file() else None

    return read


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("harness", choices=codec_names())
    parser.add_argument("workspace", type=Path)
    parser.add_argument("--targets", nargs="*", default=list(codec_names()))
    args = parser.parse_args(argv)
    workspace = args.workspace.resolve()
    codec = get_codec(args.harness)
    with tempfile.TemporaryDirectory() as tmp:
        home, vault = Path(tmp) / "home", Path(tmp) / "vault"
        home.mkdir()
        vault.mkdir()
        discovery = codec.discover(Roots(workspace=workspace, home=home))
        if not discovery.profiles:
            print(f"no {codec.title} agent in {workspace}")
            return 2
        report = import_agents(vault, args.harness, workspace=workspace, home=home)
        errors = [d.format() for d in report.diagnostics if d.is_error]
        read = reader(workspace)
        calls = agreed = 0
        disagreements: list[str] = []
        widenings: list[str] = []
        refused: Counter[str] = Counter()
        written: Counter[str] = Counter()
        for profile in discovery.profiles:
            rel = str(Path(profile.source).resolve().relative_to(workspace))
            agent = NativeAgent(profile.id, (rel,), read, Scope.PROJECT)
            want = {probe: codec.decide(agent, probe) for probe in FIXED_PROBES}
            for probe, action in want.items():
                got = can(vault, profile.id, probe.tool, probe.argument).decision.action
                calls += 1
                if got is action:
                    agreed += 1
                else:
                    disagreements.append(
                        f"{profile.id}: {probe.describe()}: {codec.title} {action.value}, "
                        f"roster can {got.value}"
                    )
            effective = load_effective(vault, [profile.id])
            request = effective.request()
            for target in args.targets:
                target_codec = get_codec(target)
                rendering = render_guarded(target_codec, request, lambda path: None)
                own = tuple(
                    f.path for f in rendering.files if f.profile == profile.id and not f.merged
                )
                if not own:
                    refused[target] += 1
                    continue
                written[target] += 1
                produced = {f.path: f.content for f in rendering.files}
                rendered = NativeAgent(profile.id, own, produced.get, Scope.PROJECT)
                for probe, limit in want.items():
                    decided = target_codec.decide(rendered, probe)
                    if wider(decided, limit):
                        widenings.append(
                            f"{profile.id} -> {target}: {probe.describe()} "
                            f"{limit.value} became {decided.value}"
                        )
    print(f"{len(discovery.profiles)} {codec.title} agents in {workspace}")
    print(f"import errors: {len(errors)}", *errors[:5], sep="\n  ")
    print(f"roster can agrees with {codec.title} on {agreed} of {calls} calls")
    for line in disagreements[:20]:
        print("  " + line)
    for target in args.targets:
        print(
            f"render to {target}: {written[target]} written, {refused[target]} refused "
            "(render-widens or unsupported)"
        )
    print(f"widenings in written agents: {len(widenings)}")
    for line in widenings[:20]:
        print("  " + line)
    return 1 if disagreements or widenings or errors else 0


if __name__ == "__main__":
    sys.exit(main())
