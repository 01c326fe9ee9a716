"""## sections: heading rules, fence awareness, duplicates, and prose kept verbatim."""

from __future__ import annotations

import pytest

from agent_roster.vault import markdown

from .helpers import FENCE, codes, doc, one, parse


def headings(text: str) -> list[str]:
    parsed = parse(text)
    assert parsed.profile is not None
    return [s.heading for s in parsed.profile.sections]


@pytest.mark.parametrize("heading", ["config", "CONFIG", "Config", "cOnFiG", "Config ##"])
def test_structured_headings_match_in_any_case(heading: str) -> None:
    parsed = parse(doc(f"## {heading}", FENCE + "json", '{"model": "m"}', FENCE))
    assert parsed.ok and parsed.profile is not None
    assert parsed.profile.model == "m"
    assert parsed.profile.sections == ()  # structured, so not prose


def test_inner_whitespace_in_a_heading_is_collapsed() -> None:
    parsed = parse(
        doc("## MCP  Servers", FENCE + "json", '["github"]', FENCE, "##   mcp\tservers  ")
    )
    assert parsed.profile is not None and parsed.profile.mcp_servers == ("github",)
    assert codes(parsed) == ["section-duplicate"]  # the second spelling is the same section


def test_closing_hashes_and_subheadings() -> None:
    parsed = parse(doc("## Role ##", "Intro", "### Details", "More", "#### Deeper", "## Rules #"))
    assert parsed.profile is not None
    assert parsed.profile.role == "Intro\n### Details\nMore\n#### Deeper"
    assert [s.heading for s in parsed.profile.sections] == ["Role", "Rules"]


def test_indentation_up_to_three_spaces() -> None:
    text = doc(
        "   ## Role",
        "Hi",
        "    ## Rules",
        "indented code, not a heading",
        "##Rules",
        "no space, not a heading",
        " ## Reflection",
        "Think",
    )
    parsed = parse(text)
    assert parsed.profile is not None
    assert headings(text) == ["Role", "Reflection"]
    assert parsed.profile.role == (
        "Hi\n    ## Rules\nindented code, not a heading\n##Rules\nno space, not a heading"
    )
    sections = parsed.document.structure.sections  # type: ignore[union-attr]
    assert [(s.line, s.column) for s in sections] == [(5, 7), (11, 5)]


def test_a_level_one_heading_and_preamble_are_not_sections() -> None:
    parsed = parse(doc("# Coding Agent", "", "Preamble text.", "## Role", "Hi"))
    assert parsed.profile is not None
    assert [s.heading for s in parsed.profile.sections] == ["Role"]
    assert "Preamble" not in parsed.profile.prompt


@pytest.mark.parametrize("fence", ["```", "~~~", "````", "~~~~~"])
def test_headings_inside_fences_are_text(fence: str) -> None:
    text = doc(
        "## Role",
        fence + "markdown",
        "## Tools",
        "## Config",
        fence,
        "After.",
        "## Rules",
        "Be kind.",
    )
    parsed = parse(text)
    assert parsed.ok and parsed.profile is not None
    assert parsed.profile.role == f"{fence}markdown\n## Tools\n## Config\n{fence}\nAfter."
    assert parsed.profile.rules == "Be kind."
    assert parsed.profile.allowed_tools == ()


def test_fence_closing_rules() -> None:
    text = doc(
        "## Role",
        "````",
        "```",  # shorter: does not close
        "## Tools",
        "~~~~",  # other character: does not close
        "```` not-a-closer",  # a closing fence has no info string
        "`````",  # longer: closes
        "## Rules",
        "r",
    )
    parsed = parse(text)
    assert parsed.ok and parsed.profile is not None
    assert [s.heading for s in parsed.profile.sections] == ["Role", "Rules"]


def test_four_space_indented_backticks_do_not_open_a_fence() -> None:
    parsed = parse(doc("## Role", "    ```", "## Rules", "r"))
    assert parsed.ok and parsed.profile is not None
    assert [s.heading for s in parsed.profile.sections] == ["Role", "Rules"]


def test_inline_triple_backticks_do_not_open_a_fence() -> None:
    parsed = parse(
        doc("## Role", "Use ```code``` inline.", "```js const x = `a` ```", "## Rules", "r")
    )
    assert parsed.ok and parsed.profile is not None
    assert parsed.profile.rules == "r"


def test_unclosed_fence() -> None:
    parsed = parse(doc("## Role", "Intro", "  ~~~~python", "code", "## Rules", "swallowed"))
    d = one(parsed, "fence-unclosed")
    assert (d.line, d.column, d.severity.value) == (7, 3, "error")
    assert d.message == (
        "this code fence is never closed, so everything after it is treated as code"
    )
    assert d.hint == "add a closing ~~~~ line where the block ends"
    assert parsed.profile is not None
    assert [s.heading for s in parsed.profile.sections] == ["Role"]
    backticks = parse(doc("## Role", FENCE))
    assert one(backticks, "fence-unclosed").hint == "add a closing ``` line where the block ends"


def test_duplicate_sections_name_both_lines() -> None:
    parsed = parse(doc("## Role", "First", "", "## Rules", "r", "## ROLE", "Second"))
    d = one(parsed, "section-duplicate")
    assert (d.line, d.column) == (10, 4)
    assert d.message == "section '## ROLE' appears again (first on line 5)"
    assert d.hint == "merge the two sections into one; only the first is used"
    assert parsed.profile is not None and parsed.profile.role == "First"


def test_duplicate_structured_sections() -> None:
    text = doc(
        "## Config",
        FENCE + "json",
        '{"model": "a"}',
        FENCE,
        "## config",
        FENCE + "json",
        '{"model": "b"}',
        FENCE,
    )
    parsed = parse(text)
    assert [(d.line, d.code) for d in parsed.diagnostics] == [(9, "section-duplicate")]
    assert parsed.profile is not None and parsed.profile.model == "a"


PROSE = """## Role
You are a **software engineer**. See [docs](https://example.com).

1. Read the task
2. Write code
   - nested item

```python
def f():
    return "## not a heading"
```

> A quote

| Tool | Use |
|------|-----|
| Read | read files |

---

## Notes
Free-form `inline code`.
## Rules
- Always run tests
"""


def test_prose_is_kept_verbatim_and_in_order() -> None:
    parsed = parse(
        doc(
            PROSE,
            "## Config",
            FENCE + "json",
            "{}",
            FENCE,
            "## Reflection",
            "Ask: what did I learn?",
            "",
            "",
        )
    )
    assert parsed.ok and parsed.profile is not None
    p = parsed.profile
    assert [s.heading for s in p.sections] == ["Role", "Notes", "Rules", "Reflection"]
    role = PROSE.split("## Notes")[0][len("## Role\n") :].rstrip()
    assert p.role == role
    assert '```python\ndef f():\n    return "## not a heading"\n```' in p.role
    assert "| Read | read files |" in p.role
    assert p.section("notes") == "Free-form `inline code`."
    assert p.rules == "- Always run tests"
    assert p.reflection == "Ask: what did I learn?"
    assert p.prompt == (
        f"{role}\n\n## Notes\n\nFree-form `inline code`.\n\n"
        "## Rules\n\n- Always run tests\n\n## Reflection\n\nAsk: what did I learn?"
    )
    assert "Config" not in p.prompt


def test_blank_lines_around_prose_are_trimmed_but_indentation_kept() -> None:
    parsed = parse(doc("## Role", "", "", "    indented code", "text", "", ""))
    assert parsed.profile is not None
    assert parsed.profile.role == "    indented code\ntext"


def test_an_empty_prose_section_is_kept() -> None:
    parsed = parse(doc("## Role", "## Rules", "r"))
    assert parsed.ok and parsed.profile is not None
    assert [(s.heading, s.body) for s in parsed.profile.sections] == [("Role", ""), ("Rules", "r")]
    assert parsed.profile.prompt == "## Rules\n\nr"


def test_scan_positions() -> None:
    text = "intro\n## Config\nprose\n```json\n{}\n```\n## Role ##\nHi\n"
    structure = markdown.scan(text)
    assert structure.preamble_end == len("intro\n")
    config, role = structure.sections
    assert (config.heading, config.line, config.column, config.body_line) == ("Config", 2, 4, 3)
    assert text[config.body_start : config.body_end] == "prose\n```json\n{}\n```\n"
    (fence,) = config.fences
    assert (fence.line, fence.column, fence.lang, fence.content_line, fence.end_line) == (
        4,
        1,
        "json",
        5,
        6,
    )
    assert text[fence.content_start : fence.content_end] == "{}\n"
    assert fence.closed and structure.unclosed is None
    assert (role.heading, role.line, role.fences) == ("Role", 7, ())


def test_scan_with_an_offset_counts_file_lines() -> None:
    text = "---\nid: x\n---\n## Role\nHi\n"
    structure = markdown.scan(text, len("---\nid: x\n---\n"), 4)
    assert [(s.heading, s.line) for s in structure.sections] == [("Role", 4)]
