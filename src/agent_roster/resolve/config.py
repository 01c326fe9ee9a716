"""``roster.toml``: the base runtime configuration at the vault root.

The system default of the cascade (seed 001: "use the adapter defaults") is written here,
so it is visible and versioned with the vault rather than buried in code::

    [defaults]
    runtime = "claude_sdk"
    model = "claude-sonnet-4-6"
    permission_mode = "acceptEdits"
    allowed_tools = ["Read", "Grep"]
    denied_tools = []
    max_turns = 200

    [embedded_server]
    name = "agent-queue"                       # MCP name of our own command server
    url = "http://127.0.0.1:8765/mcp"          # how launched agents reach it
    inject = true                              # attach it to every claude_sdk launch
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from agent_roster import diagnostics as dx
from agent_roster.diagnostics import Diagnostic, did_you_mean
from agent_roster.known_tools import DEFAULT_EMBEDDED_SERVER
from agent_roster.model.profile import PERMISSION_MODES, AgentProfile, Runtime
from agent_roster.vault.paths import CONFIG_FILE, segment_problem

DEFAULT_KEYS = (
    "runtime",
    "model",
    "permission_mode",
    "allowed_tools",
    "denied_tools",
    "max_turns",
    "max_tokens_per_task",
    "provider",
)
SERVER_KEYS = ("name", "url", "inject")


class EmbeddedServer(msgspec.Struct, frozen=True, kw_only=True):
    name: str = DEFAULT_EMBEDDED_SERVER
    url: str = ""
    inject: bool = True


class RosterConfig(msgspec.Struct, frozen=True, kw_only=True):
    """The parsed roster.toml; ``defaults`` is a profile holding only the base values."""

    defaults: AgentProfile
    embedded: EmbeddedServer = EmbeddedServer()
    source: str = CONFIG_FILE


class LoadedConfig(NamedTuple):
    config: RosterConfig
    diagnostics: tuple[Diagnostic, ...]


def _base_defaults() -> AgentProfile:
    return AgentProfile(
        id="(system default)", name="System default", runtime=Runtime.CLAUDE_SDK, source=CONFIG_FILE
    )


def load_config(vault: str | os.PathLike[str]) -> LoadedConfig:
    """Read ``roster.toml`` (absent: built-in defaults). Problems are diagnostics; a bad
    value is dropped so the built-in default applies, never a half-read value."""
    path = Path(vault) / CONFIG_FILE
    out: list[Diagnostic] = []
    if not path.is_file():
        return LoadedConfig(RosterConfig(defaults=_base_defaults()), ())
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        out.append(
            dx.make("file-unreadable", f"cannot read {CONFIG_FILE}: {exc}", path=CONFIG_FILE)
        )
        return LoadedConfig(RosterConfig(defaults=_base_defaults()), tuple(out))
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", 1) or 1
        column = getattr(exc, "colno", 1) or 1
        out.append(
            dx.make(
                "yaml-invalid",
                f"invalid TOML in {CONFIG_FILE}: {exc}",
                path=CONFIG_FILE,
                line=line,
                column=column,
                hint="check quoting and brackets",
            )
        )
        return LoadedConfig(RosterConfig(defaults=_base_defaults()), tuple(out))
    for key in data:
        if key not in ("defaults", "embedded_server"):
            out.append(
                dx.make(
                    "field-unknown",
                    f"unknown table [{key}] in {CONFIG_FILE}",
                    path=CONFIG_FILE,
                    hint=did_you_mean(key, ("defaults", "embedded_server")),
                )
            )
    defaults = _defaults(data.get("defaults", {}), out)
    embedded = _embedded(data.get("embedded_server", {}), out)
    return LoadedConfig(RosterConfig(defaults=defaults, embedded=embedded), tuple(out))


def _problem(out: list[Diagnostic], message: str, hint: str = "") -> None:
    out.append(dx.make("field-value", message, path=CONFIG_FILE, hint=hint))


def _defaults(table: Any, out: list[Diagnostic]) -> AgentProfile:
    fields: dict[str, Any] = {}
    if not isinstance(table, dict):
        _problem(out, "[defaults] must be a table")
        return _base_defaults()
    for key, value in table.items():
        if key == "runtime":
            if value in {r.value for r in Runtime}:
                fields["runtime"] = Runtime(value)
            else:
                _problem(
                    out,
                    f"[defaults] runtime {value!r} is not one of "
                    + ", ".join(r.value for r in Runtime),
                )
        elif key in ("model", "provider"):
            if isinstance(value, str) and value.strip():
                fields[key] = value.strip()
            else:
                _problem(out, f"[defaults] {key} must be a non-empty string")
        elif key == "permission_mode":
            if value in PERMISSION_MODES:
                fields[key] = value
            else:
                _problem(
                    out,
                    f"[defaults] permission_mode {value!r} is not one of "
                    + ", ".join(PERMISSION_MODES),
                )
        elif key in ("allowed_tools", "denied_tools"):
            if isinstance(value, list) and all(isinstance(v, str) and v for v in value):
                fields[key] = tuple(value)
            else:
                _problem(out, f"[defaults] {key} must be a list of tool names")
        elif key in ("max_turns", "max_tokens_per_task"):
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                fields[key] = value
            else:
                _problem(out, f"[defaults] {key} must be a positive integer")
        else:
            out.append(
                dx.make(
                    "field-unknown",
                    f"unknown key {key!r} in [defaults]",
                    path=CONFIG_FILE,
                    hint=did_you_mean(key, DEFAULT_KEYS),
                )
            )
    base = _base_defaults()
    return msgspec.structs.replace(base, **fields, fields_set=frozenset(fields))


def _embedded(table: Any, out: list[Diagnostic]) -> EmbeddedServer:
    if not isinstance(table, dict):
        _problem(out, "[embedded_server] must be a table")
        return EmbeddedServer()
    fields: dict[str, Any] = {}
    for key, value in table.items():
        if key == "name":
            problem = segment_problem(value)
            if problem is None:
                fields["name"] = value
            else:
                _problem(out, f"[embedded_server] name {problem}")
        elif key == "url":
            if isinstance(value, str) and value.startswith(("http://", "https://")):
                fields["url"] = value
            else:
                _problem(out, "[embedded_server] url must be an http(s) URL")
        elif key == "inject":
            if isinstance(value, bool):
                fields["inject"] = value
            else:
                _problem(out, "[embedded_server] inject must be true or false")
        else:
            out.append(
                dx.make(
                    "field-unknown",
                    f"unknown key {key!r} in [embedded_server]",
                    path=CONFIG_FILE,
                    hint=did_you_mean(key, SERVER_KEYS),
                )
            )
    return EmbeddedServer(**fields)
