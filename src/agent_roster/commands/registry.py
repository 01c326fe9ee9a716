"""Every command, defined once; the CLI, the MCP server and the HTTP API are derived from here.

A command is a plain typed function ``fn(ctx: RosterContext, params: P) -> R`` where ``P``
and ``R`` are msgspec Structs: ``P``'s fields (with their ``Meta`` descriptions) are the
parameters on every surface, ``R``'s fields are the JSON keys of the result, and the first
line of the docstring is the summary (the MCP tool description, the OpenAPI summary and the
CLI help). :data:`SPECS` lists them as plain data, so reading the names (the vault validator
does, to know the embedded server's tools) imports nothing; :func:`load` imports a command's
module only when it is about to run or be described.

Each surface is a loop over :func:`all_commands` plus its own presentation, and one test walks
the registry and checks every surface (tests/serve/test_surfaces.py).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import typing
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import msgspec

from agent_roster.errors import UsageError


class CommandSpec(NamedTuple):
    """One command as data: its seed name (also the MCP tool name and the HTTP path), where
    its function is (``module:function``), its CLI words, whether it writes (the vault or
    the database), and for a write that carries a ``base_hash``, the command that reads the
    current one (the CLI uses it when ``--base-hash`` is left out)."""

    name: str
    target: str
    cli: str
    writes: bool
    base_from: str | None = None


def _spec(
    name: str, module: str, cli: str, *, writes: bool = False, base_from: str | None = None
) -> CommandSpec:
    return CommandSpec(name, f"agent_roster.commands.{module}:{name}", cli, writes, base_from)


#: Seed 001 "Commands (Complete)", plus roster's own; in the order help lists them.
SPECS: tuple[CommandSpec, ...] = (
    # Profile CRUD, system scope
    _spec("list_profiles", "profiles", "profile list"),
    _spec("get_profile", "profiles", "profile get"),
    _spec("create_profile", "profiles", "profile create", writes=True),
    _spec("edit_profile", "profiles", "profile edit", writes=True, base_from="get_profile"),
    _spec("delete_profile", "profiles", "profile delete", writes=True, base_from="get_profile"),
    # Install manifest
    _spec("check_profile", "install", "check"),
    _spec("install_profile", "install", "install", writes=True),
    # Export / import
    _spec("export_profile", "share", "export"),
    _spec("import_profile", "share", "import", writes=True),
    # Git sources with a lock
    _spec("source_add", "sources", "source add", writes=True),
    _spec("source_update", "sources", "source update", writes=True),
    _spec("source_sync", "sources", "source sync", writes=True),
    _spec("source_remove", "sources", "source remove", writes=True),
    _spec("source_list", "sources", "source list"),
    # Discovery
    _spec("list_available_tools", "available_tools", "tools"),
    # MCP server registry: probing and the tool catalog (writes: the catalog in the database)
    _spec("probe_mcp_server", "probe", "mcp probe", writes=True),
    _spec("list_mcp_tool_catalog", "probe", "mcp catalog", writes=True),
)

#: The names alone, for callers that must stay import-light.
NAMES: frozenset[str] = frozenset(spec.name for spec in SPECS)


class Command(NamedTuple):
    """A loaded command: its spec, function, parameter and result types, and its texts."""

    spec: CommandSpec
    function: Callable[[Any, Any], Any]
    params: type[msgspec.Struct]
    result: type[Any]
    summary: str
    description: str

    @property
    def name(self) -> str:
        return self.spec.name

    def decode(self, raw: Mapping[str, Any] | None) -> Any:
        """``raw`` (decoded JSON, query or CLI values) as the parameter type; a
        :class:`UsageError` naming the parameter otherwise."""
        try:
            return msgspec.convert(dict(raw or {}), self.params, strict=False)
        except msgspec.ValidationError as exc:
            raise UsageError(
                f"invalid parameters for {self.name}: {exc}",
                hint=f"the parameters are described by the {self.name} schema",
            ) from None

    def input_schema(self) -> dict[str, Any]:
        return schema_of(self.params)

    def output_schema(self) -> dict[str, Any]:
        return schema_of(self.result)


def encode(result: Any) -> Any:
    """A command result as JSON-ready builtins (the same on every surface)."""
    return msgspec.to_builtins(result, enc_hook=_enc_hook)


def _enc_hook(value: Any) -> Any:
    if hasattr(value, "__fspath__"):
        return str(value)
    raise NotImplementedError(f"cannot encode {type(value).__name__}")


def schema_of(kind: Any) -> dict[str, Any]:
    """A self-contained JSON Schema for a type: the root is the object itself (MCP wants
    ``type: object`` at the root, and older protocol versions only ``properties`` and
    ``required``), every reference inlined, titles dropped (each byte of a tool schema costs
    an agent context on every turn)."""
    return _schema_of(kind)


@functools.cache
def _schema_of(kind: Any) -> dict[str, Any]:
    (root,), components = msgspec.json.schema_components([kind], ref_template="#/$defs/{name}")

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                target = inline(components[ref.removeprefix("#/$defs/")])
                extra = {k: inline(v) for k, v in node.items() if k != "$ref"}
                return {**target, **extra}
            return {k: inline(v) for k, v in node.items() if k != "title"}
        if isinstance(node, list):
            return [inline(v) for v in node]
        return node

    schema: dict[str, Any] = inline(root)
    return schema


@functools.cache
def load(name: str) -> Command:
    """The command called ``name``, imported now."""
    for spec in SPECS:
        if spec.name == name:
            break
    else:
        from agent_roster.diagnostics import did_you_mean

        raise UsageError(f"unknown command {name!r}", hint=did_you_mean(name, NAMES) or "")
    module_name, _, function_name = spec.target.partition(":")
    function = getattr(importlib.import_module(module_name), function_name)
    hints = typing.get_type_hints(function)
    parameters = list(inspect.signature(function).parameters)
    if len(parameters) != 2:
        raise TypeError(f"{spec.target} must take (ctx, params)")
    params = hints[parameters[1]]
    doc = inspect.getdoc(function) or ""
    summary, _, rest = doc.partition("\n")
    return Command(spec, function, params, hints["return"], summary.strip(), rest.strip())


def all_commands() -> tuple[Command, ...]:
    """Every command, loaded, in :data:`SPECS` order."""
    return tuple(load(spec.name) for spec in SPECS)
