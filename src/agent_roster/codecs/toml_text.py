"""TOML text written directly, byte for byte as tomlkit writes it, for the simple shapes a
render produces thousands of times (a role's or a profile's top-level keys, a table of
string lists): building a tomlkit document per agent was a third to a half of the Codex
and defect renders. Anything else still goes through tomlkit; tests hold the two equal
(tests/codecs/test_codex_sections.py, tests/codecs/test_toml_text.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import tomlkit

#: A TOML basic string's escapes as tomlkit writes them: the short forms where TOML has
#: one, else ``\uXXXX`` (control characters and DEL), plus the quote and the backslash.
_BASIC_ESCAPES = str.maketrans(
    {
        **{chr(c): f"\\u{c:04x}" for c in (*range(0x20), 0x7F)},
        "\b": "\\b",
        "\t": "\\t",
        "\n": "\\n",
        "\f": "\\f",
        "\r": "\\r",
        '"': '\\"',
        "\\": "\\\\",
    }
)


def basic_string(text: str) -> str:
    """``text`` as a TOML basic string (quoted), as tomlkit writes a Python string."""
    return f'"{text.translate(_BASIC_ESCAPES)}"'


def _plain_value(value: Any) -> str | None:
    # A string, an integer (not a bool) or a list of strings as tomlkit writes it; None for
    # anything else.
    if isinstance(value, str):
        return basic_string(value)
    if type(value) is int:
        return str(value)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return "[" + ", ".join(map(basic_string, value)) + "]"
    return None


def _inline_value(value: Any) -> str | None:
    # A value of a table's key as tomlkit writes it, mappings of strings as inline tables
    # (as codex/render._inline makes them); None for any other shape.
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Mapping):
        if not all(_bare(key) and isinstance(item, str) for key, item in value.items()):
            return None
        if not value:
            return "{}"
        return "{" + ", ".join(f"{k} = {basic_string(v)}" for k, v in value.items()) + "}"
    return _plain_value(value)


def plain_table(path: tuple[str, ...], table: Mapping[str, Any]) -> str | None:
    """The table at ``path`` (``[a.b]``) and its keys as tomlkit writes it after other keys
    of a document (a blank line first): strings, integers, booleans, string lists and
    mappings of strings (inline tables), bare keys; ``None`` for another shape (the caller
    then asks tomlkit). A Codex render writes one per MCP server of every role: tens of
    thousands, most of them distinct (their tool filters differ)."""
    if not all(map(_bare, path)):
        return None
    lines = [f"\n[{'.'.join(path)}]\n"]
    for key, value in table.items():
        text = _inline_value(value) if _bare(key) else None
        if text is None:
            return None
        lines.append(f"{key} = {text}\n")
    return "".join(lines)


def plain_document(keys: Mapping[str, Any]) -> str | None:
    """The TOML document tomlkit writes for ``keys`` (in order): top-level strings and
    integers, then tables of strings, integers and string lists; ``None`` when a key is not
    a bare word or a value has another shape (the caller then asks tomlkit)."""
    lines: list[str] = []
    tables: list[str] = []
    for key, value in keys.items():
        if not _bare(key):
            return None
        if isinstance(value, Mapping):
            if not value:
                return None
            # tomlkit puts a blank line before a table, except at the very start.
            table = [f"\n[{key}]\n" if lines or tables else f"[{key}]\n"]
            for inner, item in value.items():
                text = _plain_value(item) if _bare(inner) else None
                if text is None or isinstance(item, Mapping):
                    return None
                table.append(f"{inner} = {text}\n")
            tables.append("".join(table))
            continue
        if tables:  # a plain key after a table would belong to it
            return None
        text = _plain_value(value)
        if text is None:
            return None
        lines.append(f"{key} = {text}\n")
    return "".join(lines) + "".join(tables)


def _bare(key: str) -> bool:
    # A TOML bare key: ASCII letters, digits, "_" and "-", at least one.
    return bool(key) and key.isascii() and key.replace("_", "a").replace("-", "a").isalnum()


def tomlkit_document(keys: Mapping[str, Any]) -> str:
    """``keys`` (in order) as tomlkit writes a document of them."""
    doc = tomlkit.document()
    for key, value in keys.items():
        doc[key] = value
    return tomlkit.dumps(doc)


def document_text(keys: Mapping[str, Any]) -> str:
    """The TOML document of ``keys`` as tomlkit writes it, without tomlkit when the shape
    allows (:func:`plain_document`)."""
    return plain_document(keys) or tomlkit_document(keys)
