"""Paths for file tools: resolve against the working folder and tell when a path leaves it."""

__all__ = ["workdir", "resolve", "target", "unfollowed", "is_inside", "show", "outside_note", "needs_approval", "existing_file", "suggest", "file_errors", "tree", "withheld", "withheld_note"]

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
import difflib

from ankit.errors import ToolError


def workdir(ctx) -> Path:
    """The session's working folder, resolved."""
    return Path(ctx.cwd).expanduser().resolve()


def resolve(ctx, raw: str | None) -> Path:
    """The real path a tool argument names: relative paths start at ctx.cwd, symlinks are followed."""
    text = (raw or ".").strip() or "."
    path = Path(os.path.expanduser(text))
    if not path.is_absolute():
        path = workdir(ctx) / path
    return path.resolve()


def target(ctx, raw: str | None) -> Path:
    """The real path a writing tool changes: resolve(), refused when a symbolic link on the way leads outside the
    working folder. A sandboxed job can swap a file or folder for such a link while the user reads the question,
    and the write would land outside, done by ankit itself: a write outside is always one the call names."""
    path = resolve(ctx, raw)
    text = os.path.expanduser((raw or ".").strip() or ".")
    named = Path(os.path.normpath(text if os.path.isabs(text) else workdir(ctx) / text))
    if path != named and not is_inside(ctx, path):
        raise ToolError(f"{raw} leads through a symbolic link to {path}, outside the working folder; the edit tools "
                        f"do not write through such a link: name {path} itself (the user is asked)")
    return path


def unfollowed(ctx, raw: str) -> Path:
    """The path a tool argument names with its folder resolved but a final symlink kept: to move or delete a link."""
    path = Path(os.path.expanduser(raw.strip()))
    path = path if path.is_absolute() else workdir(ctx) / path
    return path.parent.resolve() / path.name


def is_inside(ctx, path: Path) -> bool:
    """Whether a resolved path lies in the working folder."""
    return path == workdir(ctx) or path.is_relative_to(workdir(ctx))


def show(ctx, path: Path) -> str:
    """A path as the user reads it: relative inside the working folder, absolute outside."""
    if path == workdir(ctx):
        return "."
    if is_inside(ctx, path):
        return path.relative_to(workdir(ctx)).as_posix()
    return str(path)


def outside(args: dict, ctx, keys: tuple[str, ...] = ("path",)) -> list[Path]:
    """The argument paths that resolve outside the working folder (through symlinks too)."""
    found = []
    for key in keys:
        if isinstance(args.get(key), str):
            path = resolve(ctx, args.get(key))
            if not is_inside(ctx, path):
                found.append(path)
    return found


def needs_approval(args: dict, ctx) -> bool:
    """For the reading tools: free inside the working folder, approved when the path leads outside it."""
    return bool(outside(args, ctx))


def outside_note(args: dict, ctx, keys: tuple[str, ...] = ("path",)) -> str:
    """A warning line naming paths outside the working folder, or an empty string."""
    paths = outside(args, ctx, keys)
    if not paths:
        return ""
    names = ", ".join(str(p) for p in paths)
    return f"NOTE: outside the working folder {workdir(ctx)}: {names}\n"


def existing_file(ctx, raw: str) -> Path:
    """Resolve a path that must be an existing regular file, or raise a ToolError saying what to do."""
    path = resolve(ctx, raw)
    if path.is_dir():
        raise ToolError(f"{show(ctx, path)} is a folder, not a file; use list_directory to see inside it")
    if not path.exists():
        raise ToolError(f"no such file: {show(ctx, path)}{suggest(path, ctx)}")
    if not path.is_file():
        raise ToolError(f"{show(ctx, path)} is not a regular file (a pipe, socket or device); it cannot be read")
    return path


def suggest(path: Path, ctx=None) -> str:
    """A ' (did you mean ...?)' hint from similarly named siblings, or '' (with ctx, a missing folder is named as
    the user reads it: relative inside the working folder)."""
    parent = path.parent
    if not parent.is_dir():
        return f"; the folder {show(ctx, parent) if ctx is not None else parent} does not exist either"
    try:
        names = [p.name for p in parent.iterdir()]
    except OSError:
        return ""
    close = difflib.get_close_matches(path.name, names, n=3, cutoff=0.6)
    return f" (did you mean {', '.join(close)}?)" if close else ""


@contextmanager
def file_errors(doing: str) -> Iterator[None]:
    """Inside the block an OSError (no permission, a file where a folder should be, a full disk) becomes a
    ToolError saying what failed: 'cannot delete a.txt: Permission denied: /work/a.txt'."""
    try:
        yield
    except OSError as exc:
        where = f": {exc.filename}" if exc.filename else ""
        raise ToolError(f"cannot {doing}: {exc.strerror or exc}{where}") from None


def tree(path: Path) -> list[Path]:
    """A path and, for a folder, everything under it (links listed, never followed): what deleting or moving it
    changes, for a tool's touches()."""
    found = [path]
    if path.is_dir() and not path.is_symlink():
        for folder, dirs, files in os.walk(path):
            found += [Path(folder) / name for name in (*dirs, *files)]
    return found


def withheld(ctx, path: Path) -> bool:
    """Whether the settings' rules deny reading this path (as named or as it really is): a search or listing
    tool that declares `"withholds": True` in its touches() leaves it out, and says how many with withheld_note."""
    kept = getattr(ctx, "withheld", None)
    if not kept:
        return False
    if os.path.normpath(str(path)) in kept:
        return True
    try:
        return str(Path(path).resolve()) in kept
    except (OSError, RuntimeError):
        return True


def withheld_note(count: int, what: str = "files") -> str:
    """The line a search or listing tool adds when it left out paths the rules deny reading ('' for none)."""
    return f"[{count} {what} left out: the settings' rules deny reading them]" if count else ""
