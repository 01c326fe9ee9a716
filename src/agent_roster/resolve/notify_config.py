"""roster.toml ``[notify]``: where ``roster up`` sends sync failures and recoveries.

::

    [[notify.webhook]]
    url = "http://127.0.0.1:9000/roster"   # POST of the event JSON
    timeout = 5.0                          # seconds per attempt
    retries = 3                            # more attempts after the first, with backoff
    backoff = 0.5                          # seconds before the first retry, doubling
    queue = 1000                           # undelivered events kept (oldest dropped)

    [[notify.command]]
    argv = ["notify-send", "roster"]       # run without a shell, event JSON on stdin
    timeout = 10.0
    queue = 1000

Read with the rest of roster.toml (:func:`agent_roster.resolve.config.load_config`): every
problem is a diagnostic with its line, and a sink with a problem is left out, never half
read.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from agent_roster import diagnostics as dx
from agent_roster.diagnostics import Diagnostic, did_you_mean
from agent_roster.vault.paths import CONFIG_FILE


class WebhookConfig(msgspec.Struct, frozen=True, kw_only=True):
    url: str
    timeout: float = 5.0
    retries: int = 3
    backoff: float = 0.5
    queue: int = 1000


class CommandConfig(msgspec.Struct, frozen=True, kw_only=True):
    argv: tuple[str, ...]
    timeout: float = 10.0
    queue: int = 1000


class NotifyConfig(msgspec.Struct, frozen=True, kw_only=True):
    """``[[notify.webhook]]`` and ``[[notify.command]]`` tables, in file order."""

    webhook: tuple[WebhookConfig, ...] = ()
    command: tuple[CommandConfig, ...] = ()


_KINDS: dict[str, type[WebhookConfig] | type[CommandConfig]] = {
    "webhook": WebhookConfig,
    "command": CommandConfig,
}


def _number(value: Any, *, integer: bool = False, minimum: float = 0) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if integer and not isinstance(value, int):
        return False
    return value >= minimum


def _check(key: str, value: Any) -> str | None:
    """What is wrong with one setting, or ``None``."""
    if key == "url":
        ok = isinstance(value, str) and value.startswith(("http://", "https://"))
        return None if ok else "must be an http(s) URL"
    if key == "argv":
        ok = isinstance(value, list) and bool(value) and all(isinstance(a, str) for a in value)
        return None if ok and value[0] else "must be a non-empty list of strings (no shell)"
    if key == "timeout":
        return None if _number(value) and value > 0 else "must be a positive number of seconds"
    if key == "retries":
        return None if _number(value, integer=True) else "must be a whole number, 0 or more"
    if key == "backoff":
        return None if _number(value) else "must be a number of seconds, 0 or more"
    if key == "queue":
        return None if _number(value, integer=True, minimum=1) else "must be a whole number >= 1"
    return None


def parse_notify(table: Any, text: str, out: list[Diagnostic]) -> NotifyConfig:
    """``[notify]`` as read by tomllib; problems go to ``out`` located in ``text``."""
    if not isinstance(table, dict):
        out.append(_problem("[notify] must be a table", _line(text, r"\[\s*notify\s*\]")))
        return NotifyConfig()
    found: dict[str, list[Any]] = {"webhook": [], "command": []}
    for kind, entries in table.items():
        if kind not in _KINDS:
            out.append(
                dx.make(
                    "field-unknown",
                    f"unknown table [notify.{kind}] in {CONFIG_FILE}",
                    path=CONFIG_FILE,
                    line=_line(text, rf"\[\[?\s*notify\.{re.escape(kind)}\s*\]"),
                    hint=did_you_mean(kind, _KINDS)
                    or "use [[notify.webhook]] or [[notify.command]]",
                )
            )
            continue
        if not isinstance(entries, list):
            entries = [entries]
        # Each entry's header line, found in one pass (not one pass per entry).
        lines = _lines(text, rf"\[\[\s*notify\.{kind}\s*\]\]")
        for number, entry in enumerate(entries, 1):
            line = lines[number - 1] if number <= len(lines) else 1
            parsed = _entry(kind, entry, line, out)
            if parsed is not None:
                found[kind].append(parsed)
    return NotifyConfig(webhook=tuple(found["webhook"]), command=tuple(found["command"]))


def _entry(kind: str, entry: Any, line: int, out: list[Diagnostic]) -> Any:
    where = f"[[notify.{kind}]]"
    if not isinstance(entry, dict):
        out.append(_problem(f"{where} must be a table", line, f"write {where} on its own line"))
        return None
    kept: dict[str, Any] = {}
    ok = True
    fields = _KINDS[kind].__struct_fields__
    for key, value in entry.items():
        if key not in fields:
            out.append(
                dx.make(
                    "field-unknown",
                    f"unknown key {key!r} in {where}",
                    path=CONFIG_FILE,
                    line=line,
                    hint=did_you_mean(key, fields),
                )
            )
            continue
        problem = _check(key, value)
        if problem is not None:
            out.append(_problem(f"{where} {key} {problem}", line))
            ok = False
        else:
            kept[key] = tuple(value) if key == "argv" else value
    required = "url" if kind == "webhook" else "argv"
    if required not in entry:
        out.append(_problem(f"{where} needs {required}", line))
        ok = False
    return msgspec.convert(kept, _KINDS[kind]) if ok else None


def _problem(message: str, line: int, hint: str = "") -> Diagnostic:
    return dx.make("field-value", message, path=CONFIG_FILE, line=line, hint=hint)


def _line(text: str, header: str) -> int:
    """The line of the first header matching ``header`` (tomllib keeps no positions)."""
    lines = _lines(text, header)
    return lines[0] if lines else 1


def _lines(text: str, header: str) -> list[int]:
    """The line of every header matching ``header``, in order."""
    pattern = re.compile(rf"^\s*{header}")
    return [number for number, line in enumerate(text.splitlines(), 1) if pattern.match(line)]
