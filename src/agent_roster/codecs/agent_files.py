"""One markdown agent file per profile, kept in the user's layout: the loop Qoder's and
Droid's renders share (each harness's frontmatter comes from its own ``render_profile``)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Protocol

from agent_roster.codecs.base import Loss, NativeFile, RenderRequest
from agent_roster.codecs.native_md import keep_native, write_native
from agent_roster.diagnostics import Diagnostic
from agent_roster.model.profile import AgentProfile


class Prepared(Protocol):
    """A profile's frontmatter and prompt, ready to write."""

    @property
    def data(self) -> dict[str, Any]: ...

    @property
    def prompt(self) -> str: ...


PrepareProfile = Callable[
    [AgentProfile, RenderRequest, list[Diagnostic], list[Loss]], Prepared | None
]
ReadText = Callable[..., AgentProfile | None]


def agent_files(
    codec: str,
    folder: str,
    request: RenderRequest,
    prepare: PrepareProfile,
    read_text: ReadText,
    out: list[Diagnostic],
    losses: list[Loss],
) -> tuple[list[NativeFile], list[AgentProfile]]:
    """``folder/<id>.md`` for each profile of this part (``RenderRequest.part``) that
    ``prepare`` does not refuse, and every profile, of any part, it does not refuse (the
    ones whose servers the harness's MCP file needs)."""
    files: list[NativeFile] = []
    rendered: list[AgentProfile] = []
    named: set[str] = set()
    for profile, owned in request.to_render(named):
        if not owned:
            # Another part writes this agent and reports on it; the MCP file only needs to
            # know whether it will exist.
            if prepare(profile, request, [], []) is not None:
                rendered.append(profile)
                named.update(profile.mcp_servers)
            continue
        ready = prepare(profile, request, out, losses)
        if ready is None:
            continue
        named.update(profile.mcp_servers)
        path = f"{folder}/{profile.id}.md"
        content = keep_native(
            profile.native.get(codec),
            write_native(ready.data, ready.prompt),
            functools.partial(read_text, path=path),
            ready.prompt,
        )
        files.append(NativeFile(path=path, content=content, profile=profile.id))
        rendered.append(profile)
    return files, rendered
