"""Property tests: no input makes the parsers raise or stall, and every diagnostic they
return is well formed (issue 2, item 7)."""

from __future__ import annotations

import time
from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_roster.known_tools import KnownTools
from agent_roster.vault.mcp_parser import parse_mcp_server
from agent_roster.vault.paths import segment_problem
from agent_roster.vault.profile_parser import parse_profile

from .helpers import check_shape

KNOWN = KnownTools(["github"])
SETTINGS = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

#: Fragments of the format, valid and broken, to build documents that reach deep paths.
FRAGMENTS = [
    "---\n",
    "...\n",
    "id: coding\n",
    "id:\n",
    "id: 123\n",
    "name: Coding\n",
    "name: [\n",
    "tags: [a, b]\n",
    "extends: base\n",
    "x: &a [1]\n",
    "y: *a\n",
    "z: !!int q\n",
    "- item\n",
    "nmae: x\n",
    "\ufeff",
    "\r\n",
    "\r",
    "\t",
    "   ",
    "# Title\n",
    "## Role\n",
    "## role ##\n",
    "## Config\n",
    "## CONFIG\n",
    "## Tools\n",
    "## MCP  Servers\n",
    "## Install\n",
    "##\n",
    "    ## Rules\n",
    "### Sub\n",
    "```json\n",
    "```JSON\n",
    "```\n",
    "````\n",
    "~~~json\n",
    "~~~\n",
    "```yaml\n",
    '```json {"a": 1}```\n',
    '{"model": "m", "runtime": "acpx"}\n',
    '{"max_tokens_per_task": true, "temperature": 3}\n',
    '{"permission": {"bash": {"*": 1}}}\n',
    '{"allowed": ["Read", "Raed", "Read"], "denied": ["Read", 1]}\n',
    '["github", "../x", 3]\n',
    '{"github": {"command": "npx"}}\n',
    '{"npm": ["-e .", "eslint"], "pip": ["x>=1"]}\n',
    '{"a": NaN}\n',
    '{"a": 1, "a": 2}\n',
    "[1,\n",
    "{,}\n",
    "[[[[[[\n",
    "}",
    "]",
    '"',
    ":",
    ",",
    "transport: stdio\n",
    "transport: http\n",
    "command: npx\n",
    "args: [1]\n",
    "env: {A: 1}\n",
    "url: http://x\n",
    "Some prose.\n",
    "\n",
    "\x00",
    "é",
    "big: " + "9" * 5000 + "\n",
    '{"max_turns": ' + "9" * 5000 + "}\n",
    "id: \x01\n",
    "name: 'it''s'\n",
    'name: "a\\tb"\n',
    "tags: [a, 'b, c', \"d\"]\n",
    "# comment\n",
    "id: coding # trailing comment\n",
]
grammar = st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join)
documents = st.one_of(st.text(), st.binary(), grammar, grammar.map(str.encode))


def timed(call: Callable[[], object]) -> object:
    start = time.perf_counter()
    result = call()
    elapsed = time.perf_counter() - start
    assert elapsed < 1.0, f"took {elapsed:.2f}s"
    return result


def lines_in(raw: str | bytes) -> int:
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.count("\n") + 1


@SETTINGS
@given(
    raw=documents,
    project=st.sampled_from([None, "web"]),
    known=st.sampled_from([None, KNOWN]),
    expected=st.sampled_from([None, "coding"]),
)
def test_parse_profile_never_raises(
    raw: str | bytes, project: str | None, known: KnownTools | None, expected: str | None
) -> None:
    path = "agent-types/coding/profile.md"
    parsed = timed(
        lambda: parse_profile(
            raw, path=path, expected_id=expected, project=project, known_tools=known
        )
    )
    diagnostics = parsed.diagnostics  # type: ignore[attr-defined]
    check_shape(diagnostics, path)
    assert all(d.line <= lines_in(raw) for d in diagnostics), diagnostics
    profile = parsed.profile  # type: ignore[attr-defined]
    if profile is not None:
        assert segment_problem(profile.id) is None
        assert isinstance(profile.name, str) and profile.name
        profile.to_json_dict()
        assert isinstance(profile.prompt, str)


@SETTINGS
@given(raw=documents, expected=st.sampled_from([None, "github"]))
def test_parse_mcp_server_never_raises(raw: str | bytes, expected: str | None) -> None:
    path = "mcp-servers/github.md"
    parsed = timed(lambda: parse_mcp_server(raw, path=path, expected_name=expected))
    diagnostics = parsed.diagnostics  # type: ignore[attr-defined]
    check_shape(diagnostics, path)
    assert all(d.line <= lines_in(raw) for d in diagnostics), diagnostics
    if parsed.server is not None:  # type: ignore[attr-defined]
        parsed.server.to_json_dict()  # type: ignore[attr-defined]
