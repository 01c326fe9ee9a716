"""Exact prompts (issue 12 item 1): a native body comes back byte for byte.

For every harness with a prompt, on generated markdown bodies (their own ``##`` headings,
``---`` lines, closed and unclosed fences, HTML, CRLF and lone CR, trailing spaces, blank
lines at either end, any unicode): native files → ``roster import`` → vault →
``roster render`` to the same harness gives the same prompt, and the runtime prompt
``roster resolve`` builds holds it unchanged. Markdown harnesses give back the whole file;
after an edit of another field the file is generated afresh and the prompt still survives.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from agent_roster.cli import main

from ..trees import build_tree
from .claude_corpus import AGENTS as CLAUDE_AGENTS
from .claude_corpus import NARROWED
from .exact import DESCRIPTION, native_files, round_trip

HARNESSES = (
    "claude",
    "cursor",
    "copilot",
    "gemini",
    "opencode",
    "kilo",
    "qwen",
    "qoder",
    "droid",
    "agh",
    "defect",
    "codex",
)
#: Harnesses whose agent file is markdown with frontmatter: the whole file comes back.
MARKDOWN = (
    "claude",
    "cursor",
    "copilot",
    "gemini",
    "opencode",
    "kilo",
    "qwen",
    "qoder",
    "droid",
    "agh",
)

_SPECIAL_LINES = [
    "## Focus Areas",
    "## Config",
    "## Tools",
    "## Role",
    "##",
    "## Roster constraints",
    "# Title",
    "### Detail",
    "---",
    "...",
    "+++",
    "```",
    "```python",
    "````",
    "~~~",
    "~~~ yaml",
    "    ```",
    "<div>",
    "</div>",
    "<!-- a comment -->",
    "<!-- roster:embedded -->",
    "- item",
    "1. step",
    "> quote",
    "| a | b |",
    "name: value",
    "",
    "   ",
    "\t",
    "trailing spaces   ",
    "ünïcødé — “quotes” 🙂",
]
_FREE_TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\r\n"), max_size=24)
_LINE = st.one_of(st.sampled_from(_SPECIAL_LINES), _FREE_TEXT)


@st.composite
def bodies(draw: st.DrawFn) -> str:
    """A markdown body: lines joined by LF, CRLF or a lone CR, with or without a last
    line end."""
    lines = draw(st.lists(_LINE, min_size=1, max_size=10))
    ends = draw(
        st.lists(
            st.sampled_from(["\n", "\n", "\n", "\r\n", "\r"]),
            min_size=len(lines),
            max_size=len(lines),
        )
    )
    text = "".join(line + end for line, end in zip(lines, ends, strict=True))
    if draw(st.booleans()):
        text = text[: -len(ends[-1])]
    return text


def _usable(harness: str, body: str) -> bool:
    # AGH, Codex and Droid refuse an agent whose (trimmed) prompt is empty, Qwen Code one whose
    # prompt is shorter than 10 characters.
    if harness == "qwen":
        return len(body.strip()) >= 10
    return bool(body.strip()) or harness not in ("agh", "codex", "droid")


_FRONTMATTER = re.compile(r"---\r?\n.*?\r?\n---\r?\n", re.S)


def _prompt_of(harness: str, rel: str, text: str) -> str:
    """The prompt a native file holds, as its harness's file format lays it out."""
    if harness == "codex":
        value = tomllib.loads(text)["developer_instructions"]
        assert isinstance(value, str)
        return value.removesuffix("\n")
    if harness == "defect":
        return text.removesuffix("\n")
    # Frontmatter, one blank line, the prompt, one final line end (what render writes).
    found = _FRONTMATTER.match(text)
    assert found is not None, text
    body = text[found.end() :]
    body = body[2:] if body.startswith("\r\n") else body.removeprefix("\n")
    return body[:-2] if body.endswith("\r\n") else body.removesuffix("\n")


@pytest.mark.parametrize("harness", HARNESSES)
@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=bodies())
def test_a_native_body_comes_back_byte_for_byte(
    harness: str, body: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    assume(_usable(harness, body))
    files, rel = native_files(harness, body)
    trip = round_trip(harness, files, root=tmp_path_factory.mktemp(harness))
    assert trip.imported.ok, [d.format() for d in trip.imported.diagnostics]
    assert trip.rendered.ok, [d.format() for d in trip.rendered.diagnostics]
    if harness in MARKDOWN or harness == "defect":
        assert trip.files[rel] == files[rel]
    else:
        instructions = tomllib.loads(files[rel])["developer_instructions"]
        assert tomllib.loads(trip.files[rel])["developer_instructions"] == instructions
    # The runtime prompt holds it unchanged: the Role section is its prefix, no heading.
    # (The file's last line end is layout; a body ending in CR has CRLF as its last.)
    prompt = body.removesuffix("\r")
    if trip.runtime_prompt is None:  # no argv carries a NUL: the launch is refused
        assert "\x00" in body
    else:
        assert trip.runtime_prompt.endswith(f"\n\n{prompt}") if prompt else not trip.runtime_prompt


@pytest.mark.parametrize("harness", MARKDOWN)
@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=bodies())
def test_a_body_survives_when_other_fields_change(
    harness: str, body: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """With the description edited in the vault the file is written afresh (the old
    frontmatter no longer says what the profile says), and the prompt is still exact."""
    assume(_usable(harness, body))
    files, rel = native_files(harness, body)
    edit = (f"description: {DESCRIPTION}", "description: Probes other things.")
    if harness == "agh":  # AGH has no description: change the model instead
        # (before "native", whatever comes first: an import writes AGH's default rules)
        edit = ('\n  "native"', '\n  "model": "gpt-5",\n  "native"')
    trip = round_trip(harness, files, edit=edit, root=tmp_path_factory.mktemp(harness))
    assert trip.rendered.ok, [d.format() for d in trip.rendered.diagnostics]
    text = trip.files[rel]
    assert text != files[rel]
    assert _prompt_of(harness, rel, text) == _prompt_of(harness, rel, files[rel])


# --- the findings of issue 12, one native agent each --------------------------------------

FOCUS = "You are a reviewer.\n\n## Focus Areas\n- correctness\n- tests\n"


@pytest.mark.parametrize("harness", HARNESSES)
def test_no_role_heading_is_added(harness: str, tmp_path: Path) -> None:
    """Finding: a native body came back under a new '## Role' heading, in every harness."""
    files, rel = native_files(harness, "You review code.\n\nBe brief.")
    trip = round_trip(harness, files, root=tmp_path)
    assert "## Role" not in trip.files[rel]
    assert _prompt_of(harness, rel, trip.files[rel]) == "You review code.\n\nBe brief."


@pytest.mark.parametrize("harness", HARNESSES)
def test_blank_lines_after_headings_are_kept(harness: str, tmp_path: Path) -> None:
    """Finding: '## Focus Areas\\n- a' came back with a blank line inserted after the
    heading (and two blank lines collapsed into one)."""
    body = "Intro.\n## Focus Areas\n- a\n\n\n## Style\n\n\n- b"
    files, rel = native_files(harness, body)
    trip = round_trip(harness, files, root=tmp_path)
    assert _prompt_of(harness, rel, trip.files[rel]) == body


@pytest.mark.parametrize("harness", HARNESSES)
def test_an_unclosed_fence_imports(harness: str, tmp_path: Path) -> None:
    """Finding: a prompt with an unclosed code fence could not be imported at all
    (``fence-unclosed`` in the vault file import writes), although OpenCode loads it."""
    body = "Run this:\n```bash\nmake test\n## not a heading"
    files, rel = native_files(harness, body)
    trip = round_trip(harness, files, root=tmp_path)
    assert trip.imported.ok, [d.format() for d in trip.imported.diagnostics]
    assert _prompt_of(harness, rel, trip.files[rel]) == body


def test_the_vault_holds_such_a_body_in_one_verbatim_block(tmp_path: Path) -> None:
    files, _ = native_files("claude", FOCUS.rstrip("\n"))
    trip = round_trip("claude", files, root=tmp_path)
    assert "## Role\n```markdown roster-verbatim\nYou are a reviewer.\n" in trip.profile_md
    # A body plain prose keeps is written plain, for people reading the vault.
    plain = round_trip("claude", native_files("claude", "You review.")[0], root=tmp_path / "p")
    assert "## Role\nYou review.\n" in plain.profile_md


# --- a corpus of realistic Claude Code agents ---------------------------------------------


@pytest.mark.parametrize("name", sorted(CLAUDE_AGENTS))
def test_realistic_claude_agents_come_back_byte_identical(name: str, tmp_path: Path) -> None:
    """Finding: of 525 real Claude agents, 20% came back byte-identical. Every agent of the
    corpus (tests/codecs/claude_corpus.py) is imported and rendered back unchanged."""
    rel = f".claude/agents/{name}.md"
    trip = round_trip("claude", {rel: CLAUDE_AGENTS[name]}, root=tmp_path)
    assert trip.imported.ok, [d.format() for d in trip.imported.diagnostics]
    assert trip.rendered.ok, [d.format() for d in trip.rendered.diagnostics]
    assert trip.files[rel] == CLAUDE_AGENTS[name]


@pytest.mark.parametrize("name", sorted(NARROWED))
def test_narrowed_tools_come_back_byte_for_byte(name: str, tmp_path: Path) -> None:
    """An agent whose tools narrow a tool to arguments (``Bash(git log:*)``) gets the whole
    tool from Claude Code, which import writes down (the tool's mode decision as a rule,
    issue 12 item 2), so the render back neither widens nor adds anything to the prompt:
    the file comes back as it was (no ``## Roster constraints`` section any more)."""
    rel = f".claude/agents/{name}.md"
    trip = round_trip("claude", {rel: NARROWED[name]}, root=tmp_path)
    assert trip.rendered.ok, [d.format() for d in trip.rendered.diagnostics]
    assert trip.files[rel] == NARROWED[name]
    assert "roster:embedded" not in trip.files[rel]


def test_roster_resolve_gives_the_body_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Through the CLI and the real store: import, then ``roster resolve`` (which syncs the
    vault into SQLite and builds the launch) carries the body exactly."""
    body = "You review.\r\n\r\n## Focus  \r\n```sh\r\nmake test\r\n"  # CRLF, open fence
    files, _ = native_files("claude", body)
    workspace, vault = tmp_path / "ws", tmp_path / "vault"
    (vault / "agent-types").mkdir(parents=True)
    build_tree(workspace, {path: text.encode() for path, text in files.items()})
    home = tmp_path / "home"
    home.mkdir()
    where = ["--vault", str(vault), "--db", f"sqlite:///{tmp_path / 'roster.db'}"]
    imported = ["import", "--from", "claude", "--workspace", str(workspace), "--home", str(home)]
    assert main([*where, *imported]) == 0
    capsys.readouterr()
    assert main([*where, "resolve", "--profile", "probe", "--json"]) == 0
    launch = json.loads(capsys.readouterr().out)["launch"]
    assert launch["system_prompt"] == f"## Agent Role Instructions\n\n{body}"
