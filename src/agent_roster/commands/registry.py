"""Every command, defined once; the CLI, the MCP server and the HTTP API are derived from here.

A command is a plain typed function ``fn(ctx: RosterContext, params: P) -> R`` where ``P``
and ``R`` are msgspec Structs: ``P``'s fields (with their ``Meta`` descriptions) are the
parameters on every surface, ``R``'s fields are the JSON keys of the result, and the first
line of the docstring is the summary (the MCP tool description, the OpenAPI summary and the
CLI help). :data:`~agent_roster.catalog.SPECS` lists them as plain data at the bottom of the
package, so reading the names (the vault validator does, to know the embedded server's
tools) imports no command; :func:`load` imports a command's module only when it is about to
run or be described.

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

from agent_roster.catalog import NAMES, SPECS, CommandSpec
from agent_roster.errors import UsageError

__all__ = [
    "NAMES",
    "SPECS",
    "Command",
    "CommandSpec",
    "all_commands",
    "encode",
    "is_scalar",
    "load",
    "schema_of",
]


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
        :class:`UsageError` naming the parameter otherwise (an unknown one too: a typo
        must not be dropped silently and leave the command doing something else)."""
        raw = dict(raw or {})
        fields = self.params.__struct_fields__
        unknown = [key for key in raw if key not in fields]
        if unknown:
            from agent_roster.diagnostics import did_you_mean

            raise UsageError(
                f"{self.name} has no parameter {unknown[0]!r}",
                hint=did_you_mean(unknown[0], fields)
                or ("its parameters: " + ", ".join(fields) if fields else "it takes none"),
            )
        try:
            return msgspec.convert(raw, self.params, strict=False)
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

    def inline(node: Any, names: bool = False) -> Any:
        # ``names``: node maps parameter names to schemas (``properties``), so a parameter
        # called ``title`` (create_task's) is a name to keep, not the keyword to drop.
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                target = inline(components[ref.removeprefix("#/$defs/")])
                extra = {k: inline(v) for k, v in node.items() if k != "$ref"}
                return {**target, **extra}
            return {
                k: inline(v, not names and k == "properties")
                for k, v in node.items()
                if names or k != "title"
            }
        if isinstance(node, list):
            return [inline(v) for v in node]
        return node

    schema: dict[str, Any] = inline(root)
    return schema


_SCALARS = frozenset({"string", "integer", "boolean", "number"})


def is_scalar(schema: Mapping[str, Any]) -> bool:
    """Whether a parameter's schema is a scalar (or a scalar or null): one that a query
    string can carry (``GET /api/<name>?param=value``)."""
    found = [schema, *(o for o in schema.get("anyOf", ()) if isinstance(o, dict))]
    kinds: set[str] = set()
    for node in found:
        kind = node.get("type")
        kinds.update(kind if isinstance(kind, list) else [kind] if kind else [])
    kinds.discard("null")
    return bool(kinds) and kinds <= _SCALARS


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
    from agent_roster.commands.context import RosterContext

    # A module may import the context for type checking only.
    hints = typing.get_type_hints(function, localns={"RosterContext": RosterContext})
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
