"""The OpenCode codec (docs/codecs/opencode.md): ``.opencode/agents/**/<name>.md`` and the
``agent``/``mcp`` keys of ``opencode.json``.

OpenCode's permission model is the canonical one (docs/codecs/permissions.md), so rules are
written as they are, in one ordered ``permission`` object per agent; what cannot be written
that way (a key needed at two positions, integer-like keys JavaScript would move) is
refused, never reordered silently. Discovery lives in ``opencode_discover``, rendering in
``opencode_render``.
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
from agent_roster.codecs.support import declare
from agent_roster.model.profile import PermissionAction as PermissionAction


class OpenCodeCodec:
    """OpenCode (``opencode-ai``), checked against 1.18.33."""

    name = "opencode"
    title = "OpenCode"
    partitioned = True
    #: OpenCode decides file edits under one key, ``edit`` (docs/codecs/opencode.md §5).
    whole_keys = frozenset({"edit"})
    options: tuple[RenderOption, ...] = ()
    #: What render does with each canonical field (docs/codecs/matrix.md; checked
    #: against probe renders by tests/codecs/test_support_matrix.py).
    support = declare(
        kept="description prompt model provider temperature top_p max_turns "
        "permission mcp_servers mode",
        translated="permission_mode allowed_tools denied_tools mcp_servers color",
        dropped="name max_tokens_per_task runtime agent_name tags install",
    )
    #: ``import(render(p)) == p`` on these for every profile render accepts without a loss
    #: on that field. ``permission`` is compared as the effective rule list instead
    #: (README D12): ``allowed_tools``/``denied_tools``/``permission_mode`` fold into it.
    #: ``mcp_servers`` comes back in the ``mcp`` block's order, which render chooses to
    #: agree with every profile's order when one exists.
    native_fields = frozenset(
        {
            "id",
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
        """The agents OpenCode would load from ``roots`` (see ``opencode_discover``)."""
        return opencode_discover.discover(roots)

    def decide(self, agent: NativeAgent, probe: Probe) -> PermissionAction:
        """OpenCode's own decision for one call of ``agent`` (``opencode/semantics.py``)."""
        return opencode_semantics.decide(agent, probe)

    def render(self, request: RenderRequest, existing: ReadExisting) -> Rendering:
        """Agent files and the merged ``mcp`` block (see ``opencode_render``)."""
        return opencode_render.render(request, existing)


CODEC = OpenCodeCodec()
