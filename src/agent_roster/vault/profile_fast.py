"""The fast path of ``parse_profile``: a whole profile with nothing to report.

Almost every profile in a vault is valid, and then no position, no ``JsonBlock`` and no
reporter is needed. ``fast_fields`` reads such a profile's frontmatter and sections straight
into the model's fields, applying the same rules as the careful path in their passing form
only, and gives up (returns None) at the first thing that the careful path would report,
even a warning: an unknown key, a permission rule, a package name it has not seen pass
before. ``parse_profile`` then runs the careful path, which reports every problem with its
position. The one exception is a tool name no registry knows, which most profiles of real
vaults have: the fast path lists those, and ``parse_profile`` reports them with their
positions from the Tools block alone, exactly as the careful path would. So the fast path
can only agree with the careful one or step aside; a property test
(tests/vault/test_fast_paths.py) checks exactly that on generated documents.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from agent_roster.argv import option_problem, word_problem
from agent_roster.known_tools import DEFAULT_EMBEDDED_SERVER, KnownTools
from agent_roster.model.profile import PERMISSION_MODES, InstallManifest, PromptSection, Runtime
from agent_roster.vault.json_section import SLOW, decode_fast
from agent_roster.vault.markdown import BLANK_STARTS as _BLANK_STARTS
from agent_roster.vault.markdown import outline, tidy
from agent_roster.vault.paths import segment_problem
from agent_roster.vault.profile_blocks import MODES, native_forms
from agent_roster.vault.profile_lists import INSTALL_KEYS, clean_names, good_packages
from agent_roster.vault.verbatim import decode as decode_verbatim

_FRONTMATTER_KEYS = frozenset(("id", "name", "description", "tags", "extends"))
_RUNTIMES = {r.value: r for r in Runtime}
_MODES = frozenset(MODES)
_PERMISSION_MODES = frozenset(PERMISSION_MODES)
_TOOL_FIELDS = {"allowed": "allowed_tools", "denied": "denied_tools"}
_INSTALL_FIELDS = {key: f"install.{key}" for key in INSTALL_KEYS}
_STRUCTURED = frozenset(("config", "tools", "mcp servers", "install"))


class UnknownTools(NamedTuple):
    """The one thing the fast path reports itself: tool names no registry knows, in a
    Tools block that is otherwise clean (most profiles of real vaults have one: issue 12
    item 8). ``names`` are (key, index, name) in the careful path's order; the block is
    ``text[start:end]``, decoded as ``value``."""

    start: int
    end: int
    value: Any
    names: list[tuple[str, int, str]]


class Slice(NamedTuple):
    """A prose body that is exactly ``text[start:end]``: the profile holds it, so the
    document can keep the text around it instead of a second copy of it."""

    start: int
    end: int
    body: str


def fast_fields(
    text: str,
    data: dict[str, Any],
    body_offset: int,
    expected_id: str | None,
    project: str | None,
    known: KnownTools | None,
    tags_ok: Any,
) -> tuple[dict[str, Any], set[str], UnknownTools | None, Slice | None] | None:
    """The model fields, the names the file set, the unknown tools to warn about and the
    longest prose body that is a plain slice of ``text`` (see :class:`Slice`), or None
    when anything else would be reported. ``data`` is the frontmatter, read without
    problems; ``body_offset`` is where the markdown after it starts. ``tags_ok`` is the
    careful path's tag rule (shared, so the two cannot drift)."""
    unknown: UnknownTools | None = None
    longest: Slice | None = None
    fields: dict[str, Any] = {}
    fields_set: set[str] = set()
    if not _frontmatter(data, expected_id, project, tags_ok, fields, fields_set):
        return None
    sections = outline(text, body_offset)
    if sections is None:
        return None  # a fence is never closed
    prose: list[PromptSection] = []
    seen: set[str] = set()
    for heading, key, body_start, body_end, fences in sections:
        if key in seen:
            return None
        seen.add(key)
        if key not in _STRUCTURED:
            end = -1  # the body is not a plain slice of the text
            if text[body_start : body_start + 1] not in _BLANK_STARTS:
                # ``tidy`` of a body that cannot start with a blank line: ``rstrip``
                # without copying a long prose body twice (issue 12 item 8, big prompts).
                end = body_end
                while end > body_start and text[end - 1].isspace():
                    end -= 1
                body = text[body_start:end]
            else:
                body = tidy(text[body_start:body_end])
            if body[:3] == "```":
                body, problem = decode_verbatim(body)
                if problem:
                    return None
            elif end >= 0 and (longest is None or end - body_start > longest.end - longest.start):
                longest = Slice(body_start, end, body)
            prose.append(PromptSection(heading=heading, body=body))
            continue
        if len(fences) != 1:
            return None
        lang, content_start, content_end = fences[0]
        if lang != "json":
            return None
        value = decode_fast(text[content_start:content_end])
        if value is SLOW:
            return None
        if key == "config":
            ok = _config(value, fields, fields_set)
        elif key == "tools":
            names: list[tuple[str, int, str]] = []
            ok = _tools(value, known, fields, fields_set, names)
            if names:
                unknown = UnknownTools(content_start, content_end, value, names)
        elif key == "mcp servers":
            ok = _mcp_servers(value, fields, fields_set)
        else:
            ok = _install(value, fields, fields_set)
        if not ok:
            return None
    if prose:
        fields["sections"] = tuple(prose)
        fields_set.add("sections")
    fields.setdefault("name", fields["id"])  # an override may leave the name to its base
    return fields, fields_set, unknown, longest


def _frontmatter(
    data: dict[str, Any],
    expected_id: str | None,
    project: str | None,
    tags_ok: Any,
    fields: dict[str, Any],
    fields_set: set[str],
) -> bool:
    if not _FRONTMATTER_KEYS.issuperset(data):
        return False  # metadata keys: the careful path decides whether to warn
    ident = data.get("id", expected_id)
    if (
        type(ident) is not str
        or segment_problem(ident) is not None
        or (expected_id is not None and ident != expected_id)
    ):
        return False
    fields["id"] = ident
    if "name" in data:
        name = data["name"]
        if not isinstance(name, str) or not name.strip():
            return False
        fields["name"] = name.strip()
        fields_set.add("name")
    elif project is None:
        return False  # a system profile needs a name
    if "description" in data:
        description = data["description"]
        if not isinstance(description, str):
            return False
        fields["description"] = description.strip()
        fields_set.add("description")
    if "tags" in data:
        tags = data["tags"]
        if tags is None:
            fields["tags"] = ()
        elif isinstance(tags, str):
            fields["tags"] = (tags,)
        elif isinstance(tags, list) and tags_ok(tags):
            fields["tags"] = tuple(tags)
        else:
            return False
        fields_set.add("tags")
    if "extends" in data:
        parent = data["extends"]
        if type(parent) is not str or segment_problem(parent) is not None or parent == ident:
            return False
        fields["extends"] = parent
        fields_set.add("extends")
    return True


def _config(data: Any, fields: dict[str, Any], fields_set: set[str]) -> bool:
    if type(data) is not dict:
        return False
    for key, value in data.items():
        if key in ("model", "provider", "color"):
            if not isinstance(value, str) or not value.strip():
                return False
            value = value.strip()
            if key == "model" and option_problem(value) is not None:
                return False  # argv-option-value: the careful path reports it
        elif key == "permission_mode":
            if type(value) is not str or value not in _PERMISSION_MODES:
                return False
        elif key in ("max_tokens_per_task", "max_turns"):
            if type(value) is not int or value <= 0:
                return False
        elif key in ("temperature", "top_p"):
            kind = type(value)
            if kind not in (int, float) or (kind is float and not math.isfinite(value)):
                return False
            if not 0 <= value <= (2.0 if key == "temperature" else 1.0):
                return False
            value = float(value)
        elif key == "runtime":
            value = _RUNTIMES.get(value) if type(value) is str else None
            if value is None:
                return False
        elif key == "agent_name":
            if segment_problem(value) is not None or word_problem(value) is not None:
                return False
        elif key == "mode":
            if type(value) is not str or value not in _MODES:
                return False
        elif key == "native":
            value = native_forms(value)
            if value is None:
                return False
        else:
            return False  # permission rules, harness settings, unknown keys: careful path
        fields[key] = value
        fields_set.add(key)
    runtime = fields.get("runtime") if "runtime" in data else None
    if runtime is Runtime.ACPX:
        return "agent_name" in data  # without it the careful path warns
    return runtime is None or "agent_name" not in data  # or it warns that it is ignored


def _tools(
    data: Any,
    known: KnownTools | None,
    fields: dict[str, Any],
    fields_set: set[str],
    unknown: list[tuple[str, int, str]],
) -> bool:
    if type(data) is not dict:
        return False
    embedded = known.embedded if known else DEFAULT_EMBEDDED_SERVER
    lists = []
    exact = None
    for key, value in data.items():
        field = _TOOL_FIELDS.get(key)
        if field is None:
            if key == "exact" and type(value) is bool:
                exact = value
                continue
            return False
        names = clean_names(value, embedded)
        if names is None:
            return False
        if known is not None:
            # Clean, distinct names, some of them perhaps unknown: the careful path would
            # warn about those alone, and so does the caller, at the same places.
            missing = known.unknown(names)
            if missing:
                unknown.extend([(key, index, names[index]) for index in missing])
        lists.append((field, names))
    if len(lists) == 2 and not set(lists[0][1]).isdisjoint(lists[1][1]):
        return False  # a tool both allowed and denied: the careful path warns
    for field, names in lists:
        fields[field] = names
        fields_set.add(field)
    if exact is not None:
        fields["tools_exact"] = exact
        fields_set.add("tools_exact")
    return True


def _mcp_servers(data: Any, fields: dict[str, Any], fields_set: set[str]) -> bool:
    if type(data) is not list:
        return False  # the legacy inline object is deprecated: the careful path warns
    for name in data:
        if type(name) is not str or segment_problem(name) is not None:
            return False
    names = tuple(data)
    if len(set(names)) != len(names):
        return False
    fields["mcp_servers"] = names
    fields_set.add("mcp_servers")
    return True


def _install(data: Any, fields: dict[str, Any], fields_set: set[str]) -> bool:
    if type(data) is not dict:
        return False
    lists: dict[str, tuple[str, ...]] = {}
    for key, value in data.items():
        if key not in _INSTALL_FIELDS:
            return False
        names = good_packages(key, value)
        if names is None:
            return False  # a name not seen valid before: the careful path checks it
        lists[key] = names
    fields["install"] = InstallManifest(**lists)
    fields_set.add("install")
    fields_set.update([_INSTALL_FIELDS[key] for key in lists])
    return True
