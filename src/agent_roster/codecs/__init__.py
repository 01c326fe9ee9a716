"""Harness codecs: one module per harness behind :class:`~agent_roster.codecs.base.Codec`.

The registry is a plain mapping from codec name to the module that defines ``CODEC``;
modules are imported on first use, so importing this package does no work.
"""

from __future__ import annotations

import importlib

from agent_roster.codecs.base import Codec
from agent_roster.diagnostics import did_you_mean
from agent_roster.errors import UsageError

#: Every codec, by the name ``--harness``/``--from``/``--to`` take, in documentation order.
CODEC_MODULES: dict[str, str] = {
    "agh": "agent_roster.codecs.agh.codec",
    "defect": "agent_roster.codecs.defect.codec",
    "opencode": "agent_roster.codecs.opencode.codec",
    "kilo": "agent_roster.codecs.kilo.codec",
    "claude": "agent_roster.codecs.claude.codec",
    "qoder": "agent_roster.codecs.qoder.codec",
    "codex": "agent_roster.codecs.codex.codec",
    "gemini": "agent_roster.codecs.gemini.codec",
    "qwen": "agent_roster.codecs.qwen.codec",
    "copilot": "agent_roster.codecs.copilot.codec",
    "droid": "agent_roster.codecs.droid.codec",
    "cursor": "agent_roster.codecs.cursor.codec",
}


def codec_names() -> tuple[str, ...]:
    return tuple(CODEC_MODULES)


def get_codec(name: str) -> Codec:
    """The codec called ``name``; a :class:`UsageError` with a suggestion otherwise."""
    module_name = CODEC_MODULES.get(name)
    if module_name is None:
        raise UsageError(
            f"unknown harness {name!r}",
            hint=did_you_mean(name, CODEC_MODULES) or "one of " + ", ".join(CODEC_MODULES),
        )
    codec: Codec = importlib.import_module(module_name).CODEC
    return codec
