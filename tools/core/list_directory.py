"""list_directory: the files and folders in a folder, optionally a few levels deep."""

from pathlib import Path

from ankit.toolkit import ToolError, ToolOutput, ignore, paths, text

MAX_ENTRIES = 500

name = "list_directory"
description = (
    "List the files and folders in a folder (default: the project's working folder). Folders end with "
    "'/', files show their size. depth > 1 descends into subfolders to show the project structure, "
    "skipping .git and what .gitignore ignores."
)
parameters = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "Folder to list, relative to the working folder (default '.')"},
        "depth": {"type": "integer", "description": "How many levels to show, 1 to 5 (default 1)"},
    },
    "additionalProperties": False,
}
returns = "list[str]: the entries' paths, relative to the working folder (folders end in /)"
effects = ["read"]
needs_approval = paths.needs_approval
examples = [
    "what files are in this project",
    "list the contents of the src folder",
    "show me the folder structure two levels deep",
]


def preview(args: dict, ctx) -> str:
    """Say which folder outside the working folder would be listed."""
    return f"{paths.outside_note(args, ctx)}list {paths.resolve(ctx, args.get('path'))}"


def touches(args: dict, ctx) -> dict:
    """Every entry the listing would show; one the settings' rules deny reading is left out of it."""
    folder = paths.resolve(ctx, args.get("path"))
    return {"reads": [p for p, _ in _items(folder, args)] if folder.is_dir() else [folder], "withholds": True}


def _items(folder: Path, args: dict):
    """(path, is_dir) of the entries shown: the folder's own, or a few levels of it without what git ignores."""
    depth = min(5, max(1, int(args.get("depth") or 1)))
    if depth > 1:
        return ignore.walk(folder, depth=depth)
    return [(p, p.is_dir() and not p.is_symlink()) for p in sorted(folder.iterdir(), key=lambda p: p.name)]


def run(args: dict, ctx) -> ToolOutput:
    """Return one line per entry, indented by level; a program gets the entries' paths as a list."""
    folder = paths.resolve(ctx, args.get("path"))
    if not folder.exists():
        raise ToolError(f"no such folder: {paths.show(ctx, folder)}{paths.suggest(folder, ctx)}")
    if not folder.is_dir():
        raise ToolError(f"{paths.show(ctx, folder)} is a file; use read_file to read it")
    lines, found, left = [], [], 0
    for path, is_dir in _items(folder, args):
        if paths.withheld(ctx, path):
            left += 1
            continue
        if len(lines) >= MAX_ENTRIES:
            lines.append(f"[stopped after {MAX_ENTRIES} entries; list a subfolder or use find_files]")
            break
        lines.append("  " * (len(path.relative_to(folder).parts) - 1) + _describe(path, is_dir))
        found.append(paths.show(ctx, path) + ("/" if is_dir else ""))
    header = f"{paths.show(ctx, folder)}/"
    lines += [paths.withheld_note(left, "entries")] if left else []
    return ToolOutput(header + "\n" + "\n".join(lines) if lines else f"{header} is empty", found)


def _describe(path: Path, is_dir: bool) -> str:
    """One entry: name/ for folders, name -> target for links, name and size for files."""
    if path.is_symlink():
        try:
            return f"{path.name} -> {path.readlink()}"
        except OSError:
            return f"{path.name} -> ?"
    if is_dir:
        return f"{path.name}/"
    try:
        return f"{path.name}  ({text.human_size(path.stat().st_size)})"
    except OSError:
        return path.name
