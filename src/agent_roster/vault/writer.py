"""The one function that writes vault files: atomically, and never outside the vault.

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
from pathlib import Path

from agent_roster.errors import VaultError
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
    and rename are used as usual)."""
    target = os.fspath(path)
    data = content.encode("utf-8") if isinstance(content, str) else content
    folder, name = os.path.split(target)
    if folder and make_folder:
        os.makedirs(folder, exist_ok=True)
    if new and _link_new(folder, name, data, mode, durable):
        return
    fd, tmp_name = _create_temp(folder, name)
    try:
        try:
            _write_all(fd, data, mode, durable)
        finally:
            os.close(fd)
        os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    if durable:
        _fsync_dir(Path(folder or "."))


def _write_all(fd: int, data: bytes, mode: int, durable: bool) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.fchmod(fd, mode)  # exactly ``mode``, whatever the umask
    if durable:
        os.fsync(fd)


_O_TMPFILE = getattr(os, "O_TMPFILE", 0)


def _link_new(folder: str, name: str, data: bytes, mode: int, durable: bool) -> bool:
    # Linux: an unnamed file in ``folder`` (O_TMPFILE), filled, then linked as ``name``
    # through /proc (linkat with AT_SYMLINK_FOLLOW, which needs no privilege). Readers
    # see nothing until the file is complete. False: not done, use the temp file.
    if not _O_TMPFILE:
        return False
    where = folder or "."
    try:
        fd = os.open(where, _O_TMPFILE | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0), 0o600)
    except OSError:  # a filesystem without unnamed files
        return False
    try:
        _write_all(fd, data, mode, durable)
        folder_fd = os.open(where, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.link(f"/proc/self/fd/{fd}", name, dst_dir_fd=folder_fd, follow_symlinks=True)
            if durable:
                os.fsync(folder_fd)
        except OSError:  # taken meanwhile, or no /proc: the rename path decides
            return False
        finally:
            os.close(folder_fd)
    finally:
        os.close(fd)
    return True


_temp_serial = itertools.count()


def _create_temp(folder: str, name: str) -> tuple[int, str]:
    # A fresh hidden file next to the target, created exclusively (never an existing file
    # or a symlink planted there). Named by process and a counter rather than tempfile's
    # random names: as safe under O_EXCL, and a tenth of the cost when writing thousands.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp_name = os.path.join(folder, f".{name}.{os.getpid()}.{next(_temp_serial)}.tmp")
        try:
            return os.open(tmp_name, flags, 0o600), tmp_name
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name next to {os.path.join(folder, name)}")


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return  # some platforms cannot open folders; the rename is still atomic
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_in_vault(
    layout: VaultLayout,
    path: str | os.PathLike[str],
    content: str | bytes,
    *,
    overwrite: bool = False,
) -> bool:
    """Write a file that must lie inside the vault (symlinks followed); returns False when
    the file exists and ``overwrite`` is not set."""
    target = Path(path)
    if not layout.is_inside(target.parent if not target.exists() else target):
        raise VaultError(f"refusing to write {target}: it is outside the vault {layout.root}")
    if target.exists() and not overwrite:
        return False
    atomic_write(target, content)
    return True
