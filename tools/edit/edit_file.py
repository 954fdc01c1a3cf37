"""edit_file: replace an exact piece of text in a file, once or everywhere."""

from ankit.toolkit import ToolError, edits, paths

name = "edit_file"
description = (
    "Edit a text file by replacing an exact string with a new one: change a value, fix a line, rename a "
    "variable in one file. old_string must match the file exactly (including indentation) and occur "
    "exactly once, unless replace_all is true; include surrounding lines to make it unique. Shows a diff "
    "for approval first."
)
parameters = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "File to edit, relative to the working folder"},
        "old_string": {"type": "string", "description": "Exact text to replace, as it appears in the file"},
        "new_string": {"type": "string", "description": "Text to put in its place"},
        "replace_all": {"type": "boolean", "description": "Replace every occurrence (default false: exactly one)"},
    },
    "required": ["path", "old_string", "new_string"],
    "additionalProperties": False,
}
effects = ["read", "write", "write-elsewhere"]  # outside the working folder after a question
needs_approval = True
examples = [
    "rename the variable count to total in utils.py",
    "edit config.py to change the port to 8080",
    "fix the typo in the README heading",
]


def changes(args: dict, ctx) -> list:
    """The file this call edits (kept for /undo first)."""
    return [paths.target(ctx, args["path"])]


def touches(args: dict, ctx) -> dict:
    """The file it reads and changes."""
    return {"reads": [args["path"]], "changes": [args["path"]]}


def preview(args: dict, ctx) -> str:
    """The unified diff the edit would make."""
    file, new, shown = _plan(args, ctx)
    return paths.outside_note(args, ctx) + edits.diff(file.content, new, shown)


def run(args: dict, ctx) -> str:
    """Make the replacement and say how much changed."""
    file, new, shown = _plan(args, ctx)
    edits.save(file, new, ctx)
    return f"edited {shown} ({edits.summary(file.content, new)})"


def _plan(args: dict, ctx):
    """The file, its new content and its shown name; raise ToolError when the edit does not fit."""
    path = paths.target(ctx, args["path"])
    shown = paths.show(ctx, path)
    file = edits.load(path, shown, ctx)
    if not file.exists:
        raise ToolError(f"no such file: {shown}{paths.suggest(path, ctx)}; use write_file to create a file")
    old, new = args["old_string"], args["new_string"]
    if not old:
        raise ToolError("old_string is empty; give the exact text to replace (use write_file for new files)")
    if old == new:
        raise ToolError("old_string and new_string are the same; nothing to change")
    if old not in file.content and "\r\n" in file.content:
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
    count = file.content.count(old)
    if count == 0:
        raise ToolError(f"old_string was not found in {shown}{_closest(file.content, old)}")
    if count > 1 and not args.get("replace_all"):
        where = ", ".join(str(n) for n in _line_numbers(file.content, old)[:10])
        raise ToolError(
                        f"old_string occurs {count} times in {shown} (lines {where}); include more surrounding text to pick "
                        "one, or set replace_all to true"
        )
    return file, file.content.replace(old, new), shown


def _line_numbers(content: str, needle: str) -> list[int]:
    numbers, start = [], 0
    while (found := content.find(needle, start)) >= 0:
        numbers.append(content.count("\n", 0, found) + 1)
        start = found + max(1, len(needle))
    return numbers


def _closest(content: str, old: str) -> str:
    """A hint naming the file line most like old_string's first line."""
    import difflib

    first = next((line.strip() for line in old.splitlines() if line.strip()), "")
    lines = content.splitlines()
    stripped = [line.strip() for line in lines]
    close = difflib.get_close_matches(first, stripped, n=1, cutoff=0.6)
    if not close:
        return "; read the file and copy the text exactly"
    number = stripped.index(close[0]) + 1
    return f"; the closest line is {number}: {lines[number - 1]!r} (check whitespace and exact spelling)"
