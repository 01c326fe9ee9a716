"""Reading defect subagent profiles the way ``discover_profiles`` does (seed 003,
docs/codecs/defect.md §1-§4).

Layers: user (``~/.config/defect/agents``) first, project (``<repo-root>/.defect/agents``)
second; the project profile replaces a same-named user profile whole. Inside one layer a
folder and a ``.md`` file of the same name is a hard error. Every parse error, missing
``description``, unreadable or out-of-bounds prompt file fails the whole discovery ("fail
loud, do not silently skip bad profiles").
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from agent_roster.codecs.native_io import TomlProblem, parse_toml, read_text
from agent_roster.codecs.native_md import (
    NativeDocument,
    harness_diagnostic,
    line_offset,
    split_layout,
)
from agent_roster.codecs.permissions import SECONDARY
from agent_roster.codecs.tool_names import canonical_tools, native_names
from agent_roster.codecs.unloaded import not_loaded
from agent_roster.diagnostics import Diagnostic
from agent_roster.model.profile import NativeForm
from agent_roster.vault.frontmatter import read_frontmatter

CONFIG = "config.toml"
DEFAULT_PROMPT_FILE = "system.md"
DEFAULT_TOOL_ALLOW = ("read_file", "search")

#: ``ProfileConfigToml`` and its nested tables, all ``deny_unknown_fields``.
TOP_FIELDS = (
    "description",
    "model",
    "default",
    "prompt",
    "tools",
    "sampling",
    "inherit_project_prompt",
    "request_limit",
    "request_limit_mode",
    "hooks",
)
TABLE_FIELDS = {
    "default": ("model",),
    "prompt": ("file", "text"),
    "tools": ("allow",),
    "sampling": ("max_tokens", "temperature", "top_p", "top_k"),
}
REQUEST_LIMIT_MODES = ("fixed", "adaptive", "unbounded")
_U32 = 2**32 - 1
#: ``mcp__<server>__<tool>`` or ``mcp__<server>__*`` in an allow list.
MCP_GLOB = re.compile(r"^mcp__([A-Za-z0-9_-]+?)__(\*|[A-Za-z0-9_-]+)$")
_FAIL_LOUD = "defect fails the whole profile discovery while one profile is invalid"


class DefectFile(NamedTuple):
    """One profile as defect reads it: its config mapping and its prompt exactly (issue 12
    item 1), less a prompt file's final line end, which ``native`` remembers."""

    name: str
    path: Path
    config: dict[str, Any]
    prompt: str
    single_file: bool
    native: NativeForm | None = None


def find_repo_root(start: Path) -> Path | None:
    """``find_repo_root``: the nearest ancestor (or ``start``) holding a ``.git`` entry."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def _expected_one_of(fields: tuple[str, ...]) -> str:
    return ", ".join(f"`{f}`" for f in fields)


def serde_type(value: Any) -> str:
    """serde's "invalid type" wording for the value defect was given."""
    if isinstance(value, bool):
        return f"boolean `{str(value).lower()}`"
    if isinstance(value, int):
        return f"integer `{value}`"
    if isinstance(value, float):
        return f"floating point `{value}`"
    if isinstance(value, str):
        return f'string "{value}"'
    if isinstance(value, list):
        return "sequence"
    if isinstance(value, dict):
        return "map"
    if value is not None:  # a TOML date, time or datetime
        return f"datetime `{value}`"
    return "unit value"


def config_errors(config: dict[str, Any]) -> list[tuple[str, str]]:
    """Every serde error ``ProfileConfigToml`` would raise, as (key, message)."""
    out: list[tuple[str, str]] = []
    for key in config:
        if key not in TOP_FIELDS:
            out.append(
                (key, f"unknown field `{key}`, expected one of {_expected_one_of(TOP_FIELDS)}")
            )
    if "description" not in config:
        out.append(("", "missing field `description`"))

    def expect(key: str, value: Any, kind: str) -> None:
        ok = {
            "a string": isinstance(value, str),
            "a boolean": isinstance(value, bool),
            "u32": isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= _U32,
            # serde's float visitors also take integers, so `temperature = 1` is fine.
            "f32": isinstance(value, (int, float)) and not isinstance(value, bool),
            "a sequence": isinstance(value, list) and all(isinstance(v, str) for v in value),
            "a map": isinstance(value, dict),
        }[kind]
        if not ok:
            what = "value" if isinstance(value, int) and kind == "u32" else "type"
            out.append((key, f"invalid {what}: {serde_type(value)}, expected {kind}"))

    for key, kind in (
        ("description", "a string"),
        ("model", "a string"),
        ("inherit_project_prompt", "a boolean"),
        ("request_limit", "u32"),
        ("request_limit_mode", "a string"),
        ("hooks", "a map"),
    ):
        if key in config:
            expect(key, config[key], kind)
    mode = config.get("request_limit_mode")
    if isinstance(mode, str) and mode not in REQUEST_LIMIT_MODES:
        out.append(
            (
                "request_limit_mode",
                f"unknown variant `{mode}`, expected one of "
                + _expected_one_of(REQUEST_LIMIT_MODES),
            )
        )
    kinds = {
        "model": "a string",
        "file": "a string",
        "text": "a string",
        "allow": "a sequence",
        "max_tokens": "u32",
        "top_k": "u32",
        "temperature": "f32",
        "top_p": "f32",
    }
    for table, fields in TABLE_FIELDS.items():
        value = config.get(table)
        if value is None:
            continue
        if not isinstance(value, dict):
            out.append((table, f"invalid type: {serde_type(value)}, expected struct"))
            continue
        for key, item in value.items():
            if key not in fields:
                out.append(
                    (table, f"unknown field `{key}`, expected one of {_expected_one_of(fields)}")
                )
            else:
                expect(table, item, kinds[key])
    hooks = config.get("hooks")
    if isinstance(hooks, dict) and "disable" in hooks:
        out.append(("hooks", "a profile's [hooks] cannot use `disable` (unknown hook event)"))
    default = config.get("default")
    if isinstance(default, dict) and "model" in default and "model" in config:
        out.append(
            ("model", "set the model either as root `model` or as `[default] model`, not both")
        )
    return out


def _toml_line(text: str, key: str) -> int:
    if not key:
        return 1
    match = re.search(rf"^\s*(?:\[{re.escape(key)}[\].]|{re.escape(key)}\s*=)", text, re.M)
    return 1 + text.count("\n", 0, match.start()) if match else 1


def resolve_prompt_file(folder: Path, file: str) -> Path | str:
    """``resolve_workspace_path`` pinned to the profile folder: no absolute paths, no
    ``..`` leaving the folder, no symlink leading out of it. The error text otherwise."""
    candidate = Path(file)
    if candidate.is_absolute():
        return "absolute paths are not allowed; give a path inside the profile directory"
    parts: list[str] = []
    for part in candidate.parts:
        if part == "..":
            if not parts:
                return "path escapes the profile directory"
            parts.pop()
        elif part != ".":
            parts.append(part)
    target = folder.joinpath(*parts)
    real_root = Path(os.path.realpath(folder))
    real = Path(os.path.realpath(target))
    if real != real_root and real_root not in real.parents:
        return "path escapes the profile directory (through a symlink)"
    return target


def split_single_file(text: str) -> tuple[str, str, str, int] | None:
    """``split_frontmatter``: (kind ``toml``/``yaml``, frontmatter, body, body line)."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    stripped = text.lstrip()
    skipped = text[: len(text) - len(stripped)].count("\n")
    for fence, kind in (("+++", "toml"), ("---", "yaml")):
        if not stripped.startswith(fence + "\n"):
            continue
        lines = stripped[len(fence) + 1 :].split("\n")
        for index, line in enumerate(lines):
            if line.strip() == fence:
                front = "\n".join(lines[:index])
                body = "\n".join(lines[index + 1 :])
                return kind, front + "\n" if front else "", body, skipped + index + 3
        return None
    return None


def read_folder(folder: Path, out: list[Diagnostic]) -> DefectFile | None:
    """A directory profile (``config.toml`` + prompt file); ``None`` when defect fails."""
    config_path = folder / CONFIG
    where = str(config_path)
    text = read_text(config_path, out, hint=_FAIL_LOUD)
    if text is None:
        return None
    config = _parse(text, where, out)
    if config is None:
        return None
    if not _report(config_errors(config), text, where, out):
        return None
    prompt_table = config.get("prompt") or {}
    if "text" in prompt_table and "file" in prompt_table:
        out.append(
            harness_diagnostic(
                "harness-invalid",
                "set `[prompt] text` or `[prompt] file`, not both",
                path=where,
                line=_toml_line(text, "prompt"),
                hint=_FAIL_LOUD,
            )
        )
        return None
    if "text" in prompt_table:
        return DefectFile(folder.name, config_path, config, prompt_table["text"], False)
    file = prompt_table.get("file", DEFAULT_PROMPT_FILE)
    resolved = resolve_prompt_file(folder, file)
    if isinstance(resolved, str):
        out.append(
            harness_diagnostic(
                "harness-invalid",
                f"invalid `prompt.file` `{file}`: {resolved}",
                path=where,
                line=_toml_line(text, "prompt"),
                hint="keep the prompt file inside the profile folder; " + _FAIL_LOUD,
            )
        )
        return None
    if not resolved.exists():
        out.append(
            harness_diagnostic(
                "harness-invalid",
                f"failed to read {resolved}: No such file or directory",
                path=str(resolved),
                hint=f"create {file} next to config.toml; " + _FAIL_LOUD,
            )
        )
        return None
    prompt = read_text(resolved, out, hint=_FAIL_LOUD)
    if prompt is None:
        return None
    tail = next((end for end in ("\r\n", "\n") if prompt.endswith(end)), "")
    prompt = prompt[: len(prompt) - len(tail)]
    native = NativeForm(tail=tail) if tail != "\n" else None  # "\n" is what render writes
    return DefectFile(folder.name, config_path, config, prompt, False, native)


def read_single(path: Path, out: list[Diagnostic]) -> DefectFile | None:
    """A single-file profile ``<name>.md``; ``None`` when defect fails."""
    where = str(path)
    text = read_text(path, out, hint=_FAIL_LOUD)
    if text is None:
        return None
    split = split_single_file(text)
    if split is None:
        out.append(
            harness_diagnostic(
                "harness-invalid",
                "single-file profile must start with frontmatter delimited by `+++` (TOML) "
                "or `---` (YAML)",
                path=where,
                hint=_FAIL_LOUD,
            )
        )
        return None
    kind, front, _, body_line = split
    fence_line = body_line - 2 - front.count("\n")  # the lines before the frontmatter's
    if kind == "toml":
        parsed = _parse(front, where, out, line_offset=fence_line)
        if parsed is None:
            return None
        config = parsed
    else:
        found: list[Diagnostic] = []
        fm = read_frontmatter(f"---\n{front}---\n", where, found)
        errors = [
            msgspec.structs.replace(d, line=d.line + fence_line - 1) for d in found if d.is_error
        ]
        if errors:
            out.extend(errors)
            return None
        config = dict(fm.data)
    if not _report(config_errors(config), front, where, out, offset=fence_line):
        return None
    if "prompt" in config:
        out.append(
            harness_diagnostic(
                "harness-invalid",
                "single-file profile takes its system prompt from the body after the "
                "frontmatter; remove the `[prompt]` table",
                path=where,
                line=fence_line + _toml_line(front, "prompt"),
                hint=_FAIL_LOUD,
            )
        )
        return None
    raw = text.removeprefix("\ufeff")
    start = line_offset(raw, body_line)
    layout = split_layout(NativeDocument({}, raw[start:], body_line, True, {}, raw[:start]))
    return DefectFile(path.stem, path, config, layout.prompt, True)


def _parse(
    text: str, where: str, out: list[Diagnostic], *, line_offset: int = 0
) -> dict[str, Any] | None:
    # ``line_offset``: lines of the file before ``text`` (a single file's fence).
    found = parse_toml(text)
    if isinstance(found, TomlProblem):
        out.append(
            harness_diagnostic(
                "harness-invalid",
                f"TOML parse error: {found.message}",
                path=where,
                line=line_offset + found.line,
                column=found.column,
                hint=f"{found.hint}; {_FAIL_LOUD}",
            )
        )
        return None
    return found


def _report(
    problems: list[tuple[str, str]], text: str, where: str, out: list[Diagnostic], offset: int = 0
) -> bool:
    for key, message in problems:
        code = (
            "harness-field-unknown" if message.startswith("unknown field") else "harness-field-type"
        )
        if message.startswith("missing field") or "not both" in message or "disable" in message:
            code = "harness-invalid"
        out.append(
            harness_diagnostic(
                code,
                message,
                path=where,
                line=offset + _toml_line(text, key),
                hint=_FAIL_LOUD,
            )
        )
    return not problems


def scan_layer(agents_dir: Path, out: list[Diagnostic]) -> dict[str, DefectFile] | None:
    """``scan_agents_dir``: one layer's profiles, ``None`` when any of them fails."""
    layer: dict[str, DefectFile] = {}
    ok = True
    for entry in sorted(agents_dir.iterdir(), key=lambda p: p.name):
        if entry.is_dir():
            if not (entry / CONFIG).is_file():
                # Not a profile: defect skips it silently; roster says so.
                _not_loaded(entry, f"the folder has no {CONFIG}, so it is not a profile", out)
                continue
            found = read_folder(entry, out)
        elif entry.suffix == ".md":
            found = read_single(entry, out)
        else:
            _not_loaded(entry, f"profiles are folders with {CONFIG}, or *.md files", out)
            continue
        if found is None:
            ok = False
            continue
        if found.name in layer:
            out.append(
                harness_diagnostic(
                    "harness-invalid",
                    f"duplicate subagent profile `{found.name}` in the same layer (a folder "
                    "and a `.md` file cannot share a name)",
                    path=str(agents_dir),
                    hint="keep either the folder or the .md file; " + _FAIL_LOUD,
                )
            )
            ok = False
            continue
        layer[found.name] = found
    return layer if ok else None


def _not_loaded(entry: Path, why: str, out: list[Diagnostic]) -> None:
    if not entry.name.startswith("."):
        hint = f"a profile is <name>/{CONFIG} (with a prompt file) or <name>.md"
        out.append(not_loaded(entry, "defect", why, hint))


def imported_tools(allow: list[str]) -> tuple[str, ...]:
    """What import makes of an allow list (the inverse mapping used by discover): every
    canonical tool whose defect name a glob matches, so the list grants what defect grants
    (``search`` is Grep and Glob, ``read_*`` is Read; issue 12 item 2), and the MCP globs
    as written."""
    out: list[str] = []
    for glob in allow:
        if MCP_GLOB.match(glob):
            out.append(glob)
        else:
            out.extend(_granted(glob))
    return tuple(dict.fromkeys(out))


@lru_cache(maxsize=256)
def _granted(glob: str) -> tuple[str, ...]:
    # semantics imports this module: its glob matcher is imported when first needed.
    from agent_roster.codecs.defect.semantics import glob_matches

    # Retired or secondary names (NotebookRead, MultiEdit) are left out: no harness decides
    # them apart from the tool that covers them, and listing them is noise.
    return tuple(
        tool
        for tool in canonical_tools()
        if tool not in SECONDARY
        and any(glob_matches(glob, native.name) for native in native_names("defect", tool))
    )
