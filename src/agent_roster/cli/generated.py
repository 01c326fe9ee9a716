"""CLI commands derived from the command registry, for every command without a hand-written
adapter (:mod:`agent_roster.commands.registry`).

The words come from the spec (``profile edit``); the options from the parameter type: an
``id`` becomes the positional argument, a scalar ``--name VALUE``, a boolean
``--name/--no-name``, a list a repeatable ``--name VALUE``, a mapping a repeatable ``--name
KEY=VALUE`` (the value read as JSON when it parses, else as text; ``null`` removes). Output is
the result as JSON with ``--json``, else as indented YAML. A write that must carry the file's
``base_hash`` takes ``--base-hash``; left out, the CLI reads the current hash with the spec's
``base_from`` command first (a person at a terminal edits what is on disk now).

Commands are built lazily: the group lists names from the spec alone, and a command's module
is imported only when that command runs or shows its help.
"""

from __future__ import annotations

import types
import typing
from typing import Any

import click
import msgspec

from agent_roster.cli.app import EXIT_OK, EXIT_PROBLEMS, Settings
from agent_roster.cli.params import json_value
from agent_roster.commands.registry import SPECS, Command, CommandSpec, encode, load
from agent_roster.errors import UsageError


def _option_name(field: str) -> str:
    return "--" + field.replace("_", "-")


def _base(annotation: Any) -> Any:
    """The annotation without ``Annotated``, ``None`` and ``UnsetType`` around it."""
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        kept = [
            a
            for a in typing.get_args(annotation)
            if a is not type(None) and a is not msgspec.UnsetType
        ]
        annotation = kept[0] if len(kept) == 1 else annotation
    return annotation


def _description(annotation: Any) -> str:
    if typing.get_origin(annotation) is typing.Annotated:
        for meta in typing.get_args(annotation)[1:]:
            if isinstance(meta, msgspec.Meta) and meta.description:
                return meta.description
    return ""


def _parameters(command: Command) -> list[click.Parameter]:
    hints = typing.get_type_hints(command.params, include_extras=True)
    params: list[click.Parameter] = []
    fields = command.params.__struct_fields__
    # The thing a command acts on is its positional argument: ``id``, else ``url``
    # (``roster source add URL``), else ``name`` (``roster mcp probe NAME``); optional when
    # the parameter has a default.
    positional = next((f for f in ("id", "url", "name") if f in fields), None)
    required = set(fields[: len(fields) - len(command.params.__struct_defaults__)])
    for field in fields:
        annotation = hints[field]
        kind = _base(annotation)
        help_text = _description(annotation)
        if field == positional:
            params.append(click.Argument([field], required=field in required))
        elif kind is bool:
            params.append(
                click.Option(
                    [f"{_option_name(field)}/--no-{field.replace('_', '-')}"],
                    default=None,
                    help=help_text,
                )
            )
        elif typing.get_origin(kind) is list:
            params.append(click.Option([_option_name(field)], multiple=True, help=help_text))
        elif typing.get_origin(kind) is dict:
            params.append(
                click.Option(
                    [_option_name(field)], multiple=True, metavar="KEY=VALUE", help=help_text
                )
            )
        else:
            params.append(click.Option([_option_name(field)], help=help_text))
    params.append(click.Option(["--json", "as_json"], is_flag=True, help="Print JSON."))
    return params


def _raw(command: Command, values: dict[str, Any]) -> dict[str, Any]:
    """The click values as the parameter mapping (left-out options left out)."""
    hints = typing.get_type_hints(command.params, include_extras=True)
    raw: dict[str, Any] = {}
    for field in command.params.__struct_fields__:
        value = values.get(field)
        if value is None or value == ():
            continue
        kind = _base(hints[field])
        if typing.get_origin(kind) is dict:
            mapping: dict[str, Any] = {}
            for item in value:
                key, sep, text = item.partition("=")
                if not sep or not key:
                    raise UsageError(f"{_option_name(field)} {item!r} is not KEY=VALUE")
                mapping[key] = json_value(text)
            raw[field] = mapping
        elif typing.get_origin(kind) is list:
            raw[field] = list(value)
        else:
            raw[field] = value
    return raw


class RegistryCommand(click.Command):
    """A click command for one registry command, built on first use."""

    def __init__(self, spec: CommandSpec) -> None:
        super().__init__(spec.cli.split()[-1], callback=self._run)
        self.spec = spec
        self._loaded = False

    def _load(self) -> None:
        if not self._loaded:
            command = load(self.spec.name)
            self.params = _parameters(command)
            self.help = command.summary + (
                "\n\n" + command.description if command.description else ""
            )
            self.short_help = command.summary
            self._loaded = True

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        self._load()
        return super().get_params(ctx)

    def get_short_help_str(self, limit: int = 45) -> str:
        self._load()
        return super().get_short_help_str(limit)

    def _run(self, **values: Any) -> int:
        from agent_roster.commands.context import RosterContext

        settings = click.get_current_context().find_object(Settings)
        assert settings is not None
        command = load(self.spec.name)
        as_json = values.pop("as_json", False)
        raw = _raw(command, values)
        with RosterContext(settings.vault, settings.db) as context:
            if "base_hash" in command.params.__struct_fields__ and "base_hash" not in raw:
                raw["base_hash"] = _current_hash(context, self.spec, raw)
            result = command.function(context, command.decode(raw))
        data = encode(result)
        if as_json:
            from agent_roster.cli.output import emit_json

            emit_json(data)
        else:
            import yaml

            from agent_roster.cli.output import echo

            echo(yaml.safe_dump(data, sort_keys=False, allow_unicode=True).rstrip())
        # A result that says it is not ok (a source with a conflict) is exit 1, as with
        # every command that ran and found problems.
        return EXIT_PROBLEMS if getattr(result, "ok", True) is False else EXIT_OK


def _current_hash(context: Any, spec: CommandSpec, raw: dict[str, Any]) -> str:
    if spec.base_from is None:
        raise UsageError(f"{spec.name} needs --base-hash")
    reader = load(spec.base_from)
    wanted = {k: v for k, v in raw.items() if k in reader.params.__struct_fields__}
    found = encode(reader.function(context, reader.decode(wanted)))
    digest = found.get("content_hash") if isinstance(found, dict) else None
    if not isinstance(digest, str):
        raise UsageError(f"{spec.name} needs --base-hash")
    return digest


def register(root: click.Group) -> None:
    """Add a command for every spec whose words are not taken by a hand-written one."""
    for spec in SPECS:
        *groups, leaf = spec.cli.split()
        parent = root
        for word in groups:
            child = parent.commands.get(word)
            if child is None:
                child = click.Group(word, help=f"{word.capitalize()} commands.")
                parent.add_command(child)
            if not isinstance(child, click.Group):
                raise TypeError(f"'{word}' is a command, not a group")
            parent = child
        if leaf not in parent.commands:
            parent.add_command(RegistryCommand(spec))
