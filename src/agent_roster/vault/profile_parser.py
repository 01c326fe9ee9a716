"""The profile.md parser (seed 000's hybrid format).

``parse_profile`` reads one document in one pass and returns the typed profile together with
every diagnostic found and the document's structure (positions of the frontmatter, each
section and each JSON block) for precise errors and, later, in-place edits.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from agent_roster.diagnostics import Diagnostic, did_you_mean
from agent_roster.known_tools import KnownTools
from agent_roster.model.profile import AgentProfile, PromptSection
from agent_roster.vault import markdown, profile_blocks
from agent_roster.vault.document import Reporter, describe, normalise
from agent_roster.vault.frontmatter import Frontmatter, Mark, read_frontmatter
from agent_roster.vault.jsonblock import JsonBlock, find_token
from agent_roster.vault.markdown import Section, Structure
from agent_roster.vault.paths import segment_problem

STRUCTURED = ("config", "tools", "mcp servers", "install")
FRONTMATTER_KEYS = ("id", "name", "description", "tags", "extends")


class ProfileDocument(NamedTuple):
    """The parsed shape of a profile.md: normalised text, frontmatter, sections."""

    path: str
    text: str
    frontmatter: Frontmatter
    structure: Structure


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
    r = Reporter(path, out)
    text = normalise(raw, path, out)
    if text is None:
        return ParsedProfile(None, tuple(out), None)
    before = len(out)
    fm = read_frontmatter(text, path, out)
    fm_broken = len(out) > before  # its own error stands; "'id' is required" would mislead
    structure = markdown.scan(text, fm.body_offset, fm.body_line)
    document = ProfileDocument(path, text, fm, structure)
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
        if key in STRUCTURED:
            block = _json_block(text, section, r)
            if block is not None:
                _structured(key, block, r, known_tools, fields, fields_set)
        else:
            body = markdown.tidy(text[section.body_start : section.body_end])
            prose.append(PromptSection(heading=section.heading, body=body))
    if prose:
        fields["sections"] = tuple(prose)
        fields_set.add("sections")

    ident = fields.get("id")
    if ident is None:
        return ParsedProfile(None, tuple(out), document)
    fields.setdefault("name", ident)
    profile = AgentProfile(**fields, project=project, source=path, fields_set=frozenset(fields_set))
    return ParsedProfile(profile, tuple(out), document)


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
        return fm.value_marks.get(key, Mark(1, 1))

    if "id" in data:
        value = data["id"]
        line, column = mark("id")
        if not isinstance(value, str):
            r.add(
                "field-type",
                f"'id' must be a string, got {_yaml_name(value)}",
                line,
                column,
                "write the profile's folder name, for example 'id: coding'",
            )
        elif (problem := segment_problem(value)) is not None:
            r.add(
                "name-unsafe",
                f"'id' {value!r} {problem}",
                line,
                column,
                "use letters, digits, '-' and '_', for example 'code-review'",
            )
        elif expected_id is not None and value != expected_id:
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
        line, column = mark("name")
        if not isinstance(value, str) or not value.strip():
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
        line, column = mark("tags")
        if value is None:
            fields["tags"] = ()
        elif isinstance(value, str):
            fields["tags"] = (value,)
        elif isinstance(value, list) and all(isinstance(t, str) and t for t in value):
            fields["tags"] = tuple(value)
        else:
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
    metadata = {k: v for k, v in data.items() if k not in FRONTMATTER_KEYS}
    for key in metadata:
        hint = did_you_mean(key, FRONTMATTER_KEYS)
        if hint:
            line, column = fm.key_marks.get(key, Mark(1, 1))
            r.add("field-unknown", f"unknown frontmatter key {key!r}", line, column, hint)
    if metadata:
        fields["metadata"] = metadata


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


def _json_block(text: str, section: Section, r: Reporter) -> JsonBlock | None:
    """The one ```json block of a structured section, parsed; every fence problem reported."""
    label = f"## {section.heading}"
    json_fences = []
    for fence in section.fences:
        if fence.lang == "json":
            json_fences.append(fence)
        elif fence.lang == "":
            r.add(
                "json-fence-untagged",
                f"the code fence in {label} has no language tag, so it is not read",
                fence.line,
                fence.column,
                "tag the opening fence: ```json",
            )
        else:
            r.add(
                "json-fence-language",
                f"the code fence in {label} is tagged {fence.info.split()[0]!r}; "
                "structured sections are read only from ```json",
                fence.line,
                fence.column,
                "use ```json with plain JSON (no comments, no trailing commas)",
            )
    for extra in json_fences[1:]:
        r.add(
            "json-block-duplicate",
            f"{label} has more than one ```json block (the first is on line {json_fences[0].line})",
            extra.line,
            extra.column,
            "merge them into one block",
        )
    if not json_fences:
        if not section.fences:
            if text[section.body_start : section.body_end].strip():
                r.add(
                    "json-block-missing",
                    f"{label} has no ```json block",
                    section.line,
                    section.column,
                    "put the settings in a fenced block that starts with ```json",
                )
            else:
                r.add(
                    "section-empty",
                    f"{label} is empty",
                    section.line,
                    section.column,
                    "add a ```json block or remove the heading",
                )
        return None
    fence = json_fences[0]
    if not fence.closed or len(json_fences) > 1:
        return None
    content = text[fence.content_start : fence.content_end]
    found_duplicate = False

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal found_duplicate
        result = dict(items)
        found_duplicate = found_duplicate or len(result) < len(items)
        return result

    value = _decode_fast(content)
    if value is not _SLOW:
        return JsonBlock(content, fence.content_line, value)
    try:
        value = json.loads(content, object_pairs_hook=pairs, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        r.add(
            "json-invalid",
            f"invalid JSON in {label}: {exc.msg}",
            fence.content_line + exc.lineno - 1,
            exc.colno,
            _json_hint(exc),
        )
        return None
    except (ValueError, RecursionError) as exc:
        # parse_constant's NaN/Infinity, a number too long to convert, or deep nesting:
        # no position from the decoder, so find the offending token ourselves.
        block = JsonBlock(content, fence.content_line, None)
        if isinstance(exc, _ConstantError):
            offset = find_token(content, lambda t: t in ("NaN", "Infinity", "-Infinity"))
            message, hint = str(exc), "NaN and Infinity are not JSON; write a number or null"
        elif isinstance(exc, RecursionError):
            offset = None
            message, hint = "arrays or objects nest too deeply", "flatten the structure"
        else:
            offset = find_token(content, lambda t: len(t) > 4000 and t[0] in "-0123456789")
            message, hint = "a number has too many digits", "write a shorter number"
        line, column = block.line_column(offset or 0)
        r.add("json-invalid", f"invalid JSON in {label}: {message}", line, column, hint)
        return None
    block = JsonBlock(content, fence.content_line, value)
    if found_duplicate:
        for _path, key, offset in block.index.duplicates:
            line, column = block.line_column(offset)
            r.add(
                "json-invalid",
                f"key {key!r} appears more than once in {label}",
                line,
                column,
                "keep one; JSON objects must not repeat keys",
            )
    return block


_SLOW: Any = object()


class _Repeated(Exception):
    """A JSON object repeats a key; the careful path reports where."""


def _unique_pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(items)
    if len(result) != len(items):
        raise _Repeated
    return result


def _refuse_constant(name: str) -> Any:
    raise ValueError(name)


# One decoder for every block: ``json.loads`` with keyword arguments builds a new decoder
# per call, which costs more than decoding a small block.
_DECODER = json.JSONDecoder(object_pairs_hook=_unique_pairs, parse_constant=_refuse_constant)


def _decode_fast(content: str) -> Any:
    """Decode a block, or return ``_SLOW`` when anything is off (invalid JSON, a repeated key,
    NaN, deep nesting...) so the careful path can report it with its position."""
    try:
        return _DECODER.decode(content)
    except (ValueError, RecursionError, _Repeated):
        return _SLOW


class _ConstantError(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise _ConstantError(f"{name} is not valid JSON")


def _json_hint(exc: json.JSONDecodeError) -> str:
    if "property name" in exc.msg:
        return "keys need double quotes, and the last item takes no trailing comma"
    if "delimiter" in exc.msg:
        return "a comma is missing between items, or a quote is not closed"
    if exc.msg.startswith("Expecting value"):
        return "write a JSON value here; comments and single quotes are not JSON"
    return "check the JSON syntax near this position"


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
                f"install.{key}" for key in block.value if key in profile_blocks.INSTALL_KEYS
            )
