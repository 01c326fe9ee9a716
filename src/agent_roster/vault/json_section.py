"""The ```json block of a structured section: fence rules, exact decoding, error positions.

A structured section (Config, Tools, MCP Servers, Install) holds exactly one closed ```json
fence. ``read_json_block`` reports every fence problem (untagged, another language, more
than one block, none, never closed) and decodes the block exactly: repeated keys, NaN and
Infinity are errors, and every error points at its line and column in the file.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from agent_roster.vault.document import Reporter
from agent_roster.vault.json_syntax import JsonSyntaxError, json_syntax_error
from agent_roster.vault.jsonblock import JsonBlock, find_token
from agent_roster.vault.markdown import Section


def read_json_block(text: str, section: Section, r: Reporter) -> JsonBlock | None:
    """The one ```json block of a structured section, parsed; every fence problem reported."""
    fences = section.fences
    if len(fences) == 1:
        # The usual shape, one closed ```json fence, needs none of the checks below.
        fence = fences[0]
        if fence.lang == "json" and fence.closed:
            content = text[fence.content_start : fence.content_end]
            value = decode_fast(content)
            if value is not SLOW:
                return JsonBlock(content, fence.content_line, value)
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

    value = decode_fast(content)
    if value is not SLOW:
        return JsonBlock(content, fence.content_line, value)
    try:
        value = json.loads(content, object_pairs_hook=pairs, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        # Our own message and position, never CPython's (they change between versions).
        found = json_syntax_error(content) or JsonSyntaxError(
            exc.pos, "not valid JSON", "check the JSON syntax near this position"
        )
        line, column = JsonBlock(content, fence.content_line, None).line_column(found.offset)
        r.add("json-invalid", f"invalid JSON in {label}: {found.message}", line, column, found.hint)
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


SLOW: Any = object()


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
_msgspec_decode = msgspec.json.decode


#: Blocks longer than this skip msgspec: nesting deep enough to reach the recursion limit
#: needs two characters a level, and near that limit the two decoders could disagree.
_MSGSPEC_LIMIT = 800


def decode_fast(content: str) -> Any:
    """Decode a block, or return ``SLOW`` when anything is off (invalid JSON, a repeated key,
    NaN, deep nesting...) so the careful path can report it with its position.

    msgspec decodes a typical block several times faster than ``json``, rejects everything
    ``json`` rejects (and NaN, huge numbers and lone surrogates, which then take the careful
    path), and decodes the rest to equal values (a property test checks this). It keeps the
    last of repeated keys silently, so its answer is taken only when repeats are impossible:
    no object at all, or one object whose every ``:`` is one of its keys."""
    if len(content) <= _MSGSPEC_LIMIT:
        try:
            value = _msgspec_decode(content)
        except (ValueError, RecursionError):
            return SLOW
        objects = content.count("{")
        if objects == 0 or (
            objects == 1 and type(value) is dict and content.count(":") == len(value)
        ):
            return value
    try:
        return _DECODER.decode(content)
    except (ValueError, RecursionError, _Repeated):
        return SLOW


class _ConstantError(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise _ConstantError(f"{name} is not valid JSON")
