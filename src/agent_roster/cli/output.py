"""Rendering command results for terminals, JSON and GitHub workflow annotations.

Everything the CLI prints goes through this module, and through :func:`agent_roster.redact.
redact` on the way (issue 11 item 3): :func:`echo` for text, :func:`emit_json` for
``--json``, :func:`print_diagnostics` for diagnostics. A test keeps ``click.echo`` and direct
stream writes out of the other CLI modules.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TextIO

import click

from agent_roster.diagnostics import Diagnostic, Severity
from agent_roster.redact import redact_data, redact_text

#: The last large result a command printed. ``roster`` ends through ``os._exit``
#: (``cli.app.run``), so a result still held then is never freed object by object: a
#: 10,000-profile render's report (200,000 losses) takes 25 ms to free, for memory the
#: system takes back whole. One slot: a process that runs many commands keeps only one.
_kept: list[object] = []


def keep_to_exit(result: object) -> None:
    """Hold ``result`` until the next call (or the process's end) instead of freeing it
    when the command returns."""
    _kept[:] = [result]


def echo(message: str = "", *, err: bool = False, nl: bool = True) -> None:
    """Print one message (to stderr with ``err``), its secrets masked."""
    click.echo(redact_text(message), err=err, nl=nl)


def emit_json(data: Any, stream: TextIO | None = None) -> None:
    """Print ``data`` as JSON, its secrets masked (by key name and by value)."""
    text = json.dumps(redact_data(data), indent=2, ensure_ascii=False)
    (stream or sys.stdout).write(text + "\n")


def emit(result: Any, as_json: bool, text: Callable[[], None]) -> None:
    """A command's result: its JSON form (the one every surface gives, see
    :func:`agent_roster.commands.registry.encode`) with ``--json``, else ``text()``."""
    if as_json:
        if hasattr(result, "to_dict"):  # a result of a command outside the registry
            emit_json(result.to_dict())
        else:
            from agent_roster.commands.registry import encode

            emit_json(encode(result))
    else:
        text()


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotation(d: Diagnostic) -> str:
    """A GitHub Actions workflow command that annotates the line in the PR diff."""
    level = "error" if d.severity is Severity.ERROR else "warning"
    message = d.message + (f" (hint: {d.hint})" if d.hint else "")
    return (
        f"::{level} file={_escape_property(d.path)},line={d.line},col={d.column},"
        f"title={_escape_property(d.code)}::{_escape_data(message)}"
    )


#: Diagnostics sharing a code and message are printed one by one up to this many; above
#: it, as one line with the count and this many places (issue 12 item 9).
#: Distinct messages of one code printed before the rest become one line.
MESSAGES_SHOWN = 5
GROUP_ABOVE = 3


def verbose_option(function: Any) -> Any:
    """``--verbose``: every diagnostic on its own line, none grouped."""
    return click.option(
        "--verbose", "-v", is_flag=True, help="List every diagnostic; do not group repeats."
    )(function)


def print_diagnostics(
    diagnostics: Iterable[Diagnostic], fmt: str, stream: TextIO, *, verbose: bool = False
) -> None:
    """Print diagnostics for a terminal (``text``) or as GitHub annotations (``github``,
    every one: each annotates its own line).

    In text, diagnostics that share a severity, code and message are grouped: a few are
    printed as they are, more as one line with their count and the first places, so a
    vault with 17,000 warnings about the same twenty names prints a screenful.
    ``verbose`` prints every one; ``--json`` outputs always list every one."""
    if fmt == "github":
        lines = [github_annotation(d) for d in diagnostics]
    elif verbose:
        lines = [d.format() for d in diagnostics]
    else:
        lines = grouped_lines(diagnostics)
    stream.write("".join(redact_text(line) + "\n" for line in lines))


#: Per-file lines (sync's events, starter files) shown before "and N more".
LINES_SHOWN = 20


def capped_lines(lines: list[str], noun: str, *, verbose: bool) -> list[str]:
    """``lines`` as they are with ``verbose`` or when there are few; else the first
    :data:`LINES_SHOWN` and a line saying how many more there are."""
    if verbose or len(lines) <= LINES_SHOWN:
        return lines
    more = len(lines) - LINES_SHOWN
    return [*lines[:LINES_SHOWN], f"... and {more:,} more {noun} (--verbose lists each one)"]


def grouped_lines(diagnostics: Iterable[Diagnostic]) -> list[str]:
    """The text lines :func:`print_diagnostics` prints without ``verbose``: groups in the
    order of their first diagnostic."""
    groups: dict[tuple[str, str, str], list[Diagnostic]] = {}
    for d in diagnostics:
        groups.setdefault((d.severity.value, d.code, d.message), []).append(d)
    # Messages that name their profile (render-widens, render-unsupported) never repeat
    # exactly: past MESSAGES_SHOWN such one-off messages of one code, the rest are one
    # line. Messages that do repeat keep their own line each.
    by_code: dict[tuple[str, str], list[list[Diagnostic]]] = {}
    for (severity, code, _), members in groups.items():
        if len(members) == 1:
            by_code.setdefault((severity, code), []).append(members)
    lines: list[str] = []
    cut = False
    summarized: set[tuple[str, str]] = set()
    for (severity, code, message), members in groups.items():
        kinds = by_code.get((severity, code), [])
        if len(kinds) > MESSAGES_SHOWN and members is kinds[MESSAGES_SHOWN]:
            rest = [d for group in kinds[MESSAGES_SHOWN:] for d in group]
            places = ", ".join(f"{d.path}:{d.line}:{d.column}" for d in rest[:GROUP_ABOVE])
            more = len(rest) - min(len(rest), GROUP_ABOVE)
            lines.append(
                f"{severity}[{code}] ... and {len(rest):,} more like these, with other "
                f"messages (at {places}" + (f" and {more:,} more)" if more else ")")
            )
            summarized.add((severity, code))
            cut = True
        if (severity, code) in summarized and len(members) == 1:
            continue
        if len(members) <= GROUP_ABOVE:
            lines.extend(d.format() for d in members)
            continue
        cut = True
        places = ", ".join(f"{d.path}:{d.line}:{d.column}" for d in members[:GROUP_ABOVE])
        more = len(members) - GROUP_ABOVE
        lines.append(
            f"{severity}[{code}] {message} ({len(members):,} times: {places} and {more:,} more)"
        )
        hints = {d.hint for d in members}
        if len(hints) == 1 and members[0].hint:
            lines.append(f"    hint: {members[0].hint}")
        elif members[0].hint:
            lines.append(f"    hint (the first): {members[0].hint}")
    if cut:
        lines.append("(--verbose lists each one)")
    return lines


def profile_text(profile: Mapping[str, Any]) -> str:
    """A readable summary of a profile's JSON form (``AgentProfile.to_json_dict``) for
    ``roster show``."""
    install = profile.get("install") or {}

    def listed(value: Any) -> str:
        return ", ".join(value or ())

    def scalar(value: Any) -> str:
        return "" if value is None else str(value)

    rows: list[tuple[str, str]] = [
        ("id", scalar(profile.get("id"))),
        ("name", scalar(profile.get("name"))),
        ("description", scalar(profile.get("description"))),
        ("source", scalar(profile.get("source"))),
        ("project", scalar(profile.get("project"))),
        ("extends", scalar(profile.get("extends"))),
        ("tags", listed(profile.get("tags"))),
        ("model", scalar(profile.get("model"))),
        ("provider", scalar(profile.get("provider"))),
        ("permission_mode", scalar(profile.get("permission_mode"))),
        ("runtime", scalar(profile.get("runtime"))),
        ("agent_name", scalar(profile.get("agent_name"))),
        ("max_tokens_per_task", scalar(profile.get("max_tokens_per_task") or "")),
        ("max_turns", scalar(profile.get("max_turns") or "")),
        (
            "allowed_tools",
            (listed(profile.get("allowed_tools")) or "(none)") + " (exact)"
            if profile.get("tools_exact")
            else listed(profile.get("allowed_tools")),
        ),
        ("denied_tools", listed(profile.get("denied_tools"))),
        ("mcp_servers", listed(profile.get("mcp_servers"))),
        ("install.npm", listed(install.get("npm"))),
        ("install.pip", listed(install.get("pip"))),
        ("install.commands", listed(install.get("commands"))),
    ]
    width = max(len(k) for k, _ in rows)
    lines = [f"{k.ljust(width)}  {v}" for k, v in rows if v]
    rules = profile.get("permission") or ()
    if rules:
        lines.append("permission:")
        lines.extend(f"  {r['permission']} {r['pattern']} → {r['action']}" for r in rules)
    if profile.get("prompt"):
        lines.append("")
        lines.append(profile["prompt"])
    return "\n".join(lines) + "\n"
