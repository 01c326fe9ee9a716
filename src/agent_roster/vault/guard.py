"""The one guard on vault paths: nothing is read or written outside the vault (issue 11).

The boundary is the vault folder with every symlink resolved (``VaultLayout.real_root``), so
a vault given as a symlink is fine, and so is a symlink that stays inside. Two ways through:

- Listing (``vault/scan.py``) checks each folder on the way to a file once, and pays for a
  ``realpath`` only where a folder entry is a symlink; everything below a link that leaves
  the vault is neither listed nor read.
- Single files (a profile shown or edited, starter knowledge, files ``init`` and ``import``
  create, files deleted) go through :func:`open_folder`: the folder is reached from the
  vault's real root one component at a time, each opened relative to the last without
  following symlinks (``O_NOFOLLOW``). A symlink on the way is resolved, checked, and the
  walk starts again along its real target, so the descriptor that is finally read from or
  written into is a folder inside the vault, whatever is swapped in meanwhile.

A refusal is a :class:`PathOutsideVaultError` carrying a ``path-outside-vault`` diagnostic
that names the link (as the user wrote the path, not as it resolves).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Sequence
from pathlib import Path

from agent_roster import diagnostics as dx
from agent_roster.diagnostics import Diagnostic
from agent_roster.errors import PathOutsideVaultError
from agent_roster.vault.paths import VaultLayout, shown

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_FOLDER = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC
# O_NONBLOCK: a FIFO planted where a file is expected must not hang the read.
_FILE = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC
#: Symlinks followed on one path at most (the kernel's own limit).
MAX_LINKS = 40

OUTSIDE_HINT = "copy the file into the vault instead of linking to it"


def outside_diagnostic(link: str, *, folder: bool, write: bool = False) -> Diagnostic:
    """The ``path-outside-vault`` diagnostic for ``link`` (vault-relative): a folder link
    means nothing under it was read (or, for a write, written)."""
    link = shown(link)
    if write:
        result = "nothing is written through it"
    else:
        result = "nothing under it was read" if folder else "it was not read"
    return dx.make(
        "path-outside-vault",
        f"{link} is a symlink that leads outside the vault; {result}",
        path=link,
        hint="move the folder into the vault instead of linking" if folder else OUTSIDE_HINT,
    )


def outside_link(layout: VaultLayout, path: str | os.PathLike[str]) -> str | None:
    """The vault-relative path of the first symlink on the way to ``path`` whose target
    leaves the vault, or ``None`` when every existing part of ``path`` stays inside. One
    ``lstat`` per component, a ``realpath`` per symlink: for single paths, not for scans."""
    rel = layout.relative(path)
    current = os.fspath(layout.root)
    parts = rel.split("/") if rel else []
    for index, part in enumerate(parts):
        current = os.path.join(current, part)
        try:
            info = os.lstat(current)
        except OSError:
            return None  # nothing further exists, so nothing further can lead out
        if stat.S_ISLNK(info.st_mode) and not layout.contains(os.path.realpath(current)):
            return "/".join(parts[: index + 1])
    return None


def refuse(
    layout: VaultLayout, path: str | os.PathLike[str], *, write: bool, folder: bool = False
) -> None:
    """Raise the refusal for ``path`` (a ``folder`` or a file), naming the link that leads
    out of the vault."""
    rel = layout.relative(path)
    link = outside_link(layout, path) or rel
    diagnostic = outside_diagnostic(link, folder=folder or link != rel, write=write)
    raise PathOutsideVaultError(diagnostic.message, diagnostic, hint=diagnostic.hint)


def open_folder(layout: VaultLayout, path: str | os.PathLike[str], *, create: bool) -> int:
    """A descriptor of the folder ``path`` (under the vault), reached from the vault's real
    root without following any symlink that leaves it; missing folders are created when
    ``create``. The caller closes it. Raises PathOutsideVaultError, or OSError
    (FileNotFoundError when a folder is missing and not ``create``)."""
    rel = layout.relative(path)
    todo = rel.split("/") if rel else []
    if create and not os.path.isdir(layout.root):
        # The vault folder itself is the user's choice (as `roster init DIR` is).
        os.makedirs(layout.root, exist_ok=True)
    root = layout.real_root
    fd = os.open(root, _FOLDER)
    done: list[str] = []  # where ``fd`` is, relative to the real root, no symlinks in it
    links = 0
    try:
        while todo:
            part = todo.pop(0)
            try:
                following = _open_part(fd, part, create)
            except _Symlink:
                links += 1
                if links > MAX_LINKS:
                    raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), path) from None
                real = os.path.realpath(os.path.join(root, *done, part))
                if not layout.contains(real):
                    refuse(layout, path, write=create, folder=True)
                # Start again from the root along the link's real target.
                os.close(fd)
                fd = -1
                fd = os.open(root, _FOLDER)
                done = []
                inner = os.path.relpath(real, root)
                todo[:0] = [] if inner == os.curdir else Path(inner).parts
                continue
            os.close(fd)
            fd = following
            done.append(part)
        return fd
    except BaseException:
        if fd >= 0:
            os.close(fd)
        raise


class _Symlink(Exception):
    """The component is a symlink (to be resolved and checked by the caller)."""


def _open_part(fd: int, part: str, create: bool) -> int:
    flags = _FOLDER | _NOFOLLOW
    try:
        return os.open(part, flags, dir_fd=fd)
    except FileNotFoundError:
        if not create:
            raise
        # Made meanwhile: open (and check) whatever is there now.
        with contextlib.suppress(FileExistsError):
            os.mkdir(part, 0o777, dir_fd=fd)
        return _open_part(fd, part, False)
    except OSError:
        # O_NOFOLLOW refuses a symlink (ELOOP, or ENOTDIR with O_DIRECTORY on Linux).
        if stat.S_ISLNK(os.lstat(part, dir_fd=fd).st_mode):
            raise _Symlink from None
        raise


def read_in_vault(layout: VaultLayout, path: str | os.PathLike[str]) -> bytes:
    """The bytes of the vault file ``path``, refusing it (PathOutsideVaultError) when it or a
    folder on the way is a symlink that leaves the vault; OSError when it cannot be read
    (a folder or a FIFO where the file should be is ``EISDIR`` / ``EINVAL``)."""
    folder, name = os.path.split(os.fspath(path))
    for _ in range(MAX_LINKS):
        fd = open_folder(layout, folder, create=False)
        try:
            try:
                file_fd = os.open(name, _FILE | _NOFOLLOW, dir_fd=fd)
            except OSError as exc:
                if exc.errno != errno.ELOOP:
                    raise
                real = os.path.realpath(os.path.join(folder, name))
                if not layout.contains(real):
                    refuse(layout, path, write=False)
                # Read the target as a vault path, so its folders are checked the same way.
                inner = os.path.relpath(real, layout.real_root)
                folder, name = os.path.split(os.path.join(layout.root, inner))
                continue
        finally:
            os.close(fd)
        try:
            return _read_all(file_fd, path)
        finally:
            os.close(file_fd)
    raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), os.fspath(path))


def _read_all(fd: int, path: str | os.PathLike[str]) -> bytes:
    mode = os.fstat(fd).st_mode
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "it is a folder, not a file", os.fspath(path))
    if not stat.S_ISREG(mode):
        raise OSError(errno.EINVAL, "it is not a regular file", os.fspath(path))
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def read_diagnostic(
    layout: VaultLayout,
    path: str | os.PathLike[str],
    out: list[Diagnostic],
    *,
    missing_ok: bool = False,
) -> bytes | None:
    """:func:`read_in_vault`, with a refusal or a read error added to ``out`` as a
    diagnostic instead of raised; with ``missing_ok`` a missing file is just ``None``."""
    try:
        return read_in_vault(layout, path)
    except PathOutsideVaultError as exc:
        out.extend(exc.diagnostics)
    except OSError as exc:
        if missing_ok and isinstance(exc, FileNotFoundError | NotADirectoryError):
            return None
        rel = shown(layout.relative(path))
        out.append(
            dx.make(
                "file-unreadable",
                f"cannot read {rel}: {exc.strerror}",
                path=rel,
                hint="check the file's permissions",
            )
        )
    return None


def exists_in_vault(layout: VaultLayout, path: str | os.PathLike[str]) -> bool:
    """True when something (a file, a folder, even a dangling symlink) is at ``path``;
    a folder on the way that leaves the vault raises PathOutsideVaultError."""
    folder, name = os.path.split(os.fspath(path))
    try:
        fd = open_folder(layout, folder, create=False)
    except (FileNotFoundError, NotADirectoryError):
        return False
    try:
        os.lstat(name, dir_fd=fd)
    except FileNotFoundError:
        return False
    finally:
        os.close(fd)
    return True


def remove_in_vault(
    layout: VaultLayout, path: str | os.PathLike[str], folders: int = 0
) -> tuple[str, ...]:
    """Delete the vault file ``path`` (a symlink there is removed, never followed), then up
    to ``folders`` parent folders while they are empty; returns the vault-relative paths
    removed (folders end with ``/``)."""
    rel = layout.relative(path)
    parts = rel.split("/")
    fd = open_folder(layout, Path(layout.root, *parts[:-1]), create=False)
    try:
        os.unlink(parts[-1], dir_fd=fd)
    finally:
        os.close(fd)
    removed = [rel]
    for depth in range(1, folders + 1):
        if len(parts) - depth < 1:
            break
        parent = parts[: -depth - 1]
        fd = open_folder(layout, Path(layout.root, *parent), create=False)
        try:
            os.rmdir(parts[-depth - 1], dir_fd=fd)  # only ever succeeds on an empty folder
        except OSError:
            break
        finally:
            os.close(fd)
        removed.append("/".join(parts[:-depth]) + "/")
    return tuple(removed)


def folder_problem(layout: VaultLayout, parts: Sequence[str]) -> Diagnostic | None:
    """The diagnostic for a layout folder (vault-relative ``parts``) that a symlink leads
    out of the vault, or ``None`` when it is inside or missing."""
    path = os.path.join(layout.root, *parts)
    link = outside_link(layout, path)
    return None if link is None else outside_diagnostic(link, folder=True)
