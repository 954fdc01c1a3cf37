"""Where ankit keeps things: XDG folders and the bundled tools and skills."""

import functools
import os
from pathlib import Path

from ankit.errors import AnkitError

_PACKAGE = Path(__file__).resolve().parent.parent  # the ankit package


def _xdg(var: str, fallback: str) -> Path:
    value = os.environ.get(var)
    return Path(value) if value else Path.home() / fallback


def config_home() -> Path:
    """$XDG_CONFIG_HOME/ankit."""
    return _xdg("XDG_CONFIG_HOME", ".config") / "ankit"


def state_home() -> Path:
    """$XDG_STATE_HOME/ankit: history and sessions."""
    return _xdg("XDG_STATE_HOME", ".local/state") / "ankit"


def data_home() -> Path:
    """$XDG_DATA_HOME/ankit: the memory database."""
    return _xdg("XDG_DATA_HOME", ".local/share") / "ankit"


def cache_home() -> Path:
    """$XDG_CACHE_HOME/ankit: the bundled tools and skills unpacked from an ankit.pyz."""
    return _xdg("XDG_CACHE_HOME", ".cache") / "ankit"


def archive() -> Path | None:
    """The zip file ankit runs from (an ankit.pyz), or None."""
    found = getattr(__loader__, "archive", None)  # zipimport's loader names its archive
    return Path(found).resolve() if found else None


def bundled(name: str) -> Path:
    """The bundled tools/ or skills/: in the installed package, unpacked from ankit.pyz, else beside it in a clone."""
    installed = _PACKAGE / f"bundled_{name}"
    if installed.is_dir():
        return installed
    zipped = archive()
    if zipped is not None:  # tool modules are loaded by path, so they must be files on disk
        return unpacked(zipped) / "ankit" / f"bundled_{name}"
    return _PACKAGE.parent / name


@functools.cache
def unpacked(zipped: Path) -> Path:
    """The archive's bundled tools and skills, unpacked once into a cache folder named after its hash."""
    import hashlib
    import zipfile
    root = cache_home()
    try:
        with zipped.open("rb") as file:
            folder = root / f"bundle-{hashlib.file_digest(file, 'sha256').hexdigest()[:20]}"
        if not folder.is_dir():
            _unpack(zipped, root, folder)
            _prune(root, folder)
        os.utime(folder)  # the time of last use, which _prune reads
        return folder
    except (OSError, zipfile.BadZipFile) as exc:
        raise AnkitError(f"cannot unpack the bundled tools and skills of {zipped} into {root} "
                         f"({getattr(exc, 'strerror', None) or exc}): set XDG_CACHE_HOME to a writable folder") from None


STALE_DAYS = 30  # an unpacked copy no archive has used for this long is removed


def _prune(root: Path, keep: Path) -> None:
    """Remove the unpacked copies of other archives (older ankit.pyz files) unused for STALE_DAYS."""
    import shutil
    import time
    cutoff = time.time() - STALE_DAYS * 86400
    for old in root.glob("bundle-*"):
        try:
            if old != keep and old.stat().st_mtime < cutoff:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            continue


def _unpack(zipped: Path, root: Path, folder: Path) -> None:
    """Unpack into a temporary folder, then rename it: of two ankits starting at once, one rename wins and
    both use the complete folder."""
    import shutil
    import tempfile
    import zipfile
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=root))  # readable by the user only
    try:
        with zipfile.ZipFile(zipped) as bundle:
            bundle.extractall(staging, [n for n in bundle.namelist() if n.startswith("ankit/bundled_")])
        staging.rename(folder)
    except OSError:
        if not folder.is_dir():  # not merely beaten to it by another ankit
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def lies_in(path: Path, folder: Path) -> bool:
    """Whether path, its symlinks followed, is inside folder: a cloned repository's AGENTS.md or command file
    that is a link to ~/.ssh/id_rsa is not the repository's text."""
    try:
        return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(folder))
    except (OSError, ValueError):
        return False


def read_head(path: Path, chars: int) -> str:
    """The first chars characters of a text file (at most 4 bytes a character read, never a huge file whole)."""
    with open(path, "rb") as handle:
        return handle.read(chars * 4).decode("utf-8", errors="replace")[:chars]
