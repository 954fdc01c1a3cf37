"""apply_patch: apply a unified diff to one or more files, all or nothing."""

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location("ankit_tools_load", Path(__file__).resolve().parents[1] / "_common" / "_load.py")
_spec.loader.exec_module(_load := importlib.util.module_from_spec(_spec))
paths, edits, patching = _load.common("paths"), _load.common("edits"), _load.common("patch")

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
read_only = False
needs_approval = True
examples = [
    "apply this diff to the repository",
    "apply the patch I pasted",
    "make these changes across several files as a unified diff",
]


def changes(args: dict, ctx) -> list:
    """Every file the patch writes, creates, deletes or renames away (kept for /undo first)."""
    return [path for file, _, _, old in _plan(args, ctx) for path in (file.path, old) if path is not None]


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
            file.path.unlink()
            report.append(f"deleted {shown}")
            continue
        edits.save(file, new)
        report.append(f"{'patched' if file.exists else 'created'} {shown} ({edits.summary(file.content, new)})")
        if remove is not None:
            remove.unlink()
            report[-1] += f", moved from {paths.show(ctx, remove)}"
    return "\n".join(report)


def _plan(args: dict, ctx) -> list:
    """(file, new content or None to delete, shown name, old path to remove after a rename) per file patch."""
    try:
        file_patches = patching.parse(args["patch"])
    except patching.PatchError as exc:
        raise edits.EditError(str(exc)) from None
    changes = []
    for fp in file_patches:
        source = paths.resolve(ctx, fp.old_path or fp.new_path)
        target = paths.resolve(ctx, fp.new_path or fp.old_path)
        shown = paths.show(ctx, target)
        file = edits.load(source, paths.show(ctx, source))
        _check_exists(fp, file, shown, ctx)
        try:
            new = patching.apply(file.content, fp.hunks, shown)
        except patching.PatchError as exc:
            raise edits.EditError(f"{exc}; nothing was changed") from None
        if fp.new_path is None:
            if new.strip():
                raise edits.EditError(f"the patch deletes {shown} but its hunks do not remove all of it")
            changes.append((file, None, shown, None))
        elif source != target:
            changes.append((edits.TextFile(target, file.content, file.encoding, False), new, shown, source))
        else:
            changes.append((file, new, shown, None))
    return changes


def _check_exists(fp, file, shown: str, ctx) -> None:
    if fp.old_path is None and file.exists and file.content:
        raise edits.EditError(f"the patch creates {shown} but it already exists; nothing was changed")
    if fp.old_path is not None and not file.exists:
        raise edits.EditError(
            f"the patch changes {fp.old_path} but no such file exists in {paths.workdir(ctx)} "
            "(patch paths are relative to the working folder); nothing was changed"
        )
