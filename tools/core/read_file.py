"""read_file: show a text file, or a range of its lines, with line numbers."""

import itertools
from pathlib import Path

from ankit.toolkit import ToolError, ToolOutput, edits, paths, text

MAX_LINES = 2000
MAX_CHARS = 60_000
MAX_WHOLE_FILE = 20 * 1024 * 1024
LINE_CHARS = 2000  # characters of one line shown

name = "read_file"
description = (
    "Open and read a text file (source code such as setup.py, a README, a config file) and show its "
    "contents, each line prefixed with its number and a tab (the number is not part of the file). Use "
    "start_line and end_line for a range of a large file. Binary files are refused with a note."
)
parameters = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "File to read, relative to the working folder"},
        "start_line": {"type": "integer", "description": "First line to show (1-based, default 1)"},
        "end_line": {"type": "integer", "description": "Last line to show (inclusive, default: up to 2000 lines)"},
    },
    "required": ["path"],
    "additionalProperties": False,
}
returns = "str: the file's text, without line numbers (only the lines asked for when start_line or end_line is given)"
effects = ["read"]
needs_approval = paths.needs_approval
examples = [
    "show me the contents of setup.py",
    "read lines 40 to 80 of src/app.py",
    "open the README and summarise it",
    "what does the config file say",
]


def touches(args: dict, ctx) -> dict:
    """The file it reads."""
    return {"reads": [args["path"]]}


def preview(args: dict, ctx) -> str:
    """Say which file outside the working folder would be read."""
    return f"{paths.outside_note(args, ctx)}read {paths.resolve(ctx, args.get('path'))}"


def run(args: dict, ctx) -> ToolOutput | str:
    """The numbered lines of the requested range, with a note when more remain; a program gets the text."""
    path = paths.existing_file(ctx, args["path"])
    start = max(1, int(args.get("start_line") or 1))
    end = args.get("end_line")
    if end is not None and int(end) < start:
        raise ToolError(f"end_line {end} is before start_line {start}; give a range like 10 to 40")
    with paths.file_errors(f"read {paths.show(ctx, path)}"), open(path, "rb") as handle:
        head = handle.read(8192)
    if text.looks_binary(head):
        size = text.human_size(path.stat().st_size)
        return f"{paths.show(ctx, path)} looks like a binary file ({size}); not shown"
    count = min(MAX_LINES, int(end) - start + 1) if end is not None else MAX_LINES
    with paths.file_errors(f"read {paths.show(ctx, path)}"):
        lines, total, note, digest, whole = _load(path, start, count, edits.editor_of(ctx, "reads"))
    shown = paths.show(ctx, path)
    body, last = _numbered(lines, start, end is not None and int(end), total, note, shown)
    if hasattr(ctx, "summarize"):
        ctx.summarize(_told(start, last, total))
    ranged = args.get("start_line") is not None or end is not None or whole is None
    value = "".join(line + "\n" for line in lines) if ranged else whole
    return ToolOutput(body + (f"\n[file hash {digest}, for edit_lines]" if digest else ""), value)


def _load(path: Path, start: int, count: int, editor=None) -> tuple[list[str], int | None, str, str, str | None]:
    """Up to count lines from start (1-based), the total line count (None when streamed), a decoding note, a
    hash, and the whole text (None when streamed), private keys hidden in both; in an editor that reads files
    (ankit acp) its text, an unsaved buffer's included."""
    if path.stat().st_size <= MAX_WHOLE_FILE:
        data = path.read_bytes() if editor is None else editor.read_text(path).encode("utf-8", "surrogatepass")
        content, note = text.decode(data)
        every = text.split_lines(content)
        lines = text.hide_private_keys(every)
        whole = content if lines is every else "".join(line + "\n" for line in lines)
        return lines[start - 1 : start - 1 + count], len(lines), note, text.file_hash(data), whole
    with open(path, encoding="utf-8", errors="replace", newline="") as handle:
        picked = list(itertools.islice(_bounded_lines(handle), start - 1, start + count))
    note = f"large file ({text.human_size(path.stat().st_size)}); read further with start_line"
    total = start - 1 + len(picked) if len(picked) <= count else None
    return [line.rstrip("\r\n") for line in picked[:count]], total, note, "", None


def _bounded_lines(handle, limit: int = LINE_CHARS):
    """The file's lines, each read no further than limit characters: the rest of a longer line is skipped and
    counted (as clip_line says it), so a file of one endless line cannot fill memory."""
    while line := handle.readline(limit + 1):
        if len(line) > limit and not line.endswith(("\n", "\r")):
            skipped = 1
            while (more := handle.readline(65536)) and not more.endswith(("\n", "\r")):
                skipped += len(more)
            skipped += len(more.rstrip("\r\n"))
            line = line[:limit] + f" [... {skipped} more characters]\n"
        yield line


def _told(start: int, last: int, total: int | None) -> str:
    """The user's line for the read: '42 lines', or which lines of how many."""
    of = f" of {total:,}" if total is not None else ""
    if start == 1 and last == total:
        return f"{total:,} line{'' if total == 1 else 's'}" if total else "empty"
    if last < start:
        return f"past the end{of and ': ' + of[4:] + ' lines'}"
    return f"line {start:,}{of}" if last == start else f"lines {start:,}-{last:,}{of}"


def _numbered(lines: list[str], start: int, end, total: int | None, note: str, shown: str) -> tuple[str, int]:
    """Number the lines (bounded by MAX_CHARS) and say what is left; also the number of the last line shown."""
    if total == 0:
        return f"{shown} is empty", 0
    if not lines:
        return f"{shown} has {total} lines; start_line {start} is past the end", start - 1
    out, used = [], 0
    for number, line in enumerate(lines, start):
        numbered = f"{number}\t{line if ' more characters]' in line[LINE_CHARS:] else text.clip_line(line, LINE_CHARS)}"
        if used + len(numbered) > MAX_CHARS and out:
            break
        out.append(numbered)
        used += len(numbered) + 1
    last = start + len(out) - 1
    footer = [f"[{note}]"] if note else []
    if (total is None or last < total) and (not end or last < end):
        of = f" of {total}" if total is not None else ""
        footer.append(f"[showing lines {start}-{last}{of}; continue with start_line={last + 1}]")
    return "\n".join(out + footer), last
