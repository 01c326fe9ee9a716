"""The defect codec against seed 003 (``profiles.rs``), rule by rule (section per case)."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from agent_roster.codecs.base import LossOutcome, NativeAgent, Probe, RenderRequest, Roots, Scope
from agent_roster.codecs.defect.codec import CODEC
from agent_roster.codecs.defect.semantics import profile_config
from agent_roster.codecs.native_md import recalled_reading, remembering_written
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import (
    AgentProfile,
    PermissionAction,
    PermissionRule,
    PromptSection,
)
from tests.codecs.helpers import render_and_discover, roundtrip_differences
from tests.codecs.test_agh import example_profiles, tree

from .helpers import render_with

FOLDER = {
    ".defect/agents/reviewer/config.toml": 'description = "Reviews"\nmodel = "m1"\n',
    ".defect/agents/reviewer/system.md": "  You review.\n\n",
}


def discover(tmp_path: Path, project: dict[str, str], user: dict[str, str] | None = None):
    ws, home = tmp_path / "repo", tmp_path / "home"
    tree(ws, project | {".git/HEAD": "ref"})
    tree(
        home,
        {f".config/defect/agents/{k.split('agents/', 1)[1]}": v for k, v in (user or {}).items()},
    )
    home.mkdir(exist_ok=True)
    return CODEC.discover(Roots(workspace=ws, home=home))


# -- discovery --------------------------------------------------------------------------


def test_directory_variant_reads_prompt_verbatim(tmp_path: Path) -> None:
    """Seed 003 "Directory variant": config.toml + system.md (read as is)."""
    found = discover(tmp_path, FOLDER)
    assert not found.refused and found.diagnostics == ()
    (p,) = found.profiles
    assert (p.id, p.name, p.description, p.model) == ("reviewer", "reviewer", "Reviews", "m1")
    # read verbatim (not trimmed): only the file's last line end is layout (issue 12 item 1)
    assert p.sections == (PromptSection(heading="Role", body="  You review.\n"),)
    # omitted allow: defect's read-only default, written as the exact tool set and reported
    # (issue 12 item 2: never the runtime's default)
    assert (p.allowed_tools, p.tools_exact) == (("Read", "Grep", "Glob"), True)
    assert any(x.field == "allowed_tools" for x in found.losses)


@pytest.mark.parametrize(
    "text",
    [
        '+++\ndescription = "One file"\n+++\n\nBody text.\n',
        "---\ndescription: One file\n---\nBody text.\n",
        '\ufeff  \n+++\ndescription = "One file"\n  +++  \nBody text.',
    ],
    ids=["toml", "yaml", "bom-and-spaces"],
)
def test_single_file_variant(tmp_path: Path, text: str) -> None:
    """Seed 003 "Single-file variant": ``+++`` TOML or ``---`` YAML, body is the prompt."""
    found = discover(tmp_path, {".defect/agents/solo.md": text})
    assert not found.refused, found.diagnostics
    (p,) = found.profiles
    assert p.id == "solo" and p.description == "One file" and p.prompt == "Body text."


def test_project_layer_replaces_user_layer_whole(tmp_path: Path) -> None:
    """Seed 003 "Layered discovery": project overrides user, no field merge."""
    user = {
        ".defect/agents/reviewer/config.toml": 'description = "User"\nmodel = "user-model"\n'
        "[sampling]\ntemperature = 0.5\n",
        ".defect/agents/reviewer/system.md": "User prompt",
        ".defect/agents/only-user.md": '+++\ndescription = "U"\n+++\nx',
    }
    found = discover(tmp_path, FOLDER, user)
    by_id = {p.id: p for p in found.profiles}
    assert set(by_id) == {"reviewer", "only-user"}
    assert by_id["reviewer"].model == "m1" and by_id["reviewer"].temperature is None
    (shadow,) = found.diagnostics
    assert shadow.code == "harness-shadowed"
    assert shadow.path.endswith("home/.config/defect/agents/reviewer/config.toml")


def test_repo_root_is_found_from_a_subfolder(tmp_path: Path) -> None:
    """``find_repo_root``: the nearest ancestor holding ``.git``."""
    tree(tmp_path / "repo", FOLDER | {".git": "gitdir: elsewhere"})
    (tmp_path / "repo" / "src" / "deep").mkdir(parents=True)
    (tmp_path / "home").mkdir()
    found = CODEC.discover(Roots(workspace=tmp_path / "repo/src/deep", home=tmp_path / "home"))
    assert [p.id for p in found.profiles] == ["reviewer"]


def test_no_git_is_reported(tmp_path: Path) -> None:
    tree(tmp_path / "ws", FOLDER)
    (tmp_path / "home").mkdir()
    found = CODEC.discover(Roots(workspace=tmp_path / "ws", home=tmp_path / "home"))
    (warning,) = found.diagnostics
    assert warning.code == "harness-ignored" and "no .git" in warning.message


def test_non_profiles_are_skipped_by_defect_and_reported_by_roster(tmp_path: Path) -> None:
    """Seed 003 ``scan_agents_dir``: folders without config.toml and non-.md files are
    skipped silently by defect; discover says so (issue 12 item 6), as warnings."""
    found = discover(
        tmp_path, FOLDER | {".defect/agents/notes/readme.txt": "x", ".defect/agents/x.txt": "y"}
    )
    assert [p.id for p in found.profiles] == ["reviewer"] and not found.refused
    assert [(Path(d.path).name, d.code, d.message) for d in found.diagnostics] == [
        (
            "notes",
            "harness-ignored",
            "defect does not load notes: the folder has no config.toml, so it is not a profile",
        ),
        (
            "x.txt",
            "harness-ignored",
            "defect does not load x.txt: profiles are folders with config.toml, or *.md files",
        ),
    ]


def test_allow_globs_map_to_canonical_tools_and_servers(tmp_path: Path) -> None:
    config = (
        'description = "d"\n[tools]\n'
        'allow = ["read_file", "search", "bash", "mcp__github__*", "mcp__pw__browser_click",'
        ' "read_*"]\n'
    )
    files = {
        ".defect/agents/a/config.toml": config,
        ".defect/agents/a/system.md": "p",
        ".defect/config.toml": '[mcp.servers.github]\ntransport = "stdio"\ncommand = "gh"\n'
        '[mcp.servers.pw]\ntransport = "stdio"\ncommand = "pw"\n',
    }
    (p,) = discover(tmp_path, files).profiles
    # every tool a glob grants: defect's search is Grep and Glob (issue 12 item 2)
    assert p.allowed_tools == (
        "Read",
        "Grep",
        "Glob",
        "Bash",
        "mcp__github__*",
        "mcp__pw__browser_click",
    )
    assert p.mcp_servers == ("github", "pw")
    assert p.harness == {"defect": {"allow": ["read_*"]}}


SEED_ERRORS = [
    (
        "unknown field (deny_unknown_fields)",
        {".defect/agents/a/config.toml": 'description = "d"\nname = "a"\n'},
        "unknown field `name`, expected one of `description`, `model`, `default`, `prompt`, "
        "`tools`, `sampling`, `inherit_project_prompt`, `request_limit`, `request_limit_mode`, "
        "`hooks`",
    ),
    (
        "unknown nested field",
        {".defect/agents/a/config.toml": 'description = "d"\n[sampling]\nseed = 1\n'},
        "unknown field `seed`, expected one of `max_tokens`, `temperature`, `top_p`, `top_k`",
    ),
    (
        "missing description",
        {".defect/agents/a/config.toml": 'model = "m"\n'},
        "missing field `description`",
    ),
    (
        "model twice",
        {
            ".defect/agents/a/config.toml": 'description = "d"\nmodel = "a"\n'
            '[default]\nmodel = "b"\n'
        },
        "set the model either as root `model` or as `[default] model`, not both",
    ),
    (
        "prompt text and file",
        {
            ".defect/agents/a/config.toml": 'description = "d"\n[prompt]\n'
            'text = "t"\nfile = "f.md"\n'
        },
        "set `[prompt] text` or `[prompt] file`, not both",
    ),
    (
        "prompt file with ..",
        {".defect/agents/a/config.toml": 'description = "d"\n[prompt]\nfile = "../b/system.md"\n'},
        "invalid `prompt.file` `../b/system.md`:",
    ),
    (
        "absolute prompt file",
        {".defect/agents/a/config.toml": 'description = "d"\n[prompt]\nfile = "/etc/passwd"\n'},
        "invalid `prompt.file` `/etc/passwd`:",
    ),
    (
        "missing system.md",
        {".defect/agents/a/config.toml": 'description = "d"\n'},
        "failed to read",
    ),
    (
        "[prompt] in single file",
        {".defect/agents/a.md": '+++\ndescription = "d"\n[prompt]\ntext = "x"\n+++\nbody'},
        "single-file profile takes its system prompt from the body after the frontmatter; "
        "remove the `[prompt]` table",
    ),
    (
        "single file without fence",
        {".defect/agents/a.md": "just text"},
        "single-file profile must start with frontmatter delimited by `+++` (TOML) or `---` (YAML)",
    ),
    (
        "same name folder and file",
        FOLDER | {".defect/agents/reviewer.md": '+++\ndescription = "d"\n+++\nx'},
        "duplicate subagent profile `reviewer` in the same layer (a folder and a `.md` file "
        "cannot share a name)",
    ),
    (
        "wrong type",
        {".defect/agents/a.md": "+++\ndescription = 5\n+++\nx"},
        "invalid type: integer `5`, expected a string",
    ),
    (
        "bad request_limit_mode",
        {".defect/agents/a.md": '+++\ndescription = "d"\nrequest_limit_mode = "loose"\n+++\nx'},
        "unknown variant `loose`, expected one of `fixed`, `adaptive`, `unbounded`",
    ),
    (
        "string temperature",
        {".defect/agents/a.md": '+++\ndescription = "d"\n[sampling]\ntemperature = "1"\n+++\nx'},
        'invalid type: string "1", expected f32',
    ),
    (
        "YAML unknown key",
        {".defect/agents/a.md": "---\ndescription: d\ncolor: red\n---\nx"},
        "unknown field `color`",
    ),
]


#: Where seed 003 (``profiles.rs``) states each rule (ids read "<seed item>: <case>").
SEED_003 = {
    "unknown field (deny_unknown_fields)": "ProfileConfigToml deny_unknown_fields",
    "unknown nested field": "ProfileSamplingToml deny_unknown_fields",
    "missing description": "ProfileConfigToml.description required",
    "model twice": "spec_from_cfg model",
    "prompt text and file": "parse_profile_folder prompt",
    "prompt file with ..": "Sandbox",
    "absolute prompt file": "Sandbox",
    "missing system.md": "parse_profile_folder read prompt",
    "[prompt] in single file": "parse_profile_file [prompt]",
    "single file without fence": "parse_profile_file frontmatter",
    "same name folder and file": "scan_agents_dir duplicate",
    "wrong type": "ProfileConfigToml types",
    "bad request_limit_mode": "RequestLimitMode",
    "string temperature": "ProfileSamplingToml types",
    "YAML unknown key": "Single-file variant (YAML) deny_unknown_fields",
}


@pytest.mark.parametrize(
    ("case", "files", "message"),
    SEED_ERRORS,
    ids=[f"{SEED_003[c[0]]}: {c[0]}" for c in SEED_ERRORS],
)
def test_fail_loud(tmp_path: Path, case: str, files: dict[str, str], message: str) -> None:
    """Seed 003 ``discover_profiles``: any bad profile fails the whole discovery."""
    good = {".defect/agents/good.md": '+++\ndescription = "g"\n+++\nok'}
    found = discover(tmp_path, files | good)
    assert found.refused and found.profiles == (), case
    assert any(message in d.message for d in found.diagnostics if d.is_error), [
        d.message for d in found.diagnostics
    ]


def test_symlink_escaping_the_profile_folder_is_refused(tmp_path: Path) -> None:
    """Seed 003 "Sandbox": symlink escapes are blocked."""
    (tmp_path / "secret.md").write_text("outside")
    files = {".defect/agents/a/config.toml": 'description = "d"\n'}
    tree(tmp_path / "repo", files)
    os.symlink(tmp_path / "secret.md", tmp_path / "repo/.defect/agents/a/system.md")
    found = discover(tmp_path, {})
    assert found.refused
    assert "invalid `prompt.file` `system.md`: path escapes" in found.diagnostics[0].message


def test_prompt_file_inside_the_folder_is_fine(tmp_path: Path) -> None:
    files = {
        ".defect/agents/a/config.toml": 'description = "d"\n[prompt]\nfile = "prompts/../p.md"\n',
        ".defect/agents/a/p.md": "Prompt",
    }
    (p,) = discover(tmp_path, files).profiles
    assert p.prompt == "Prompt" and p.harness == {"defect": {"prompt_file": "prompts/../p.md"}}


# -- render ---------------------------------------------------------------------------------

PW = McpServer(name="pw", transport=Transport.STDIO, command="npx", args=("pw",), env={"A": "1"})


def profile(**kw: object) -> AgentProfile:
    base: dict[str, object] = {
        "id": "rev",
        "name": "rev",
        "description": "Reviews code",
        "sections": (PromptSection(heading="Role", body="Review."),),
    }
    base.update(kw)
    return AgentProfile(**base)  # type: ignore[arg-type]


def render(*profiles: AgentProfile, existing: dict[str, str] | None = None, servers=None):
    return render_with(CODEC, profiles, servers or {"pw": PW}, existing)


def test_render_field_by_field() -> None:
    result = render(
        profile(
            model="claude-sonnet-4-6",
            temperature=0.2,
            top_p=0.9,
            max_turns=12,
            allowed_tools=("Read", "Glob", "Grep", "Bash", "mcp__pw__click", "TodoWrite"),
            mcp_servers=("pw",),
            harness={"defect": {"inherit_project_prompt": True, "sampling": {"top_k": 5}}},
        )
    )
    assert result.diagnostics == ()
    files = {f.path: f.content for f in result.files}
    assert tomllib.loads(files[".defect/agents/rev/config.toml"]) == {
        "description": "Reviews code",
        "model": "claude-sonnet-4-6",
        "request_limit": 12,
        "request_limit_mode": "fixed",
        "inherit_project_prompt": True,
        "tools": {"allow": ["read_file", "bash", "search", "mcp__pw__click"]},
        "sampling": {"top_k": 5, "temperature": 0.2, "top_p": 0.9},
    }
    assert files[".defect/agents/rev/system.md"] == "Review.\n"
    assert tomllib.loads(files[".defect/config.toml"]) == {
        "mcp": {
            "enabled_servers": ["pw"],
            "servers": {
                "pw": {"transport": "stdio", "command": "npx", "args": ["pw"], "env": {"A": "1"}}
            },
        }
    }
    dropped = {x.detail.split(":")[0] for x in result.losses if x.outcome is LossOutcome.DROPPED}
    assert "TodoWrite" in dropped


def test_env_reference_is_refused_and_its_tools_are_left_out() -> None:
    """README D10, defect column: no ``${VAR}`` expansion. Profiles hold no servers, so the
    profile is still written, without the server's tools, and says so."""
    github = McpServer(name="github", transport=Transport.STDIO, command="x", env={"T": "${TOKEN}"})
    result = render(
        profile(allowed_tools=("Read", "mcp__github__get_issue"), mcp_servers=("github",)),
        servers={"github": github},
    )
    (diag,) = result.diagnostics
    assert diag.code == "render-unsupported" and "does not expand ${VAR}" in diag.message
    assert diag.severity == "warning"
    config = {f.path: f.content for f in result.files}[".defect/agents/rev/config.toml"]
    assert "github" not in config
    assert ".defect/config.toml" not in {f.path for f in result.files}
    assert any(x.field == "mcp_servers" for x in result.losses)
    assert any("mcp__github__get_issue" in x.detail for x in result.losses)


def test_merge_keeps_foreign_config() -> None:
    existing = (
        '# my settings\n[sandbox]\nmode = "read-only"\n\n[mcp.servers.mine]\n'
        'transport = "http"\nurl = "https://x"\n'
    )
    result = render(profile(mcp_servers=("pw",)), existing={".defect/config.toml": existing})
    text = {f.path: f.content for f in result.files}[".defect/config.toml"]
    assert text.startswith('# my settings\n[sandbox]\nmode = "read-only"')
    data = tomllib.loads(text)
    assert data["mcp"]["enabled_servers"] == ["mine", "pw"]
    assert set(data["mcp"]["servers"]) == {"mine", "pw"}


def test_write_and_edit_are_granted_apart() -> None:
    # defect has write_file (Write) and edit_file (Edit): a Tools list naming Write grants
    # write_file alone and the render check has nothing to refuse. Grep and Glob are one
    # tool there (search): Glob without Grep cannot be held, and the agent is refused.
    from agent_roster.codecs.base import RenderRequest
    from agent_roster.codecs.guard import render_guarded

    def guarded(allowed: tuple[str, ...]):  # type: ignore[no-untyped-def]
        request = RenderRequest(profiles=(profile(allowed_tools=allowed),), servers={"pw": PW})
        return render_guarded(CODEC, request, {}.get)

    result = guarded(("Read", "Write"))
    config = tomllib.loads(result.files[0].content)
    assert config["tools"]["allow"] == ["read_file", "write_file"]
    assert not result.diagnostics
    result = guarded(("Read", "Glob"))
    assert [d.code for d in result.diagnostics] == ["render-widens"]
    assert "Grep" in result.diagnostics[0].message and not result.files


def test_ask_is_deny_for_a_subagent() -> None:
    """permissions.md §3 defect row: ``ask`` is treated as deny and reported."""
    rules = (
        PermissionRule(permission="*", action=PermissionAction.DENY),
        PermissionRule(permission="read", action=PermissionAction.ALLOW),
        PermissionRule(permission="bash", action=PermissionAction.ASK),
    )
    result = render(profile(permission=rules))
    config = tomllib.loads(result.files[0].content)
    assert config["tools"]["allow"] == ["read_file"]
    assert any("ask is deny" in x.detail for x in result.losses)


def test_user_scope_paths(tmp_path: Path) -> None:
    rendering, found = render_and_discover(
        CODEC, [profile(mcp_servers=("pw",))], {"pw": PW}, Scope.USER, root=tmp_path
    )
    assert {f.path for f in rendering.files} == {
        ".config/defect/agents/rev/config.toml",
        ".config/defect/agents/rev/system.md",
        ".config/defect/config.toml",
    }
    assert found.profiles[0].mcp_servers == ("pw",) and found.servers == (PW,)


@pytest.mark.parametrize(
    ("kw", "existing", "message"),
    [
        ({"id": "has space"}, {}, "must match [A-Za-z0-9_-]+"),
        ({}, {".defect/agents/rev.md": "+++\n+++\n"}, "duplicate subagent profile `rev`"),
        ({"harness": {"defect": {"name": "x"}}}, {}, "harness.defect.name: unknown field"),
        ({"harness": {"defect": {"prompt_file": "../x.md"}}}, {}, "invalid `prompt.file`"),
    ],
)
def test_render_refuses_what_defect_refuses(
    kw: dict[str, object], existing: dict[str, str], message: str
) -> None:
    result = render(profile(**kw), existing=existing)
    assert result.files == ()
    assert any(message in d.message for d in result.diagnostics), result.diagnostics


# -- round trip (README D12) --------------------------------------------------------------


def test_roundtrip_example_vault(tmp_path: Path) -> None:
    profiles, servers = example_profiles()
    rendering, found = render_and_discover(CODEC, profiles, servers, root=tmp_path)
    assert not found.refused
    # github's token is a ${VAR} reference, which defect would send literally (a warning:
    # the profiles are written without that server).
    assert [d.message.split(" cannot")[0] for d in rendering.diagnostics] == ["MCP server `github`"]
    assert roundtrip_differences(CODEC, profiles, found.profiles) == []


CORPUS = [
    profile(),
    profile(id="b", description="", model="m", temperature=1.0, top_p=0.25, max_turns=3),
    profile(
        id="c",
        sections=(
            PromptSection(heading="Role", body="x"),
            PromptSection(heading="Notes", body="y"),
        ),
        allowed_tools=("Read", "mcp__pw__*"),
        mcp_servers=("pw",),
        harness={
            "defect": {
                "request_limit": 40,
                "request_limit_mode": "adaptive",
                "sampling": {"max_tokens": 900},
                "hooks": {"before_turn": [{"command": "echo hi"}]},
                "prompt_file": "prompt.md",
            }
        },
    ),
]


def test_roundtrip_corpus(tmp_path: Path) -> None:
    rendering, found = render_and_discover(CODEC, CORPUS, {"pw": PW}, root=tmp_path)
    assert rendering.diagnostics == () and not found.refused
    assert roundtrip_differences(CODEC, CORPUS, found.profiles) == []
    back = {p.id: p for p in found.profiles}
    assert back["c"].harness == CORPUS[2].harness
    assert back["c"].mcp_servers == ("pw",) and back["c"].allowed_tools == ("Read", "mcp__pw__*")


def test_native_profile_survives_import_and_render(tmp_path: Path) -> None:
    """render(import(x)) writes every key defect had (``[default] model`` becomes root)."""
    config = (
        'description = "d"\ninherit_project_prompt = true\nrequest_limit = 8\n'
        'request_limit_mode = "unbounded"\n[default]\nmodel = "m"\n[prompt]\nfile = "p.md"\n'
        '[tools]\nallow = ["read_file", "fetch", "spawn_agent"]\n'
        "[sampling]\ntop_k = 4\ntemperature = 0.5\n"
        '[hooks]\nafter_turn = [{ command = "true" }]\n'
    )
    found = discover(
        tmp_path, {".defect/agents/a/config.toml": config, ".defect/agents/a/p.md": "Prompt"}
    )
    assert not found.refused, found.diagnostics
    rendering = CODEC.render(RenderRequest(profiles=found.profiles, servers={}), {}.get)
    files = {f.path: f.content for f in rendering.files}
    assert tomllib.loads(files[".defect/agents/a/config.toml"]) == {
        "description": "d",
        "model": "m",
        "request_limit": 8,
        "request_limit_mode": "unbounded",
        "inherit_project_prompt": True,
        "prompt": {"file": "p.md"},
        "tools": {"allow": ["read_file", "fetch", "spawn_agent"]},
        "sampling": {"top_k": 4, "temperature": 0.5},
        "hooks": {"after_turn": [{"command": "true"}]},
    }
    assert files[".defect/agents/a/p.md"] == "Prompt"  # as it was: no final line end


def test_render_reads_its_output_back_with_defect_rules() -> None:
    """A pass-through value defect would refuse is caught before writing."""
    result = render(profile(harness={"defect": {"hooks": {"disable": ["x"]}}}))
    assert result.files == ()
    assert "cannot use `disable`" in result.diagnostics[0].message
    result = render(profile(harness={"defect": {"sampling": {"top_k": -1}}}))
    assert "invalid value: integer `-1`, expected u32" in result.diagnostics[0].message


def test_the_render_check_decides_from_the_reading_of_the_self_check() -> None:
    """The render reads each config.toml back with defect's rules before returning it; the
    render check decides from that reading (kept for the very text written) instead of
    parsing the file again, and the reading is exactly what parsing the text gives."""
    agent = profile(allowed_tools=("Read", "Bash", "mcp__pw__click"), mcp_servers=("pw",))
    request = RenderRequest(profiles=(agent,), servers={"pw": PW}, scope=Scope.PROJECT)
    path = ".defect/agents/rev/config.toml"
    with remembering_written():
        rendering = CODEC.render(request, lambda rel: None)
        [text] = [f.content for f in rendering.files if f.path == path]
        found, reading = recalled_reading(text, path)
        native = NativeAgent("rev", (path,), {path: text}.get, Scope.PROJECT)
        assert profile_config(native) is reading
        assert CODEC.decide(native, Probe("Bash", "rm -rf /")).value == "allow"
        assert CODEC.decide(native, Probe("Write", "src/new.py")).value == "deny"
    assert found
    assert reading == tomllib.loads(text)
    # Outside a render (or for an equal text read back from disk) the file is parsed.
    again = NativeAgent("rev", (path,), {path: text}.get, Scope.PROJECT)
    assert profile_config(again) == reading


def test_integer_sampling_values_are_floats(tmp_path: Path) -> None:
    """serde accepts an integer for an f32 field; the canonical value is a float."""
    found = discover(
        tmp_path,
        {".defect/agents/a.md": '+++\ndescription = "d"\n[sampling]\ntemperature = 1\n+++\nx'},
    )
    assert not found.refused and found.profiles[0].temperature == 1.0
    assert isinstance(found.profiles[0].temperature, float)


def test_allow_empty_imports_as_no_tools(tmp_path: Path) -> None:
    """``allow = []`` is no tools at all: the exact empty set, not the runtime's default."""
    text = '+++\ndescription = "idle"\n[tools]\nallow = []\n+++\nNo.\n'
    found = discover(tmp_path, {".defect/agents/idle.md": text})
    (p,) = found.profiles
    assert (p.allowed_tools, p.tools_exact) == ((), True)
