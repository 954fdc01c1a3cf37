"""write_file: create a file or replace its whole content."""

from ankit.toolkit import edits, paths

name = "write_file"
description = (
    "Create (save) a new text file or overwrite an existing one with the given content (parent folders are created). "
    "For a small change to an existing file prefer edit_file. Shows a diff for approval first."
)
parameters = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "File to write, relative to the working folder"},
        "content": {"type": "string", "description": "The complete new content of the file"},
    },
    "required": ["path", "content"],
    "additionalProperties": False,
}
effects = ["read", "write", "write-elsewhere"]  # outside the working folder after a question
needs_approval = True
examples = [
    "create a file hello.py that prints hello world",
    "write a .gitignore for a python project",
    "save these notes to notes.md",
]


def changes(args: dict, ctx) -> list:
    """The file this call writes (kept for /undo first)."""
    return [paths.target(ctx, args["path"])]


def touches(args: dict, ctx) -> dict:
    """The file it writes (its old content is not read back to the model)."""
    return {"changes": [args["path"]]}


def preview(args: dict, ctx) -> str:
    """The unified diff from the current file (or nothing) to the new content."""
    path = paths.target(ctx, args["path"])
    shown = paths.show(ctx, path)
    file = edits.load(path, shown, ctx)
    old = file.content if file.exists else None
    return paths.outside_note(args, ctx) + edits.diff(old, args["content"], shown)


def run(args: dict, ctx) -> str:
    """Write the file and say what changed."""
    path = paths.target(ctx, args["path"])
    shown = paths.show(ctx, path)
    file = edits.load(path, shown, ctx)
    edits.save(file, args["content"], ctx)
    lines = args["content"].count("\n") + (not args["content"].endswith("\n") and bool(args["content"]))
    if not file.exists:
        return f"created {shown} ({lines} lines)"
    return f"wrote {shown} ({lines} lines, {edits.summary(file.content, args['content'])})"
