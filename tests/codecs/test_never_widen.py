"""Never widen (issue 12 item 2), the acceptance property.

For generated native agents of every harness that restricts tools, and a fixed set of
probe calls (a destructive shell command, an edit, a new file, a read, a fetch, a tool of
an MCP server), each harness's own decision (``Codec.decide``, its documented rules) is the
reference. Two decisions must never be more permissive than it:

* the one ``roster can`` gives for the imported profile (and it must agree exactly: an
  import writes every default of the source harness explicitly);
* for every target harness, the target's own decision for the file ``roster render``
  writes (or the render refuses the agent).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from agent_roster.codecs import codec_names, get_codec
from agent_roster.codecs.base import NativeAgent, Probe, RenderRequest, Scope
from agent_roster.codecs.guard import render_guarded
from agent_roster.codecs.opencode.semantics import key_of
from agent_roster.codecs.semantics import FIXED_PROBES, wider
from agent_roster.codecs.tool_names import HARNESSES, split_ref, to_native
from agent_roster.commands.can import can
from agent_roster.commands.discover import Imported, import_agents
from agent_roster.commands.harness import load_effective

from ..trees import build_tree
from .helpers import EXAMPLES
from .never_widen import SOURCES, NativeCase


def reader(root: Path):  # type: ignore[no-untyped-def]
    def read(path: str) -> str | None:
        target = root / path
        return target.read_text(encoding="utf-8") if target.is_file() else None

    return read


def import_case(case: NativeCase, source: str, root: Path) -> tuple[Path, dict[str, str]]:
    """Write ``case`` into a workspace, import it into a fresh vault (the example vault's
    roster.toml, whose defaults must not widen anything), and return the vault and the
    source harness's decision for each probe."""
    ws, home, vault = root / "ws", root / "home", root / "vault"
    build_tree(ws, case.files)
    home.mkdir()
    if source == "codex":  # Codex reads a project's .codex/ only when it is trusted
        build_tree(
            home, {".codex/config.toml": f'[projects."{ws.resolve()}"]\ntrust_level = "trusted"\n'}
        )
    vault.mkdir()
    shutil.copy(EXAMPLES / "roster.toml", vault / "roster.toml")
    agent = NativeAgent(case.name, case.paths, reader(ws), Scope.PROJECT)
    codec = get_codec(source)
    want = {probe.describe(): codec.decide(agent, probe).value for probe in FIXED_PROBES}
    report = import_agents(vault, source, workspace=ws, home=home)
    errors = [d for d in report.diagnostics if d.is_error]
    if errors and all(d.code == "import-inexact" for d in errors):
        # Rules no single Config permission object can hold without changing a decision
        # (see the test below): refused with that error and nothing written, so nothing
        # can widen; the property is about the agents an import does write.
        assert_refused_unwritten(report.files, vault, case.name)
        reject()
    assert not [d.format() for d in errors]
    return vault, want


def assert_refused_unwritten(files: Sequence[Imported], vault: Path, name: str) -> None:
    [skipped] = [f for f in files if f.kind == "profile" and f.name == name]
    assert skipped.status == "skipped"
    assert not (vault / skipped.path).exists()
    assert not list(vault.glob(f"**/{name}/profile.md"))


def native_name(source: str, probe: Probe) -> str | None:
    """The source harness's own name for the probed tool (``None``: it has none)."""
    if source in ("opencode", "kilo"):
        return key_of(probe)
    if probe.tool.startswith("mcp__"):
        return None  # every harness but OpenCode's family spells MCP tools canonically
    if source not in HARNESSES:
        return probe.tool  # Claude Code's names are the canonical ones
    found = to_native(source, probe.tool)
    return found.name if found is not None else None


#: Every source harness (issue 12 item 2: the property holds for all of them).
DONE = tuple(SOURCES)


@pytest.mark.parametrize("source", DONE)
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_import_and_render_never_widen(
    source: str,
    data,
    tmp_path_factory: pytest.TempPathFactory,  # type: ignore[no-untyped-def]
) -> None:
    case = data.draw(SOURCES[source])
    root = tmp_path_factory.mktemp(source)
    vault, want = import_case(case, source, root)
    # (a) roster can on the imported profile: the source harness's decision, exactly.
    got = {
        probe.describe(): can(vault, case.name, probe.tool, probe.argument).decision.action.value
        for probe in FIXED_PROBES
    }
    assert got == want, (case.files, got, want)
    # (a') the same in the source's own vocabulary (issue 12 item 3): its name for the tool
    # (an OpenCode permission key for OpenCode and Kilo), wherever `can` reads that name
    # as the probed tool or as the key that governs it.
    for probe in FIXED_PROBES:
        name = native_name(source, probe)
        if name is None:
            continue
        answer = can(vault, case.name, name, probe.argument)
        own = ("",) if source in ("opencode", "kilo") else (split_ref(probe.tool).tool,)
        if answer.canonical not in own:
            # Read first in another vocabulary: Qwen's `edit` is OpenCode's key `edit`
            # (Edit and Write together), as `roster can` documents.
            continue
        assert answer.decision.action.value == want[probe.describe()], (
            source,
            name,
            answer.vocabulary,
            case.files,
        )
    # (b) every target's own decision for what render writes is never wider.
    effective = load_effective(vault, [case.name])
    request = effective.request()
    for target in codec_names():
        codec = get_codec(target)
        rendering = render_guarded(codec, request, lambda path: None)
        own = tuple(f.path for f in rendering.files if f.profile == case.name and not f.merged)
        if not own:
            assert any(d.is_error for d in rendering.diagnostics), target
            continue
        produced = {f.path: f.content for f in rendering.files}
        agent = NativeAgent(case.name, own, produced.get, Scope.PROJECT)
        for probe in FIXED_PROBES:
            decided = codec.decide(agent, probe)
            limit = want[probe.describe()]
            assert not wider(decided, type(decided)(limit)), (
                f"{source} → {target}: {probe.describe()} {limit} became {decided.value}",
                case.files,
                produced,
            )


def test_a_key_whose_tools_the_profile_decides_apart_is_narrowed_for_opencode() -> None:
    """OpenCode decides Edit, Write and MultiEdit under one key, `edit`: a profile that
    allows MultiEdit only cannot be written as it is (OpenCode would then allow Edit). The
    render decides the key by its strictest tool instead, reports it, and never widens."""
    from agent_roster.codecs import get_codec
    from agent_roster.codecs.base import LossOutcome, Scope
    from agent_roster.codecs.guard import render_guarded
    from agent_roster.model.profile import AgentProfile, PromptSection

    profile = AgentProfile(
        id="multi",
        name="multi",
        allowed_tools=("Read", "MultiEdit"),
        sections=(PromptSection(heading="Role", body="Edit in bulk."),),
    )
    request = RenderRequest(profiles=(profile,), servers={}, scope=Scope.PROJECT)
    rendering = render_guarded(get_codec("opencode"), request, lambda rel: None)
    assert not [d for d in rendering.diagnostics if d.is_error]
    [narrowed] = [
        x for x in rendering.losses if x.outcome is LossOutcome.TRANSLATED and "apart" in x.detail
    ]
    assert narrowed.detail.startswith(
        "Write, Edit, MultiEdit, NotebookEdit: OpenCode cannot decide them apart"
    )
    assert "every call is deny" in narrowed.detail
    [agent] = [f.content for f in rendering.files if f.profile == "multi"]
    assert "edit: deny" in agent


def test_an_opencode_agent_whose_layers_split_a_key_is_refused_not_widened(
    tmp_path: Path,
) -> None:
    """Found by the property above. The project's opencode.json asks for every `bash` call
    and the agent's own map ends with `bash: {rm *: ask}`, with `*: {rm *: allow, git *:
    allow}` between them: the Config permission object holds `bash` once, and neither place
    keeps every decision (first: `rm -rf /` would be allowed; last: `git status` would be
    asked). The import refuses the agent with import-inexact and writes nothing."""
    agent = {
        "description": "Generated agent",
        "mode": "subagent",
        "permission": {
            "edit": {"*": "allow"},
            "*": {"rm *": "allow", "git *": "allow"},
            "webfetch": "allow",
            "bash": {"rm *": "ask"},
        },
    }
    path = ".opencode/agents/split-key.md"
    files = {
        path: "---\n" + json.dumps(agent) + "\n---\n\nYou help with the code.\n",
        "opencode.json": json.dumps({"permission": {"edit": {"*": "allow"}, "bash": "ask"}}),
    }
    ws, home, vault = tmp_path / "ws", tmp_path / "home", tmp_path / "vault"
    build_tree(ws, files)
    home.mkdir()
    vault.mkdir()
    shutil.copy(EXAMPLES / "roster.toml", vault / "roster.toml")
    codec = get_codec("opencode")
    native = NativeAgent("split-key", (path,), reader(ws), Scope.PROJECT)
    assert codec.decide(native, Probe("Bash", "rm -rf /")).value == "ask"
    assert codec.decide(native, Probe("Bash", "git status")).value == "allow"
    report = import_agents(vault, "opencode", workspace=ws, home=home)
    assert [d.code for d in report.diagnostics if d.is_error] == ["import-inexact"]
    assert_refused_unwritten(report.files, vault, "split-key")
