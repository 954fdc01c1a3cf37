"""apply_patch: apply a unified diff to one or more files, all or nothing."""

import re
from dataclasses import dataclass, field

from ankit.toolkit import ToolError, edits, paths

HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")

name = "apply_patch"
description = (
    "Apply a unified diff (as made by 'git diff' or 'diff -u') to files in the working folder: edits, new "
    "files (--- /dev/null) and deletions (+++ /dev/null). Hunks are placed by their context lines; if any hunk "
    "does not match, nothing is changed and the error says which. Shows the resulting diff for approval."
)
parameters = {
    "type": "object",
    "properties": {
        "patch": {"type": "string", "description": "Unified diff text with ---/+++ headers and @@ hunks"},
    },
    "required": ["patch"],
    "additionalProperties": False,
}
effects = ["read", "write", "write-elsewhere"]  # outside the working folder after a question
needs_approval = True
examples = [
    "apply this diff to the repository",
    "apply the patch I pasted",
    "make these changes across several files as a unified diff",
]


def changes(args: dict, ctx) -> list:
    """Every file the patch writes, creates, deletes or renames away (kept for /undo first)."""
    return [path for file, _, _, old in _plan(args, ctx) for path in (file.path, old) if path is not None]


def touches(args: dict, ctx) -> dict:
    """Every file in the patch: read, then written, created, deleted or renamed (both names)."""
    found = changes(args, ctx)
    return {"reads": found, "changes": found}


def preview(args: dict, ctx) -> str:
    """Every change the patch would make: what happens to each file (created, changed, renamed, deleted), with
    its diff, and a note for each path outside the working folder."""
    changes = _plan(args, ctx)
    touched = [str(c[0].path) for c in changes] + [str(c[3]) for c in changes if c[3] is not None]
    note = paths.outside_note({str(n): p for n, p in enumerate(touched)}, ctx, tuple(map(str, range(len(touched)))))
    return note + "".join(_change(c, ctx) for c in changes)


def _change(change, ctx) -> str:
    """One file's part of the preview: a line saying what happens to it, then its diff."""
    file, new, shown, moved_from = change
    if new is None:
        return f"delete {shown}\n" + edits.diff(file.content, None, shown)
    if moved_from is not None:
        old_shown = paths.show(ctx, moved_from)
        body = edits.diff(file.content, new, shown) if new != file.content else "(content unchanged)\n"
        return f"rename {old_shown} -> {shown}\n" + body
    return f"{'change' if file.exists else 'create'} {shown}\n" + edits.diff(file.content if file.exists else None, new, shown)


def run(args: dict, ctx) -> str:
    """Apply every file patch, after checking that all of them fit."""
    changes = _plan(args, ctx)
    report = []
    for file, new, shown, remove in changes:
        if new is None:
            with paths.file_errors(f"delete {shown}"):
                file.path.unlink()
            report.append(f"deleted {shown}")
            continue
        edits.save(file, new, ctx)
        report.append(f"{'patched' if file.exists else 'created'} {shown} ({edits.summary(file.content, new)})")
        if remove is not None:
            with paths.file_errors(f"remove {paths.show(ctx, remove)} after renaming it"):
                remove.unlink()
            report[-1] += f", moved from {paths.show(ctx, remove)}"
    return "\n".join(report)


def _plan(args: dict, ctx) -> list:
    """(file, new content or None to delete, shown name, old path to remove after a rename) per file patch."""
    file_patches = parse(args["patch"])
    changes = []
    for fp in file_patches:
        source = paths.target(ctx, fp.old_path or fp.new_path)
        target = paths.target(ctx, fp.new_path or fp.old_path)
        shown = paths.show(ctx, target)
        file = edits.load(source, paths.show(ctx, source), ctx)
        _check_exists(fp, file, shown, ctx)
        new = apply(file.content, fp.hunks, shown)
        if fp.new_path is None:
            if new.strip():
                raise ToolError(f"the patch deletes {shown} but its hunks do not remove all of it")
            changes.append((file, None, shown, None))
        elif source != target:
            changes.append((edits.TextFile(target, file.content, file.encoding, False), new, shown, source))
        else:
            changes.append((file, new, shown, None))
    return changes


def _check_exists(fp, file, shown: str, ctx) -> None:
    if fp.old_path is None and file.exists and file.content:
        raise ToolError(f"the patch creates {shown} but it already exists; nothing was changed")
    if fp.old_path is not None and not file.exists:
        raise ToolError(
                        f"the patch changes {fp.old_path} but no such file exists in {paths.workdir(ctx)} "
                        "(patch paths are relative to the working folder); nothing was changed"
        )


# --- the unified diff: parsed into hunks, each placed by its context lines ---------------------------------

@dataclass
class Hunk:
    """One @@ block: the old start line (None when the header had no numbers) and its body lines."""

    header: str
    old_start: int | None
    lines: list[tuple[str, str]] = field(default_factory=list)
    old_no_newline: bool = False
    new_no_newline: bool = False

    def old(self) -> list[str]:
        """The lines the hunk expects in the file (context and removed)."""
        return [text for op, text in self.lines if op in " -"]

    def new(self) -> list[str]:
        """The lines the hunk leaves in their place (context and added)."""
        return [text for op, text in self.lines if op in " +"]


@dataclass
class FilePatch:
    """The hunks for one file; a None path is /dev/null (a created or deleted file)."""

    old_path: str | None
    new_path: str | None
    hunks: list[Hunk] = field(default_factory=list)

    @property
    def path(self) -> str:
        """The file the patch is about: its new name, else its old one."""
        return self.new_path or self.old_path or ""


def parse(text: str) -> list[FilePatch]:
    """Split a unified diff into file patches; raise ToolError when it holds none."""
    lines = text.replace("\r\n", "\n").split("\n")
    files: list[FilePatch] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if _is_file_header(lines, i):
            old, new = _path(line[4:]), _path(lines[i + 1][4:])
            if old and new and old.startswith("a/") and new.startswith("b/"):
                old, new = old[2:], new[2:]
            files.append(FilePatch(_unprefix(old, "a/", new), _unprefix(new, "b/", old)))
            i += 2
        elif line.startswith("@@"):
            if not files:
                raise ToolError("the patch has a hunk before any '--- a/file' / '+++ b/file' header; add the headers")
            hunk, i = _hunk(lines, i)
            files[-1].hunks.append(hunk)
        else:
            i += 1
    if not files or not any(f.hunks or f.old_path is None for f in files):
        raise ToolError("no unified diff found; give '--- a/file', '+++ b/file' headers and '@@' hunks")
    return files


def _is_file_header(lines: list[str], i: int) -> bool:
    return lines[i].startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")


def _path(raw: str) -> str | None:
    raw = raw.split("\t")[0].strip().strip('"')
    return None if raw == "/dev/null" else raw


def _unprefix(path: str | None, prefix: str, other: str | None) -> str | None:
    if path and other is None and path.startswith(prefix):
        return path[len(prefix):]
    return path


def _hunk(lines: list[str], i: int) -> tuple[Hunk, int]:
    """Parse the hunk starting at line i; return it and the index after it."""
    match = HEADER.match(lines[i])
    counted = match is not None
    old_left = int(match.group(2) or 1) if match else 0
    new_left = int(match.group(4) or 1) if match else 0
    hunk = Hunk(lines[i], int(match.group(1)) if match else None)
    i += 1
    while i < len(lines):
        line = lines[i]
        if counted and old_left <= 0 and new_left <= 0:
            if line.startswith("\\"):
                _mark_no_newline(hunk)
                i += 1
            break
        if line.startswith("@@") or line.startswith("diff ") or _is_file_header(lines, i):
            break
        op, body = (line[0], line[1:]) if line else (" ", "")
        if op == "\\":
            _mark_no_newline(hunk)
        elif op in " -+":
            hunk.lines.append((op, body))
            old_left -= op in " -"
            new_left -= op in " +"
        else:
            break
        i += 1
    if not counted:
        while hunk.lines and hunk.lines[-1] == (" ", "") and lines[i - 1] == "":
            hunk.lines.pop()
            i -= 1
    return hunk, i


def _mark_no_newline(hunk: Hunk) -> None:
    if not hunk.lines:
        return
    op = hunk.lines[-1][0]
    if op in " -":
        hunk.old_no_newline = True
    if op in " +":
        hunk.new_no_newline = True


def apply(content: str, hunks: list[Hunk], shown: str) -> str:
    """Apply hunks to a file's content in order; raise ToolError naming the hunk that does not fit."""
    newline = "\r\n" if "\r\n" in content else "\n"
    lines = content.split(newline)
    ends_with_newline = lines[-1] == ""
    if ends_with_newline:
        lines.pop()
    out, pos = [], 0
    for number, hunk in enumerate(hunks, 1):
        at = _locate(lines, hunk, pos)
        if at is None:
            raise ToolError(_mismatch(lines, hunk, number, len(hunks), shown, pos) + "; nothing was changed")
        out.extend(lines[pos:at])
        out.extend(hunk.new())
        pos = at + len(hunk.old())
        if pos >= len(lines) and (hunk.new_no_newline or hunk.old_no_newline):
            ends_with_newline = not hunk.new_no_newline
    out.extend(lines[pos:])
    if not out:
        return ""
    return newline.join(out) + (newline if ends_with_newline else "")


def _locate(lines: list[str], hunk: Hunk, start: int) -> int | None:
    """Where the hunk's old lines sit at or after start: nearest its stated line, exactly or ignoring trailing space."""
    old = hunk.old()
    if not old:
        if hunk.old_start is None:
            return max(start, len(lines))
        return max(start, min(len(lines), hunk.old_start))
    expected = (hunk.old_start or 1) - 1
    candidates = sorted(range(start, len(lines) - len(old) + 1), key=lambda p: (abs(p - expected), p))
    for loose in (False, True):
        for p in candidates:
            if _same(lines[p : p + len(old)], old, loose):
                return p
    return None


def _same(actual: list[str], wanted: list[str], loose: bool) -> bool:
    if not loose:
        return actual == wanted
    return [a.rstrip() for a in actual] == [w.rstrip() for w in wanted]


def _mismatch(lines: list[str], hunk: Hunk, number: int, total: int, shown: str, start: int) -> str:
    """Explain where a hunk was expected and what the file holds there."""
    old = hunk.old()
    at = max(start, (hunk.old_start or 1) - 1)
    found = lines[at : at + len(old)]
    first_bad = next((k for k, (a, b) in enumerate(zip(found + [""] * len(old), old)) if a != b), 0)
    return (
        f"hunk {number} of {total} for {shown} ({hunk.header.strip()}) does not match the file: "
        f"line {at + first_bad + 1} should be {old[first_bad]!r} but is "
        f"{found[first_bad] if first_bad < len(found) else '(end of file)'!r}, and its context is found nowhere "
        f"else; read the file again and make the patch from its current content"
    )
