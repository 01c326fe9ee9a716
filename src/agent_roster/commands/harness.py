"""``render``: vault profiles written as each harness's native files.

Profiles are rendered *effective* (``extends`` and the project override merged, README D2 in
``docs/codecs/``), without roster.toml's ``[defaults]``: those are the runtime cascade's
fallback, not part of the profile a user wrote, and freezing them into another harness's
files would make that harness ignore its own defaults. A codec computes the files; this
module decides what happens to them: written (atomically, only when the content changed),
compared (``--check``) or shown as a diff (``--dry-run``).
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

import msgspec

from agent_roster.codecs import get_codec
from agent_roster.codecs.base import Codec, Loss, NativeFile, RenderRequest, Scope
from agent_roster.diagnostics import Diagnostic, did_you_mean
from agent_roster.errors import NotFoundError, UsageError, VaultError
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile
from agent_roster.perf import paused_gc
from agent_roster.resolve.config import load_config
from agent_roster.resolve.index import ProfileIndex
from agent_roster.vault.loader import load_vault
from agent_roster.vault.paths import check_segment
from agent_roster.vault.writer import atomic_write

CREATED = "created"
UPDATED = "updated"
UNCHANGED = "unchanged"


class EffectiveSet(NamedTuple):
    """Effective profiles to render, the registry servers they can reference (by name, in
    the scope they were resolved for), and the vault problems that kept profiles out."""

    profiles: tuple[AgentProfile, ...]
    servers: dict[str, McpServer]
    diagnostics: tuple[Diagnostic, ...]


def load_effective(
    vault: str | os.PathLike[str], ids: Sequence[str] = (), *, project: str | None = None
) -> EffectiveSet:
    """The vault's profiles (all, or ``ids``) merged as they apply in ``project`` (or the
    system scope). A profile whose file has errors is left out; its diagnostics say why."""
    if project is not None:
        check_segment(project, "project id")
    for ident in ids:
        check_segment(ident, "profile id")
    loaded = load_config(vault)
    bare = AgentProfile(id="(none)", name="(none)", source="(none)")
    config = msgspec.structs.replace(loaded.config, defaults=bare)
    snapshot = load_vault(vault, embedded=config.embedded.name)
    good = [p.profile for p in snapshot.profiles.values() if p.ok and p.profile is not None]
    servers = [s.server for s in snapshot.servers.values() if s.ok and s.server is not None]
    index = ProfileIndex(config, good, servers)
    visible = {pid for scope, pid in snapshot.profiles if scope is None or scope == project}
    wanted = list(ids) or sorted(visible)
    missing = [ident for ident in wanted if ident not in visible]
    if missing:
        raise NotFoundError(
            f"no profile {missing[0]!r} in the vault",
            hint=did_you_mean(missing[0], visible) or "list them with 'roster validate'",
        )
    profiles: list[AgentProfile] = []
    by_name: dict[str, McpServer] = {}
    problems = [d for d in snapshot.diagnostics if d.is_error]
    for ident in wanted:
        for scope in (None, project) if project else (None,):
            parsed = snapshot.profiles.get((scope, ident))
            if parsed is not None and not parsed.ok:
                problems.extend(parsed.diagnostics)
        found = index.effective(ident, project)
        if found is None:
            continue
        profiles.append(found.profile)
        for server in found.servers:
            by_name.setdefault(server.name, server)
    return EffectiveSet(tuple(profiles), by_name, tuple(problems))


class FileResult(NamedTuple):
    """One native file: which harness, its path (as given under ``--out``), and what
    happened: created / updated / unchanged; under ``--check`` or ``--dry-run`` what *would*
    happen. ``diff`` is a unified diff for ``--dry-run``."""

    harness: str
    path: str
    status: str
    diff: str = ""


class RenderReport(NamedTuple):
    files: tuple[FileResult, ...]
    losses: tuple[Loss, ...]
    diagnostics: tuple[Diagnostic, ...]
    check: bool
    dry_run: bool

    @property
    def changed(self) -> tuple[FileResult, ...]:
        return tuple(f for f in self.files if f.status != UNCHANGED)

    @property
    def ok(self) -> bool:
        """No errors, and under ``--check`` nothing on disk differs."""
        if any(d.is_error for d in self.diagnostics):
            return False
        return not (self.check and self.changed)

    def to_dict(self) -> dict[str, object]:
        return {
            "files": [
                {"harness": f.harness, "path": f.path, "status": f.status} for f in self.files
            ],
            "losses": [loss.to_dict() for loss in self.losses],
            "diagnostics": [d.to_dict() for d in self.diagnostics],
            "check": self.check,
            "dry_run": self.dry_run,
        }


def default_out(scope: Scope) -> Path:
    """The folder a harness reads for ``scope``: the workspace (current directory) or the
    user's home."""
    return Path.cwd() if scope is Scope.PROJECT else Path.home()


def render_agents(
    vault: str | os.PathLike[str],
    harnesses: Sequence[str],
    *,
    scope: str | Scope = Scope.PROJECT,
    out: str | os.PathLike[str] | None = None,
    ids: Sequence[str] = (),
    project: str | None = None,
    check: bool = False,
    dry_run: bool = False,
) -> RenderReport:
    """Render the vault's profiles (all, or ``ids``) for each harness under ``out``."""
    try:
        scope = Scope(scope)
    except ValueError:
        raise UsageError(f"unknown scope {scope!r}", hint="use project or user") from None
    codecs = [get_codec(name) for name in dict.fromkeys(harnesses)]
    if not codecs:
        raise UsageError("name at least one harness to render to")
    base = Path(out) if out is not None else default_out(scope)
    # A render is a bulk job: hundreds of thousands of short-lived acyclic objects, which
    # reference counting frees, while the collector would walk the loaded vault over and
    # over (see paused_gc).
    with paused_gc():
        return _render(vault, codecs, scope, base, ids, project, check=check, dry_run=dry_run)


def _render(
    vault: str | os.PathLike[str],
    codecs: Sequence[Codec],
    scope: Scope,
    base: Path,
    ids: Sequence[str],
    project: str | None,
    *,
    check: bool,
    dry_run: bool,
) -> RenderReport:
    effective = load_effective(vault, ids, project=project)
    request = RenderRequest(profiles=effective.profiles, servers=effective.servers, scope=scope)
    files: list[FileResult] = []
    losses: list[Loss] = []
    diagnostics: list[Diagnostic] = list(effective.diagnostics)
    writer = _OutputFolder(base)
    for codec in codecs:
        rendering = codec.render(request, writer.read)
        losses.extend(rendering.losses)
        diagnostics.extend(rendering.diagnostics)
        files.extend(writer.apply(codec.name, rendering.files, check=check, dry_run=dry_run))
    return RenderReport(tuple(files), tuple(losses), tuple(diagnostics), check, dry_run)


class _OutputFolder:
    """The folder rendered files go to. Every path a codec returns must stay inside it,
    symlinks included: a codec bug or a crafted profile id must not write elsewhere."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.real_root = os.path.realpath(root)
        self._prefix = os.path.join(self.real_root, "")
        # Resolving every path component per file is most of the cost of checking 20,000
        # files; folders are resolved once, and only the file itself is checked per file.
        self._real_folders: dict[str, str] = {}

    def _inside(self, real: str) -> bool:
        return real == self.real_root or real.startswith(self._prefix)

    def target(self, rel: str) -> str:
        """The path to write ``rel`` at (under ``root``, as given), after checking that it
        resolves inside the real root."""
        parts = rel.replace("\\", "/").split("/")
        if not rel or os.path.isabs(rel) or ".." in parts:
            raise VaultError(f"refusing to write {rel!r}: not a relative path inside {self.root}")
        path = os.path.normpath(os.path.join(self.root, rel))
        folder, name = os.path.split(path)
        real_folder = self._real_folders.get(folder)
        if real_folder is None:
            real_folder = self._real_folders[folder] = os.path.realpath(folder)
        real = os.path.realpath(path) if os.path.islink(path) else os.path.join(real_folder, name)
        if not self._inside(real_folder) or not self._inside(real):
            raise VaultError(f"refusing to write {path}: it resolves outside {self.root}")
        return path

    def read(self, rel: str) -> str | None:
        return self._read(self.target(rel))

    @staticmethod
    def _read(path: str) -> str | None:
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except (FileNotFoundError, NotADirectoryError):
            return None
        with os.fdopen(fd, "rb") as handle:
            return handle.read().decode("utf-8")

    def apply(
        self, harness: str, natives: Iterable[NativeFile], *, check: bool, dry_run: bool
    ) -> list[FileResult]:
        results: list[FileResult] = []
        seen: set[str] = set()
        for native in natives:
            if native.path in seen:  # two outputs for one file would lose one silently
                raise VaultError(f"the {harness} codec produced {native.path} twice")
            seen.add(native.path)
            path = self.target(native.path)
            shown = path
            current = self._read(path)
            if current == native.content:
                results.append(FileResult(harness, shown, UNCHANGED))
                continue
            status = CREATED if current is None else UPDATED
            diff = ""
            if dry_run:
                diff = "".join(
                    difflib.unified_diff(
                        (current or "").splitlines(keepends=True),
                        native.content.splitlines(keepends=True),
                        fromfile=shown if current is not None else "/dev/null",
                        tofile=shown,
                    )
                )
            elif not check:
                # Rendered files are derived and rewritten on demand: atomic for readers,
                # without the per-file fsync (see atomic_write).
                atomic_write(path, native.content, mode=native.mode, durable=False)
            results.append(FileResult(harness, shown, status, diff))
        return results
