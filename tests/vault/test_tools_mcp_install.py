"""## Tools, ## MCP Servers and ## Install blocks."""

from __future__ import annotations

import json

import pytest

from agent_roster.known_tools import KnownTools

from .helpers import block, codes, one, parse, where

KNOWN = KnownTools(["github"])


def tools(data: object, known: KnownTools | None = KNOWN):  # type: ignore[no-untyped-def]
    payload = data if isinstance(data, str) else json.dumps(data)
    return parse(block("Tools", payload), known_tools=known)


def test_allowed_and_denied_are_read_and_canonicalised() -> None:
    parsed = tools(
        {
            "allowed": [
                "Read",
                "mcp__agent-queue__create_task",
                "mcp__github__create_issue",
                "Bash(git log:*)",
                "list_profiles",
                " Grep ",
            ],
            "denied": ["WebFetch", "mcp__agent-queue__delete_profile"],
        }
    )
    assert parsed.ok and parsed.diagnostics == ()
    p = parsed.profile
    assert p is not None
    assert p.allowed_tools == (
        "Read",
        "create_task",
        "mcp__github__create_issue",
        "Bash(git log:*)",
        "list_profiles",
        "Grep",
    )
    assert p.denied_tools == ("WebFetch", "delete_profile")


def test_unknown_tools_are_warnings_never_errors() -> None:
    parsed = tools('{"allowed": ["Raed", "mcp__slack__post", "mcp__agent-queue__nope"]}')
    assert where(parsed.diagnostics) == [
        (7, 14, "tool-unknown"),
        (7, 22, "tool-unknown"),
        (7, 42, "tool-unknown"),
    ]
    assert [d.severity.value for d in parsed.diagnostics] == ["warning"] * 3
    raed, slack, nope = parsed.diagnostics
    assert (raed.message, raed.hint) == ("tool 'Raed' is not a known tool", "did you mean 'Read'?")
    assert slack.message == "tool 'mcp__slack__post' is not a known tool"
    assert slack.hint == (
        "kept as written; check the spelling, or add the server that provides it to mcp-servers/"
    )
    # The embedded server's commands are all known: another name under its prefix is not
    # one of them, and stays as written (issue 12 item 4).
    assert nope.message == "tool 'mcp__agent-queue__nope' is not a known tool"
    assert parsed.ok and parsed.profile is not None
    assert parsed.profile.allowed_tools == ("Raed", "mcp__slack__post", "mcp__agent-queue__nope")


def test_without_a_registry_names_are_not_checked() -> None:
    parsed = tools({"allowed": ["anything", "mcp__x__y"], "denied": ["whatever"]}, known=None)
    assert parsed.diagnostics == ()


def test_server_tools_are_known_only_when_the_server_is() -> None:
    assert codes(tools({"allowed": ["mcp__github__anything"]})) == []
    assert codes(tools({"allowed": ["mcp__github__anything"]}, known=KnownTools())) == [
        "tool-unknown"
    ]


def test_a_tool_in_both_lists_warns() -> None:
    parsed = tools('{"allowed": ["Read", "Bash"], "denied": ["Bash"]}')
    d = one(parsed, "tool-conflict")
    assert (d.line, d.column, d.severity.value) == (7, 42, "warning")
    assert d.message == "tool 'Bash' is both allowed and denied; denied wins"
    assert d.hint == "remove it from one of the lists"
    conflict_after_stripping = tools(
        {"allowed": ["create_task"], "denied": ["mcp__agent-queue__create_task"]}
    )
    assert codes(conflict_after_stripping) == ["tool-conflict"]


def test_duplicates_warn_and_are_dropped() -> None:
    parsed = tools(
        '{"allowed": ["Read", "Grep", "Read", "mcp__agent-queue__create_task", "create_task"]}'
    )
    assert where(parsed.diagnostics) == [(7, 30, "tool-duplicate"), (7, 71, "tool-duplicate")]
    assert parsed.diagnostics[0].message == "tool 'Read' is listed twice in Tools 'allowed'"
    assert parsed.profile is not None
    assert parsed.profile.allowed_tools == ("Read", "Grep", "create_task")


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        (
            '{"allowed": "Read"}',
            [(7, 13, "Tools 'allowed' must be an array of strings, got a string")],
        ),
        (
            '{"denied": {"a": 1}}',
            [(7, 12, "Tools 'denied' must be an array of strings, got an object")],
        ),
        (
            '{"allowed": ["Read", 1, "", "  "]}',
            [
                (7, 22, "Tools 'allowed'[1] must be a non-empty string, got 1"),
                (7, 25, "Tools 'allowed'[2] must be a non-empty string, got ''"),
                (7, 29, "Tools 'allowed'[3] must be a non-empty string, got '  '"),
            ],
        ),
    ],
)
def test_lists_of_non_empty_strings(payload: str, expected: list[tuple[int, int, str]]) -> None:
    parsed = tools(payload)
    assert [(d.line, d.column, d.message) for d in parsed.diagnostics] == expected
    assert {d.code for d in parsed.diagnostics} == {"field-type"}
    assert parsed.profile is not None and parsed.profile.allowed_tools == ()


def test_the_bare_embedded_prefix_names_no_tool() -> None:
    parsed = tools({"allowed": ["Read", "mcp__agent-queue__"]}, known=None)
    d = one(parsed, "field-value")
    assert (d.line, d.column) == (7, 22)
    assert d.message == "Tools 'allowed'[1] 'mcp__agent-queue__' names no tool"
    assert parsed.profile is not None and parsed.profile.allowed_tools == ("Read",)


def test_unknown_tools_key_warns() -> None:
    parsed = tools({"allowed": [], "alowed": ["Read"]})
    d = one(parsed, "field-unknown")
    assert (d.message, d.hint) == ("unknown Tools key 'alowed'", "did you mean 'allowed'?")
    assert (d.line, d.column) == (7, 17)
    assert (
        one(tools({"extra": 1}), "field-unknown").hint
        == "Tools takes 'allowed', 'denied' and 'exact'"
    )


def test_exact_makes_the_allowed_list_the_whole_tool_set() -> None:
    # "exact": true with [] is "no tools"; without it, [] is "the runtime's default".
    none = tools({"allowed": [], "exact": True})
    assert none.ok and none.diagnostics == ()
    assert none.profile is not None
    assert (none.profile.allowed_tools, none.profile.tools_exact) == ((), True)
    assert "tools_exact" in none.profile.fields_set
    only = tools({"exact": True})  # no list at all: still no tools
    assert only.profile is not None and only.profile.tools_exact
    plain = tools({"allowed": []})
    assert plain.profile is not None and not plain.profile.tools_exact


def test_exact_must_be_a_boolean() -> None:
    parsed = tools({"allowed": ["Read"], "exact": "yes"})
    d = one(parsed, "field-type")
    assert d.message == "Tools 'exact' must be true or false, got a string"
    assert d.hint == '"exact": true makes "allowed" the whole tool set ([] = no tools)'
    assert parsed.profile is not None and not parsed.profile.tools_exact


# -- MCP Servers -------------------------------------------------------------------------------


def servers(payload: str):  # type: ignore[no-untyped-def]
    return parse(block("MCP Servers", payload))


def test_mcp_servers_are_registry_names() -> None:
    parsed = servers('["github", "playwright"]')
    assert parsed.ok and parsed.diagnostics == ()
    assert parsed.profile is not None and parsed.profile.mcp_servers == ("github", "playwright")
    assert "mcp_servers" in parsed.profile.fields_set


def test_legacy_inline_object_is_deprecated_but_names_are_kept() -> None:
    parsed = servers('{"github": {"command": "npx", "args": ["-y", "gh"]}, "files": {}}')
    d = one(parsed, "mcp-inline-deprecated")
    assert (d.line, d.column, d.severity.value) == (7, 1, "warning")
    assert d.message == "inline MCP server configs are deprecated; the server names are used"
    assert d.hint == "run 'roster migrate-mcp' to move them into mcp-servers/<name>.md"
    assert parsed.ok and parsed.profile is not None
    assert parsed.profile.mcp_servers == ("github", "files")


def test_legacy_inline_entries_are_checked() -> None:
    parsed = servers('{"bad/name": {}, "x": 3, "ok": {}}')
    assert [(d.column, d.code) for d in parsed.diagnostics] == [
        (1, "mcp-inline-deprecated"),
        (2, "name-unsafe"),
        (23, "field-type"),
    ]
    assert parsed.profile is not None and parsed.profile.mcp_servers == ("ok",)


@pytest.mark.parametrize("payload", ['"github"', "42", "null", "true"])
def test_mcp_servers_must_be_a_list(payload: str) -> None:
    assert codes(servers(payload)) == ["json-type"]


def test_unsafe_or_repeated_server_names() -> None:
    parsed = servers('["../etc", "a/b", 3, ".hidden", "", "x", "x"]')
    assert [(d.column, d.code, d.message) for d in parsed.diagnostics] == [
        (2, "name-unsafe", "MCP server name at index 0 must not contain '..'"),
        (12, "name-unsafe", "MCP server name at index 1 must not contain '/'"),
        (19, "field-type", "MCP server name at index 2 must be a string, got a number"),
        (22, "name-unsafe", "MCP server name at index 3 must not start with a dot"),
        (33, "name-unsafe", "MCP server name at index 4 must not be empty"),
        (42, "tool-duplicate", "MCP server 'x' is listed twice"),
    ]
    assert parsed.profile is not None and parsed.profile.mcp_servers == ("x",)


# -- Install -------------------------------------------------------------------------------------


def install(data: object):  # type: ignore[no-untyped-def]
    return parse(block("Install", json.dumps(data)))


def test_install_lists_are_read() -> None:
    parsed = install(
        {
            "npm": ["eslint", "@scope/pkg@^1.2", "typescript@5.4.2"],
            "pip": ["requests>=2,<3", "black[jupyter]", "ruff==0.4.*", "Django"],
            "commands": ["git", "gh", "python3.11"],
        }
    )
    assert parsed.ok, parsed.diagnostics
    manifest = parsed.profile.install  # type: ignore[union-attr]
    assert manifest.npm == ("eslint", "@scope/pkg@^1.2", "typescript@5.4.2")
    assert manifest.pip == ("requests>=2,<3", "black[jupyter]", "ruff==0.4.*", "Django")
    assert manifest.commands == ("git", "gh", "python3.11")


BAD_PACKAGES = [
    "--index-url=http://x",
    "-e .",
    "git+https://github.com/a/b",
    "../x",
    "./pkg",
    "/abs/path",
    "https://x/y.tgz",
    "a b",
    "pkg; rm -rf /",
    "file:../x",
    "",
]


@pytest.mark.parametrize("name", BAD_PACKAGES)
@pytest.mark.parametrize("manager", ["npm", "pip"])
def test_options_urls_and_paths_are_not_package_names(manager: str, name: str) -> None:
    parsed = install({manager: ["ok-pkg", name]})
    option = name.startswith("-")
    code = "argv-option-value" if option else "package-name-invalid"
    assert codes(parsed) == [code if name else "field-type"]
    if name:
        d = parsed.diagnostics[0]
        assert d.message == f"Install {manager!r}: {name!r} " + (
            "starts with '-', so the program would read it as an option"
            if option
            else f"is not a valid {manager} package name"
        )
        assert d.hint == "a package name, optionally with a version; never an option or a URL"
        assert parsed.profile is not None
        assert getattr(parsed.profile.install, manager) == ("ok-pkg",)


@pytest.mark.parametrize("name", ["rm -rf /", "../bin/tool", "/usr/bin/git", "-x", "a;b"])
def test_commands_are_plain_program_names(name: str) -> None:
    if name.startswith("-"):
        d = one(install({"commands": [name]}), "argv-option-value")
        assert d.message == (
            f"Install 'commands': {name!r} starts with '-', so the program would read it as "
            "an option"
        )
    else:
        d = one(install({"commands": [name]}), "package-name-invalid")
        assert d.message == f"Install 'commands': {name!r} is not a valid command name"
    assert d.hint == "a program name such as git; no path, option or argument"


def test_install_shape_errors() -> None:
    parsed = install({"npm": "eslint", "cargo": ["x"]})
    assert [(d.code, d.message) for d in parsed.diagnostics] == [
        ("field-type", "Install 'npm' must be an array of strings, got a string"),
        ("field-unknown", "unknown Install key 'cargo'"),
    ]
    assert parsed.diagnostics[1].hint == "Install takes npm, pip and commands"
    assert one(install({"pipp": []}), "field-unknown").hint == "did you mean 'pip'?"
