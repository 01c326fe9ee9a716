"""In-place edits of profile.md and MCP server files.

The original re-rendered a whole profile on every edit and so lost tags, unknown sections,
prose around JSON blocks, extra Config keys and the user's formatting, and silently dropped a
section whose JSON was broken (research notes, section 5, item 7). Here an edit replaces only
the span it is about, found from the parser's positions, and everything else stays
byte-identical:

* a frontmatter key is replaced, added or removed as whole lines (a trailing comment on the
  replaced key's own line goes with the old value; comment lines between keys stay);
* a structured section (Config, Tools, MCP Servers, Install) keeps its heading, its prose and
  its fence lines; only the text inside the ```json fence changes, and only when the value
  does. In an object block only the members that change are rewritten (:mod:`.patch_json`),
  so other keys keep their layout. A missing section is created in the canonical order;
* a prose section's body is replaced between its heading and the next one.

The edits themselves live in :mod:`.patch_edits`, frontmatter lines in
:mod:`.patch_frontmatter`; this module applies them and reads and writes files.

Every edit is checked twice. Before: a file whose edited part has errors (or that has an
unclosed fence, which makes every later position unreliable) is refused, so a broken part is
never rewritten away. After: the result is parsed again; it must read back the value that
was written and must not have a single error the original did not have. A refused edit
raises :class:`InvalidDocumentError` (with the diagnostics) or :class:`UsageError` and leaves
the file untouched. Reads and writes go through the vault guard (``vault/guard.py``,
``write_in_vault``): a file that leads outside the vault is refused. CRLF files and a BOM are
kept, and a file an editor saved in the meantime is not overwritten.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from agent_roster.diagnostics import Diagnostic
from agent_roster.errors import (
    ConflictError,
    InvalidDocumentError,
    NotFoundError,
    UsageError,
    VaultError,
)
from agent_roster.vault import patch_frontmatter as fmpatch
from agent_roster.vault.document import normalise
from agent_roster.vault.guard import read_in_vault
from agent_roster.vault.markdown import section_key
from agent_roster.vault.mcp_parser import parse_mcp_server
from agent_roster.vault.patch_edits import (
    MISSING,
    REMOVE,
    BlockEdit,
    Edit,
    FrontmatterEdit,
    ProseEdit,
    Remove,
)
from agent_roster.vault.paths import VaultLayout
from agent_roster.vault.profile_blocks import INSTALL_KEYS
from agent_roster.vault.profile_parser import STRUCTURED, parse_profile
from agent_roster.vault.writer import content_hash, write_in_vault

__all__ = [
    "REMOVE",
    "Edit",
    "Patched",
    "Remove",
    "Source",
    "apply_edits",
    "patch_mcp_server",
    "patch_profile",
    "read_text",
    "remove_frontmatter",
    "remove_section",
    "set_config",
    "set_frontmatter",
    "set_install",
    "set_mcp_servers",
    "set_section",
    "set_tools",
    "write_text",
]


# -- edit constructors ---------------------------------------------------------------------
def set_frontmatter(key: str, value: Any) -> Edit:
    """Set a frontmatter key (added before the closing ``---`` when new)."""
    return FrontmatterEdit(key, value)


def remove_frontmatter(key: str) -> Edit:
    return FrontmatterEdit(key, REMOVE)


def set_config(changes: Mapping[str, Any]) -> Edit:
    """Set Config keys (JSON values); :data:`REMOVE` as a value deletes the key."""
    return BlockEdit("config", changes)


def set_tools(*, allowed: Any = MISSING, denied: Any = MISSING, exact: Any = MISSING) -> Edit:
    """Replace the ``allowed`` and/or ``denied`` lists, or set ``exact`` (true: ``allowed``
    is the whole tool set); :data:`REMOVE` deletes one."""
    changes = {k: v for k, v in (("allowed", allowed), ("denied", denied)) if v is not MISSING}
    values: dict[str, Any] = {k: _listed(v) for k, v in changes.items()}
    if exact is not MISSING:
        if exact is not REMOVE and not isinstance(exact, bool):
            raise UsageError(f"Tools 'exact' must be true or false, got {exact!r}")
        values["exact"] = exact
    return BlockEdit("tools", values)


def set_install(changes: Mapping[str, Sequence[str] | Remove]) -> Edit:
    """Replace Install lists (``npm``, ``pip``, ``commands``); :data:`REMOVE` deletes one."""
    for key in changes:
        if key not in INSTALL_KEYS:
            raise UsageError(
                f"{key!r} is not an Install list", hint="Install takes npm, pip and commands"
            )
    return BlockEdit("install", {k: _listed(v) for k, v in changes.items()})


def set_mcp_servers(names: Sequence[str] | Remove) -> Edit:
    """Replace the ## MCP Servers block with a list of registry names (REMOVE: drop it)."""
    return BlockEdit("mcp servers", whole=_listed(names))


def set_section(heading: str, body: str) -> Edit:
    """Replace a prose section's body, or append the section when it is absent."""
    return ProseEdit(heading, body)


def remove_section(heading: str) -> Edit:
    """Remove a section (prose or structured) with its heading."""
    key = section_key(heading)
    return BlockEdit(key, whole=REMOVE) if key in STRUCTURED else ProseEdit(heading, REMOVE)


def _listed(value: Any) -> Any:
    if value is REMOVE:
        return value
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise UsageError(f"expected a list of names, got {value!r}")
    return list(value)


# -- applying -------------------------------------------------------------------------------
class Patched(NamedTuple):
    """The new text, whether anything changed, and the result's diagnostics (warnings:
    an edit never leaves a new error)."""

    text: str
    changed: bool
    diagnostics: tuple[Diagnostic, ...]


def apply_edits(
    text: str,
    edits: Sequence[Edit],
    *,
    path: str = "profile.md",
    expected_id: str | None = None,
    project: str | None = None,
) -> Patched:
    """Apply ``edits`` in order to a profile's (normalised) text; see the module doc."""
    parsed = parse_profile(text, path=path, expected_id=expected_id, project=project)
    original = text
    for edit in edits:
        doc = parsed.document
        if doc is None:
            raise InvalidDocumentError(f"cannot edit {path}: it cannot be read", parsed.diagnostics)
        if doc.structure.unclosed is not None:
            raise InvalidDocumentError(
                f"cannot edit {path}: a code fence is never closed, so its sections cannot be "
                "located reliably; close the fence first",
                [d for d in parsed.diagnostics if d.code == "fence-unclosed"],
            )
        broken = [
            d
            for d in parsed.diagnostics
            if d.is_error and any(a <= d.line <= b for a, b in edit.spans(doc))
        ]
        if broken:
            raise InvalidDocumentError(
                f"cannot edit {edit.label} of {path}: it has errors; fix them first (an "
                "edit would otherwise rewrite the broken part away)",
                broken,
            )
        new_text = edit.apply(doc)
        after = parse_profile(new_text, path=path, expected_id=expected_id, project=project)
        new_errors = _new_errors(parsed.diagnostics, after.diagnostics)
        if new_errors:
            raise InvalidDocumentError(
                f"editing {edit.label} of {path} would leave errors; nothing was written",
                new_errors,
            )
        assert after.document is not None
        problem = edit.verify(after.document)
        if problem is not None:
            raise UsageError(f"cannot edit {edit.label} of {path}: {problem}")
        parsed, text = after, new_text
    return Patched(text, text != original, parsed.diagnostics)


_LINE_REF = re.compile(r"line \d+")


def _new_errors(before: Sequence[Diagnostic], after: Sequence[Diagnostic]) -> list[Diagnostic]:
    """Errors of ``after`` that ``before`` did not have (positions move, so compare codes
    and messages, with line references masked)."""
    seen = Counter((d.code, _LINE_REF.sub("line _", d.message)) for d in before if d.is_error)
    found = []
    for d in after:
        if not d.is_error:
            continue
        key = (d.code, _LINE_REF.sub("line _", d.message))
        if seen[key]:
            seen[key] -= 1
        else:
            found.append(d)
    return found


# -- files ----------------------------------------------------------------------------------
class Source(NamedTuple):
    """How a file was read: its bytes (to detect a concurrent change), BOM and CRLF."""

    layout: VaultLayout
    path: Path
    raw: bytes
    bom: bool
    crlf: bool


def read_text(layout: VaultLayout, path: Path) -> tuple[str, Source]:
    """A vault file's normalised text, and how to write it back. Read through the vault
    guard: a symlink leading outside the vault raises PathOutsideVaultError naming it."""
    rel = layout.relative(path)
    try:
        raw = read_in_vault(layout, path)
    except FileNotFoundError:
        raise NotFoundError(f"{rel} does not exist") from None
    except OSError as exc:
        raise VaultError(f"cannot read {rel}: {exc.strerror}") from None
    out: list[Diagnostic] = []
    text = normalise(raw, rel, out)
    if text is None:
        raise InvalidDocumentError(f"cannot edit {rel}: it is not valid UTF-8", out)
    crlf = b"\r\n" in raw and raw.count(b"\r\n") == raw.count(b"\n")
    return text, Source(layout, path, raw, raw.startswith(b"\xef\xbb\xbf"), crlf)


def write_text(text: str, source: Source) -> None:
    """Write ``text`` back as ``source`` was encoded, unless the file changed meanwhile
    (an editor saved it): then nothing is written and the caller is told to retry."""
    try:
        current: bytes | None = read_in_vault(source.layout, source.path)
    except FileNotFoundError:
        current = None
    if current != source.raw:
        raise ConflictError(
            f"{source.path.name} changed while it was being edited; nothing was written",
            hint="read it again and retry",
        )
    if source.crlf:
        text = text.replace("\n", "\r\n")
    write_in_vault(
        source.layout, source.path, ("\ufeff" if source.bom else "") + text, overwrite=True
    )


def patch_profile(
    layout: VaultLayout,
    profile_id: str,
    edits: Sequence[Edit],
    *,
    project: str | None = None,
    base_hash: str | None = None,
) -> Patched:
    """Apply ``edits`` to ``agent-types/<id>/profile.md`` (or the project's override) and
    write it back atomically when something changed. With ``base_hash``, a file whose
    content is no longer that version is refused (:class:`ConflictError`)."""
    path = layout.profile_path(profile_id, project)
    rel = path.relative_to(layout.root).as_posix()
    text, source = read_text(layout, path)
    if base_hash is not None and content_hash(source.raw) != base_hash:
        raise ConflictError(
            f"{rel} changed since it was read; nothing was written",
            hint="read it again and retry with its current content_hash",
        )
    patched = apply_edits(text, edits, path=rel, expected_id=profile_id, project=project)
    if patched.changed:
        write_text(patched.text, source)
    return patched


def patch_mcp_server(
    layout: VaultLayout,
    name: str,
    changes: Mapping[str, Any],
    *,
    project: str | None = None,
    base_hash: str | None = None,
) -> Patched:
    """Set (or, with :data:`REMOVE`, delete) frontmatter keys of ``mcp-servers/<name>.md``.
    The frontmatter must be readable YAML; the result must parse without a single error.
    With ``base_hash``, a file whose content is no longer that version is refused."""
    path = layout.mcp_server_path(name, project)
    rel = path.relative_to(layout.root).as_posix()
    text, source = read_text(layout, path)
    if base_hash is not None and content_hash(source.raw) != base_hash:
        raise ConflictError(
            f"{rel} changed since it was read; nothing was written",
            hint="read it again and retry with its current content_hash",
        )
    original = text
    for key, value in changes.items():
        fm = fmpatch.read(text, rel)
        text = fmpatch.set_key(
            text, fm, fmpatch.check_key(key), fmpatch.DELETE if value is REMOVE else value, path=rel
        )
    parsed = parse_mcp_server(text, path=rel, expected_name=name, project=project)
    errors = [d for d in parsed.diagnostics if d.is_error]
    if errors or parsed.server is None:
        raise InvalidDocumentError(
            f"editing {rel} would leave errors; nothing was written", errors or parsed.diagnostics
        )
    if text != original:
        write_text(text, source)
    return Patched(text, text != original, parsed.diagnostics)
