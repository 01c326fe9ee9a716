"""## Config: every key's type and value rules (profile_blocks.validate_config)."""

from __future__ import annotations

import json

import pytest

from agent_roster.model.profile import PERMISSION_MODES, PermissionAction, PermissionRule, Runtime

from .helpers import block, codes, one, parse


def config(data: dict[str, object] | str):  # type: ignore[no-untyped-def]
    payload = data if isinstance(data, str) else json.dumps(data)
    return parse(block("Config", payload))


def test_a_full_config_is_read() -> None:
    parsed = config(
        {
            "model": " claude-sonnet-4-6 ",
            "provider": "anthropic",
            "permission_mode": "auto",
            "max_tokens_per_task": 100000,
            "max_turns": 40,
            "temperature": 0.2,
            "top_p": 1,
            "runtime": "acpx",
            "agent_name": "codex",
            "mode": "subagent",
            "color": "#ff0000",
            "harness": {"opencode": {"steps": 40}},
        }
    )
    assert parsed.ok, parsed.diagnostics
    p = parsed.profile
    assert p is not None
    assert (p.model, p.provider, p.permission_mode) == ("claude-sonnet-4-6", "anthropic", "auto")
    assert (p.max_tokens_per_task, p.max_turns, p.temperature, p.top_p) == (100000, 40, 0.2, 1.0)
    assert (p.runtime, p.agent_name, p.mode, p.color) == (
        Runtime.ACPX,
        "codex",
        "subagent",
        "#ff0000",
    )
    assert p.harness == {"opencode": {"steps": 40}}
    assert p.extra_config == {}
    assert {"model", "runtime", "max_tokens_per_task"} <= p.fields_set


@pytest.mark.parametrize(
    ("value", "found"),
    [
        ('""', "''"),
        ('"   "', "'   '"),
        ("1", "1"),
        ("null", "null"),
        ("true", "true"),
        ("[]", "[]"),
    ],
)
def test_model_must_be_a_non_empty_string(value: str, found: str) -> None:
    parsed = config(f'{{"model": {value}}}')
    d = one(parsed, "field-type")
    assert (d.line, d.column) == (7, 11)
    assert d.message == f"Config 'model' must be a non-empty string, got {found}"
    assert d.hint == "remove 'model' to use the default, or give a value"
    assert parsed.profile is not None and parsed.profile.model == ""


@pytest.mark.parametrize("mode", PERMISSION_MODES)
def test_every_permission_mode_is_accepted(mode: str) -> None:
    parsed = config({"permission_mode": mode})
    assert parsed.ok and parsed.profile is not None and parsed.profile.permission_mode == mode


@pytest.mark.parametrize(
    ("value", "hint"),
    [
        ("Plan", "did you mean 'plan'?"),
        ("bypass_permissions", "did you mean 'bypassPermissions'?"),
        ("", "use one of: " + ", ".join(PERMISSION_MODES)),
        ("turbo", "use one of: " + ", ".join(PERMISSION_MODES)),
    ],
)
def test_permission_mode_is_an_exact_set(value: str, hint: str) -> None:
    parsed = config({"permission_mode": value})
    d = one(parsed, "field-value")
    assert (d.line, d.column) == (7, 21)
    assert d.message == (
        f"Config 'permission_mode' {value!r} is not one of default, plan, acceptEdits, "
        "bypassPermissions, auto, full"
    )
    assert d.hint == hint


def test_permission_mode_must_be_a_string() -> None:
    d = one(config({"permission_mode": 1}), "field-type")
    assert d.message == "Config 'permission_mode' must be a string, got a number"


@pytest.mark.parametrize("value", [1, 100000, 2**40])
def test_max_tokens_accepts_positive_integers(value: int) -> None:
    parsed = config({"max_tokens_per_task": value})
    assert parsed.ok and parsed.profile is not None
    assert parsed.profile.max_tokens_per_task == value


@pytest.mark.parametrize(
    ("value", "code", "found"),
    [
        ("0", "field-value", "0"),
        ("-1", "field-value", "-1"),
        ("1.5", "field-type", "1.5"),
        ("1.0", "field-type", "1.0"),
        ("1e3", "field-type", "1000.0"),
        ('"100"', "field-type", "'100'"),
        ("true", "field-type", "true"),
        ("false", "field-type", "false"),
        ("null", "field-type", "null"),
    ],
)
def test_max_tokens_rejects_everything_else(value: str, code: str, found: str) -> None:
    parsed = config(f'{{"max_tokens_per_task": {value}}}')
    d = one(parsed, code)
    assert (d.line, d.column) == (7, 25)
    assert d.message == f"Config 'max_tokens_per_task' must be a positive integer, got {found}"
    assert d.hint == "write a whole number above zero, for example 100000"
    assert parsed.profile is not None and parsed.profile.max_tokens_per_task is None


def test_max_turns_follows_the_same_rule() -> None:
    assert codes(config({"max_turns": 0})) == ["field-value"]
    assert codes(config({"max_turns": True})) == ["field-type"]


@pytest.mark.parametrize("runtime", list(Runtime))
def test_runtimes(runtime: Runtime) -> None:
    data: dict[str, object] = {"runtime": runtime.value}
    if runtime is Runtime.ACPX:
        data["agent_name"] = "gemini"
    parsed = config(data)
    assert parsed.ok and parsed.profile is not None and parsed.profile.runtime is runtime


@pytest.mark.parametrize(
    ("value", "code", "hint"),
    [
        ('"claude"', "field-value", "did you mean 'claude_sdk'?"),
        ('"ACPX"', "field-value", "did you mean 'acpx'?"),
        ("3", "field-type", "use one of: claude_sdk, acpx, supervisor"),
    ],
)
def test_runtime_must_be_one_of_three(value: str, code: str, hint: str) -> None:
    d = one(config(f'{{"runtime": {value}}}'), code)
    found = value.replace('"', "'")  # strings are shown in Python quotes, like keys
    assert d.message == f"Config 'runtime' must be one of claude_sdk, acpx, supervisor, got {found}"
    assert d.hint == hint


def test_acpx_needs_agent_name() -> None:
    parsed = config({"model": "m", "runtime": "acpx"})
    d = one(parsed, "runtime-agent-name")
    assert (d.line, d.column, d.severity.value) == (7, 27, "error")
    assert d.message == "runtime 'acpx' needs 'agent_name', the ACP agent to run"
    assert d.hint == 'add "agent_name": "codex" (or claude, gemini, opencode, cursor...)'


def test_acpx_with_an_invalid_agent_name_reports_the_name_only() -> None:
    parsed = config({"runtime": "acpx", "agent_name": ""})
    d = one(parsed, "field-value")
    assert d.message == "Config 'agent_name' must not be empty"
    assert codes(parsed) == ["field-value"]
    assert codes(config({"agent_name": "../codex"})) == ["field-value"]
    assert codes(config({"agent_name": 7})) == ["field-type"]


def test_agent_name_with_another_runtime_warns() -> None:
    parsed = config({"runtime": "claude_sdk", "agent_name": "codex"})
    d = one(parsed, "agent-name-ignored")
    assert (d.line, d.column, d.severity.value) == (7, 27, "warning")  # at the key
    assert d.message == "'agent_name' has no effect with runtime 'claude_sdk'"
    assert parsed.ok
    # Without a runtime the file may be an override of an acpx profile: no warning.
    assert codes(config({"agent_name": "codex"})) == []


def test_unknown_key_warns_with_a_suggestion_and_is_kept() -> None:
    parsed = config('{"permision_mode": "auto", "shoe_size": 44}')
    assert [(d.line, d.column, d.severity.value) for d in parsed.diagnostics] == [
        (7, 2, "warning"),
        (7, 28, "warning"),
    ]
    typo, other = parsed.diagnostics
    assert (typo.code, typo.message, typo.hint) == (
        "field-unknown",
        "unknown Config key 'permision_mode'",
        "did you mean 'permission_mode'?",
    )
    assert other.message == "unknown Config key 'shoe_size'"
    assert other.hint.startswith("known keys: model, provider, permission_mode, ")
    assert other.hint.endswith("; the key is kept as extra config")
    assert parsed.ok and parsed.profile is not None
    assert parsed.profile.extra_config == {"permision_mode": "auto", "shoe_size": 44}
    assert parsed.profile.permission_mode == ""


def test_permission_rules_keep_their_order() -> None:
    parsed = config(
        '{"permission": {"edit": "ask", "bash": {"*": "ask", "git status": "allow",'
        ' "rm *": "deny"}, "webfetch": "deny"}}'
    )
    assert parsed.ok and parsed.profile is not None
    A = PermissionAction
    assert parsed.profile.permission == (
        PermissionRule(permission="edit", pattern="*", action=A.ASK),
        PermissionRule(permission="bash", pattern="*", action=A.ASK),
        PermissionRule(permission="bash", pattern="git status", action=A.ALLOW),
        PermissionRule(permission="bash", pattern="rm *", action=A.DENY),
        PermissionRule(permission="webfetch", pattern="*", action=A.DENY),
    )
    whole = config({"permission": "allow"})
    assert whole.profile is not None
    assert whole.profile.permission == (PermissionRule(permission="*", action=A.ALLOW),)


def test_bad_permission_rules_are_each_reported() -> None:
    parsed = config('{"permission": {"edit": "maybe", "bash": {"*": 3}}}')
    assert [(d.column, d.code) for d in parsed.diagnostics] == [
        (25, "field-value"),
        (48, "field-value"),
    ]
    assert parsed.diagnostics[1].message == (
        "permission 'bash' pattern '*': action must be allow, ask or deny, got 3"
    )
    assert parsed.profile is not None and parsed.profile.permission == ()
    assert codes(config({"permission": ["allow"]})) == ["field-type"]
    assert codes(config({"permission": "sometimes"})) == ["field-value"]


@pytest.mark.parametrize(
    ("key", "value", "ok"),
    [
        ("temperature", 0, True),
        ("temperature", 2, True),
        ("temperature", 2.01, False),
        ("temperature", -0.1, False),
        ("top_p", 1, True),
        ("top_p", 0.5, True),
        ("top_p", 1.5, False),
        ("top_p", -1, False),
    ],
)
def test_sampling_ranges(key: str, value: float, ok: bool) -> None:
    parsed = config({key: value})
    assert parsed.ok is ok
    assert parsed.profile is not None
    if ok:
        assert getattr(parsed.profile, key) == float(value)
    else:
        d = one(parsed, "field-value")
        upper = "2" if key == "temperature" else "1"
        assert d.message == f"Config {key!r} must be between 0 and {upper}, got {value}"
        assert d.hint == f"write a number from 0 to {upper}"


@pytest.mark.parametrize("value", ['"0.5"', "true", "null"])
def test_sampling_must_be_numbers(value: str) -> None:
    d = one(config(f'{{"temperature": {value}}}'), "field-type")
    assert d.message.startswith("Config 'temperature' must be a number, got ")


def test_mode_color_and_harness_types() -> None:
    parsed = config({"mode": "sub", "color": "", "harness": {"x": 1}})
    assert [(d.code, d.message) for d in parsed.diagnostics] == [
        ("field-value", "Config 'mode' must be one of primary, subagent, all, got 'sub'"),
        ("field-type", "Config 'color' must be a non-empty string, got ''"),
        ("field-type", "Config 'harness' must map harness names to objects"),
    ]


def test_every_bad_key_is_reported_and_good_ones_kept() -> None:
    parsed = config(
        {
            "model": 1,
            "permission_mode": "x",
            "max_tokens_per_task": -5,
            "runtime": "y",
            "temperature": 9,
            "provider": "anthropic",
        }
    )
    assert codes(parsed) == [
        "field-type",
        "field-value",
        "field-value",
        "field-value",
        "field-value",
    ]
    assert parsed.profile is not None and parsed.profile.provider == "anthropic"


def test_empty_config_object_is_fine() -> None:
    parsed = config({})
    assert parsed.ok and parsed.profile is not None and parsed.profile.model == ""
