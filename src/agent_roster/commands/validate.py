"""``validate``: check vaults and files, collecting every problem in one pass.

:func:`validate` checks any folders and files (``roster validate PATH...``: other vaults,
a single profile anywhere); :func:`validate_vault`, the registry command, checks the
context's vault or files inside it, with paths relative to the vault on every surface.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, NamedTuple

import msgspec
from msgspec import Meta

from agent_roster import diagnostics as dx
from agent_roster import literal_secrets
from agent_roster.commands.context import RosterContext
from agent_roster.diagnostics import Diagnostic, Severity
from agent_roster.errors import UsageError, VaultError
from agent_roster.resolve.config import load_config
from agent_roster.vault.guard import read_in_vault
from agent_roster.vault.loader import VaultSnapshot, load_vault, locate_vault
from agent_roster.vault.paths import CONFIG_FILE
from agent_roster.vault.profile_parser import parse_profile


class ValidationReport(NamedTuple):
    """What ``validate`` found: how many files it read and every diagnostic."""

    files: int
    diagnostics: tuple[Diagnostic, ...]

    @property
    def errors(self) -> int:
        return dx.count(self.diagnostics)[0]

    @property
    def warnings(self) -> int:
        return dx.count(self.diagnostics)[1]

    def failed(self, *, strict: bool = False) -> bool:
        """True when there are errors, or any warning under ``strict``."""
        return self.errors > 0 or (strict and self.warnings > 0)

    def to_dict(self) -> dict[str, Any]:
        """The documented JSON shape of ``roster validate --format json``."""
        return {
            "files": self.files,
            "errors": self.errors,
            "warnings": self.warnings,
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }


class ValidateVaultParams(msgspec.Struct, frozen=True, kw_only=True):
    paths: Annotated[
        list[str],
        Meta(description="files or folders to check, relative to the vault (default: all)"),
    ] = []


class ValidationResult(msgspec.Struct, frozen=True, kw_only=True):
    """How many files were read, the errors and warnings, and every diagnostic."""

    files: int
    errors: int
    warnings: int
    diagnostics: list[Diagnostic]


def validate_vault(ctx: RosterContext, params: ValidateVaultParams) -> ValidationResult:
    """Validate the vault: every problem with its file, line, column, code and hint."""
    targets = [_inside(ctx.vault, rel) for rel in params.paths] or [ctx.vault]
    report = validate(targets, base=ctx.vault, db=ctx.db)
    return ValidationResult(
        files=report.files,
        errors=report.errors,
        warnings=report.warnings,
        diagnostics=list(report.diagnostics),
    )


def _inside(vault: Path, rel: str) -> Path:
    """A path the caller gave, relative to the vault: never one that leaves it (the loader
    and the vault guard refuse links that do)."""
    path = PurePosixPath(rel)
    if not rel or path.is_absolute() or ".." in path.parts:
        raise UsageError(
            f"{rel!r} is not a path inside the vault",
            hint="give paths relative to the vault, such as agent-types/coding/profile.md",
        )
    return vault / path


def validate(
    targets: Sequence[str | os.PathLike[str]], *, base: Path | None = None, db: str | None = None
) -> ValidationReport:
    """Validate each target: a vault folder (every file in its layout) or a single file
    (checked in the context of the vault it sits in, when it sits in one).

    Paths in diagnostics are relative to ``base`` (default: the current directory) so
    editors and CI annotations can open them. Tools of probed MCP servers are checked
    against the tool catalog of ``db`` (default: the vault's own database, if it has one),
    read without changing it."""
    base = base or Path.cwd()
    files = 0
    found: list[Diagnostic] = []
    for target in targets:
        path = Path(target)
        if path.is_dir():
            snapshot, config = _load(path, db)
            files += snapshot.files
            found.extend(_rebased([*config, *_all(snapshot)], path, base))
        elif path.is_file() and path.name == CONFIG_FILE:
            files += 1
            found.extend(_rebased(load_config(path.parent).diagnostics, path.parent, base))
        elif path.is_file():
            files += 1
            found.extend(_validate_file(path, base, db))
        else:
            raise UsageError(
                f"{os.fspath(path)} does not exist",
                hint="pass a vault folder or a profile.md / MCP server file",
            )
    found.sort(key=lambda d: (d.path, d.line, d.column))
    return ValidationReport(files, tuple(found))


def _validate_file(path: Path, base: Path, db: str | None) -> list[Diagnostic]:
    located = locate_vault(path)
    if located is None:
        display = _display(path, base)
        parsed = parse_profile(path.read_bytes(), path=display)
        if parsed.document is not None:
            secrets = literal_secrets.file_warnings(display, parsed.document.text)
            parsed = parsed._replace(diagnostics=(*parsed.diagnostics, *secrets))
        note = dx.make(
            "layout-unknown",
            "the file is not inside a vault's layout, so it was checked as a standalone profile",
            path=display,
            hint="vault files live at agent-types/<id>/profile.md or mcp-servers/<name>.md",
            severity=Severity.WARNING,
        )
        return [note, *parsed.diagnostics]
    root, rel = located
    snapshot, config = _load(root, db)
    every = [*config, *_all(snapshot)]
    return _rebased([d for d in every if d.path == rel], root, base)


def _all(snapshot: VaultSnapshot) -> list[Diagnostic]:
    """The snapshot's diagnostics, and a ``literal-secret`` warning for each line of a
    profile or server file that holds a secret's value (issue 13 item 4)."""
    found = snapshot.all_diagnostics()
    layout = snapshot.layout
    files: list[tuple[str, str, str]] = []
    for (project, ident), parsed in snapshot.profiles.items():
        if parsed.document is not None:
            rel = layout.relative(layout.profile_path(ident, project))
            files.append((rel, parsed.document.text, ident))
    for project, name in snapshot.servers:
        path = layout.mcp_server_path(name, project)
        try:
            text = read_in_vault(layout, path).decode("utf-8")
        except (OSError, UnicodeDecodeError, VaultError):
            continue  # its own diagnostics say why it cannot be read
        text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
        files.append((layout.relative(path), text, name))
    found.extend(literal_secrets.files_warnings(files))
    return found


def _load(root: Path, db: str | None = None) -> tuple[VaultSnapshot, tuple[Diagnostic, ...]]:
    """The vault's snapshot, and roster.toml's diagnostics (issue 11 item 5: a broken
    roster.toml fails validate). roster.toml names the embedded server and its extra
    commands: bare names of those are known tools."""
    from agent_roster.commands.probe import stored_tool_names

    loaded = load_config(root)
    embedded = loaded.config.embedded
    snapshot = load_vault(
        root,
        embedded=embedded.name,
        commands=embedded.commands,
        catalog=stored_tool_names(root, db),
    )
    return snapshot, loaded.diagnostics


def _rebased(diagnostics: Sequence[Diagnostic], root: Path, base: Path) -> list[Diagnostic]:
    """The diagnostics with paths relative to ``base``; each distinct path is worked out
    once (a file can carry 100,000 diagnostics: issue 11 item 6)."""
    shown: dict[str, str] = {}
    out: list[Diagnostic] = []
    for diagnostic in diagnostics:
        display = shown.get(diagnostic.path)
        if display is None:
            display = shown[diagnostic.path] = _display(root / diagnostic.path, base)
        out.append(
            diagnostic
            if display == diagnostic.path
            else msgspec.structs.replace(diagnostic, path=display)
        )
    return out


def _display(path: Path, base: Path) -> str:
    relative = os.path.relpath(path, base)
    return Path(relative).as_posix() if not relative.startswith("..") else path.as_posix()
