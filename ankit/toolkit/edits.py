"""Shared by the edit tools: read a text file exactly, diff two versions, write one back."""

__all__ = ["TextFile", "load", "save", "diff", "summary", "editor_of"]

import difflib
import os
from dataclasses import dataclass
from pathlib import Path

from ankit.errors import ToolError
from ankit.toolkit.paths import file_errors


@dataclass
class TextFile:
    """A text file's exact content and how to write it back."""

    path: Path
    content: str
    encoding: str = "utf-8"
    exists: bool = True


def editor_of(ctx, offers: str):
    """The user's editor when the session has one offering this ("reads", "writes", "runs"; ankit acp), else
    None: the tools use ankit's own files and processes."""
    editor = getattr(ctx, "editor", None)
    return editor if editor is not None and getattr(editor, offers, False) else None


def load(path: Path, shown: str, ctx=None) -> TextFile:
    """Read a text file without translating newlines; a missing file loads as empty and not existing. With
    ctx in an editor that reads files (ankit acp), the editor's text is read: an unsaved buffer's included."""
    if path.is_dir():
        raise ToolError(f"{shown} is a folder, not a file")
    if not path.exists():
        return TextFile(path, "", exists=False)
    if not path.is_file():
        raise ToolError(f"{shown} is not a regular file (a pipe, socket or device); the edit tools only change text files")
    with file_errors(f"read {shown}"):
        data = path.read_bytes()
        editor = editor_of(ctx, "reads")
        if editor is not None and b"\x00" not in data[:8192]:
            return TextFile(path, editor.read_text(path))
    if b"\x00" in data[:8192]:
        raise ToolError(f"{shown} is a binary file; the edit tools only change text files")
    try:
        return TextFile(path, data.decode("utf-8"))
    except UnicodeDecodeError:
        return TextFile(path, data.decode("latin-1"), "latin-1")


def save(file: TextFile, content: str, ctx=None) -> None:
    """Write content back in the file's encoding, creating parent folders; with ctx in an editor that writes
    files (ankit acp), a UTF-8 file is written through the editor, which shows the change and can undo it."""
    editor = editor_of(ctx, "writes")
    if editor is not None and file.encoding == "utf-8":
        with file_errors(f"write {file.path}"):
            editor.write_text(file.path, content)
        return
    try:
        data = content.encode(file.encoding)
    except UnicodeEncodeError:
        data = content.encode("utf-8")
    with file_errors(f"write {file.path}"):
        file.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(file.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
        with open(fd, "wb") as handle:  # O_NOFOLLOW: a link swapped in since the path was resolved is refused
            handle.write(data)


def diff(old: str | None, new: str | None, shown: str) -> str:
    """A unified diff between two versions; None stands for a missing file."""
    before = (old or "").splitlines(keepends=True)
    after = (new or "").splitlines(keepends=True)
    lines = difflib.unified_diff(
        before, after,
        "/dev/null" if old is None else f"a/{shown}",
        "/dev/null" if new is None else f"b/{shown}",
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    text = "".join(out)
    if not text:
        return f"(no change to {shown})\n"
    return text  # never cut: an approval must show every change, a hidden one beyond a cut included


def summary(old: str, new: str) -> str:
    """How many lines were added and removed, as '+3 -1'."""
    added = removed = 0
    for line in list(difflib.unified_diff(old.splitlines(), new.splitlines(), n=0, lineterm=""))[2:]:
        added += line.startswith("+")
        removed += line.startswith("-")
    return f"+{added} -{removed}"
