"""The render check reads what a codec wrote from the frontmatter it was written from
(``native_md.read_written``), and an OpenCode agent's scoping denies from the tail they
were laid out from: both must decide exactly as parsing the written files does."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from agent_roster.codecs import codec_names, get_codec, guard
from agent_roster.codecs.base import NativeAgent, Probe, RenderRequest
from agent_roster.codecs.opencode.scoping import ScopingTail, scoping_block
from agent_roster.codecs.opencode.semantics import AgentLayer
from agent_roster.codecs.permissions import effective_rules, key_kind, rules_to_config
from agent_roster.codecs.semantics import FIXED_PROBES, canonical_each, check_probes
from agent_roster.commands.harness import render_agents
from agent_roster.model.profile import AgentProfile, PermissionAction, PermissionRule

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import vaultgen

_SERVERS = ["gh", "gh_x", "gh-x", "docs", "docs2", "a.b", "a_b", "sql", "s", "w*", "q?", "b\\s"]


@pytest.mark.parametrize("shape", ["warnings", "many-servers"])
def test_the_check_decides_as_parsing_the_written_files_does(
    shape: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "vault"
    vaultgen.generate(vault, profiles=120, servers=40, projects=2, shape=shape, seed=3)
    harnesses = list(codec_names())
    fast = render_agents(vault, harnesses, out=tmp_path / "fast", dry_run=True)
    # The same render with nothing remembered: every check parses the text it reads, and
    # reads the agent's files again for every call it asks (no NativeAgent.memo).
    monkeypatch.setattr(guard, "remembering_written", contextlib.nullcontext)
    monkeypatch.setattr(guard, "NativeAgent", lambda *given: NativeAgent(*given[:4]))
    parsed = render_agents(vault, harnesses, out=tmp_path / "parsed", dry_run=True)
    assert fast.losses == parsed.losses
    assert fast.diagnostics == parsed.diagnostics
    assert [(f.harness, f.status) for f in fast.files] == [
        (f.harness, f.status) for f in parsed.files
    ]
    # The vault is one where the check matters: agents are narrowed or refused.
    assert any(loss.outcome.value in ("refused", "translated") for loss in fast.losses)


_ACTIONS = list(PermissionAction)
_CALLED = ["gh_issue", "gh_x_y", "gh-x_y", "docs_search", "docs2_a", "a_b_c", "s_q", "sql_"]
_CALLED += ["bash", "w*_z", "w__z", "q?_z", "b\\s_z", "b_s_z", "x", "gh_", "a.b_c"]


@settings(max_examples=400, deadline=None)
@given(
    servers=st.lists(st.sampled_from(_SERVERS), min_size=1, max_size=8, unique=True),
    used=st.sets(st.integers(0, 7), max_size=3),
    head=st.lists(
        st.tuples(
            st.sampled_from(["*", "bash", "gh_*", "gh_issue", "docs_search", "sql_*", "g*", "x"]),
            st.sampled_from(["*", "git *", "secret*"]),
            st.sampled_from(_ACTIONS),
        ),
        max_size=6,
    ),
    key=st.sampled_from(_CALLED),
    argument=st.sampled_from(["*", "git push", "secret.txt", "other"]),
)
def test_an_agent_with_its_scoping_tail_decides_as_its_whole_map(
    servers: list[str],
    used: set[int],
    head: list[tuple[str, str, PermissionAction]],
    key: str,
    argument: str,
) -> None:
    block = scoping_block(tuple(servers))
    plain = all(key_kind(k) == ("prefix", k[:-1]) and "\\" not in k for k in block.keys.values())
    # A server whose key is not a plain prefix: the check reads that map whole.
    assert (block.prefixes is not None) is plain
    assume(plain)
    tail = ScopingTail(block, tuple(sorted(i for i in used if i < len(servers))))
    permission = rules_to_config(
        [PermissionRule(permission=k, pattern=p, action=a) for k, p, a in head]
    )
    tail_keys = {rule.permission for rule in tail.rules}
    assume(not tail_keys & permission.keys())  # a tail's keys are its own (Tailed)
    whole = {**permission, **{rule.permission: "deny" for rule in tail.rules}}
    expected = AgentLayer(whole).decide(key, argument)
    assert AgentLayer(permission, tail).decide(key, argument) == expected
    assert AgentLayer(permission, tail).whole() == whole


@pytest.mark.parametrize("harness", ["claude", "opencode", "kilo"])
def test_with_a_memo_an_agent_is_read_once_and_decided_the_same(
    harness: str, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    vaultgen.generate(vault, profiles=30, servers=10, projects=1, shape="warnings", seed=5)
    out = tmp_path / "out"
    report = render_agents(vault, [harness], out=out, allow_widening=True)
    codec = get_codec(harness)
    reads: list[str] = []

    def read(path: str) -> str | None:
        reads.append(path)
        file = out / path
        return file.read_text() if file.is_file() else None

    probes = [*FIXED_PROBES, Probe("Grep"), Probe("mcp__github-000__do_thing")]
    written = {str(Path(f.path).relative_to(out)) for f in report.files}
    agent_files = sorted(p for p in written if "agent" in p and p.endswith(".md"))
    assert len(agent_files) >= 20
    for path in agent_files:
        plain = NativeAgent("a", (path,), read)
        expected = [codec.decide(plain, probe) for probe in probes]
        assert reads.count(path) >= len(probes)  # without a memo: once per call
        reads.clear()
        kept = NativeAgent("a", (path,), read, memo={})
        assert [codec.decide(kept, probe) for probe in probes] == expected
        assert reads.count(path) == 1
        reads.clear()


@pytest.mark.parametrize("widening", [False, True])
def test_the_check_skips_only_calls_the_profile_allows(
    widening: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Nothing is wider than allow, so the check does not ask the target about a call the
    # profile allows; asking every call the profile decides must give the same render.
    vault = tmp_path / "vault"
    vaultgen.generate(vault, profiles=120, servers=40, projects=2, shape="warnings", seed=5)
    harnesses = list(codec_names())
    fast = render_agents(
        vault, harnesses, out=tmp_path / "fast", dry_run=True, allow_widening=widening
    )
    allowed = []

    def every_answer(profile: AgentProfile, request: RenderRequest) -> list[guard._Want]:
        rules = effective_rules(profile, embedded=request.embedded)
        if not rules:
            return []
        probes = check_probes(profile, request.embedded)
        answers = canonical_each(
            profile,
            probes,
            embedded=request.embedded,
            commands=request.embedded_commands,
            rules=rules,
        )
        found = [
            guard._Want(probe, answer.action, answer.rule.source)
            for probe, answer in zip(probes, answers, strict=True)
            if answer.rule is not None
        ]
        allowed.extend(w for w in found if w.action is PermissionAction.ALLOW)
        return found

    monkeypatch.setattr(guard, "_wants", every_answer)
    asked = render_agents(
        vault, harnesses, out=tmp_path / "asked", dry_run=True, allow_widening=widening
    )
    assert allowed  # the profiles do allow calls the full check asks about
    assert fast.losses == asked.losses
    assert fast.diagnostics == asked.diagnostics
    assert [
        (f.harness, Path(f.path).relative_to(tmp_path / "fast"), f.status) for f in fast.files
    ] == [(f.harness, Path(f.path).relative_to(tmp_path / "asked"), f.status) for f in asked.files]
    assert any(loss.outcome.value in ("refused", "widened") for loss in fast.losses)
