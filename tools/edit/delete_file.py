"""delete_file: remove a file, or a folder and everything in it."""

import shutil
from pathlib import Path

from ankit.toolkit import ToolError, paths, text

name = "delete_file"
description = (
    "Delete (rm) a file, or a folder with recursive true (everything inside it is removed). "
    "The working folder itself cannot be deleted."
)
parameters = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "File or folder to delete, relative to the working folder"},
        "recursive": {"type": "boolean", "description": "Needed to delete a folder and its contents (default false)"},
    },
    "required": ["path"],
    "additionalProperties": False,
}
effects = ["read", "write", "write-elsewhere"]  # outside the working folder after a question
needs_approval = True
examples = ["delete the file temp.log", "remove the build folder", "rm old_backup.txt"]


def changes(args: dict, ctx) -> list:
    """The file or folder this call deletes (kept for /undo first)."""
    return [_target(args, ctx)]


def touches(args: dict, ctx) -> dict:
    """The file, or the folder and everything in it (links removed, never followed)."""
    return {"changes": paths.tree(_target(args, ctx))}


def preview(args: dict, ctx) -> str:
    """Describe what would be deleted, with a count for folders."""
    path = _target(args, ctx)
    shown = paths.show(ctx, path)
    if path.is_dir() and not path.is_symlink():
        count = sum(1 for _ in path.rglob("*"))
        return f"{paths.outside_note(args, ctx)}delete folder {shown}/ and the {count} entries inside it"
    size = text.human_size(path.lstat().st_size)
    return f"{paths.outside_note(args, ctx)}delete {'link' if path.is_symlink() else 'file'} {shown} ({size})"


def run(args: dict, ctx) -> str:
    """Delete the file, link or (with recursive) folder."""
    path = _target(args, ctx)
    shown = paths.show(ctx, path)
    with paths.file_errors(f"delete {shown}"):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
            return f"deleted folder {shown}/"
        path.unlink()
    return f"deleted {shown}"


def _target(args: dict, ctx):
    """The path to delete (a link itself, not its target); raise ToolError when it must not be deleted."""
    path = paths.unfollowed(ctx, args["path"])
    if not path.exists() and not path.is_symlink():
        raise ToolError(f"no such file or folder: {args['path']}{paths.suggest(path, ctx)}")
    if path.resolve() in (paths.workdir(ctx), *paths.workdir(ctx).parents, Path.home()):
        raise ToolError(f"refusing to delete {path}: it is the working folder, one of its parents or home")
    if path.is_dir() and not path.is_symlink() and not args.get("recursive"):
        raise ToolError(f"{paths.show(ctx, path)} is a folder; set recursive to true to delete it and its contents")
    return path
