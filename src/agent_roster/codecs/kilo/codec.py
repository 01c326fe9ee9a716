"""The Kilo Code CLI codec (docs/codecs/kilo.md): ``.kilo/agents/<name>.md`` and the
``agent``/``mcp`` keys of ``kilo.json``.

Kilo is an OpenCode fork and reads agents exactly as OpenCode does (same frontmatter,
schema, permission rules and deep merge), so this codec is the OpenCode reader and renderer
with Kilo's :data:`~agent_roster.codecs.opencode.flavor.KILO` flavor: its folders and file
names, its built-in agents, and its own refusals (a bad file is skipped alone; a variable
reference in a project file skips that file). Each of these was checked against the real
``kilo`` 7.7.9 (tests/codecs/test_kilo_cli.py).
"""

from __future__ import annotations

from agent_roster.codecs.base import (
    Discovery,
    NativeAgent,
    Probe,
    ReadExisting,
    Rendering,
    RenderOption,
    RenderRequest,
    Roots,
)
from agent_roster.codecs.opencode import read as opencode_discover
from agent_roster.codecs.opencode import render as opencode_render
from agent_roster.codecs.opencode import semantics as opencode_semantics
from agent_roster.codecs.opencode.flavor import KILO
from agent_roster.codecs.support import declare
from agent_roster.model.profile import PermissionAction


class KiloCodec:
    """Kilo Code CLI (``@kilocode/cli``), checked against 7.7.9."""

    name = "kilo"
    title = "Kilo Code CLI"
    partitioned = True
    #: OpenCode decides file edits under one key, ``edit`` (docs/codecs/opencode.md §5).
    whole_keys = frozenset({"edit"})
    options: tuple[RenderOption, ...] = ()
    #: What render does with each canonical field (docs/codecs/matrix.md; checked
    #: against probe renders by tests/codecs/test_support_matrix.py). Unlike OpenCode,
    #: ``name`` is kept (Kilo's ``displayName``); a server whose values hold a ``${VAR}``
    #: is dropped at project scope (Kilo substitutes variables only in the user's files).
    support = declare(
        kept="name description prompt model provider temperature top_p max_turns "
        "permission mcp_servers mode",
        translated="permission_mode allowed_tools denied_tools mcp_servers color",
        dropped="mcp_servers max_tokens_per_task runtime agent_name tags install",
    )
    #: As OpenCode's (README D12), plus ``name`` through ``displayName``.
    native_fields = frozenset(
        {
            "id",
            "name",
            "description",
            "model",
            "temperature",
            "top_p",
            "max_turns",
            "mode",
            "color",
            "mcp_servers",
            "prompt",
        }
    )

    def discover(self, roots: Roots) -> Discovery:
        """The agents Kilo would load from ``roots`` (see ``opencode_discover``)."""
        return opencode_discover.discover(roots, KILO)

    def decide(self, agent: NativeAgent, probe: Probe) -> PermissionAction:
        """Kilo's own decision for one call of ``agent``: OpenCode's rules and defaults,
        with Kilo's config files (``opencode/semantics.py``)."""
        return opencode_semantics.decide(agent, probe, KILO)

    def render(self, request: RenderRequest, existing: ReadExisting) -> Rendering:
        """Agent files and the merged ``mcp`` block (see ``opencode_render``)."""
        return opencode_render.render(request, existing, KILO)


CODEC = KiloCodec()
