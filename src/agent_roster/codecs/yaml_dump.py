"""PyYAML's safe dumper as the native Markdown writer uses it (``native_md.dump_yaml``'s slow
path, and the memo of how PyYAML writes each scalar).

Kept apart from ``native_md.py``, which ``scripts/native.py`` compiles with mypyc: a class
derived from libyaml's C dumper stays an ordinary Python class here.
"""

from __future__ import annotations

import re

import yaml

#: Plain scalars the YAML 1.2 core schema (every harness's loader, and ours) reads as a
#: number: PyYAML resolves by YAML 1.1, which has no float without a dot, so it would write
#: the string ``0E0`` or ``1e5`` plain and a harness would read a number.
_CORE_NUMBER = re.compile(
    r"[-+]?(?:[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+"
    r"|(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|\.(?:inf|Inf|INF))|\.(?:nan|NaN|NAN)"
)


class _Dumper(yaml.CSafeDumper):
    """PyYAML's safe dumper, quoting a string that YAML 1.2 would read as a number."""


def _represent_str(dumper: _Dumper, value: str) -> yaml.Node:
    if _CORE_NUMBER.fullmatch(value):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="'")
    return dumper.represent_str(value)


_Dumper.add_representer(str, _represent_str)


def full_dump(data: object) -> str:
    """``data`` as PyYAML's safe dumper writes it (keys in order, lines never folded), with
    every string YAML 1.2 would read as a number quoted."""
    # libyaml's C emitter; the representer in front of it is still Python.
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1_000_000)
