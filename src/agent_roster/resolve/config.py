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
    #: Command names the server has beyond ``catalog.py`` (plugin tools): bare
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


_NOTHING_APPLIES = f"nothing in {CONFIG_FILE} applies until this is fixed"


class LoadedConfig(NamedTuple):
    """roster.toml as read now: what applies, and every problem found in it (located, in
    our own words: none depends on the Python version's tomllib messages)."""

    config: RosterConfig
    diagnostics: tuple[Diagnostic, ...]

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.is_error)


def _base_defaults() -> AgentProfile:
    return AgentProfile(
        id="(system default)", name="System default", runtime=Runtime.CLAUDE_SDK, source=CONFIG_FILE
    )


def built_in() -> RosterConfig:
    """The configuration of a vault without roster.toml."""
    return RosterConfig(defaults=_base_defaults())


def load_config(vault: str | os.PathLike[str]) -> LoadedConfig:
    """Read ``roster.toml`` (absent: built-in defaults). Problems are diagnostics; a bad
    value is dropped so the built-in default applies, never a half-read value, and a file
    that is not TOML at all applies nothing (the caller says so: ``roster up`` keeps its
    last good configuration instead)."""
    path = Path(vault) / CONFIG_FILE
    if not path.is_file():
        return LoadedConfig(built_in(), ())
    try:
        # Through the vault guard: a roster.toml linking outside the vault is not read.
        raw = read_in_vault(VaultLayout(vault), path)
    except PathOutsideVaultError as exc:
        return LoadedConfig(built_in(), tuple(exc.diagnostics))
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        problem = dx.make(
            "file-unreadable",
            f"cannot read {CONFIG_FILE}: {reason}",
            path=CONFIG_FILE,
            hint="check the file's permissions",
        )
        return LoadedConfig(built_in(), (problem,))
    return parse_config(raw)


def parse_config(raw: bytes) -> LoadedConfig:
    """roster.toml's bytes as a configuration and its diagnostics."""
    out: list[Diagnostic] = []
    text = _decode(raw, out)
    if text is None:
        return LoadedConfig(built_in(), tuple(out))
    data = parse_toml(text)
    if isinstance(data, TomlProblem):
        # Located and worded by roster, the same on every Python (vault/toml_syntax.py).
        out.append(
            dx.make(
                "toml-invalid",
                f"invalid TOML: {data.message}; {_NOTHING_APPLIES}",
                path=CONFIG_FILE,
                line=data.line,
                column=data.column,
                hint=data.hint,
            )
        )
        return LoadedConfig(built_in(), tuple(out))
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


def _decode(raw: bytes, out: list[Diagnostic]) -> str | None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start]
        out.append(
            dx.make(
                "encoding-invalid",
                f"byte 0x{raw[exc.start]:02x} is not valid UTF-8; {_NOTHING_APPLIES}",
                path=CONFIG_FILE,
                line=before.count(b"\n") + 1,
                column=len(before.decode("utf-8", "replace").rpartition("\n")[2]) + 1,
                hint=f"save {CONFIG_FILE} as UTF-8",
            )
        )
        return None
    return text.removeprefix("\ufeff")  # a BOM, as some editors write one


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
    positions, so the text is scanned; the usual one-key-per-line layout is all it needs.
    The headers are indexed once, and a table's keys the first time one is asked for:
    every position is a lookup, so 100,000 keys cost one pass, not one pass each."""

    _HEADER = re.compile(r"^\s*\[\s*([^\[\]]*?)\s*\]")
    _KEY = re.compile(r'^(\s*)(?:"([^"]*)"|([^\s="]+))\s*=')

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        #: Each table's first header: its line index and the column of its "[".
        self.headers: dict[str, tuple[int, int]] = {}
        for i, line in enumerate(self.lines):
            found = self._HEADER.match(line)
            if found:
                self.headers.setdefault(found.group(1), (i, line.index("[") + 1))
        self.keys: dict[str, dict[str, tuple[int, int]]] = {}

    def __call__(self, table: str, key: str | None = None) -> tuple[int, int]:
        header = self.headers.get(table)
        if header is None:
            return 1, 1
        start, column = header
        if key is None:
            return start + 1, column
        return self._keys(table, start).get(key, (start + 1, 1))

    def _keys(self, table: str, start: int) -> dict[str, tuple[int, int]]:
        """Each key of the table whose header is on line index ``start``: its first line
        and column, up to the next header."""
        keys = self.keys.get(table)
        if keys is None:
            keys = self.keys[table] = {}
            for i in range(start + 1, len(self.lines)):
                line = self.lines[i]
                if line.lstrip().startswith("["):
                    break
                found = self._KEY.match(line)
                if found:
                    name = found.group(2) if found.group(2) is not None else found.group(3)
                    keys.setdefault(name, (i + 1, len(found.group(1)) + 1))
        return keys


def _problem(
    out: list[Diagnostic],
    message: str,
    hint: str = "",
    *,
    at: tuple[int, int] = (1, 1),
    code: str = "field-value",
) -> None:
    out.append(dx.make(code, message, path=CONFIG_FILE, hint=hint, line=at[0], column=at[1]))


def _shown(value: Any) -> str:
    """A TOML value as the user wrote it, roughly: strings quoted, the rest as TOML spells
    it (``true``, ``5``, ``[...]``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    return str(value)


def _one_of(
    out: list[Diagnostic], key: str, value: Any, choices: tuple[str, ...], at: tuple[int, int]
) -> bool:
    """A value that must be one of ``choices``: a type error for a non-string, a value
    error (with a did-you-mean) for an unknown string. True when it is one."""
    listed = ", ".join(choices)
    example = f'write {key} = "{choices[0]}"'
    if not isinstance(value, str):
        _problem(
            out,
            f"[defaults] {key} must be a string, one of {listed}; got {_shown(value)}",
            example,
            at=at,
            code="field-type",
        )
        return False
    if value not in choices:
        _problem(
            out,
            f"[defaults] {key} {value!r} is not one of {listed}",
            did_you_mean(value, choices) or example,
            at=at,
        )
        return False
    return True


def _defaults(table: Any, out: list[Diagnostic], locate: _Locator) -> AgentProfile:
    fields: dict[str, Any] = {}
    if not isinstance(table, dict):
        _problem(
            out,
            f"[defaults] must be a table, got {_shown(table)}",
            "write [defaults] on a line of its own, with its keys below it",
            at=locate("defaults"),
            code="field-type",
        )
        return _base_defaults()
    for key, value in table.items():
        if key == "runtime":
            runtimes = tuple(r.value for r in Runtime)
            if _one_of(out, key, value, runtimes, locate("defaults", key)):
                fields["runtime"] = Runtime(value)
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
            if _one_of(out, key, value, tuple(PERMISSION_MODES), locate("defaults", key)):
                fields[key] = value
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
                    out,
                    f"[embedded_server] name {_shown(value)} {problem}",
                    "the name becomes an MCP server name and a file name: use letters, "
                    'digits, "-" and "_", for example name = "agent-queue"',
                    at=locate("embedded_server", key),
                    code="name-unsafe",
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
