"""Reading a vault document: bytes to normalised text, and the diagnostic reporter."""

from __future__ import annotations

from typing import Any

from agent_roster import diagnostics as dx
from agent_roster.diagnostics import Diagnostic
from agent_roster.vault.jsonblock import JsonBlock, PathPart


def normalise(raw: bytes | str, path: str, out: list[Diagnostic]) -> str | None:
    """Decode UTF-8, strip a BOM, and turn CRLF/CR into LF so line numbers match editors.
    Returns None (with a diagnostic) when the bytes are not UTF-8."""
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            before = raw[: exc.start]
            line = before.count(b"\n") + 1
            column = len(before) - (before.rfind(b"\n") + 1) + 1
            out.append(
                dx.make(
                    "encoding-invalid",
                    f"byte 0x{raw[exc.start]:02x} is not valid UTF-8",
                    path=path,
                    line=line,
                    column=column,
                    hint="save the file as UTF-8",
                )
            )
            return None
    else:
        text = raw
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:  # a lone surrogate: no file can hold it
            prefix = text[: exc.start]
            out.append(
                dx.make(
                    "encoding-invalid",
                    f"character U+{ord(text[exc.start]):04X} cannot be encoded as UTF-8",
                    path=path,
                    line=prefix.count("\n") + 1,
                    column=len(prefix) - (prefix.rfind("\n") + 1) + 1,
                    hint="remove the unpaired surrogate",
                )
            )
            return None
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


class Reporter:
    """Collects diagnostics for one file."""

    __slots__ = ("out", "path")

    def __init__(self, path: str, out: list[Diagnostic]) -> None:
        self.path = path
        self.out = out

    def add(self, code: str, message: str, line: int = 1, column: int = 1, hint: str = "") -> None:
        self.out.append(dx.make(code, message, path=self.path, line=line, column=column, hint=hint))

    def at(
        self,
        block: JsonBlock,
        where: tuple[PathPart, ...],
        code: str,
        message: str,
        hint: str = "",
        *,
        key: bool = False,
    ) -> None:
        """Report at the position of a value (or key) inside a JSON block."""
        line, column = block.position(where, key=key)
        self.add(code, message, line, column, hint)

    @property
    def has_errors(self) -> bool:
        return any(d.is_error for d in self.out)


def describe(value: Any) -> str:
    """A short rendering of a user value for messages, spelled as the user wrote it
    (``null``, ``true``), and bounded: values can be huge, nested or cyclic."""
    text = _render(value, 3)
    return text if len(text) <= 60 else text[:57] + "..."


def _render(value: Any, depth: int) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value[:80])
    if isinstance(value, list | tuple | dict):
        if depth == 0:
            return "[...]" if not isinstance(value, dict) else "{...}"
        if isinstance(value, dict):
            items = [f"{_render(k, 0)}: {_render(v, depth - 1)}" for k, v in _head(value.items())]
            return "{" + ", ".join(items) + (", ...}" if len(value) > 8 else "}")
        items = [_render(v, depth - 1) for v in _head(value)]
        return "[" + ", ".join(items) + (", ...]" if len(value) > 8 else "]")
    if isinstance(value, int) and value.bit_length() > 256:
        return "a very large integer"  # repr() refuses ints beyond 4,300 digits
    return repr(value)[:80]


def _head(items: Any) -> list[Any]:
    return [item for _, item in zip(range(8), items, strict=False)]
