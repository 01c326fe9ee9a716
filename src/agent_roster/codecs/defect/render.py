"""defect render: one profile → ``config.toml`` + prompt file, checked with defect's own
rules before anything is returned (docs/codecs/defect.md §10)."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import Any

from agent_roster.codecs.base import Loss, LossOutcome, NativeFile, ReadExisting
from agent_roster.codecs.defect.read import (
    CONFIG,
    DEFAULT_PROMPT_FILE,
    DEFAULT_TOOL_ALLOW,
    config_errors,
    imported_tools,
    resolve_prompt_file,
)
from agent_roster.codecs.native_io import existing_present
from agent_roster.codecs.native_md import harness_diagnostic, remember_reading
from agent_roster.codecs.permissions import effective_rules, evaluate
from agent_roster.codecs.prompt import render_prompt
from agent_roster.codecs.toml_text import document_text
from agent_roster.codecs.tool_names import canonical_tools, native_names, opencode_key, split_ref
from agent_roster.diagnostics import Diagnostic
from agent_roster.model.profile import AgentProfile, PermissionAction

#: ``harness.defect`` keys render re-emits (D5); anything else there is refused.
PASS_THROUGH = (
    "inherit_project_prompt",
    "request_limit",
    "request_limit_mode",
    "sampling",
    "hooks",
    "prompt_file",
    "allow",
)

# The spawn_agent enum value and a folder name: keep to what every layer accepts.
_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
_NO_FIELD = {
    "provider": "defect derives the provider from the model id",
    "max_tokens_per_task": "sampling.max_tokens is per response, not per task",
    "permission_mode": "a subagent's authority comes from its allow list and the parent",
    "mode": "defect has no agent mode",
    "color": "defect has no display colour",
    "runtime": "defect runs its own agent loop",
    "agent_name": "defect runs its own agent loop",
    "tags": "roster-only field",
    "install": "roster-only field",
    "metadata": "roster-only field",
    "extra_config": "unknown Config keys have no defect meaning",
}


def _allow_list(profile: AgentProfile, servers_ok: AbstractSet[str], loss: Any) -> list[str] | None:
    """``[tools] allow`` for a profile (permissions.md §3, defect row); ``None`` = omit."""
    effective = effective_rules(profile)
    if not effective:
        if not profile.mcp_servers:
            return None
        loss(
            "allowed_tools",
            LossOutcome.TRANSLATED,
            "defect's default allow list written out so the MCP servers can be added",
        )
        defaults = list(DEFAULT_TOOL_ALLOW)
        return defaults + [f"mcp__{s}__*" for s in profile.mcp_servers if s in servers_ok]
    allow: list[str] = []
    for canonical in canonical_tools():
        names = native_names("defect", canonical)
        if not names:
            continue
        # Decided for this very tool: defect gives Write (write_file) and Edit (edit_file)
        # apart, so "Write" in a Tools list grants write_file and not edit_file.
        decision = evaluate(effective, opencode_key(canonical), tool=canonical).action
        if decision is PermissionAction.ASK and _mentions(profile, canonical):
            loss("permission", LossOutcome.TRANSLATED, f"{canonical}: ask is deny for a subagent")
        if decision is PermissionAction.ALLOW and names[0].name not in allow:
            allow.append(names[0].name)
    for name in profile.allowed_tools:
        ref = split_ref(name)
        if ref.server is None:
            if not native_names("defect", ref.tool):
                loss("allowed_tools", LossOutcome.DROPPED, f"{name}: defect has no such tool")
            if ref.argument is not None:
                loss("allowed_tools", LossOutcome.TRANSLATED, f"{name}: the whole tool is allowed")
            continue
        glob = f"mcp__{ref.server}__{ref.mcp_tool}"
        if ref.server not in servers_ok:
            loss("allowed_tools", LossOutcome.DROPPED, f"{name}: server not written for defect")
        elif (
            evaluate(effective, opencode_key(name)).action is PermissionAction.ALLOW
            and glob not in allow
        ):
            allow.append(glob)
    for server in profile.mcp_servers:
        if server not in servers_ok or any(g.startswith(f"mcp__{server}__") for g in allow):
            continue
        if evaluate(effective, opencode_key(f"mcp__{server}__*")).action is PermissionAction.ALLOW:
            allow.append(f"mcp__{server}__*")
        else:
            loss(
                "mcp_servers",
                LossOutcome.DROPPED,
                f"{server}: the rules allow none of its tools, so no allow glob names it",
            )
    if profile.permission:
        loss("permission", LossOutcome.TRANSLATED, "folded into the [tools] allow list")
    for sourced in effective:
        rule = sourced.rule
        if rule.pattern != "*":
            loss(
                sourced.source,
                LossOutcome.DROPPED,
                f"{rule.permission} {rule.pattern}: no argument rules",
            )
    for name in profile.denied_tools:
        if split_ref(name).argument is None:
            loss("denied_tools", LossOutcome.TRANSLATED, f"{name}: left out of the allow list")
    return allow


def _mentions(profile: AgentProfile, canonical: str) -> bool:
    key = opencode_key(canonical)
    return any(r.permission == key for r in profile.permission)


def render_profile(
    profile: AgentProfile,
    agents: str,
    servers_ok: dict[str, dict[str, Any]],
    unwritable: set[str],
    existing: ReadExisting,
) -> tuple[list[NativeFile], list[Loss], list[Diagnostic]]:
    pid = profile.id
    folder = f"{agents}/{pid}"
    losses: list[Loss] = []
    errors: list[str] = []

    def loss(field: str, outcome: LossOutcome, detail: str) -> None:
        losses.append(Loss(profile=pid, field=field, outcome=outcome, detail=detail))

    if not _NAME.match(pid):
        errors.append(f"name `{pid}` must match [A-Za-z0-9_-]+ (spawn_agent profile enum)")
    if existing_present(existing, f"{agents}/{pid}.md"):
        errors.append(
            f"duplicate subagent profile `{pid}` in the same layer (a folder and a `.md` file "
            f"cannot share a name): remove {agents}/{pid}.md first"
        )
    extra = dict(profile.harness.get("defect", {}))
    for key in extra:
        if key not in PASS_THROUGH:
            errors.append(f"harness.defect.{key}: unknown field (defect would refuse the file)")
    for field, reason in _NO_FIELD.items():
        value = getattr(profile, field)
        if value not in (None, "", (), {}) and not (
            field == "install" and profile.install.is_empty
        ):
            loss(field, LossOutcome.DROPPED, reason)
    if profile.name and profile.name != pid:
        loss("name", LossOutcome.DROPPED, "defect names a profile by its folder only")
    for other in profile.harness:
        if other != "defect":
            loss(f"harness.{other}", LossOutcome.DROPPED, "another harness's pass-through block")
    for server_name in profile.mcp_servers:
        if server_name in unwritable:
            loss("mcp_servers", LossOutcome.DROPPED, f"{server_name}: not written for defect")

    doc: dict[str, Any] = {}
    doc["description"] = profile.description
    if profile.model:
        doc["model"] = profile.model
    if profile.max_turns is not None:
        doc["request_limit"] = profile.max_turns
        doc["request_limit_mode"] = "fixed"
    else:
        for key in ("request_limit", "request_limit_mode"):
            if key in extra:
                doc[key] = extra[key]
    if "inherit_project_prompt" in extra:
        doc["inherit_project_prompt"] = extra["inherit_project_prompt"]
    prompt_file = str(extra.get("prompt_file", DEFAULT_PROMPT_FILE))
    if prompt_file != DEFAULT_PROMPT_FILE:
        if (
            isinstance(resolve_prompt_file(Path("/profile"), prompt_file), str)
            or "/" in prompt_file
        ):
            errors.append(
                f"invalid `prompt.file` `{prompt_file}`: must be a file name in the folder"
            )
        doc["prompt"] = {"file": prompt_file}
    allow = _allow_list(profile, servers_ok.keys(), loss)
    if allow is not None or "allow" in extra:
        allow = (allow if allow is not None else list(DEFAULT_TOOL_ALLOW)) + [
            g for g in extra.get("allow", ()) if g not in (allow or ())
        ]
        doc["tools"] = {"allow": allow}
    back = imported_tools(allow or [])
    if back != profile.allowed_tools and not any(x.field == "allowed_tools" for x in losses):
        # A catch-all so no change of the list goes unreported (a later deny, many-to-one).
        loss("allowed_tools", LossOutcome.TRANSLATED, f"comes back as {list(back)}")
    sampling: dict[str, Any] = dict(extra.get("sampling", {}))
    for key in ("temperature", "top_p"):
        value = getattr(profile, key)
        if value is not None:
            sampling[key] = float(value)
    if sampling:
        doc["sampling"] = sampling
    if extra.get("hooks"):
        doc["hooks"] = extra["hooks"]
    prompt = render_prompt(profile)
    # The prompt file is the prompt itself; its last line end as it was when imported.
    form = profile.native.get("defect")
    tail = form.tail if form is not None else "\n"
    text = document_text(doc)
    config_path = f"{folder}/{CONFIG}"
    if not errors:
        # Read the file back with defect's own rules before anyone writes it; the render
        # check decides from this reading instead of parsing the file a second time.
        reading = tomllib.loads(text)
        errors.extend(message for _, message in config_errors(reading))
        remember_reading(text, config_path, reading)
    if errors:
        return (
            [],
            losses,
            [
                harness_diagnostic(
                    "render-unsupported",
                    f"profile `{pid}` cannot be written for defect: {problem}",
                    path=profile.source or config_path,
                    hint="defect fails every profile while one is invalid; nothing written",
                )
                for problem in errors
            ],
        )
    return (
        [
            NativeFile(path=config_path, content=text, profile=pid),
            NativeFile(path=f"{folder}/{prompt_file}", content=prompt + tail, profile=pid),
        ],
        losses,
        [],
    )
