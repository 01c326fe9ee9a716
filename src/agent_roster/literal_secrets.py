"""No literal secrets into the vault (issue 13 item 4).

A vault is a folder people sync, commit and share; a token written into it is a leaked
token. A secret is found the way ``redact`` finds it for output (the same detectors, so
what would be masked on the way out is what is refused on the way in), and named by
where it stands: ``env GH_PAT``, ``headers Authorization``, ``args[3]``, ``url``,
``config.harness.opencode.apiKey``. Three uses:

* **writes refuse it** (:func:`refuse`): ``mcp add/edit``, ``profile create/edit``,
  ``project-profile create/edit`` raise :class:`~agent_roster.errors.LiteralSecretError`
  with the ``${VAR}`` form to write instead, unless ``allow_literal_secret`` (CLI
  ``--allow-literal-secret``);
* **import replaces it** (:func:`referenced`): a server brought in from a harness file gets
  ``${VAR}`` in place of each literal, and the report names the variable to set;
* **validate warns** (:func:`file_warnings`): a ``literal-secret`` warning for each line of
  a vault file that holds one, with the ``${VAR}`` form as the hint.

Under a secret-named key a plain word is not taken for a secret (``AUTH_MODE=oauth``,
``DEBUG_TOKEN=1``); roster's own mask (``***``) is refused as a value, since it would
overwrite the real secret with its mask.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, NamedTuple

import msgspec

from agent_roster import diagnostics as dx
from agent_roster.diagnostics import Diagnostic, Severity
from agent_roster.errors import LiteralSecretError
from agent_roster.model.mcp import McpServer
from agent_roster.redact import (
    MASK,
    mask_value,
    redact_many,
    redact_text,
    redact_tokens,
    secret_key,
)

CODE = "literal-secret"

#: Under a secret-named key, values that are settings rather than secrets.
_HARMLESS = re.compile(r"(?i)true|false|yes|no|on|off|none|null|\d{1,6}|[a-z]{1,7}")
_ENV = re.compile(r"[^A-Za-z0-9]+")
#: The option a masked argument belongs to: on its line, or ending the line before.
_OPTION_BEFORE_MASK = re.compile(
    r"(?<![\w-])[\"']?--?(?P<option>[A-Za-z][A-Za-z0-9_-]*)[\"']?"
    r"(?:[ \t]*,[ \t]*|[ \t]+|=)[\"']?\*\*\*"
)
_OPTION_ENDS = re.compile(r"(?<![\w-])[\"']?--?(?P<option>[A-Za-z][A-Za-z0-9_-]*)[\"']?,?[ \t]*$")
_KEY_AT_LINE = re.compile(r"^[\s+\-]*[\"']?(?P<key>[A-Za-z_][A-Za-z0-9_.-]*)[\"']?\s*[:=]")


class Literal(NamedTuple):
    """One literal secret: where it stands, the variable to hold it, and the value as it
    should be written instead (the literal replaced by ``${VARIABLE}``)."""

    where: str
    variable: str
    form: str


def env_name(text: str) -> str:
    """``text`` as an environment variable name (``api-key`` → ``API_KEY``)."""
    name = _ENV.sub("_", re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", text)).strip("_").upper()
    return name if name and not name[0].isdigit() else f"SECRET_{name}"


def _masked(key: str | None, value: str) -> str | None:
    """The masked form of ``value`` when it holds a literal secret, else None."""
    if key is not None and secret_key(key):
        stripped = value.strip()
        if stripped == MASK or stripped.endswith(" " + MASK):
            return value  # roster's own mask, written back: refused as it is
        if _HARMLESS.fullmatch(stripped):
            return None
        masked = mask_value(value)
    else:
        masked = redact_text(value)
    return None if masked == value else masked


def _variable(where: str, key: str | None, owner: str) -> str:
    option = key.lstrip("-") if key else ""
    if where == "url":
        return env_name(f"{owner}_token") if owner else "API_TOKEN"
    if where.startswith("env ") and key:
        return env_name(key)
    if key and key.lower() in ("authorization", "proxy-authorization"):
        return env_name(f"{owner}_token") if owner else "API_TOKEN"
    if option:
        return env_name(f"{owner}_{option}") if owner else env_name(option)
    return env_name(f"{owner}_secret") if owner else "SECRET"


def _literal(where: str, key: str | None, value: str, owner: str) -> Literal | None:
    masked = _masked(key, value)
    if masked is None:
        return None
    variable = _variable(where, key, owner)
    form = _form(masked, variable, whole=where.startswith("env "))
    return Literal(where, variable, form)


def _form(masked: str, variable: str, *, whole: bool) -> str:
    """What to write instead: the masked part replaced by ``${variable}``, or the whole
    value (an environment variable takes the whole value, a URL included)."""
    if whole or MASK not in masked:
        return f"${{{variable}}}"
    return masked.replace(MASK, f"${{{variable}}}")


def find(data: Any, *, owner: str = "", where: str = "") -> list[Literal]:
    """Every literal secret in JSON-shaped ``data`` (``owner``: the server or profile the
    variables are named after)."""
    return list(_walk(data, where, None, owner))


def _walk(data: Any, where: str, key: str | None, owner: str) -> Iterator[Literal]:
    if isinstance(data, str):
        found = _literal(where, key, data, owner)
        if found is not None:
            yield found
    elif isinstance(data, dict):
        for k, v in data.items():
            name = str(k)
            place = f"{where} {name}" if where in ("env", "headers") else _join(where, name)
            yield from _walk(v, place, name, owner)
    elif isinstance(data, list | tuple):
        option: str | None = None
        for index, item in enumerate(data):
            place = f"{where}[{index}]"
            if option is not None and isinstance(item, str) and not item.startswith("-"):
                yield from _walk(item, place, option, owner)
            else:
                yield from _walk(item, place, None, owner)
            option = (
                item if isinstance(item, str) and item.startswith("-") and "=" not in item else None
            )


def in_prose(sections: dict[str, str], *, owner: str = "") -> list[Literal]:
    """The literal secrets in prompt text, by heading: only values that give themselves
    away (:func:`~agent_roster.redact.redact_tokens`), each named by its line, since prose
    shows keys and code that are no secret. ``form`` is that line with the secret masked."""
    found = []
    for heading, body in sections.items():
        if redact_tokens(body) == body:
            continue
        for number, line in enumerate(body.split("\n"), 1):
            masked = redact_tokens(line)
            if masked != line:
                where = f"sections.{heading} line {number}"
                found.append(Literal(where, env_name(f"{owner}_{heading}_secret"), masked))
    return found


def _join(where: str, name: str) -> str:
    return f"{where}.{name}" if where else name


def in_server(server: McpServer) -> list[Literal]:
    """The literal secrets of a registry entry's settings."""
    data = {
        "command": server.command,
        "args": list(server.args),
        "env": dict(server.env),
        "url": server.url,
        "headers": dict(server.headers),
    }
    return find(data, owner=server.name)


def refuse(literals: list[Literal], *, target: str, allow: bool) -> None:
    """Raise :class:`LiteralSecretError` for ``literals`` unless ``allow``."""
    if not literals or allow:
        return
    places = ", ".join(item.where for item in literals)
    forms = "; ".join(f"{item.where}: {item.form}" for item in literals)
    variables = ", ".join(dict.fromkeys(item.variable for item in literals))
    raise LiteralSecretError(
        f"refusing to write a literal secret into {target} ({places}): the vault is a folder "
        "people sync and commit",
        hint=f"write a reference and set it in the environment instead ({forms}; set "
        f"{variables}), or pass --allow-literal-secret to write it as it is "
        "(allow_literal_secret on the API)",
    )


def referenced(server: McpServer) -> tuple[McpServer, list[Literal]]:
    """``server`` with each literal secret in ``env``, ``headers``, ``args`` and ``url``
    replaced by its ``${VAR}`` form (import: nothing literal is written silently)."""
    literals = in_server(server)
    if not literals:
        return server, []
    env = dict(server.env)
    headers = dict(server.headers)
    args = list(server.args)
    url = server.url
    for item in literals:
        field, _, rest = item.where.partition(" ")
        if field == "env":
            env[rest] = item.form
        elif field == "headers":
            headers[rest] = item.form
        elif item.where.startswith("args["):
            args[int(item.where[5:-1])] = item.form
        elif item.where == "url":
            url = item.form
    replaced = msgspec.structs.replace(server, env=env, headers=headers, args=tuple(args), url=url)
    return replaced, literals


def file_warnings(path: str, text: str, *, owner: str = "") -> list[Diagnostic]:
    """A ``literal-secret`` warning for each line of a vault file holding a literal secret
    (what roster would mask if it printed the file), with the ``${VAR}`` form as hint."""
    return _warnings(path, text, redact_text(text), owner)


def files_warnings(files: list[tuple[str, str, str]]) -> list[Diagnostic]:
    """:func:`file_warnings` for many ``(path, text, owner)`` files at once (a vault's
    files share most of their lines, each is looked at once)."""
    masked = redact_many([text for _, text, _ in files])
    out: list[Diagnostic] = []
    for (path, text, owner), shown in zip(files, masked, strict=True):
        if shown != text:
            out.extend(_warnings(path, text, shown, owner))
    return out


def _warnings(path: str, text: str, masked: str, owner: str) -> list[Diagnostic]:
    if masked == text:
        return []
    out: list[Diagnostic] = []
    previous = ""
    for number, (line, shown) in enumerate(
        zip(text.split("\n"), masked.split("\n"), strict=False), 1
    ):
        if line == shown:
            previous = line
            continue
        column = next((i for i, (a, b) in enumerate(zip(line, shown, strict=False)) if a != b), 0)
        key = _KEY_AT_LINE.match(line)
        name = key["key"] if key else None
        option = _OPTION_BEFORE_MASK.search(shown) or _OPTION_ENDS.search(previous)
        if option is not None:
            name = option["option"]
        env = bool(name and name.isupper() and option is None)
        where = "url" if name == "url" else "env " if env else ""
        variable = _variable(where, name, owner)
        form = (
            f"{name}: ${{{variable}}}" if env else shown.strip().replace(MASK, f"${{{variable}}}")
        )
        out.append(
            dx.make(
                CODE,
                "a literal secret is written in the vault (roster masks it when it prints "
                "this file)",
                path=path,
                line=number,
                column=column + 1,
                hint=f"write a reference instead, {form}, and set {variable} in the "
                "environment the harness runs in",
                severity=Severity.WARNING,
            )
        )
        previous = line
    return out
