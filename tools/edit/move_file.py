"""move_file: move or rename a file or folder."""

import shutil

from ankit.toolkit import ToolError, paths

name = "move_file"
description = (
    "Move or rename (mv) a file or folder. If destination is an existing folder the source moves into it. "
    "An existing destination file is only replaced when overwrite is true."
)
parameters = {
    "type": "object",
    "properties": {
        "source": {"type": "string", "description": "File or folder to move, relative to the working folder"},
        "destination": {"type": "string", "description": "New path, or an existing folder to move it into"},
        "overwrite": {"type": "boolean", "description": "Replace an existing destination file (default false)"},
    },
    "required": ["source", "destination"],
    "additionalProperties": False,
}
effects = ["read", "write", "write-elsewhere"]  # outside the working folder after a question
needs_approval = True
examples = ["rename main.py to app.py", "move the helpers module into the lib folder", "mv old_name.txt new_name.txt"]

KEYS = ("source", "destination")


def changes(args: dict, ctx) -> list:
    """The source and destination of the move (both kept for /undo first)."""
    return list(_plan(args, ctx))


def touches(args: dict, ctx) -> dict:
    """Both ends, for a folder everything in it: each file is read where it is and changed in both places."""
    source, target = _plan(args, ctx)
    moved = paths.tree(source)
    return {"reads": moved, "changes": moved + [target / p.relative_to(source) for p in moved]}


def preview(args: dict, ctx) -> str:
    """Describe the move."""
    source, target = _plan(args, ctx)
    kind = "folder" if source.is_dir() else "file"
    replacing = " (replacing the existing file)" if target.exists() else ""
    return f"{paths.outside_note(args, ctx, KEYS)}move {kind} {paths.show(ctx, source)} -> {paths.show(ctx, target)}{replacing}"


def run(args: dict, ctx) -> str:
    """Move the file or folder, creating the destination's parent folders."""
    source, target = _plan(args, ctx)
    with paths.file_errors(f"move {paths.show(ctx, source)} to {paths.show(ctx, target)}"):
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(source), str(target))
    return f"moved {paths.show(ctx, source)} -> {paths.show(ctx, target)}"


def _plan(args: dict, ctx):
    """The source and final target paths; raise ToolError when the move cannot happen."""
    source = paths.unfollowed(ctx, args["source"])
    if not source.exists() and not source.is_symlink():
        raise ToolError(f"no such file or folder: {args['source']}{paths.suggest(source, ctx)}")
    target = paths.target(ctx, args["destination"])
    if target.is_dir():
        target = target / source.name
    if target == source.resolve():
        raise ToolError("source and destination are the same path")
    if source.is_dir() and target.is_relative_to(source.resolve()):
        raise ToolError("cannot move a folder into itself")
    if target.exists() and (target.is_dir() or not args.get("overwrite")):
        raise ToolError(f"{paths.show(ctx, target)} already exists; set overwrite to true or pick another name")
    return source, target
