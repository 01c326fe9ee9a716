"""YAML frontmatter: found exactly, loaded with YAML 1.2 scalar rules, positions kept.

PyYAML implements YAML 1.1, where ``yes``/``no``/``on`` are booleans, ``2024-01-01`` is a date
and ``<<`` merges mappings. Profiles are written by people who expect the YAML 1.2 core schema,
so the loader below swaps in core-schema resolvers (only ``true``/``false`` are booleans, no
timestamps, no merge keys) and rejects duplicate keys. It subclasses libyaml's ``CSafeLoader``
so parsing stays in C.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, NamedTuple

import yaml
from yaml.nodes import MappingNode, Node

from agent_roster import diagnostics as dx
from agent_roster.diagnostics import Diagnostic
from agent_roster.vault.fastyaml import Mark as Mark  # re-exported: the position type
from agent_roster.vault.fastyaml import load_flat
from agent_roster.vault.fastyaml import mark as shared_mark

_BaseLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_INT = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
_FLOAT = re.compile(
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)


class _CoreSchemaLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """CSafeLoader with the YAML 1.2 core schema and duplicate-key detection."""

    # Class-level tables are how PyYAML configures a loader; these are ours, not shared.
    yaml_implicit_resolvers: ClassVar[dict[str | None, list[tuple[str, re.Pattern[str]]]]] = {}
    yaml_constructors: ClassVar[dict[Any, Any]] = dict(yaml.SafeLoader.yaml_constructors)

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.duplicates: list[tuple[str, Node]] = []

    def construct_mapping(self, node: Node, deep: bool = False) -> dict[Any, Any]:
        if not isinstance(node, MappingNode):
            found = type(node).__name__
            raise yaml.constructor.ConstructorError(
                None, None, f"expected a mapping node, but found {found}", node.start_mark
            )
        mapping: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                hash(key)
            except TypeError:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping",
                    node.start_mark,
                    "found an unhashable key",
                    key_node.start_mark,
                ) from None
            if key in mapping:
                self.duplicates.append((str(key), key_node))
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping


def _bool(loader: yaml.SafeLoader, node: Node) -> bool:
    return bool(loader.construct_scalar(node) in ("true", "True", "TRUE"))  # type: ignore[arg-type]


def _int(loader: yaml.SafeLoader, node: Node) -> int:
    value = str(loader.construct_scalar(node))  # type: ignore[arg-type]
    try:
        if value.startswith("0o"):
            return int(value[2:], 8)
        if value.startswith("0x"):
            return int(value[2:], 16)
        return int(value, 10)
    except ValueError:  # '!!int abc', or more digits than Python converts
        raise _bad_scalar(node, "an integer") from None


def _float(loader: yaml.SafeLoader, node: Node) -> float:
    value = str(loader.construct_scalar(node)).lower()  # type: ignore[arg-type]
    if value.endswith(".inf"):
        return float("-inf") if value.startswith("-") else float("inf")
    if value == ".nan":
        return float("nan")
    try:
        return float(value)
    except ValueError:  # '!!float abc'
        raise _bad_scalar(node, "a number") from None


def _bad_scalar(node: Node, what: str) -> yaml.constructor.ConstructorError:
    value = str(node.value)
    shown = repr(value) if len(value) <= 40 else repr(value[:37] + "...")
    return yaml.constructor.ConstructorError(None, None, f"{shown} is not {what}", node.start_mark)


def _str(loader: yaml.SafeLoader, node: Node) -> str:
    return str(loader.construct_scalar(node))  # type: ignore[arg-type]


# YAML 1.1 extras that JSON output cannot carry (bytes, sets, ordered pairs) are unknown tags.
for _tag in (
    "bool",
    "int",
    "float",
    "timestamp",
    "merge",
    "value",
    "binary",
    "set",
    "omap",
    "pairs",
):
    _CoreSchemaLoader.yaml_constructors.pop(f"tag:yaml.org,2002:{_tag}", None)
_CoreSchemaLoader.add_constructor("tag:yaml.org,2002:bool", _bool)
_CoreSchemaLoader.add_constructor("tag:yaml.org,2002:int", _int)
_CoreSchemaLoader.add_constructor("tag:yaml.org,2002:float", _float)
_CoreSchemaLoader.add_constructor("tag:yaml.org,2002:timestamp", _str)
_CoreSchemaLoader.add_implicit_resolver("tag:yaml.org,2002:bool", _BOOL, list("tTfF"))
_CoreSchemaLoader.add_implicit_resolver("tag:yaml.org,2002:null", _NULL, ["~", "n", "N", ""])
_CoreSchemaLoader.add_implicit_resolver("tag:yaml.org,2002:int", _INT, list("-+0123456789"))
_CoreSchemaLoader.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT, list("-+.0123456789"))


class Frontmatter(NamedTuple):
    """The frontmatter of a document.

    ``data`` maps keys to values; ``key_marks``/``value_marks`` give the file position of
    each top-level key and value. ``body_offset``/``body_line`` locate the text after the
    closing delimiter. ``present`` is False when the file has no frontmatter at all."""

    data: dict[str, Any]
    key_marks: dict[str, Mark]
    value_marks: dict[str, Mark]
    present: bool
    end_line: int
    body_offset: int
    body_line: int


_OPEN = re.compile(r"---[ \t]*(?:\n|\Z)")
# The closing line, found from the newline before it: a ``^`` in MULTILINE mode would be
# tried at every position of the frontmatter.
_CLOSE = re.compile(r"\n(?:---|\.\.\.)[ \t]*(?=\n|\Z)")
_LEADING_BLANK = re.compile(r"(?:[ \t]*\n)+---[ \t]*\n")


def frontmatter_data(text: str) -> tuple[dict[str, Any], int] | None:
    """The frontmatter's data and the body's offset, as ``read_frontmatter`` reads them, or
    None when it would report a problem or the frontmatter needs libyaml.

    For the fast path of a valid profile, which needs no positions: it skips counting lines
    and building the two dicts of marks."""
    opening = _OPEN.match(text)
    if opening is None:
        return None if _LEADING_BLANK.match(text) else ({}, 0)
    closing = _CLOSE.search(text, opening.end() - 1)
    if closing is None:
        return None
    loaded = load_flat(text[opening.end() : closing.start() + 1], 2, positions=False)
    if loaded is None:
        return None
    return loaded[0], closing.end() + 1 if closing.end() < len(text) else closing.end()


def read_frontmatter(text: str, path: str, out: list[Diagnostic]) -> Frontmatter:
    """Split ``text`` (already newline-normalised) into frontmatter and body.

    Problems are appended to ``out``; the result is always usable (empty data on error).
    ``frontmatter_data`` is the same reading without positions; change both together."""
    opening = _OPEN.match(text)
    if opening is None:
        if _LEADING_BLANK.match(text):
            out.append(
                dx.make(
                    "frontmatter-not-at-start",
                    "the frontmatter's opening --- is not on the first line",
                    path=path,
                    line=1 + text.count("\n", 0, text.index("---")),
                    hint="delete the blank lines above ---; editors only read frontmatter there",
                )
            )
        return Frontmatter({}, {}, {}, False, 0, 0, 1)
    closing = _CLOSE.search(text, opening.end() - 1)
    if closing is None:
        out.append(
            dx.make(
                "frontmatter-unterminated",
                "the frontmatter opened on line 1 is never closed",
                path=path,
                hint="add a line with just --- after the last frontmatter key",
            )
        )
        return Frontmatter({}, {}, {}, True, 1, len(text), 1 + text.count("\n"))
    close_start = closing.start() + 1
    yaml_text = text[opening.end() : close_start]
    end_line = 1 + text.count("\n", 0, close_start)
    body_offset = closing.end() + 1 if closing.end() < len(text) else closing.end()
    loaded = load_flat(yaml_text, 2) or _load_full(yaml_text, 2, path, out)
    # The tuple constructor builds the NamedTuple without its Python-level ``__new__``.
    return tuple.__new__(Frontmatter, (*loaded, True, end_line, body_offset, end_line + 1))


#: Frontmatter never nests deeply; libyaml's composer recurses in C and crashes the whole
#: interpreter on input nested tens of thousands deep, so depth is checked first.
MAX_DEPTH = 1000


def _check_depth(yaml_text: str) -> None:
    """Raise a marked error when collections nest deeper than MAX_DEPTH. Each level needs
    one of ``[{-?:``, so counting them bounds the depth and the common case costs nothing;
    otherwise libyaml's (iterative) event parser measures it."""
    if sum(map(yaml_text.count, "[{-?:")) <= MAX_DEPTH:
        return
    depth = 0
    for event in yaml.parse(yaml_text, Loader=_BaseLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise yaml.MarkedYAMLError(
                    problem=f"collections nest more than {MAX_DEPTH} deep",
                    problem_mark=event.start_mark,  # type: ignore[arg-type]
                )
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def _check_aliases(node: Node) -> None:
    """Reject aliases: they add nothing to frontmatter, and they can build cyclic or
    exponentially large values that no JSON output can carry."""
    seen: set[int] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            raise yaml.MarkedYAMLError(
                problem="aliases (*name) are not supported in frontmatter",
                problem_mark=current.start_mark,
            )
        seen.add(id(current))
        if isinstance(current, MappingNode):
            for key_node, value_node in current.value:
                stack.extend((key_node, value_node))
        elif isinstance(current.value, list):
            stack.extend(current.value)


def _load_full(
    yaml_text: str, first_line: int, path: str, out: list[Diagnostic]
) -> tuple[dict[str, Any], dict[str, Mark], dict[str, Mark]]:
    """The full YAML 1.2 reading through libyaml, for frontmatter the fast path declines."""
    loader = _CoreSchemaLoader(yaml_text)
    try:
        _check_depth(yaml_text)
        node = loader.get_single_node()
        if node is None:
            return {}, {}, {}
        if "*" in yaml_text:
            _check_aliases(node)
        data = loader.construct_document(node)
    except yaml.reader.ReaderError as exc:
        # libyaml gives a byte offset; count characters for the column.
        before = yaml_text.encode("utf-8")[: exc.position].decode("utf-8", "ignore")
        char = exc.character if isinstance(exc.character, int) else ord(exc.character)
        out.append(
            dx.make(
                "yaml-invalid",
                f"invalid YAML in frontmatter: control character U+{char:04X} is not allowed",
                path=path,
                line=first_line + before.count("\n"),
                column=len(before) - (before.rfind("\n") + 1) + 1,
                hint="remove the control character, or quote the value and escape it",
            )
        )
        return {}, {}, {}
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = first_line + (mark.line if mark else 0)
        column = 1 + (mark.column if mark else 0)
        problem = exc.problem or "invalid YAML"
        if exc.context:
            problem = f"{problem} ({exc.context})"
        out.append(
            dx.make(
                "yaml-invalid",
                f"invalid YAML in frontmatter: {problem}",
                path=path,
                line=line,
                column=column,
                hint="check indentation and quoting; a value containing ': ' needs quotes",
            )
        )
        return {}, {}, {}
    finally:
        loader.dispose()
    for key, key_node in loader.duplicates:
        out.append(
            dx.make(
                "yaml-duplicate-key",
                f"key {key!r} appears more than once in the frontmatter",
                path=path,
                line=first_line + key_node.start_mark.line,
                column=1 + key_node.start_mark.column,
                hint="keep one of them; YAML does not allow repeated keys",
            )
        )
    if not isinstance(data, dict):
        out.append(
            dx.make(
                "yaml-not-mapping",
                f"the frontmatter must be a mapping of keys to values, got {_yaml_type(data)}",
                path=path,
                line=first_line + node.start_mark.line,
                column=1 + node.start_mark.column,
                hint="write one 'key: value' per line, for example 'id: coding'",
            )
        )
        return {}, {}, {}
    key_marks: dict[str, Mark] = {}
    value_marks: dict[str, Mark] = {}
    result: dict[str, Any] = {}
    assert isinstance(node, MappingNode)
    for key_node, value_node in node.value:
        if not isinstance(key_node.value, str) or key_node.tag != "tag:yaml.org,2002:str":
            out.append(
                dx.make(
                    "field-type",
                    f"frontmatter keys must be strings, got {key_node.value!r}",
                    path=path,
                    line=first_line + key_node.start_mark.line,
                    column=1 + key_node.start_mark.column,
                    hint="quote the key or rename it",
                )
            )
            continue
        key = key_node.value
        key_marks[key] = shared_mark(
            first_line + key_node.start_mark.line, 1 + key_node.start_mark.column
        )
        value_marks[key] = shared_mark(
            first_line + value_node.start_mark.line, 1 + value_node.start_mark.column
        )
        result[key] = data[key]
    return result, key_marks, value_marks


def _yaml_type(value: object) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a plain string"
    return type(value).__name__
