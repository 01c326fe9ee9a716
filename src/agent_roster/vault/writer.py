"""The one atomic writer, and the one function that writes vault files (never outside the
vault).

A reader (an editor, the watcher, another process) must see either the old file or the new
one, never a half-written file, so content goes to a temporary file in the same folder, is
flushed and fsynced, then renamed over the target; the folder is fsynced so the rename
survives a crash.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os

from agent_roster.vault.guard import open_folder
from agent_roster.vault.paths import VaultLayout


def content_hash(raw: bytes) -> str:
    """The hash that identifies a file's content everywhere: sync's change detection, and the
    ``base_hash`` a write must carry so that it never lands on a newer version."""
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


def atomic_write(
    path: str | os.PathLike[str],
    content: str | bytes,
    *,
    mode: int = 0o644,
    durable: bool = True,
    make_folder: bool = True,
    new: bool = False,
) -> None:
    """Write ``content`` to ``path`` atomically (temp file, fsync, rename, fsync folder).

    ``durable=False`` skips both fsyncs: readers still see the old or the new file, never a
    torn one, but a power cut may lose the write. Only for derived files that are rewritten
    on demand (``roster render`` output), where 20,000 fsyncs would dominate the run.
    ``make_folder=False`` skips creating missing parent folders, for callers that know the
    folder exists. ``new=True`` says nothing is at ``path`` yet: the content is written
    into an unnamed file that is then linked there, one change to the folder instead of
    two (where the platform cannot, or something appeared there meanwhile, the temp file
    and rename are used as usual).

    This follows symlinks in the folders leading to ``path``: vault files are written with
    :func:`write_in_vault`, which does not let them lead outside the vault."""
    target = os.fspath(path)
    data = content.encode("utf-8") if isinstance(content, str) else content
    folder, name = os.path.split(target)
    fd = open_folder_fd(folder, make=make_folder)
    try:
        _write_at(fd, name, data, mode, durable, new=new, exclusive=False)
    finally:
        os.close(fd)


def atomic_write_at(
    folder_fd: int,
    name: str,
    data: bytes,
    *,
    mode: int = 0o644,
    durable: bool = True,
    new: bool = False,
) -> None:
    """:func:`atomic_write` of ``name`` in the folder open as ``folder_fd``: a caller that
    writes thousands of files into a few folders opens each folder once."""
    _write_at(folder_fd, name, data, mode, durable, new=new, exclusive=False)


def open_folder_fd(folder: str, *, make: bool = False) -> int:
    """The folder at ``folder`` open for :func:`atomic_write_at` (``make``: created first,
    with its parents, when missing). The caller closes it."""
    if folder and make:
        try:
            os.mkdir(folder)  # usually its parent is there: one call (AGH: a folder per agent)
        except FileExistsError:
            pass
        except FileNotFoundError:
            os.makedirs(folder, exist_ok=True)
    return os.open(folder or ".", _FOLDER)


def write_in_vault(
    layout: VaultLayout,
    path: str | os.PathLike[str],
    content: str | bytes,
    *,
    overwrite: bool = False,
    mode: int = 0o644,
) -> bool:
    """Write a vault file atomically and durably, into a folder reached without leaving the
    vault (``vault/guard.py``: a symlink on the way that leads outside raises
    PathOutsideVaultError naming it; missing folders are created inside). Returns False,
    writing nothing, when something is already at ``path`` and ``overwrite`` is not set
    (checked by the final link itself, so a file created meanwhile is never replaced)."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    folder, name = os.path.split(os.fspath(path))
    fd = open_folder(layout, folder, create=True)
    try:
        return _write_at(fd, name, data, mode, True, new=False, exclusive=not overwrite)
    finally:
        os.close(fd)


_FOLDER = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


def _write_at(
    fd: int, name: str, data: bytes, mode: int, durable: bool, *, new: bool, exclusive: bool
) -> bool:
    """Write ``name`` in the folder open as ``fd``; False when ``exclusive`` and something
    is already there."""
    if new and not exclusive and _link_new(fd, name, data, mode, durable):
        return True
    tmp_fd, tmp_name = _create_temp(fd, name)
    try:
        try:
            _write_all(tmp_fd, data, mode, durable)
        finally:
            os.close(tmp_fd)
        if exclusive:
            # link() never replaces: it fails when the name is taken, however recently.
            try:
                os.link(tmp_name, name, src_dir_fd=fd, dst_dir_fd=fd)
            except FileExistsError:
                return False
            finally:
                os.unlink(tmp_name, dir_fd=fd)
        else:
            os.replace(tmp_name, name, src_dir_fd=fd, dst_dir_fd=fd)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name, dir_fd=fd)
        raise
    if durable:
        _fsync_folder(fd)
    return True


def _write_all(fd: int, data: bytes, mode: int, durable: bool) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.fchmod(fd, mode)  # exactly ``mode``, whatever the umask
    if durable:
        os.fsync(fd)


_O_TMPFILE = getattr(os, "O_TMPFILE", 0)


def _link_new(folder_fd: int, name: str, data: bytes, mode: int, durable: bool) -> bool:
    # Linux: an unnamed file in the folder (O_TMPFILE), filled, then linked as ``name``
    # through /proc (linkat with AT_SYMLINK_FOLLOW, which needs no privilege). Readers
    # see nothing until the file is complete. False: not done, use the temp file.
    if not _O_TMPFILE:
        return False
    try:
        flags = _O_TMPFILE | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(".", flags, 0o600, dir_fd=folder_fd)
    except OSError:  # a filesystem without unnamed files
        return False
    try:
        _write_all(fd, data, mode, durable)
        try:
            os.link(f"/proc/self/fd/{fd}", name, dst_dir_fd=folder_fd, follow_symlinks=True)
        except OSError:  # taken meanwhile, or no /proc: the rename path decides
            return False
        if durable:
            os.fsync(folder_fd)
    finally:
        os.close(fd)
    return True


_temp_serial = itertools.count()


def _create_temp(folder_fd: int, name: str) -> tuple[int, str]:
    # A fresh hidden file next to the target, created exclusively (never an existing file
    # or a symlink planted there). Named by process and a counter rather than tempfile's
    # random names: as safe under O_EXCL, and a tenth of the cost when writing thousands.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp_name = f".{name}.{os.getpid()}.{next(_temp_serial)}.tmp"
        try:
            return os.open(tmp_name, flags, 0o600, dir_fd=folder_fd), tmp_name
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name next to {name}")


def _fsync_folder(fd: int) -> None:
    # Some platforms cannot sync folders; the rename is still atomic.
    with contextlib.suppress(OSError):
        os.fsync(fd)
