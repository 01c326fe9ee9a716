"""Harness files as text, or as located diagnostics: the one place codecs turn bytes into
text and text into JSON or TOML values.

Issue 11 item 4: no harness file crashes roster. Every codec reads its native files through
:func:`read_text` (discover, import) or :func:`existing_text` (a file render merges into),
and parses them with :func:`parse_json` / :func:`parse_toml`, which return the value or a
problem with a 1-based line and column and roster's own wording (the same on every Python:
``vault/json_syntax.py``, ``vault/toml_syntax.py``). What the problem *means* (the harness
refuses the file, skips one entry, or render leaves a file alone) is each codec's to say, in
its harness's terms; YAML frontmatter goes through the vault's loader
(``vault/frontmatter.py``), which locates its errors the same way.

A file that is not UTF-8 is never read with replacement characters: the harness may
tolerate it, but an import would change its bytes and a render would overwrite text roster
could not read, so it is an ``encoding-invalid`` error at the first bad byte.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from agent_roster import diagnostics as dx
from agent_roster.codecs.base import ReadExisting
from agent_roster.diagnostics import Diagnostic
from agent_roster.errors import UnreadableFileError
from agent_roster.vault.json_syntax import JsonProblem, json_problem
from agent_roster.vault.toml_syntax import TomlProblem, parse_toml, toml_position

if TYPE_CHECKING:
    from tomlkit.toml_document import TOMLDocument

__all__ = [
    "JsonProblem",
    "TomlProblem",
    "decode_text",
    "existing_present",
    "existing_text",
    "merge_refused",
    "parse_json",
    "parse_toml",
    "problem_at",
    "read_json_file",
    "read_text",
    "toml_merge_target",
    "toml_merged",
]

_SAVE_AS_UTF8 = "save the file as UTF-8"


def decode_text(data: bytes, path: str, *, hint: str = _SAVE_AS_UTF8) -> str | Diagnostic:
    """``data`` as text, line ends untouched (a prompt's CRLF is part of it), or an
    ``encoding-invalid`` error at the first byte that is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line_start = before.rfind(b"\n") + 1
        # Everything before the bad byte decoded, so its column counts characters.
        column = len(before[line_start:].decode("utf-8")) + 1
        return dx.make(
            "encoding-invalid",
            f"byte 0x{data[exc.start]:02x} is not valid UTF-8",
            path=path,
            line=before.count(b"\n") + 1,
            column=column,
            hint=hint,
        )


def read_text(path: Path, out: list[Diagnostic], *, hint: str = _SAVE_AS_UTF8) -> str | None:
    """The text of the harness file ``path``, exactly; ``None`` with a diagnostic in
    ``out`` when it cannot be read (``file-unreadable``) or is not UTF-8
    (``encoding-invalid``). ``hint`` says what the harness makes of it."""
    where = str(path)
    try:
        data = _read_regular(path)
    except OSError as exc:
        out.append(
            dx.make(
                "file-unreadable",
                f"cannot read {where}: {exc.strerror or type(exc).__name__}",
                path=where,
                hint=hint if hint != _SAVE_AS_UTF8 else "check that it is a readable file",
            )
        )
        return None
    found = decode_text(data, where, hint=hint)
    if isinstance(found, Diagnostic):
        out.append(found)
        return None
    return found


def read_json_file(
    path: Path, out: list[Diagnostic], *, title: str, hint: str, warning: bool = False
) -> Any:
    """The JSON value in the harness file ``path``; ``None`` when there is no such file,
    and also (with a located diagnostic in ``out``) when it cannot be read or parsed.
    ``title`` names the harness in the message; ``warning`` when the harness tolerates
    the broken file."""
    if not path.is_file():
        return None
    found: list[Diagnostic] = []
    text = read_text(path, found, hint=hint)
    data = None if text is None else parse_json(text)
    if isinstance(data, JsonProblem):
        found.append(
            dx.make(
                "harness-invalid",
                f"{title} cannot parse {path}: {data.message}",
                path=str(path),
                line=data.line,
                column=data.column,
                hint=f"{data.hint}; {hint}",
            )
        )
        data = None
    severity = dx.Severity.WARNING if warning else None
    out.extend(msgspec.structs.replace(d, severity=severity or d.severity) for d in found)
    return data


def _read_regular(path: Path) -> bytes:
    # Without blocking, and only a regular file: reading a FIFO would hang discover.
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file (a folder, a FIFO or a device)")
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def existing_text(
    existing: ReadExisting, rel: str, out: list[Diagnostic]
) -> str | Literal[False] | None:
    """The text of ``rel`` in the output folder, ``None`` when there is none, or ``False``
    (with the located diagnostic in ``out``) when it exists but is not UTF-8 text: render
    then leaves it alone rather than replace what it could not read."""
    try:
        return existing(rel)
    except UnreadableFileError as exc:
        out.extend(exc.diagnostics)
        return False


def existing_present(existing: ReadExisting, rel: str) -> bool:
    """Whether ``rel`` exists in the output folder, readable or not."""
    try:
        return existing(rel) is not None
    except UnreadableFileError:
        return True


def json_text(value: Any) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False) + "\n"``, byte for byte: the
    layout every JSON file render writes. The standard library indents with its pure-Python
    encoder (20x slower than msgspec's, and a render writes an MCP sidecar per AGH agent),
    so a value of strings, booleans, null, 64-bit integers, lists and string-keyed objects
    is written by msgspec, whose layout is the same; floats (written ``1e100``, not
    ``1e+100``, and NaN as null), other keys and anything else keep json.dumps."""
    try:
        plain = _plain_json(value)
    except RecursionError:
        plain = False  # json.dumps says why (it raises the same)
    if plain:
        try:
            encoded = msgspec.json.encode(value)
        except UnicodeEncodeError:
            pass  # a lone surrogate: json.dumps writes it, and the caller's encode fails
        else:
            return msgspec.json.format(encoded, indent=2).decode() + "\n"
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


_INT_RANGE = range(-(2**63), 2**64)


def _plain_json(value: Any) -> bool:
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return value in _INT_RANGE
    if kind is dict:
        return all(type(k) is str and _plain_json(v) for k, v in value.items())
    if kind is list or kind is tuple:
        return all(_plain_json(v) for v in value)
    return False


def parse_json(text: str) -> Any | JsonProblem:
    """``text`` as a JSON value, or its first problem. A decoded value is never a tuple,
    so ``isinstance(found, JsonProblem)`` tells them apart."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return json_problem(text, exc.pos)
    except RecursionError:
        return JsonProblem(1, 1, "arrays or objects nest too deeply", "flatten the nesting")
    except ValueError:
        # An integer longer than Python converts (sys.get_int_max_str_digits).
        return problem_at(
            text, _LONG_NUMBER.search(text), "a number has too many digits", "write it as a string"
        )
    if "\\u" in text and _LONE_SURROGATE.search(text):
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            return problem_at(
                text,
                _LONE_SURROGATE.search(text),
                "a \\u escape names half of a surrogate pair",
                "escape the whole character (two \\u escapes for one beyond U+FFFF)",
            )
    return value


_LONG_NUMBER = re.compile(r"[0-9]{4000,}")
_LONE_SURROGATE = re.compile(
    r"(?<![0-9a-fA-F])\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])"
    r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)


def problem_at(text: str, found: re.Match[str] | None, message: str, hint: str) -> JsonProblem:
    """A problem at the start of ``found`` in ``text`` (line 1, column 1 without one)."""
    offset = found.start() if found is not None else 0
    line = text.count("\n", 0, offset) + 1
    return JsonProblem(line, offset - (text.rfind("\n", 0, offset) + 1) + 1, message, hint)


def merge_refused(
    out: list[Diagnostic], rel: str, what: str, problem: str, hint: str, at: tuple[int, int]
) -> None:
    """The error for a file render would merge ``what`` into but leaves alone."""
    out.append(
        dx.make(
            "render-unsupported",
            f"cannot merge {what} into {rel}: {problem}; render leaves the file as it is",
            path=rel,
            line=at[0],
            column=at[1],
            hint=hint,
        )
    )


def toml_merge_target(
    text: str | None, rel: str, out: list[Diagnostic], *, what: str
) -> TOMLDocument | None:
    """The TOML file ``rel`` render merges ``what`` into, as a document that keeps its
    comments and layout (empty when there is none); ``None`` with a located error in
    ``out`` when it does not parse. ``tomllib`` judges (tomlkit accepts some invalid
    TOML), tomlkit edits."""
    # Imported here: only TOML harnesses need it, and it is 5 ms of every CLI start.
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    if not text:
        return tomlkit.document()
    found = parse_toml(text)
    if isinstance(found, TomlProblem):
        merge_refused(out, rel, what, found.message, found.hint, (found.line, found.column))
        return None
    try:
        return tomlkit.parse(text)
    except TOMLKitError as exc:
        at = (getattr(exc, "line", 1) or 1, (getattr(exc, "col", 0) or 0) + 1)
        merge_refused(out, rel, what, "roster cannot edit this TOML layout", "", at)
        return None


def toml_merged(doc: TOMLDocument, rel: str, out: list[Diagnostic], *, what: str) -> str | None:
    """The text of an edited merge target, checked to parse again before anyone writes
    it (never replace a working file with one the harness cannot read)."""
    import tomlkit

    text = tomlkit.dumps(doc)
    found = parse_toml(text)
    if isinstance(found, TomlProblem):
        merge_refused(out, rel, what, "the merged file would not parse", "", (1, 1))
        return None
    return text


def shape_problem(
    text: str, data: Any, checks: Sequence[tuple[tuple[str, ...], str, type | tuple[type, ...]]]
) -> tuple[str, tuple[int, int]] | None:
    """The first of ``checks`` (key path, what it must be, Python type) that ``data`` (a
    parsed TOML document) breaks, with the key's position in ``text``."""
    for path, must, kind in checks:
        value: Any = data
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if value is not None and not isinstance(value, kind):
            return f"{'.'.join(path)} is not {must}", toml_position(text, path)
    return None
