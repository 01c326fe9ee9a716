"""Markdown files with YAML frontmatter, as harnesses read and write them.

Harnesses parse frontmatter with JavaScript YAML libraries (YAML 1.2 core schema) or serde;
we load it with the vault's YAML 1.2 loader so ``on``/``yes`` stay strings as they do for
them, and report problems with positions in the ``validate`` shape.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any, NamedTuple, cast

from agent_roster import diagnostics as dx
from agent_roster.codecs.yaml_dump import full_dump as _full_dump
from agent_roster.diagnostics import Diagnostic
from agent_roster.model.profile import AgentProfile, NativeForm
from agent_roster.vault.frontmatter import Mark, read_frontmatter


class NativeDocument(NamedTuple):
    """A parsed native markdown file: its frontmatter mapping (empty when absent), the body
    after it exactly as the file holds it (line ends included), the 1-based line the body
    starts on, and ``head``: the file's exact text before the body (a byte order mark and
    the frontmatter with its closing line)."""

    data: dict[str, Any]
    body: str
    body_line: int
    has_frontmatter: bool
    key_marks: dict[str, Mark]
    head: str = ""


def read_native(text: str, path: str, out: list[Diagnostic]) -> NativeDocument | None:
    """Split and load a native agent file; ``None`` (with diagnostics in ``out``) when its
    frontmatter is broken. A file without frontmatter gives an empty mapping."""
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    raw = text[len(bom) :]
    # A search for "\r" first: replace scans a 20 KB agent ten times slower, to no effect.
    text = raw.replace("\r\n", "\n") if "\r" in raw else raw
    if not text.startswith("---"):
        return NativeDocument({}, raw, 1, False, {}, bom)
    found: list[Diagnostic] = []
    fm = read_frontmatter(text, path, found)
    errors = [d for d in found if d.is_error]
    out.extend(found)
    if errors:
        return None
    # Without CRLF the normalised text is the file's: the body starts where it says.
    start = fm.body_offset if text is raw else line_offset(raw, fm.body_line)
    return NativeDocument(
        dict(fm.data), raw[start:], fm.body_line, True, dict(fm.key_marks), bom + raw[:start]
    )


#: The characters JavaScript's ``\s`` and ``String.prototype.trim`` take as white space
#: (Python's ``str.isspace`` differs: it has U+001C to U+001F and U+0085, not U+FEFF).
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
#: What JavaScript's ``.`` does not match: its line terminators.
JS_LINE_ENDS = "\n\r\u2028\u2029"

#: A harness's own repair of frontmatter its YAML parser refused: the frontmatter's text
#: (the lines between the fences, exactly as the file has them) in, the text it retries out.
Repair = Callable[[str], str]


class Recovery(NamedTuple):
    """A harness that reads some frontmatter only after repairing it (issue 12 item 5):
    its name, the repair, and what the repair does, in words."""

    harness: str
    repair: Repair
    rule: str


def read_native_recovering(
    text: str, path: str, out: list[Diagnostic], recovery: Recovery | None
) -> NativeDocument | None:
    """:func:`read_native`, and where the frontmatter is not valid YAML and ``recovery``
    is given, the file as the harness reads it after its repair: a ``harness-recovered``
    warning at the YAML error instead of the error, and the document's ``head`` still the
    file's own text (the repair changes only how the frontmatter is parsed), so the agent
    renders back byte for byte. ``None`` when even the repair does not parse."""
    found: list[Diagnostic] = []
    doc = read_native(text, path, found)
    errors = [d for d in found if d.is_error]
    if doc is not None or recovery is None or any(d.code != "yaml-invalid" for d in errors):
        out.extend(found)
        return doc
    repaired = _repaired(text, recovery.repair)
    again = read_native(repaired, path, []) if repaired not in (None, text) else None
    if again is None or not text.endswith(again.body):
        out.extend(found)
        return None
    first = errors[0]
    out.append(
        harness_diagnostic(
            "harness-recovered",
            f"{first.message}; {recovery.harness} {recovery.rule}, so it loads the agent: "
            "roster reads it the same way",
            path=path,
            line=first.line,
            column=first.column,
            hint='quote the value (key: "a: b") so that every tool reads the file alike',
            warning=True,
        )
    )
    return again._replace(head=text[: len(text) - len(again.body)])


def _repaired(text: str, repair: Repair) -> str | None:
    # ``text`` with ``repair`` applied to the lines between its frontmatter fences.
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    raw = text[len(bom) :]
    start = raw.find("\n") + 1
    if not start:
        return None
    pos = start
    while True:
        end = raw.find("\n", pos)
        if raw[pos : end if end >= 0 else len(raw)].rstrip(" \t\r") in ("---", "..."):
            return bom + raw[:start] + repair(raw[start:pos]) + raw[pos:]
        if end < 0:
            return None
        pos = end + 1


def line_offset(raw: str, line: int) -> int:
    """Where 1-based ``line`` starts in ``raw``. Counted in line feeds, so a text with CRLF
    splits where its normalised copy does (a body stays exactly as the file has it)."""
    start = 0
    for _ in range(line - 1):
        newline = raw.find("\n", start)
        if newline < 0:
            return len(raw)
        start = newline + 1
    return start


class Layout(NamedTuple):
    """A native file cut around its prompt: ``head + prompt + tail`` is the file."""

    head: str
    prompt: str
    tail: str


def split_layout(doc: NativeDocument) -> Layout:
    """The prompt of ``doc`` and the exact text around it. Files are laid out as
    :func:`write_native` writes them: one blank line after the frontmatter, one line end
    at the end; those belong to the layout, everything between is the prompt."""
    return cut_layout(doc.head, doc.body, blank_line=doc.has_frontmatter)


def cut_layout(head: str, body: str, *, blank_line: bool = True) -> Layout:
    """``body`` (the text after ``head``) cut as :func:`split_layout` cuts it: one line end
    at its start (``blank_line``: a file with frontmatter) joins the head, one at its end
    is the tail. The prompt is sliced once: it may be tens of kilobytes."""
    start = 0
    if blank_line:
        for sep in ("\r\n", "\n"):
            if body.startswith(sep):
                head, start = head + sep, len(sep)
                break
    for end in ("\r\n", "\n"):
        # Not into the separator: a body of one line end is taken as the separator alone.
        if body.endswith(end) and len(body) - len(end) >= start:
            return Layout(head, body[start : len(body) - len(end)], end)
    return Layout(head, body[start:] if start else body, "")


def native_form(layout: Layout, model: str = "") -> NativeForm:
    """What a codec reader remembers of a file (see :class:`NativeForm`)."""
    return NativeForm(head=layout.head, tail=layout.tail, model=model)


def keep_native(
    form: NativeForm | None,
    generated: str,
    read: Callable[[str], AgentProfile | None],
    prompt: str | None = None,
) -> str:
    """The file to write for an agent whose file render made as ``generated`` (by
    :func:`write_native`, with ``prompt``; read back from it when not given): the
    remembered ``head``, the prompt, and the remembered ``tail`` when the harness reads that
    as the same agent (``read`` is the codec's reading of one file's text), else
    ``generated``. So an agent nobody changed comes back byte for byte, frontmatter spelling
    and key order included, and a changed one is written afresh."""
    if form is None:
        return generated
    if prompt is None:
        doc = read_native(generated, "", [])
        if doc is None:
            return generated
        prompt = split_layout(doc).prompt
    candidate = form.head + prompt + form.tail
    if candidate == generated:
        return generated
    return candidate if same_agent(read(candidate), read(generated)) else generated


def native_model(written: object, canonical: str) -> str:
    """The model string a file had, to remember when the canonical model does not give it
    back (``inherit``, which means "no model of its own"; surrounding spaces); else ""."""
    return written if isinstance(written, str) and written and written != canonical else ""


def model_for(profile: AgentProfile, codec: str) -> str:
    """The model string to write for ``codec``: the one its file had (see
    :func:`native_model`) while it still stands for the profile's model, else the profile's
    (issue 12 item 4: model ids are never rewritten on a round trip)."""
    form = profile.native.get(codec)
    if form is not None and form.model:
        text = form.model.strip()
        if ("" if text.lower() == "inherit" else text) == profile.model:
            return form.model
    return profile.model


#: Fields that say where or how a file was written, not what agent it defines.
_LAYOUT_FIELDS = frozenset({"source", "native", "fields_set"})


def same_agent(a: AgentProfile | None, b: AgentProfile | None) -> bool:
    """Whether two readings define the same agent (layout and location aside)."""
    if a is None or b is None:
        return False
    return all(
        getattr(a, field) == getattr(b, field)
        for field in a.__struct_fields__
        if field not in _LAYOUT_FIELDS
    )


def dump_yaml(data: dict[str, Any]) -> str:
    """YAML for a frontmatter block: key order kept, unicode as is, no line folding of long
    strings (harness loaders differ on folded scalars). The text is exactly what PyYAML's
    safe dumper writes (a property test holds the two equal)."""
    fast = _Emitter().document(data)
    return fast if fast is not None else _full_dump(expanded(data))


class Tailed(NamedTuple):
    """A block mapping value written as ``head`` (laid out as usual) followed by entries
    laid out in advance: ``text`` is their lines at ``indent`` (see :func:`entry_lines`),
    joined by newlines; no key of those may be in ``head``. For entries that hundreds of
    files of one render share, so each file pays for joining text, not for laying out
    every entry again. ``entries`` gives them as a mapping, for the slow path."""

    head: dict[str, Any]
    text: str
    indent: str
    entries: Callable[[], dict[str, Any]]
    #: What the entries were laid out from, for a reader that can use it as it is (the
    #: OpenCode check reads an agent's scoping denies without a map of them). Any, not
    #: object: mypyc (scripts/native.py) fails on a named tuple field of type object.
    source: Any = None


def entry_lines(data: dict[str, Any], indent: str) -> list[str] | None:
    """The frontmatter lines of a mapping's entries at ``indent``, exactly as
    :func:`dump_yaml` lays them out there; ``None`` when the fast layout does not apply."""
    emitter = _Emitter()
    return emitter.lines if emitter.mapping(data, indent) else None


def expanded(data: Any) -> Any:
    """``data`` with every :class:`Tailed` value merged in; a mapping holding none is
    returned as it is."""
    if type(data) is Tailed:
        return {**expanded(data.head), **data.entries()}
    if type(data) is dict:
        nested = [key for key, value in data.items() if type(value) in _NESTED]
        if nested:
            copy = dict(data)
            for key in nested:
                copy[key] = expanded(data[key])
            return copy
    return data


_NESTED = (dict, Tailed)


# PyYAML's representer walks every node in Python (about 2 µs a node), and an OpenCode
# agent's permission map holds hundreds. Block mappings and sequences of one-line scalars
# are laid out here instead; each distinct scalar is dumped once by PyYAML itself, so its
# quoting is PyYAML's, and anything else (multi-line text, lists of mappings) falls back.
_SCALAR_MEMO: dict[tuple[type, object], str | None] = {}
_SCALAR_MEMO_LIMIT = 65_536


# Strings PyYAML writes plain, as they are: a letter first (so no indicator character and
# no int, float or timestamp reading), then only characters that are never indicators
# inside a block scalar, no trailing space, and not a word its resolver reads as a bool or
# null. Names and descriptions are mostly unique, so the memo below rarely helps them, and
# PyYAML takes ~15 µs per string. A property test holds this equal to PyYAML.
_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9 ,.()/_+'-]*")
_RESERVED = frozenset(
    f(word)
    for word in ("yes", "no", "true", "false", "on", "off", "null", "y", "n")
    for f in (str.lower, str.title, str.upper)
)


def _scalar_text(value: object) -> str | None:
    if type(value) is str:
        # Strings are looked up by themselves: keys and actions repeat in every file.
        # Held as object: compiled (scripts/native.py), a ``str | None`` variable would be
        # type-checked before the sentinel test.
        found: object = _STRING_MEMO.get(value, _MISSING)
        if found is not _MISSING:
            return cast("str | None", found)
        plain = _PLAIN.fullmatch(value) and value[-1] != " " and value not in _RESERVED
        text = value if plain else _dumped(value)
        if len(_STRING_MEMO) < _SCALAR_MEMO_LIMIT:
            _STRING_MEMO[value] = text
        return text
    # -0.0 == 0.0 (and hashes alike) but dumps differently: floats are keyed by repr.
    key = (float, repr(value)) if type(value) is float else (type(value), value)
    try:
        return _SCALAR_MEMO[key]
    except KeyError:
        pass
    text = _dumped(value)
    if len(_SCALAR_MEMO) < _SCALAR_MEMO_LIMIT:
        _SCALAR_MEMO[key] = text
    return text


_MISSING: Any = object()
_STRING_MEMO: dict[str, str | None] = {}


def _dumped(value: object) -> str | None:
    # A top-level plain scalar ends with the document end marker.
    dumped = _full_dump(value).removesuffix("\n...\n").removesuffix("\n")
    return None if "\n" in dumped or not dumped else dumped


_SCALAR_TYPES = (str, int, float, bool, type(None))


class _Emitter:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def document(self, data: dict[str, Any]) -> str | None:
        if not data or not self.mapping(data, ""):
            return None
        return "\n".join(self.lines) + "\n"

    def mapping(self, data: dict[Any, Any], indent: str) -> bool:
        for key, value in data.items():
            if type(key) is not str:
                return False
            key_text = _scalar_text(key)
            # PyYAML writes long or escaped keys as complex ("? ") keys.
            if key_text is None or len(key_text) >= 128 or key_text.startswith('"'):
                return False
            if type(value) in _SCALAR_TYPES:
                text = _scalar_text(value)
                if text is None:
                    return False
                self.lines.append(f"{indent}{key_text}: {text}")
            elif type(value) is dict:
                if not value:
                    self.lines.append(f"{indent}{key_text}: {{}}")
                    continue
                self.lines.append(f"{indent}{key_text}:")
                if not self.mapping(value, indent + "  "):
                    return False
            elif type(value) is Tailed:
                if value.indent != indent + "  " or not (value.head or value.text):
                    return False
                self.lines.append(f"{indent}{key_text}:")
                if value.head and not self.mapping(value.head, value.indent):
                    return False
                if value.text:
                    self.lines.append(value.text)
            elif type(value) is list:
                if not value:
                    self.lines.append(f"{indent}{key_text}: []")
                    continue
                self.lines.append(f"{indent}{key_text}:")
                for item in value:  # PyYAML writes block sequences unindented under a key
                    if type(item) not in _SCALAR_TYPES:
                        return False
                    text = _scalar_text(item)
                    if text is None:
                        return False
                    self.lines.append(f"{indent}- {text}")
            else:
                return False
        return True


def write_native(data: dict[str, Any], prompt: str) -> str:
    """A markdown file with ``data`` as frontmatter (omitted when empty) and ``prompt``,
    written exactly: :func:`split_layout` reads the same prompt back."""
    # A prompt ending in CR ends the file with CRLF, or reading would take its CR for half
    # of the final line end.
    end = "\r\n" if prompt.endswith("\r") else "\n"
    if not data:
        return f"{prompt}{end}"
    head = f"---\n{dump_yaml(data)}---\n"
    text = f"{head}\n{prompt}{end}" if prompt else head
    emitted = _EMITTED.get()
    if emitted is not None:
        emitted[id(text)] = (text, data, len(head))
    return text


#: The files :func:`write_native` wrote while :func:`remembering_written` holds, with the
#: frontmatter each was written from and where its body starts.
#: Keyed by the text's identity (the entry holds the text, so the id cannot be reused):
#: hashing a 50 KB prompt per file cost more than the lookup saves (big prompts).
_EMITTED: ContextVar[dict[int, tuple[str, dict[str, Any], int]] | None]
_EMITTED = ContextVar("roster_written_frontmatter", default=None)


#: What a codec's own reader made of a file it rendered (see :func:`remember_reading`).
_READINGS: ContextVar[dict[int, tuple[str, str, Any]] | None]
_READINGS = ContextVar("roster_rendered_readings", default=None)


@contextlib.contextmanager
def remembering_written() -> Iterator[None]:
    """Within this block, :func:`read_written` knows the frontmatter of every file
    :func:`write_native` writes, so a render's check reads what the codec wrote without
    parsing it back (an OpenCode agent's map can hold a thousand keys), and
    :func:`recalled_reading` what a codec's own reader made of a file it rendered."""
    token = _EMITTED.set({})
    readings = _READINGS.set({})
    try:
        yield
    finally:
        _READINGS.reset(readings)
        _EMITTED.reset(token)


def remember_reading(text: str, path: str, value: Any) -> None:
    """Within :func:`remembering_written`, keep ``value``: what a codec's reader (a pure
    function of the text and path) made of ``text`` at ``path``, a file it just rendered
    and read back to check it (AGH's self-check), so the render check does not read it a
    second time. Keyed by the text object itself."""
    readings = _READINGS.get()
    if readings is not None:
        readings[id(text)] = (text, path, value)


def recalled_reading(text: str, path: str) -> tuple[bool, Any]:
    """``(True, value)`` when :func:`remember_reading` kept ``value`` for this very text
    object at ``path``; ``(False, None)`` otherwise."""
    readings = _READINGS.get()
    kept = None if readings is None else readings.get(id(text))
    if kept is None or kept[0] is not text or kept[1] != path:
        return False, None
    return True, kept[2]


def read_written(
    text: str,
    path: str,
    out: list[Diagnostic],
    recovery: Recovery | None = None,
    *,
    tailed: bool = False,
) -> NativeDocument | None:
    """:func:`read_native_recovering` of ``text``; when :func:`write_native` wrote exactly
    this text within :func:`remembering_written`, the mapping it was written from instead.
    The two are the same: ``dump_yaml`` is PyYAML's safe dump, which the YAML 1.2 loader
    reads back as written (a property test holds ``read_native`` of every written file
    equal to its data), and a file written from valid YAML needs no harness repair.
    ``tailed``: a :class:`Tailed` value stays as it is, for a caller that reads its head
    and source rather than the merged mapping. Only the very text object written counts
    (an equal text read back from disk is parsed)."""
    emitted = _EMITTED.get()
    kept = None if emitted is None else emitted.get(id(text))
    if kept is None or kept[0] is not text:
        return read_native_recovering(text, path, out, recovery)
    _, data, start = kept
    return NativeDocument(
        data if tailed else expanded(data),
        text[start:],
        text.count("\n", 0, start) + 1,
        True,
        {},
        text[:start],
    )


def harness_diagnostic(
    code: str,
    message: str,
    *,
    path: str,
    line: int = 1,
    column: int = 1,
    hint: str = "",
    warning: bool = False,
) -> Diagnostic:
    """A diagnostic about a harness file; ``warning`` for things the harness tolerates."""
    return dx.make(
        code,
        message,
        path=path,
        line=line,
        column=column,
        hint=hint,
        severity=dx.Severity.WARNING if warning else None,
    )
