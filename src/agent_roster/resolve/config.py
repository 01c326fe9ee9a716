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
    commands = ["triage_ticket"]               # its commands beyond the built-in catalog

    [[notify.webhook]]                         # roster up's notification sinks
    url = "http://127.0.0.1:9000/roster"       # (agent_roster.resolve.notify_config)
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from agent_roster import diagnostics as dx
from agent_roster.argv import CODE as ARGV_CODE
from agent_roster.argv import option_problem
from agent_roster.diagnostics import Diagnostic, did_you_mean
from agent_roster.errors import PathOutsideVaultError
from agent_roster.install.policy import InstallPolicy, policy_from
from agent_roster.known_tools import DEFAULT_EMBEDDED_SERVER, embedded_commands
from agent_roster.model.profile import PERMISSION_MODES, AgentProfile, Runtime
from agent_roster.resolve.notify_config import NotifyConfig, parse_notify
from agent_roster.vault.guard import read_in_vault
from agent_roster.vault.paths import CONFIG_FILE, VaultLayout, segment_problem
from agent_roster.vault.toml_syntax import TomlProblem, parse_toml

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
SERVER_KEYS = ("name", "url", "inject", "commands")
#: roster.toml's tables; ``[notify]`` is read with the rest (notify_config.py) and
#: used by the daemon, ``[sources]`` by the source commands (sources/declare.py).
TABLES = ("defaults", "embedded_server", "install", "notify", "sources")
# A command name as profiles write it bare: no prefix, no rule in parentheses, no spaces.
_COMMAND = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


class EmbeddedServer(msgspec.Struct, frozen=True, kw_only=True):
    name: str = DEFAULT_EMBEDDED_SERVER
    url: str = ""
    inject: bool = True
    #: Command names the server has beyond ``commands/catalog.py`` (plugin tools): bare
    #: names profiles may write, which Claude Code sees as ``mcp__<name>__<command>``.
    commands: tuple[str, ...] = ()

    @property
    def command_names(self) -> frozenset[str]:
        """Every command of the server: the catalog plus :attr:`commands`."""
        return embedded_commands(self.commands)


class RosterConfig(msgspec.Struct, frozen=True, kw_only=True):
    """The parsed roster.toml; ``defaults`` is a profile holding only the base values."""

    defaults: AgentProfile
    embedded: EmbeddedServer = EmbeddedServer()
    #: Where ``roster up`` sends sync failures and recoveries.
    notify: NotifyConfig = NotifyConfig()
    #: ``[install]``: where and how ``roster install`` may install.
    install: InstallPolicy = InstallPolicy()
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
        # Through the vault guard: a roster.toml linking outside the vault is not read.
        text = read_in_vault(VaultLayout(vault), path).decode("utf-8")
    except PathOutsideVaultError as exc:
        out.extend(exc.diagnostics)
        return LoadedConfig(RosterConfig(defaults=_base_defaults()), tuple(out))
    except (OSError, UnicodeDecodeError) as exc:
        out.append(
            dx.make("file-unreadable", f"cannot read {CONFIG_FILE}: {exc}", path=CONFIG_FILE)
        )
        return LoadedConfig(RosterConfig(defaults=_base_defaults()), tuple(out))
    data = parse_toml(text)
    if isinstance(data, TomlProblem):
        # Located and worded by roster, the same on every Python (vault/toml_syntax.py).
        out.append(
            dx.make(
                "yaml-invalid",
                f"invalid TOML in {CONFIG_FILE}: {data.message}",
                path=CONFIG_FILE,
                line=data.line,
                column=data.column,
                hint=data.hint,
            )
        )
        return LoadedConfig(RosterConfig(defaults=_base_defaults()), tuple(out))
    at = _Locator(text)
    for key in data:
        if key not in TABLES:
            out.append(
                dx.make(
                    "field-unknown",
                    f"unknown table [{key}] in {CONFIG_FILE}",
                    path=CONFIG_FILE,
                    hint=did_you_mean(key, TABLES),
                    line=at(key)[0],
                    column=at(key)[1],
                )
            )
    defaults = _defaults(data.get("defaults", {}), out, at)
    embedded = _embedded(data.get("embedded_server", {}), out, at)
    install = _install(data.get("install", {}), out, at)
    notify = parse_notify(data.get("notify", {}), text, out)
    config = RosterConfig(defaults=defaults, embedded=embedded, install=install, notify=notify)
    return LoadedConfig(config, tuple(out))


def _install(table: Any, out: list[Diagnostic], locate: _Locator) -> InstallPolicy:
    policy, problems = policy_from(table)
    for problem in problems:
        line, column = locate("install", problem.key) if problem.key else locate("install")
        out.append(
            dx.make(
                problem.code,
                problem.message,
                path=CONFIG_FILE,
                line=line,
                column=column,
                hint="see docs/format.md, roster.toml [install]",
            )
        )
    return policy


class _Locator:
    """Line and column of a table header or of a key inside a table. tomllib keeps no
    positions, so the text is scanned; the usual one-key-per-line layout is all it needs."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()

    def __call__(self, table: str, key: str | None = None) -> tuple[int, int]:
        header = re.compile(rf"^\s*\[\s*{re.escape(table)}\s*\]")
        start = next((i for i, line in enumerate(self.lines) if header.match(line)), None)
        if start is None:
            return 1, 1
        if key is None:
            return start + 1, self.lines[start].index("[") + 1
        wanted = re.compile(rf'^(\s*)(?:"{re.escape(key)}"|{re.escape(key)})\s*=')
        for i in range(start + 1, len(self.lines)):
            line = self.lines[i]
            if line.lstrip().startswith("["):
                break
            found = wanted.match(line)
            if found:
                return i + 1, len(found.group(1)) + 1
        return start + 1, 1


def _problem(
    out: list[Diagnostic],
    message: str,
    hint: str = "",
    *,
    at: tuple[int, int] = (1, 1),
    code: str = "field-value",
) -> None:
    out.append(dx.make(code, message, path=CONFIG_FILE, hint=hint, line=at[0], column=at[1]))


def _defaults(table: Any, out: list[Diagnostic], locate: _Locator) -> AgentProfile:
    fields: dict[str, Any] = {}
    if not isinstance(table, dict):
        _problem(out, "[defaults] must be a table", at=locate("defaults"))
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
                    at=locate("defaults", key),
                )
        elif key in ("model", "provider"):
            if key == "model" and isinstance(value, str) and value.strip():
                problem = option_problem(value.strip())
                if problem is not None:  # it reaches `claude --model=...` (issue 11)
                    _problem(
                        out,
                        f"[defaults] model {value!r} {problem}",
                        'name the model, for example "claude-sonnet-4-6"',
                        at=locate("defaults", key),
                        code=ARGV_CODE,
                    )
                    continue
            if isinstance(value, str) and value.strip():
                fields[key] = value.strip()
            else:
                _problem(
                    out, f"[defaults] {key} must be a non-empty string", at=locate("defaults", key)
                )
        elif key == "permission_mode":
            if value in PERMISSION_MODES:
                fields[key] = value
            else:
                _problem(
                    out,
                    f"[defaults] permission_mode {value!r} is not one of "
                    + ", ".join(PERMISSION_MODES),
                    at=locate("defaults", key),
                )
        elif key in ("allowed_tools", "denied_tools"):
            if isinstance(value, list) and all(isinstance(v, str) and v for v in value):
                bad = [v for v in value if option_problem(v) is not None]
                if bad:  # tool names reach `claude --allowed-tools ...` (issue 11)
                    _problem(
                        out,
                        f"[defaults] {key}: {bad[0]!r} {option_problem(bad[0])}",
                        'write tool names, for example ["Read", "Bash(git status:*)"]',
                        at=locate("defaults", key),
                        code=ARGV_CODE,
                    )
                    continue
                fields[key] = tuple(value)
            else:
                _problem(
                    out,
                    f"[defaults] {key} must be a list of tool names",
                    at=locate("defaults", key),
                )
        elif key in ("max_turns", "max_tokens_per_task"):
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                fields[key] = value
            else:
                _problem(
                    out, f"[defaults] {key} must be a positive integer", at=locate("defaults", key)
                )
        else:
            out.append(
                dx.make(
                    "field-unknown",
                    f"unknown key {key!r} in [defaults]",
                    path=CONFIG_FILE,
                    hint=did_you_mean(key, DEFAULT_KEYS),
                    line=locate("defaults", key)[0],
                    column=locate("defaults", key)[1],
                )
            )
    base = _base_defaults()
    return msgspec.structs.replace(base, **fields, fields_set=frozenset(fields))


def _embedded(table: Any, out: list[Diagnostic], locate: _Locator) -> EmbeddedServer:
    if not isinstance(table, dict):
        _problem(
            out,
            "[embedded_server] must be a table",
            at=locate("embedded_server"),
        )
        return EmbeddedServer()
    fields: dict[str, Any] = {}
    for key, value in table.items():
        if key == "name":
            problem = segment_problem(value)
            if problem is None:
                fields["name"] = value
            else:
                _problem(
                    out, f"[embedded_server] name {problem}", at=locate("embedded_server", key)
                )
        elif key == "url":
            if isinstance(value, str) and value.startswith(("http://", "https://")):
                fields["url"] = value
            else:
                _problem(
                    out,
                    "[embedded_server] url must be an http(s) URL",
                    at=locate("embedded_server", key),
                )
        elif key == "inject":
            if isinstance(value, bool):
                fields["inject"] = value
            else:
                _problem(
                    out,
                    "[embedded_server] inject must be true or false",
                    at=locate("embedded_server", key),
                )
        elif key == "commands":
            if isinstance(value, list) and all(
                isinstance(item, str) and _COMMAND.fullmatch(item) for item in value
            ):
                fields["commands"] = tuple(dict.fromkeys(value))
            else:
                _problem(
                    out,
                    "[embedded_server] commands must be a list of bare command names",
                    'write commands = ["triage_ticket"]: letters, digits, "_", "-" and "."',
                    at=locate("embedded_server", key),
                )
        else:
            out.append(
                dx.make(
                    "field-unknown",
                    f"unknown key {key!r} in [embedded_server]",
                    path=CONFIG_FILE,
                    hint=did_you_mean(key, SERVER_KEYS),
                    line=locate("embedded_server", key)[0],
                    column=locate("embedded_server", key)[1],
                )
            )
    return EmbeddedServer(**fields)
