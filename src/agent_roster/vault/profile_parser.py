"""The profile.md parser (seed 000's hybrid format).

``parse_profile`` reads one document in one pass and returns the typed profile together with
every diagnostic found and the document's structure (positions of the frontmatter, each
section and each JSON block) for precise errors and, later, in-place edits.

A valid document, nearly every one in a vault, is validated by ``profile_fast``: the same
rules in their passing form, with no positions and no reporter (its ``ProfileDocument``
reads the positions from the kept text if they are ever asked for). Anything it would have
to report sends the document through the careful path here, which reports every problem
with its position (issue 2's speed target: 15,000 profiles per second on one core).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from agent_roster.diagnostics import Diagnostic, Severity, did_you_mean
from agent_roster.known_tools import KnownTools
from agent_roster.model.profile import AgentProfile, PromptSection
from agent_roster.vault import markdown, profile_blocks, verbatim
from agent_roster.vault.document import Reporter, describe, normalise
from agent_roster.vault.frontmatter import Frontmatter, Mark, frontmatter_data, read_frontmatter
from agent_roster.vault.json_section import read_json_block
from agent_roster.vault.jsonblock import JsonBlock, items_index
from agent_roster.vault.markdown import Section, Structure
from agent_roster.vault.paths import segment_problem
from agent_roster.vault.profile_fast import UnknownTools, fast_fields
from agent_roster.vault.profile_lists import unknown_tool, unknown_tool_text

STRUCTURED = ("config", "tools", "mcp servers", "install")
# Builds a NamedTuple without its Python-level ``__new__``: the same object, several times
# faster, on a path that runs once per profile.
_new = tuple.__new__
_STRUCTURED = frozenset(STRUCTURED)
_INSTALL_FIELDS = {key: f"install.{key}" for key in profile_blocks.INSTALL_KEYS}
# Most profiles of a vault set the same few combinations of fields. Sharing one frozenset
# per combination (immutable, so nothing can tell) keeps a kilobyte per profile out of a
# loaded snapshot, which is cheaper to build and to free. Bounded.
_FIELD_SETS: dict[frozenset[str], frozenset[str]] = {}


def _shared(names: frozenset[str]) -> frozenset[str]:
    if len(_FIELD_SETS) < 4096:
        _FIELD_SETS[names] = names
    return names


#: A prose body at least this long is kept once, by the profile (see ProfileDocument).
SPLICED_MIN = 4096

FRONTMATTER_KEYS = ("id", "name", "description", "tags", "extends")


class ProfileDocument:
    """The parsed shape of a profile.md: normalised text, frontmatter, sections.

    A profile that took the fast path keeps only its path and text: its frontmatter (with
    positions) and structure are read again from the text when first asked for. Both are
    functions of the text alone, so they come out equal to what the careful path builds
    (tests/vault/test_lazy_document.py compares the two). Nearly nothing asks for them
    after a clean load, and not building, keeping and freeing them (with the position-free
    readers the fast path uses instead) makes loading a vault about a tenth faster.

    A long prose body the profile already holds is not kept twice: such a document keeps
    the text before and after it (:meth:`around`) and joins the three again when its text
    is asked for. A vault of long prompts otherwise holds every prompt twice after a load,
    and getting fresh memory for the second copies took a fifth of the load's time."""

    __slots__ = ("_around", "_frontmatter", "_structure", "_text", "path")

    def __init__(
        self,
        path: str,
        text: str,
        frontmatter: Frontmatter | None = None,
        structure: Structure | None = None,
    ) -> None:
        self.path = path
        self._text: str | None = text
        self._around: tuple[str, str, str] | None = None
        self._frontmatter = frontmatter
        self._structure = structure

    @classmethod
    def around(
        cls, path: str, before: str, body: str, after: str, frontmatter: Frontmatter | None = None
    ) -> ProfileDocument:
        """The document of the text ``before + body + after``, whose ``body`` (a prose
        section's, held by its profile) is kept once."""
        document = cls(path, "", frontmatter)
        document._text = None
        document._around = (before, body, after)
        return document

    @property
    def pieces(self) -> tuple[str, str, str] | None:
        """The text before the body kept once, that body, and the text after it; None
        when the document was made with its text whole."""
        return self._around

    @property
    def text(self) -> str:
        """The normalised text of the file."""
        text = self._text
        if text is None:
            # The pieces stay: they hold nothing the profile and the text do not. Two
            # threads may both join them; either result is the same text.
            assert self._around is not None
            text = self._text = "".join(self._around)
        return text

    @property
    def frontmatter(self) -> Frontmatter:
        fm = self._frontmatter
        if fm is None:
            # Only a frontmatter that was read without a problem is left for later, so
            # reading it again reports nothing: the scratch list stays empty.
            fm = self._frontmatter = read_frontmatter(self.text, self.path, [])
        return fm

    @property
    def structure(self) -> Structure:
        structure = self._structure
        if structure is None:
            fm = self.frontmatter
            structure = markdown.scan(self.text, fm.body_offset, fm.body_line)
            self._structure = structure
        return structure

    def _fields(self) -> tuple[str, str, Frontmatter, Structure]:
        return self.path, self.text, self.frontmatter, self.structure

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ProfileDocument):
            return NotImplemented
        return self._fields() == other._fields()

    # Unhashable, as the named tuple it replaces was: it holds dicts.
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        path, text, fm, structure = self._fields()
        return (
            f"ProfileDocument(path={path!r}, text={text!r}, frontmatter={fm!r}, "
            f"structure={structure!r})"
        )


class ParsedProfile(NamedTuple):
    """``profile`` is built from every part that validated (None when even the id is
    unknown); ``ok`` is True only when there are no errors."""

    profile: AgentProfile | None
    diagnostics: tuple[Diagnostic, ...]
    document: ProfileDocument | None

    @property
    def ok(self) -> bool:
        return self.profile is not None and not any(d.is_error for d in self.diagnostics)


def parse_profile(
    raw: bytes | str,
    *,
    path: str = "profile.md",
    expected_id: str | None = None,
    project: str | None = None,
    known_tools: KnownTools | None = None,
) -> ParsedProfile:
    """Parse and validate one profile document.

    ``expected_id`` is the id the vault path gives (the frontmatter must agree);
    ``project`` marks a project override, whose fields are all optional;
    ``known_tools`` enables unknown-tool warnings."""
    out: list[Diagnostic] = []
    text = normalise(raw, path, out)
    if text is None:
        return ParsedProfile(None, tuple(out), None)
    # The fast path first, on the frontmatter's data without positions when the flat reader
    # takes it (nearly always), else on libyaml's reading when that reported nothing.
    fm: Frontmatter | None = None
    quick = frontmatter_data(text)
    if quick is None:
        fm = read_frontmatter(text, path, out)
        if not out:
            quick = fm.data, fm.body_offset
    if quick is not None:
        fast = fast_fields(text, *quick, expected_id, project, known_tools, _tags_ok)
        if fast is not None:
            fields, fields_set, unknown, longest = fast
            fields["project"] = project
            fields["source"] = path
            names = frozenset(fields_set)
            fields["fields_set"] = _FIELD_SETS.get(names) or _shared(names)
            found: tuple[Diagnostic, ...] = ()
            if unknown is not None and known_tools is not None:
                found = _unknown_tools(text, path, unknown, known_tools)
            if longest is not None and longest.end - longest.start >= SPLICED_MIN:
                document = ProfileDocument.around(
                    path, text[: longest.start], longest.body, text[longest.end :], fm
                )
            else:
                document = ProfileDocument(path, text, fm)
            return _new(ParsedProfile, (AgentProfile(**fields), found, document))
    if fm is None:
        fm = read_frontmatter(text, path, out)
    structure = markdown.scan(text, fm.body_offset, fm.body_line)
    document = ProfileDocument(path, text, fm, structure)
    return _careful(text, document, path, expected_id, project, known_tools, out)


def _unknown_tools(
    text: str, path: str, unknown: UnknownTools, known: KnownTools
) -> tuple[Diagnostic, ...]:
    """The fast path's ``tool-unknown`` warnings, placed in the Tools block as the careful
    path places them (the same ``JsonBlock`` over the same text and first line)."""
    found = _placed_unknown_tools(text, path, unknown, known)
    if found is not None:
        return found
    out: list[Diagnostic] = []
    r = Reporter(path, out)
    content = text[unknown.start : unknown.end]
    first_line = text.count("\n", 0, unknown.start) + 1
    positions = items_index(content, unknown.value, unknown.names)
    block = JsonBlock(content, first_line, unknown.value, positions)
    for key, index, name in unknown.names:
        unknown_tool(block, r, known, key, index, name)
    return tuple(out)


def _placed_unknown_tools(
    text: str, path: str, unknown: UnknownTools, known: KnownTools
) -> tuple[Diagnostic, ...] | None:
    """The warnings of :func:`_unknown_tools` in the usual case, straight from the text:
    each name written once as a plain string (``jsonblock.items_index``'s rules, found in
    place, without slicing the block), its line and column from its offset, its message and
    hint from the load's memo. None when that cannot be relied on (an escape in the block,
    a name written twice or as a key, a probed server's tool): then the general path.

    Real vaults warn in most profiles (issue 12 item 8), so this is on the parse's hot
    path. The names come in the text's order: each search and each line count starts where
    the last one ended, so 100,000 names in one block stay linear (issue 11 item 6)."""
    start, end = unknown.start, unknown.end
    if text.find("\\", start, end) >= 0:
        return None
    value = unknown.value
    out: list[Diagnostic] = []
    line = text.count("\n", 0, start) + 1
    line_start = start - 1  # columns count from the block's first character, as JsonBlock's
    at = previous = start
    quotes = 0
    for _, _, name in unknown.names:
        said = unknown_tool_text(known, name)
        if said is None or name in value:
            return None
        offset = text.find(f'"{name}"', at, end)
        if offset < 0:
            return None
        quotes += text.count('"', at, offset)
        if quotes % 2:
            return None
        newlines = text.count("\n", previous, offset)
        if newlines:
            line += newlines
            line_start = text.rfind("\n", previous, offset)
        previous = offset
        at = offset + len(name) + 2
        quotes += 2
        out.append(
            Diagnostic(
                path=path,
                line=line,
                column=offset - line_start,
                severity=Severity.WARNING,
                code="tool-unknown",
                message=said[0],
                hint=said[1],
            )
        )
    return tuple(out)


def _careful(
    text: str,
    document: ProfileDocument,
    path: str,
    expected_id: str | None,
    project: str | None,
    known_tools: KnownTools | None,
    out: list[Diagnostic],
) -> ParsedProfile:
    """Every rule, every diagnostic with its position. ``out`` holds what reading the text
    and the frontmatter already reported."""
    r = Reporter(path, out)
    fm = document.frontmatter
    structure = document.structure
    fm_broken = bool(out)  # its own error stands; "'id' is required" would mislead
    if structure.unclosed is not None:
        fence = structure.unclosed
        opener = text[fence.start + fence.column - 1 :]
        marker = opener[: len(opener) - len(opener.lstrip(opener[0]))]
        r.add(
            "fence-unclosed",
            "this code fence is never closed, so everything after it is treated as code",
            fence.line,
            fence.column,
            f"add a closing {marker} line where the block ends",
        )

    fields: dict[str, Any] = {}
    fields_set: set[str] = set()
    _frontmatter_fields(fm, r, fields, fields_set, expected_id, project, fm_broken)
    prose: list[PromptSection] = []
    seen: dict[str, Section] = {}
    for section in structure.sections:
        key = section.key
        if key in seen:
            first = seen[key]
            r.add(
                "section-duplicate",
                f"section '## {section.heading}' appears again (first on line {first.line})",
                section.line,
                section.column,
                "merge the two sections into one; only the first is used",
            )
            continue
        seen[key] = section
        if key in _STRUCTURED:
            block = read_json_block(text, section, r)
            if block is not None:
                _structured(key, block, r, known_tools, fields, fields_set)
        else:
            body, problem = verbatim.decode(
                markdown.tidy(text[section.body_start : section.body_end])
            )
            if problem:
                r.add(
                    "verbatim-invalid",
                    f"section '## {section.heading}': broken {verbatim.MARKER} block: {problem}",
                    section.body_line,
                    1,
                    "re-import the agent, or remove the marker to use the text as plain prose",
                )
            prose.append(PromptSection(heading=section.heading, body=body))
    if prose:
        fields["sections"] = tuple(prose)
        fields_set.add("sections")

    ident = fields.get("id")
    if ident is None:
        return ParsedProfile(None, tuple(out), document)
    fields.setdefault("name", ident)
    profile = AgentProfile(**fields, project=project, source=path, fields_set=frozenset(fields_set))
    return _new(ParsedProfile, (profile, tuple(out), document))


def _frontmatter_fields(
    fm: Frontmatter,
    r: Reporter,
    fields: dict[str, Any],
    fields_set: set[str],
    expected_id: str | None,
    project: str | None,
    fm_broken: bool,
) -> None:
    data = fm.data

    def mark(key: str) -> Mark:
        return fm.value_marks.get(key, _ORIGIN)

    if "id" in data:
        value = data["id"]
        if not isinstance(value, str):
            line, column = mark("id")
            r.add(
                "field-type",
                f"'id' must be a string, got {_yaml_name(value)}",
                line,
                column,
                "write the profile's folder name, for example 'id: coding'",
            )
        elif (problem := segment_problem(value)) is not None:
            line, column = mark("id")
            r.add(
                "name-unsafe",
                f"'id' {value!r} {problem}",
                line,
                column,
                "use letters, digits, '-' and '_', for example 'code-review'",
            )
        elif expected_id is not None and value != expected_id:
            line, column = mark("id")
            r.add(
                "id-mismatch",
                f"frontmatter id {value!r} does not match {expected_id!r}, the id this "
                "file's folder gives",
                line,
                column,
                f"change it to 'id: {expected_id}' or move the file to "
                f"agent-types/{value}/profile.md",
            )
        else:
            fields["id"] = value
    elif expected_id is not None:
        fields["id"] = expected_id
    elif not fm_broken:
        r.add("field-required", "'id' is required", 1, 1, "add 'id: <name>' to the frontmatter")
    if expected_id is not None and "id" not in fields and "id" in data:
        fields["id"] = expected_id  # keep the file identifiable; the error above stands

    if "name" in data:
        value = data["name"]
        if not isinstance(value, str) or not value.strip():
            line, column = mark("name")
            r.add(
                "field-type",
                f"'name' must be a non-empty string, got {_yaml_name(value)}",
                line,
                column,
                "write a display name, for example 'name: Coding Agent'",
            )
        else:
            fields["name"] = value.strip()
            fields_set.add("name")
    elif project is None and not fm_broken:
        r.add(
            "field-required" if fm.present else "frontmatter-missing",
            "'name' is required" if fm.present else "the profile has no frontmatter",
            1,
            1,
            "start the file with:\n---\nid: <id>\nname: <Display Name>\n---",
        )

    if "description" in data:
        value = data["description"]
        if isinstance(value, str):
            fields["description"] = value.strip()
            fields_set.add("description")
        else:
            line, column = mark("description")
            r.add(
                "field-type",
                f"'description' must be a string, got {_yaml_name(value)}",
                line,
                column,
                "quote the text",
            )
    if "tags" in data:
        value = data["tags"]
        if value is None:
            fields["tags"] = ()
        elif isinstance(value, str):
            fields["tags"] = (value,)
        elif isinstance(value, list) and _tags_ok(value):
            fields["tags"] = tuple(value)
        else:
            line, column = mark("tags")
            r.add(
                "field-type",
                f"'tags' must be a list of strings, got {describe(value)}",
                line,
                column,
                "write tags: [profile, agent-type]",
            )
        if "tags" in fields:
            fields_set.add("tags")
    if "extends" in data:
        value = data["extends"]
        line, column = mark("extends")
        problem = segment_problem(value)
        if not isinstance(value, str):
            problem = f"must be a string, got {_yaml_name(value)}"
        if problem is not None:
            r.add(
                "field-type" if not isinstance(value, str) else "name-unsafe",
                f"'extends' {problem}",
                line,
                column,
                "name the profile id to inherit from",
            )
        elif value == fields.get("id"):
            r.add(
                "field-value",
                f"profile {value!r} cannot extend itself",
                line,
                column,
                "name another profile, or remove 'extends'",
            )
        else:
            fields["extends"] = value
            fields_set.add("extends")
    if _FRONTMATTER_KEYS.issuperset(data):
        return  # the usual case: no other keys, so no metadata and nothing to warn about
    metadata = {k: v for k, v in data.items() if k not in FRONTMATTER_KEYS}
    for key in metadata:
        hint = _key_hint(key)
        if hint:
            line, column = fm.key_marks.get(key, Mark(1, 1))
            r.add("field-unknown", f"unknown frontmatter key {key!r}", line, column, hint)
    if metadata:
        fields["metadata"] = metadata


_ORIGIN = Mark(1, 1)
_FRONTMATTER_KEYS = frozenset(FRONTMATTER_KEYS)
# Tags and unknown keys repeat across a vault's profiles; both memos are bounded.
_MEMO_LIMIT = 10_000
_GOOD_TAGS: set[str] = set()
_KEY_HINTS: dict[str, str] = {}


def _tags_ok(tags: list[Any]) -> bool:
    """Every tag is a non-empty string."""
    try:
        if _GOOD_TAGS.issuperset(tags):
            return True
    except TypeError:  # an unhashable item: certainly not a string
        return False
    if not all(isinstance(t, str) and t for t in tags):
        return False
    if len(_GOOD_TAGS) < _MEMO_LIMIT:
        _GOOD_TAGS.update(tags)
    return True


def _key_hint(key: str) -> str:
    hint = _KEY_HINTS.get(key)
    if hint is None:
        hint = did_you_mean(key, FRONTMATTER_KEYS)
        if len(_KEY_HINTS) < _MEMO_LIMIT:
            _KEY_HINTS[key] = hint
    return hint


def _yaml_name(value: object) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return describe(value)


def _structured(
    key: str,
    block: JsonBlock,
    r: Reporter,
    known: KnownTools | None,
    fields: dict[str, Any],
    fields_set: set[str],
) -> None:
    if key == "config":
        values = profile_blocks.validate_config(block, r)
        fields.update(values)
        fields_set.update(values)
    elif key == "tools":
        tools = profile_blocks.validate_tools(block, r, known)
        fields.update(tools)
        fields_set.update(tools)
    elif key == "mcp servers":
        names = profile_blocks.validate_mcp_servers(block, r)
        if names is not None:
            fields["mcp_servers"] = names
            fields_set.add("mcp_servers")
    else:
        manifest = profile_blocks.validate_install(block, r)
        if manifest is not None:
            fields["install"] = manifest
            fields_set.add("install")
            # Which lists the file sets, so an override replaces only those (issue 4).
            fields_set.update(
                [_INSTALL_FIELDS[key] for key in block.value if key in _INSTALL_FIELDS]
            )
