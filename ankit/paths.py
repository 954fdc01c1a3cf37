"""Where ankit keeps things: the XDG folders (the bundled tools and skills: safety/statefiles.bundled)."""

import os
import sys
from pathlib import Path

ROOT = str(Path(__file__).absolute().parent.parent)  # the folder (or ankit.pyz) that holds the ankit package
# python3 -I -S -c BOOT ROOT MODULE ARGS...: ankit's own module run as `-m` runs it, found after the standard
# library (appended: nothing beside ankit in ROOT can stand in for a standard module), and nothing from the
# working folder, PYTHONPATH or .pth files runs first
BOOT = "import sys, runpy; sys.path.append(sys.argv.pop(1)); runpy.run_module(sys.argv.pop(1), run_name='__main__', alter_sys=True)"


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
    """$XDG_CACHE_HOME/ankit: caches, and the bundled tools and skills unpacked from an ankit.pyz."""
    return _xdg("XDG_CACHE_HOME", ".cache") / "ankit"


def claude_home() -> Path:
    """~/.claude: Claude Code's user settings, commands and agents (handed in where they are read, as
    config_home is)."""
    return Path.home() / ".claude"


def archive() -> Path | None:
    """The zip file ankit runs from (an ankit.pyz), or None."""
    found = getattr(__loader__, "archive", None)  # zipimport's loader names its archive
    return Path(found).resolve() if found else None


def program(module: str, *flags: str) -> list[str]:
    """The command line that runs one of ankit's modules as a program (with Python's flags, "-u"...), the same
    from a clone, an install and ankit.pyz (a module's file path inside a zip cannot be run; its name can)."""
    return [sys.executable, "-I", "-S", *flags, "-c", BOOT, ROOT, module]


def shown(path: Path, cwd: Path) -> str:
    """A path as a person reads it: relative to the working folder inside it, ~/... inside the home folder, else
    whole (a long temporary or home folder would push the name itself past the width of a line)."""
    for base, prefix in ((cwd, ""), (cwd.resolve(), ""), (Path.home(), "~/")):
        try:
            return prefix + path.relative_to(base).as_posix()
        except ValueError:
            continue
    return str(path)


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


def stamp(folders: list[Path], pattern: str = "*.md") -> tuple:
    """What changes when a file of the folders is added, removed or edited: each file's name, time and size."""
    found = []
    for folder in folders:
        for path in sorted(folder.glob(pattern)) if folder.is_dir() else []:
            try:
                info = path.stat()
            except OSError:
                continue
            found.append((str(path), info.st_mtime_ns, info.st_size))
    return tuple(found)
