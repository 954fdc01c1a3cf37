"""Where ankit keeps things: XDG folders and the bundled tools and skills."""

import os
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


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


def bundled(name: str) -> Path:
    """The bundled tools/ or skills/: inside the installed package, else beside it in a clone."""
    installed = _PACKAGE / f"bundled_{name}"
    return installed if installed.is_dir() else _PACKAGE.parent / name
