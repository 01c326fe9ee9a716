"""The canonical permission semantics (OpenCode's), docs/codecs/permissions.md §1.

The matcher is checked here against the rules OpenCode 1.18.33 implements
(``Wildcard.match``: ``\\`` → ``/``, regex metacharacters escaped, ``*`` → ``.*``, ``?`` → ``.``,
a trailing `` .*`` made optional, ``^…$`` with the ``s`` flag); a few of the same cases run
through the real CLI in ``test_opencode_cli.py::test_bash_decisions_match_the_canonical_evaluator``.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_roster.codecs import permissions
from agent_roster.codecs.permissions import (
    SourcedRule,
    effective_rules,
    evaluate,
    expand_home,
    has_argument_rules,
    key_decisions,
    rules_from_config,
    rules_to_config,
    wildcard_match,
)
from agent_roster.errors import UsageError
from agent_roster.model.profile import AgentProfile, PermissionAction, PermissionRule

ALLOW, ASK, DENY = PermissionAction.ALLOW, PermissionAction.ASK, PermissionAction.DENY


def rule(key: str, pattern: str, action: PermissionAction) -> PermissionRule:
    return PermissionRule(permission=key, pattern=pattern, action=action)


def sourced(*rules: PermissionRule) -> list[SourcedRule]:
    return [SourcedRule(r, "permission") for r in rules]


@pytest.mark.parametrize(
    ("text", "pattern", "expected"),
    [
        ("anything at all", "*", True),
        ("", "*", True),
        ("src/a/b.py", "src/*.py", True),  # "*" crosses "/"
        ("src/a/b.py", "src/**.py", True),  # "**" is just "*"
        ("src/a/b.py", "src/**/*.ts", False),
        ("cat", "c?t", True),
        ("c/t", "c?t", True),  # "?" matches "/" too
        ("ct", "c?t", False),
        ("caat", "c?t", False),
        ("git push", "git push *", True),  # trailing " *" is optional
        ("git push --force", "git push *", True),
        ("git pushx", "git push *", False),
        ("git push", "git push*", True),
        ("a.b", "a.b", True),  # regex metacharacters are literal
        ("axb", "a.b", False),
        ("a", "[ab]", False),
        ("[ab]", "[ab]", True),
        ("a", "{a,b}", False),
        ("aab", "a+b", False),
        ("a+b", "a+b", True),
        ("x(1)|y", "x(1)|y", True),
        ("$HOME^", "$HOME^", True),
        ("C:\\work\\a.py", "C:/work/*", True),  # "\" normalised in the input
        ("C:/work/a.py", "C:\\work\\*", True),  # and in the pattern
        ("line one\nline two", "line*two", True),  # dot-all
        ("prefix git status", "git status", False),  # anchored at both ends
        ("git status --short", "git status", False),
        ("Git status", "git status", False),  # case-sensitive
    ],
)
def test_wildcard_match(text: str, pattern: str, expected: bool) -> None:
    assert wildcard_match(text, pattern) is expected


def test_trailing_newline_is_not_ignored() -> None:
    assert wildcard_match("rm -rf /\n", "rm -rf /") is False


def test_last_matching_rule_wins() -> None:
    rules = sourced(
        rule("bash", "*", ASK),
        rule("bash", "git *", ALLOW),
        rule("bash", "git push *", DENY),
    )
    assert evaluate(rules, "bash", "git status").action is ALLOW
    assert evaluate(rules, "bash", "git push origin").action is DENY
    assert evaluate(rules, "bash", "git push").action is DENY
    decision = evaluate(rules, "bash", "ls")
    assert (decision.action, decision.position) == (ASK, 0)
    # A later, broader rule overrides the narrower one before it.
    assert evaluate([*rules, *sourced(rule("*", "*", ALLOW))], "bash", "git push").action is ALLOW


def test_no_match_asks() -> None:
    decision = evaluate(sourced(rule("edit", "*", DENY)), "bash", "ls")
    assert decision.action is ASK
    assert decision.position is None and decision.rule is None
    assert evaluate([], "read").action is ASK


def test_the_key_is_a_wildcard_too() -> None:
    rules = sourced(rule("*", "*", DENY), rule("github_*", "*", ALLOW))
    assert evaluate(rules, "github_create_issue").action is ALLOW
    assert evaluate(rules, "gitlab_create_issue").action is DENY
    assert evaluate(rules, "bash", "ls").action is DENY


def test_argument_defaults_to_star_meaning_the_tool_in_general() -> None:
    rules = sourced(rule("bash", "*", ALLOW), rule("bash", "rm *", DENY))
    assert evaluate(rules, "bash").action is ALLOW  # "*" does not match "rm *"
    assert key_decisions(rules, ["bash", "edit"]) == {"bash": ALLOW, "edit": ASK}


def test_home_is_expanded_at_the_start_of_patterns_only() -> None:
    assert expand_home("~", "/h") == "/h"
    assert expand_home("~/notes/*", "/h") == "/h/notes/*"
    assert expand_home("$HOME/x", "/h") == "/h/x"
    assert expand_home("$HOMEx", "/h") == "/hx"
    assert expand_home("a/~/b", "/h") == "a/~/b"
    rules = sourced(rule("read", "~/secret/*", DENY))
    assert evaluate(rules, "read", "/h/secret/k", home="/h").action is DENY
    assert evaluate(rules, "read", "~/secret/k", home="/h").action is ASK


def test_effective_rules_fold_in_d9_order() -> None:
    profile = AgentProfile(
        id="p",
        name="p",
        permission_mode="acceptEdits",
        allowed_tools=("Read", "Bash(git log:*)", "mcp__github__get_issue", "get_task"),
        permission=(rule("webfetch", "*", ASK),),
        denied_tools=("Write", "mcp__github__*"),
    )
    got = [
        (s.rule.permission, s.rule.pattern, s.rule.action, s.source)
        for s in effective_rules(profile)
    ]
    assert got == [
        ("edit", "*", ALLOW, "permission_mode"),
        ("*", "*", DENY, "allowed_tools"),
        ("read", "*", ALLOW, "allowed_tools"),
        ("bash", "git log *", ALLOW, "allowed_tools"),
        ("github_get_issue", "*", ALLOW, "allowed_tools"),
        ("get_task", "*", ALLOW, "allowed_tools"),
        ("webfetch", "*", ASK, "permission"),
        ("edit", "*", DENY, "denied_tools"),
        ("github_*", "*", DENY, "denied_tools"),
    ]
    rules = effective_rules(profile)
    # acceptEdits' edit allow is overridden by the later "*" deny, then Write's deny.
    assert evaluate(rules, "edit", "a.py").action is DENY
    assert evaluate(rules, "bash", "git log -3").action is ALLOW
    assert evaluate(rules, "bash", "git status").action is DENY
    assert evaluate(rules, "github_get_issue").action is DENY  # denied_tools come last


def test_effective_rules_modes_and_embedded_server() -> None:
    def keys(**kw: object) -> list[tuple[str, str]]:
        profile = AgentProfile(id="p", name="p", **kw)  # type: ignore[arg-type]
        return [
            (s.rule.permission, s.rule.action.value)
            for s in effective_rules(profile, embedded="agent-queue")
        ]

    assert keys(permission_mode="plan") == [("edit", "deny")]
    assert keys(permission_mode="bypassPermissions") == [("*", "allow")]
    assert keys(permission_mode="full") == [("*", "allow")]
    assert keys(permission_mode="default") == []
    assert keys(permission_mode="auto") == []
    assert keys(allowed_tools=("create_task",)) == [
        ("*", "deny"),
        ("agent-queue_create_task", "allow"),
    ]


def test_rules_from_config() -> None:
    assert rules_from_config("ask") == (rule("*", "*", ASK),)
    assert rules_from_config({"bash": {"*": "ask", "git *": "allow"}, "edit": "deny"}) == (
        rule("bash", "*", ASK),
        rule("bash", "git *", ALLOW),
        rule("edit", "*", DENY),
    )
    with pytest.raises(UsageError, match="maybe"):
        rules_from_config({"bash": "maybe"})
    with pytest.raises(UsageError):
        rules_from_config(["ask"])
    with pytest.raises(UsageError):
        rules_from_config({"bash": 3})


def test_rules_to_config_groups_keys_and_round_trips() -> None:
    rules = (
        rule("*", "*", ASK),
        rule("bash", "*", DENY),
        rule("bash", "ls *", ALLOW),
        rule("webfetch", "*", ALLOW),
    )
    config = rules_to_config(rules)
    assert config == {"*": "ask", "bash": {"*": "deny", "ls *": "allow"}, "webfetch": "allow"}
    assert rules_from_config(config) == rules
    # A repeated key is grouped at its first position; a repeated pattern keeps the last action.
    assert rules_to_config(
        [rule("edit", "*", ALLOW), rule("read", "*", ALLOW), rule("edit", "*", DENY)]
    ) == {
        "edit": "deny",
        "read": "allow",
    }
    assert not has_argument_rules(rules[:2])
    assert has_argument_rules(rules)


def test_todowrite_takes_only_an_action() -> None:
    config = rules_to_config([rule("todowrite", "*", ALLOW), rule("todowrite", "x", DENY)])
    assert config["todowrite"] == "allow"


# --- the indexed evaluator and dead-rule removal agree with the plain definitions ----------


from agent_roster.codecs.opencode.rules import live_rules  # noqa: E402
from agent_roster.codecs.permissions import RuleIndex  # noqa: E402

_KEYS = ["bash", "edit", "read", "*", "gh_*", "gh_issue", "gh_", "g?_x", "a\\b", "a/b", "x *", "x"]
_PATTERNS = ["*", "git *", "git push *", "src/*", "~/x", "a\\b", "a/b", ""]
_rules = st.lists(
    st.builds(
        PermissionRule,
        permission=st.sampled_from(_KEYS),
        pattern=st.sampled_from(_PATTERNS),
        action=st.sampled_from(list(PermissionAction)),
    ),
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(
    rules=_rules,
    key=st.sampled_from([*_KEYS, "gh_issue_x", "bashx"]),
    arg=st.sampled_from([*_PATTERNS, "git push --force", "other"]),
)
def test_rule_index_decides_like_evaluate(rules: list[PermissionRule], key: str, arg: str) -> None:
    plain = evaluate([SourcedRule(r, "permission") for r in rules], key, arg, home="/h")
    assert RuleIndex(rules).decide(key, arg, home="/h") == (plain.action, plain.position)
    # Memoized (the rules every agent of a render shares): the same answer, asked again too.
    memoized = RuleIndex(rules, memo=True)
    for _ in range(2):
        assert memoized.decide(key, arg, home="/h") == (plain.action, plain.position)
        assert memoized.decide("*", "*", home="/h") == RuleIndex(rules).decide("*", home="/h")


def test_a_memoized_index_follows_the_home_folder_its_patterns_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A pattern under ~ is decided against $HOME at each call: such answers are not kept.
    rules = [rule("read", "*", ALLOW), rule("read", "~/secret/*", DENY)]
    index = RuleIndex(rules, memo=True)
    monkeypatch.setenv("HOME", "/home/a")
    assert index.decide("read", "/home/a/secret/k")[0] is DENY
    monkeypatch.setenv("HOME", "/home/b")
    assert index.decide("read", "/home/a/secret/k")[0] is ALLOW
    assert index.memo is None
    assert RuleIndex([rule("read", "src/*", DENY)], memo=True).memo == {}


def _covers_reference(later: PermissionRule, earlier: PermissionRule) -> bool:
    key_ok = later.permission in ("*", earlier.permission) or (
        not any(c in earlier.permission for c in "*?")
        and wildcard_match(earlier.permission, later.permission)
    )
    return key_ok and later.pattern in ("*", earlier.pattern)


@settings(max_examples=300, deadline=None)
@given(rules=_rules)
def test_live_rules_matches_the_pairwise_definition(rules: list[PermissionRule]) -> None:
    reference = [
        rule
        for i, rule in enumerate(rules)
        if not any(_covers_reference(later, rule) for later in rules[i + 1 :])
    ]
    assert live_rules(rules) == reference


@settings(max_examples=500, deadline=None)
@given(
    st.text(alphabet="ab/\\* ?~\n", max_size=8),
    st.text(alphabet="ab/\\* ?~\n", max_size=8),
)
def test_wildcard_shortcuts_agree_with_the_pattern_itself(text: str, pattern: str) -> None:
    """The literal and ``*`` shortcuts give what the compiled pattern gives."""
    compiled = permissions._compile(pattern).match(text.replace("\\", "/")) is not None
    assert wildcard_match(text, pattern) is compiled


@settings(max_examples=500, deadline=None)
@given(
    rules=st.lists(
        st.builds(
            PermissionRule,
            permission=st.sampled_from([*_KEYS, "gh_i*", "*_x", "l\nm", "**", "g? *"]),
            pattern=st.sampled_from(_PATTERNS),
            action=st.sampled_from(list(PermissionAction)),
        ),
        max_size=12,
    ),
    key=st.sampled_from([*_KEYS, "gh_issue_x", "bashx", "gh_*", "l\nm", "g?", "a_x"]),
    arg=st.sampled_from([*_PATTERNS, "git push --force", "other"]),
)
def test_agent_layer_decides_like_evaluate(rules: list[PermissionRule], key: str, arg: str) -> None:
    # The render check decides OpenCode agents from their permission map without building
    # rules (opencode/semantics.AgentLayer): the same answers as the plain definition.
    from agent_roster.codecs.opencode.semantics import AgentLayer

    permission = rules_to_config(rules)
    written = rules_from_config(permission)
    plain = evaluate([SourcedRule(r, "permission") for r in written], key, arg)
    expected = None if plain.position is None else plain.action
    assert AgentLayer(permission).decide(key, arg) == expected


def test_effective_rules_are_worked_out_once_per_profile_within_a_render() -> None:
    import msgspec

    first = AgentProfile(id="a", name="a", allowed_tools=("Read",), denied_tools=("Bash",))
    twin = msgspec.structs.replace(first)  # equal, but another profile object
    other = msgspec.structs.replace(first, allowed_tools=("Edit",))
    outside = permissions.effective_rules(first)
    assert permissions.effective_rules(first) is not outside  # nothing kept outside
    with permissions.remembering_rules():
        kept = permissions.effective_rules(first)
        assert kept == outside
        assert permissions.effective_rules(first) is kept
        assert (
            permissions.effective_rules(twin) is not kept
            and permissions.effective_rules(twin) == kept
        )
        assert permissions.effective_rules(other) != kept
        # The embedded server's name is part of the answer.
        assert permissions.effective_rules(first, embedded="roster") is not kept
    assert permissions.effective_rules(first) is not kept


def test_tools_of_key_names_every_built_in_tool_of_the_key_in_table_order() -> None:
    # The table lookup must give what a pass over the tool table gives, for every key a
    # built-in tool has and for keys of none (MCP keys, unknown names).
    from agent_roster.codecs.semantics import UNPROBED, tools_of_key
    from agent_roster.codecs.tool_names import canonical_tools, native_names

    def by_pass(key: str) -> tuple[str, ...]:
        return tuple(
            tool
            for tool in canonical_tools()
            if tool not in UNPROBED and any(n.name == key for n in native_names("opencode", tool))
        )

    keys = {n.name for tool in canonical_tools() for n in native_names("opencode", tool)}
    assert len(keys) > 10
    for key in (*sorted(keys), "github_search", "*", "", "Edit"):
        assert tools_of_key(key) == by_pass(key), key
    assert tools_of_key("edit") == ("Write", "Edit")


@settings(max_examples=400, deadline=None)
@given(
    rules=st.lists(
        st.tuples(
            st.builds(
                PermissionRule,
                permission=st.sampled_from(_KEYS),
                pattern=st.sampled_from(_PATTERNS),
                action=st.sampled_from(list(PermissionAction)),
            ),
            st.sampled_from(["", "Edit", "Write", "Task", "Agent"]),
        ),
        max_size=12,
    ),
    key=st.sampled_from([*_KEYS, "gh_issue_x", "bashx", "a\\\\b"]),
    arg=st.sampled_from([*_PATTERNS, "git push --force", "other"]),
    tool=st.sampled_from([None, "Edit", "Write", "Task", "Agent", "Bash"]),
)
def test_an_indexed_rule_list_decides_like_evaluate(
    rules: list[tuple[PermissionRule, str]], key: str, arg: str, tool: str | None
) -> None:
    # Tools-list rules tagged with a tool (Edit vs Write under "edit", Task and its alias
    # Agent), keys with wildcards and "\\", home-relative patterns: same decision, same rule.
    listed = tuple(SourcedRule(rule, "allowed_tools", tagged) for rule, tagged in rules)
    plain = evaluate(listed, key, arg, tool=tool)
    with permissions.remembering_rules():
        assert permissions.evaluate_indexed(listed, key, arg, tool=tool) == plain
        assert permissions.evaluate_indexed(listed, key, arg, tool=tool) == plain  # kept
        # Asked in a batch, each call among others of the same list.
        calls = [(key, arg, tool), ("*", "*", None), (key, "*", "Edit"), (key, arg, tool)]
        each = [evaluate(listed, k, a, tool=t) for k, a, t in calls]
        assert permissions.evaluate_each(listed, calls) == each
        assert permissions.evaluator(listed)(key) == evaluate(listed, key)
    assert permissions.evaluate_indexed(listed, key, arg, tool=tool) == plain  # outside
    assert permissions.evaluate_each(listed, [(key, arg, tool)]) == [plain]
    assert permissions.evaluator(listed)(key) == evaluate(listed, key)


def test_a_rule_list_is_indexed_once_within_a_render() -> None:
    listed = effective_rules(AgentProfile(id="a", name="a", allowed_tools=("Read", "Edit")))
    with permissions.remembering_rules():
        for key in ("read", "edit", "bash", "gh_x"):
            permissions.evaluate_indexed(listed, key)
        kept = permissions._INDEXED.get()
        assert kept is not None and list(kept) == [id(listed)]
        assert kept[id(listed)][0] is listed
        # A list object (it could change) is never indexed.
        permissions.evaluate_indexed(list(listed), "read")
        assert list(kept) == [id(listed)]
    assert permissions._INDEXED.get() is None
