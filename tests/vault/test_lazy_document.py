"""A profile read by the fast path keeps only its text; the frontmatter with positions and
the section structure it hands out later are exactly what the careful path builds."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_roster.vault import markdown
from agent_roster.vault.document import normalise
from agent_roster.vault.frontmatter import frontmatter_data, read_frontmatter
from agent_roster.vault.profile_parser import SPLICED_MIN, ProfileDocument, parse_profile

from .helpers import FENCE, FM, doc
from .test_fast_paths import DOCUMENTS
from .test_fastyaml import LINES

VALID = doc(
    "# Coding",
    "## Role",
    "You write code.",
    "## Config",
    FENCE + "json",
    '{"model": "m", "max_turns": 3}',
    FENCE,
    "## MCP Servers",
    FENCE + "json",
    '["github"]',
    FENCE,
)


def _eager(path: str, text: str) -> ProfileDocument:
    fm = read_frontmatter(text, path, [])
    return ProfileDocument(path, text, fm, markdown.scan(text, fm.body_offset, fm.body_line))


def test_a_valid_profile_keeps_its_text_and_reads_the_rest_on_demand() -> None:
    parsed = parse_profile(VALID, path="p.md", expected_id="coding")
    assert parsed.ok and parsed.diagnostics == ()
    document = parsed.document
    assert document is not None
    assert document._frontmatter is None and document._structure is None  # not built yet
    eager = _eager("p.md", VALID)
    assert document.structure == eager.structure  # the structure first: it needs both
    assert document.frontmatter == eager.frontmatter
    assert document.frontmatter.key_marks == {"id": (2, 1), "name": (3, 1)}
    (config,) = [s for s in document.structure.sections if s.key == "config"]
    assert (config.line, config.fences[0].content_line) == (8, 10)
    assert document.structure is document.structure  # read once, then kept
    assert document == eager and repr(document) == repr(eager)
    assert pickle.loads(pickle.dumps(document)) == eager


def test_documents_compare_by_value_and_are_not_hashable() -> None:
    one = parse_profile(VALID, path="p.md").document
    assert one == parse_profile(VALID, path="p.md").document
    assert one != parse_profile(VALID, path="q.md").document
    assert one != parse_profile(VALID + "\n", path="p.md").document
    assert one != (one.path if one else None)
    with pytest.raises(TypeError):
        hash(one)


@settings(max_examples=600, deadline=None)
@given(DOCUMENTS, st.sampled_from([None, "coding"]), st.sampled_from([None, "web"]))
def test_every_document_equals_the_one_read_eagerly(
    text: str, expected: str | None, project: str | None
) -> None:
    parsed = parse_profile(text, path="p.md", expected_id=expected, project=project)
    document = parsed.document
    normalised = normalise(text, "p.md", [])
    if normalised is None:
        assert document is None
        return
    assert document is not None
    eager = _eager("p.md", normalised)
    assert (document.path, document.text) == ("p.md", normalised)
    assert document.frontmatter == eager.frontmatter
    assert document.structure == eager.structure


def test_a_long_prose_body_is_kept_once_and_the_text_comes_back_whole() -> None:
    body = "Line of a long prompt.  \n" * (SPLICED_MIN // 20)
    text = doc("## Role", body, "## Rules", "Be brief.", "## Config", FENCE + "json", "{}", FENCE)
    parsed = parse_profile(text, path="p.md", expected_id="coding")
    assert parsed.ok and parsed.profile is not None and parsed.document is not None
    document = parsed.document
    role = parsed.profile.sections[0].body
    assert len(role) >= SPLICED_MIN and document._text is None
    assert document._around is not None and document._around[1] is role  # one copy, shared
    assert document.frontmatter == _eager("p.md", text).frontmatter  # read from the pieces
    assert document.text == text and document.text is document.text  # joined once, then kept
    assert document == _eager("p.md", text)
    short = parse_profile(doc("## Role", "Short."), path="p.md").document
    assert short is not None and short._around is None  # nothing to share


#: Bodies of at least SPLICED_MIN characters that start and end with visible text (the
#: fast path takes such a body as a plain slice of the file).
LONG_BODIES = (
    st.lists(
        st.sampled_from(["plain words", "", "  trailing  ", "## Inner", "---", "<b>x</b>", "é ☃"]),
        min_size=1,
        max_size=8,
    )
    .filter(lambda lines: "".join(lines).strip())
    .map(lambda lines: ("\n".join(lines) + "\n") * (SPLICED_MIN // len("\n".join(lines)) + 1))
)


AROUND = st.sampled_from(
    [
        "",
        "# Title\n\n",
        "## Rules\nBe brief.\n\n",
        '## Config\n```json\n{"model": "m"}\n```\n',
        '## Tools\n```json\n{"allowed": ["Read"]}\n```\n\n## Notes\nx\r\n',
    ]
)


@settings(max_examples=300, deadline=None)
@given(AROUND, st.sampled_from(["## Role\n", "## Notes\n", "## Role\r\n"]), LONG_BODIES, AROUND)
def test_a_document_with_a_long_body_equals_the_one_read_eagerly(
    before: str, heading: str, body: str, after: str
) -> None:
    text = FM + before + heading + "Start " + body + " end\n\n" + after
    parsed = parse_profile(text, path="p.md", expected_id="coding")
    document = parsed.document
    normalised = normalise(text, "p.md", [])
    assert document is not None and normalised is not None
    eager = _eager("p.md", normalised)
    assert parsed.diagnostics or document._around is not None  # the fast path shares it
    assert document.frontmatter == eager.frontmatter
    assert document.structure == eager.structure
    assert document.text == normalised
    assert pickle.loads(pickle.dumps(document)) == eager


FRONTMATTER = st.tuples(
    st.sampled_from(["---\n", "---  \n", "\n---\n", "", "--- x\n"]),
    st.lists(LINES, max_size=6),
    st.sampled_from(["---\n", "...\n", "---", "", "--\n"]),
    st.sampled_from(["", "## Role\nHi\n", "\n", "body"]),
).map(lambda t: t[0] + "".join(line + "\n" for line in t[1]) + t[2] + t[3])


@settings(max_examples=2000, deadline=None)
@given(FRONTMATTER)
def test_frontmatter_data_is_read_frontmatter_without_positions(text: str) -> None:
    quick = frontmatter_data(text)
    if quick is None:
        return  # the caller reads it with read_frontmatter
    out: list[object] = []
    fm = read_frontmatter(text, "p.md", out)  # type: ignore[arg-type]
    assert out == []
    assert quick == (fm.data, fm.body_offset), text


def test_frontmatter_data_answers_for_plain_frontmatter_and_no_frontmatter() -> None:
    assert frontmatter_data(VALID) == ({"id": "coding", "name": "Coding Agent"}, len(FM))
    assert frontmatter_data("## Role\nHi\n") == ({}, 0)
    assert frontmatter_data("\n---\nid: x\n---\n") is None  # reported: not on the first line
    assert frontmatter_data("---\nid: x\n") is None  # reported: never closed
