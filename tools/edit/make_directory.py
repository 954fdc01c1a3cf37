"""make_directory: create a folder and any missing parents."""

from ankit.toolkit import ToolError, paths

name = "make_directory"
description = "Create a folder (and any missing parent folders) relative to the working folder, like mkdir -p."
parameters = {
    "type": "object",
    "properties": {"path": {"type": "string", "description": "Folder to create, relative to the working folder"}},
    "required": ["path"],
    "additionalProperties": False,
}
effects = ["read", "write", "write-elsewhere"]  # outside the working folder after a question
needs_approval = True
examples = ["create a folder called src/utils", "make a new directory for the tests", "mkdir -p docs/images"]


def changes(args: dict, ctx) -> list:
    """The folder this call creates (removed again by /undo)."""
    return [paths.target(ctx, args["path"])]


def touches(args: dict, ctx) -> dict:
    """The folder it creates."""
    return {"changes": [args["path"]]}


def preview(args: dict, ctx) -> str:
    """Name the folder to be created."""
    path = paths.target(ctx, args["path"])
    return f"{paths.outside_note(args, ctx)}create folder {paths.show(ctx, path)}/"


def run(args: dict, ctx) -> str:
    """Create the folder; an existing folder is fine, an existing file is not."""
    path = paths.target(ctx, args["path"])
    shown = paths.show(ctx, path)
    if path.is_dir():
        return f"{shown}/ already exists"
    if path.exists():
        raise ToolError(f"{shown} exists and is a file; choose another folder name")
    with paths.file_errors(f"create the folder {shown}"):
        path.mkdir(parents=True)
    return f"created {shown}/"
