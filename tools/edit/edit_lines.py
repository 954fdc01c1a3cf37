"""edit_lines: replace, insert or delete a range of lines, refused when the file changed since it was read."""

from ankit.toolkit import ToolError, edits, paths, text

SHOWN_AROUND = 3  # lines of context around the changed region in the result

name = "edit_lines"
description = (
    "Edit a text file by line numbers, as read_file numbers them: replace lines start_line to end_line with "
    "new_text, insert new_text before start_line, or remove the range. file_hash is the hash read_file (or the "
    "previous edit_lines) returned; the edit is refused if the file changed since, so read it again. Shows a "
    "diff for approval first."
)
parameters = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "File to edit, relative to the working folder"},
        "file_hash": {"type": "string", "description": "The file hash read_file showed for this file"},
        "operation": {"type": "string", "enum": ["replace", "insert", "delete"], "description": "Default replace"},
        "start_line": {"type": "integer", "description": "First line of the range (1-based); insert puts text before it"},
        "end_line": {"type": "integer", "description": "Last line of the range, inclusive (default start_line)"},
        "new_text": {"type": "string", "description": "The lines to put in (replace, insert); without line numbers"},
    },
    "required": ["path", "file_hash", "start_line"],
    "additionalProperties": False,
}
effects = ["read", "write", "write-elsewhere"]  # outside the working folder after a question
needs_approval = True
examples = [
    "replace lines 10 to 12 of app.py",
    "delete lines 40-55 from the config file",
    "insert a line before line 3 of main.go",
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
    """Make the edit; return the new hash and the changed region with line numbers."""
    file, new, shown = _plan(args, ctx)
    edits.save(file, new, ctx)
    digest = text.file_hash(new.encode(file.encoding, errors="replace"))
    start = int(args["start_line"])
    added = 0 if _operation(args) == "delete" else len(_split(_new_lines(args, "\n")))
    lines = text.split_lines(new)
    first, last = max(1, start - SHOWN_AROUND), min(len(lines), start + added - 1 + SHOWN_AROUND)
    region = "\n".join(f"{n}\t{text.clip_line(lines[n - 1], 400)}" for n in range(first, last + 1))
    return (f"edited {shown} ({edits.summary(file.content, new)}); new file hash {digest}\n"
            + (region or f"({shown} is now empty)"))


def _operation(args: dict) -> str:
    return args.get("operation") or "replace"


def _plan(args: dict, ctx):
    """The file, its new content and its shown name; raise ToolError when the edit does not fit."""
    path = paths.target(ctx, args["path"])
    shown = paths.show(ctx, path)
    file = edits.load(path, shown, ctx)
    if not file.exists:
        raise ToolError(f"no such file: {shown}{paths.suggest(path, ctx)}; use write_file to create a file")
    current = text.file_hash(file.content.encode(file.encoding))
    given = str(args["file_hash"]).strip().lower()
    if len(given) < 8 or not current.startswith(given):
        raise ToolError(f"{shown} changed since it was read (its hash is not {given!r}); "
                        "read it again with read_file and use the new line numbers and hash")
    lines = _split(file.content)
    start, end = _range(args, len(lines), shown)
    newline = "\r\n" if "\r\n" in file.content else "\n"
    fresh = _split(_new_lines(args, newline)) if _operation(args) != "delete" else []
    if _operation(args) == "insert":
        if not fresh:
            raise ToolError("new_text is empty; give the lines to insert")
        if start > len(lines) and lines and not lines[-1].endswith("\n"):
            lines[-1] += newline  # appending after a last line that had no newline
        end = start - 1
    elif end == len(lines) and fresh and lines and not lines[-1].endswith("\n"):
        fresh[-1] = fresh[-1].rstrip("\r\n")  # the file had no final newline: keep it that way
    if start == 1 and lines and lines[0].startswith("\ufeff") and fresh and not fresh[0].startswith("\ufeff"):
        fresh[0] = "\ufeff" + fresh[0]  # keep a byte-order mark
    new = "".join(lines[: start - 1] + fresh + lines[end:])
    if new == file.content:
        raise ToolError(f"the new text is the same as lines {start}-{end} of {shown}; nothing to change")
    return file, new, shown


def _range(args: dict, total: int, shown: str) -> tuple[int, int]:
    """The checked 1-based line range; insert allows start_line up to one past the last line."""
    start = int(args["start_line"])
    end = int(args.get("end_line") or start)
    if _operation(args) == "insert":
        if not 1 <= start <= total + 1:
            raise ToolError(f"line {start} is outside {shown}, which has {total} lines; insert before a line "
                            f"from 1 to {total + 1} ({total + 1} appends)")
        return start, start
    if end < start:
        raise ToolError(f"end_line {end} is before start_line {start}; give a range like 10 to 12")
    if start < 1 or end > total:
        raise ToolError(f"lines {start}-{end} are outside {shown}, which has {total} lines; read it again "
                        "and give a range inside it")
    return start, end


def _new_lines(args: dict, newline: str) -> str:
    """new_text with the file's newline style and a final newline."""
    body = str(args.get("new_text") or "").replace("\r\n", "\n")
    if body and not body.endswith("\n"):
        body += "\n"
    return body.replace("\n", newline)


def _split(content: str) -> list[str]:
    """Lines with their endings, split at \\n only (as read_file numbers them)."""
    parts = content.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    return lines + ([parts[-1]] if parts[-1] else [])
