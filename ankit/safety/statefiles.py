"""State files: the one layer through which ankit writes and reads its own files (sessions, history, the MCP
tool-list cache, the tool listing cache, the trust list, routines and their watch files and lock, memory.sqlite3,
project notes, checkpoints, the unpacked bundle-HASH folders).

- Private: files are created 0600 and folders 0700 whatever the umask; a looser folder is tightened when used.
- No symlinks: every folder from ankit's home folder down is opened one name at a time with O_NOFOLLOW, and the
  file itself too; a folder that is a symlink or belongs to another user is refused with one line
  (StateFileError), so a link planted at the history file cannot make ankit append to ~/.bashrc.
- Atomic: a whole-file write goes to a new temp file in the same folder (O_EXCL), is fsynced, renamed over the
  old one and the folder fsynced: a crash leaves the old copy or the new one, never half of either.
- Owner checked on reading: a file that is not a regular file, belongs to another user or is writable by group
  or others is refused; caches and the trust list read through read_private() and treat it as absent (the next
  write replaces it). A cache never decides a permission: callers take what a tool may do unasked from the
  live module or server.
- Beneath a folder: restore_* and open_beneath() reach a path inside a working folder through real folders only
  (/undo refuses a parent swapped for a symlink).
"""

import contextlib
import errno
import functools
import hashlib
import os
import secrets
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
import fcntl
import tempfile
import time
import zipfile
import zlib

from ankit.errors import AnkitError, StateFileError
from ankit import paths

FILE_MODE = 0o600
FOLDER_MODE = 0o700
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _homes() -> list[Path]:
    return [paths.config_home(), paths.state_home(), paths.data_home(), paths.cache_home()]


def _split(folder: Path) -> tuple[Path, list[str]]:
    """(the anchor, the names below it): the anchor is the parent of ankit's home folder holding `folder`, else
    `folder`'s parent; each name below it is opened without following links, checked and made private."""
    folder = Path(os.path.abspath(folder))
    for home in _homes():
        home = Path(os.path.abspath(home))
        if folder.is_relative_to(home):
            return home.parent, [home.name, *folder.relative_to(home).parts]
    return folder.parent, [folder.name]


def _refuse(path, why: str) -> StateFileError:
    return StateFileError(f"{path} {why}; ankit does not use it (remove or fix it, or set the XDG_* folders elsewhere)")


def _check_folder(fd: int, path: Path) -> None:
    info = os.fstat(fd)
    if info.st_uid != os.getuid():
        raise _refuse(path, f"belongs to another user (uid {info.st_uid})")
    if info.st_mode & 0o077:
        os.fchmod(fd, FOLDER_MODE)


@contextlib.contextmanager
def folder_fd(folder: Path, create: bool = True) -> Iterator[int]:
    """An open descriptor of a private folder, reached name by name without following a symlink (made 0700 when
    missing, tightened when looser); StateFileError for a link or another user's folder,
    FileNotFoundError when it is missing and create is False."""
    anchor, names = _split(folder)
    if create:
        anchor.mkdir(parents=True, exist_ok=True)
    def refused(where: Path) -> Exception | None:
        return _refuse(where, "is a symlink") if os.path.islink(where) else None

    fd = _descend(anchor, names, create, FOLDER_MODE, refused, _check_folder)
    try:
        yield fd
    finally:
        os.close(fd)


def _descend(top: Path, names: list[str], create: bool, mode: int, refused, check=None) -> int:
    """A descriptor of top/names..., each folder opened from the one before with O_NOFOLLOW (made with mode when
    missing and create); refused(where) is the error for a name on the way that is a link or no folder (None: the
    OSError itself), and check(fd, where) is called on each folder reached."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    where = top
    try:
        for name in names:
            where = where / name
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, mode, dir_fd=fd)
            try:
                child = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except OSError as error:
                if error.errno in (errno.ELOOP, errno.ENOTDIR) and (refusal := refused(where)) is not None:
                    raise refusal from None
                raise
            os.close(fd)
            fd = child
            if check is not None:
                check(fd, where)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _check_file(fd: int, path: Path, writing: bool = False) -> os.stat_result:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise _refuse(path, "is not a regular file")
    if writing and info.st_nlink > 1:  # a hard link planted at the history file would reach ~/.bashrc too
        raise _refuse(path, f"has {info.st_nlink} names (a hard link)")
    if info.st_uid != os.getuid():
        raise _refuse(path, f"belongs to another user (uid {info.st_uid})")
    if info.st_mode & 0o022:
        raise _refuse(path, "is writable by other users")
    return info


def _open_file(fd: int, path: Path, flags: int) -> int:
    try:
        return os.open(path.name, flags | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, FILE_MODE, dir_fd=fd)
    except OSError as error:
        if error.errno == errno.ELOOP:  # the name is a symlink
            raise _refuse(path, "is a symlink") from None
        raise


def write(path: Path, data: str | bytes) -> None:
    """Replace the file atomically with data (temp file, fsync, rename, folder fsync); created 0600."""
    path = Path(path)
    body = data.encode("utf-8", "replace") if isinstance(data, str) else data
    with folder_fd(path.parent) as dfd:
        temp = f".{path.name}.{secrets.token_hex(4)}.tmp"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE, dir_fd=dfd)
        try:
            with os.fdopen(fd, "wb") as handle:
                os.fchmod(handle.fileno(), FILE_MODE)
                handle.write(body)
                handle.flush()
                os.fsync(handle.fileno())
            os.rename(temp, path.name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException:  # an interrupt too: never leave a temp file behind
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=dfd)
            raise
        with contextlib.suppress(OSError):
            os.fsync(dfd)


def append(path: Path, data: str | bytes, sync: bool = False) -> None:
    """Add data at the end of the file (created 0600), never through a symlink or into another user's file."""
    path = Path(path)
    body = data.encode("utf-8", "replace") if isinstance(data, str) else data
    with folder_fd(path.parent) as dfd:
        fd = _open_file(dfd, path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        _check_file(fd, path, writing=True)
        view = memoryview(body)
        while view:
            view = view[os.write(fd, view):]
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


def open_private(path: Path, flags: int = os.O_RDWR | os.O_CREAT) -> int:
    """A descriptor of one of ankit's files (a lock, a journal, a log), opened without following a symlink and
    checked (a regular file of the user's, writable by the user only); the caller closes it."""
    path = Path(path)
    with folder_fd(path.parent, create=bool(flags & os.O_CREAT)) as dfd:
        fd = _open_file(dfd, path, flags)
    try:
        _check_file(fd, path, writing=bool(flags & (os.O_WRONLY | os.O_RDWR)))
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read(path: Path, limit: int | None = None) -> bytes | None:
    """The file's bytes (at most limit), or None when it does not exist; StateFileError when it is unsafe."""
    path = Path(path)
    try:
        fd = open_private(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    with os.fdopen(fd, "rb") as handle:
        return handle.read() if limit is None else handle.read(limit)


def read_text(path: Path, limit: int | None = None) -> str | None:
    """read() decoded as UTF-8 (invalid bytes replaced), or None when missing."""
    data = read(path, limit)
    return None if data is None else data.decode("utf-8", "replace")


def read_cache(path: Path, limit: int | None = None) -> str | None:
    """A cache or trust file's text, or None when it is missing, unreadable or unsafe (ignored: rebuilt later)."""
    try:
        return read_text(path, limit)
    except OSError:
        return None


def folder(path: Path) -> Path:
    """Make sure a private folder exists (0700, no symlink, the user's own) and return it."""
    with folder_fd(path):
        return Path(path)


def database(path: Path) -> Path:
    """A private SQLite file's path, created 0600 (SQLite gives its journal files the same mode) and checked."""
    os.close(open_private(path, os.O_RDWR | os.O_CREAT))
    with contextlib.suppress(OSError):
        os.chmod(path, FILE_MODE, follow_symlinks=False)
    return Path(path)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[int]:
    """An exclusive lock on a private lock file, held across processes."""
    fd = open_private(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield fd
    finally:
        os.close(fd)


def owned_tree(folder: Path) -> bool:
    """Whether a folder and everything in it is the user's, writable by no one else, with no symlink (an
    unpacked bundle must be this before ankit runs anything from it)."""
    uid = os.getuid()
    try:
        for root, dirs, files in os.walk(folder, followlinks=False):
            for name in [".", *dirs, *files]:
                info = os.lstat(os.path.join(root, name))
                if stat.S_ISLNK(info.st_mode) or info.st_uid != uid or info.st_mode & 0o022:
                    return False
    except OSError:
        return False
    return True


@contextlib.contextmanager
def beneath(root: Path, path: Path, create: bool = False) -> Iterator[tuple[int, str]]:
    """(an open descriptor of path's folder, path's name): path reached from the folder root through real
    folders only (each opened with O_NOFOLLOW, missing ones made when create); StateFileError when path is not
    inside root or a folder on the way is a symlink (/undo must not write through a swapped parent)."""
    root, path = Path(os.path.abspath(root)), Path(os.path.abspath(path))
    if path == root or not path.is_relative_to(root):
        raise StateFileError(f"{path} is not inside the working folder {root}; ankit restores nothing there")
    *folders, name = path.relative_to(root).parts

    def refused(where: Path) -> Exception:
        return StateFileError(f"{where} is a symlink or not a folder; ankit restores {path} only through real "
                              f"folders inside {root}")

    fd = _descend(root, folders, create, 0o777, refused)  # the user's own files: the umask decides, as mkdir's
    try:
        yield fd, name
    finally:
        os.close(fd)


_PACKAGE = Path(__file__).resolve().parent.parent
STALE_DAYS = 30  # an unpacked copy no archive has used for this long is removed


def bundled(name: str) -> Path:
    """The bundled tools/ or skills/: in the installed package, unpacked from ankit.pyz, else beside it in a clone."""
    installed = _PACKAGE / f"bundled_{name}"
    if installed.is_dir():
        return installed
    zipped = paths.archive()
    if zipped is not None:  # tool modules are loaded by path, so they must be files on disk
        return unpacked(zipped) / "ankit" / f"bundled_{name}"
    return _PACKAGE.parent / name


@functools.cache
def unpacked(zipped: Path) -> Path:
    """The archive's bundled tools and skills, unpacked into a private cache folder named after its hash; a
    folder found there is used only when it holds exactly the archive's files (names, sizes, CRCs), all the
    user's and writable by no one else, with no symlink: anything else (planted, tampered) is unpacked afresh."""
    root = paths.cache_home()
    try:
        with zipped.open("rb") as file:
            folder = root / f"bundle-{hashlib.file_digest(file, 'sha256').hexdigest()[:20]}"
        with zipfile.ZipFile(zipped) as bundle:
            members = [m for m in bundle.infolist() if m.filename.startswith("ankit/bundled_") and not m.is_dir()]
        if not _matches(folder, members):
            _fresh(zipped, root, folder, members)
            _prune(root, folder)
        os.utime(folder)  # the time of last use, which _prune reads
        return folder
    except (OSError, zipfile.BadZipFile) as exc:
        raise AnkitError(f"cannot unpack the bundled tools and skills of {zipped} into {root} "
                         f"({getattr(exc, 'strerror', None) or exc}): set XDG_CACHE_HOME to a writable folder") from None


def _matches(folder: Path, members: list) -> bool:
    """Whether an unpacked folder holds exactly these zip members, safely (see unpacked); bytecode that Python
    cached there is removed, since nothing vouches for it."""
    if not os.path.isdir(folder) or os.path.islink(folder) or not owned_tree(folder):
        return False
    want = {m.filename: m for m in members}
    for base, dirs, files in os.walk(folder):
        if "__pycache__" in dirs:
            dirs.remove("__pycache__")
            shutil.rmtree(os.path.join(base, "__pycache__"), ignore_errors=True)
        for name in files:
            rel = os.path.relpath(os.path.join(base, name), folder).replace(os.sep, "/")
            member = want.pop(rel, None)
            if member is None:
                return False
            with open(os.path.join(base, name), "rb") as handle:
                data = handle.read(member.file_size + 1)
            if len(data) != member.file_size or zlib.crc32(data) != member.CRC:
                return False
    return not want


def _fresh(zipped: Path, root: Path, folder: Path, members: list) -> None:
    """Unpack into a private staging folder, then rename it over any unusable folder of that name: of two ankits
    starting at once, one rename wins and both use a complete, checked folder."""
    with folder_fd(root):
        staging = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=root))  # readable by the user only
    try:
        with zipfile.ZipFile(zipped) as bundle:
            bundle.extractall(staging, [m.filename for m in members])
        if os.path.lexists(folder) and not _matches(folder, members):
            _discard(folder)
        try:
            staging.rename(folder)
        except OSError:
            if not _matches(folder, members):  # not merely beaten to it by another ankit
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _discard(folder: Path) -> None:
    """Remove an unusable bundle folder (a symlink itself, never what it points to)."""
    if os.path.islink(folder) or not os.path.isdir(folder):
        os.unlink(folder)
    else:
        shutil.rmtree(folder)


def _prune(root: Path, keep: Path) -> None:
    """Remove the unpacked copies of other archives (older ankit.pyz files) unused for STALE_DAYS."""
    cutoff = time.time() - STALE_DAYS * 86400
    for old in root.glob("bundle-*"):
        try:
            if old != keep and old.lstat().st_mtime < cutoff:
                _discard(old)
        except OSError:
            continue

