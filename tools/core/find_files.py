"""find_files: paths under a folder whose names or relative paths match a glob pattern."""

import re

from ankit.toolkit import ToolError, ToolOutput, ignore, paths

MAX_RESULTS = 500

name = "find_files"
description = (
    "Find files by name or glob pattern: where a file named X is, or every file of a kind. A pattern "
    "without '/' matches file names at any depth ('*.py', 'test_*', 'config.yaml'); one with '/' matches "
    "the path from the folder ('src/**/*.ts'). Skips .git and whatever .gitignore ignores unless "
    "include_ignored is true."
)
parameters = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string", "description": "Glob: * and ? within a name, ** across folders"},
        "path": {"type": "string", "description": "Folder to search in, relative to the working folder (default '.')"},
        "kind": {"type": "string", "enum": ["file", "folder", "any"], "description": "What to list (default file)"},
        "include_ignored": {"type": "boolean", "description": "Also search paths .gitignore ignores (default false)"},
    },
    "required": ["pattern"],
    "additionalProperties": False,
}
returns = "list[str]: the matching paths, relative to the working folder (folders end in /)"
effects = ["read"]
needs_approval = paths.needs_approval
examples = [
    "find all python files in the project",
    "where is the file named config.yaml",
    "list every test file under src",
]


def preview(args: dict, ctx) -> str:
    """Say which folder outside the working folder would be searched."""
    return f"{paths.outside_note(args, ctx)}find {args.get('pattern')!r} in {paths.resolve(ctx, args.get('path'))}"


def touches(args: dict, ctx) -> dict:
    """Every path the search would name (links listed, never followed); one the settings' rules deny reading is
    left out of the result."""
    folder = paths.resolve(ctx, args.get("path"))
    found = [path for path, _ in _matching(folder, args)] if folder.is_dir() and _pattern(args) else []
    return {"reads": found or [folder], "withholds": True}


def run(args: dict, ctx) -> ToolOutput:
    """Return matching paths, one a line, relative to the working folder; a program gets them as a list."""
    folder = paths.resolve(ctx, args.get("path"))
    if not folder.is_dir():
        raise ToolError(f"no such folder: {paths.show(ctx, folder)}; give a folder to search in")
    pattern = _pattern(args)
    if not pattern:
        raise ToolError("pattern is empty; give a glob such as '*.py' or 'src/**/*.js'")
    kind = args.get("kind") or "file"
    found, left = [], 0
    for path, is_dir in _matching(folder, args):
        if paths.withheld(ctx, path):
            left += 1
            continue
        found.append(paths.show(ctx, path) + ("/" if is_dir else ""))
        if len(found) > MAX_RESULTS:
            break
    note = f"\n{paths.withheld_note(left, 'paths')}" if left else ""
    if not found:
        return ToolOutput(f"no {kind if kind != 'any' else 'path'}s match {pattern!r} in {paths.show(ctx, folder)}{note}", [])
    more = f"\n[more than {MAX_RESULTS} matches; narrow the pattern or folder]" if len(found) > MAX_RESULTS else ""
    return ToolOutput("\n".join(found[:MAX_RESULTS]) + more + note, found[:MAX_RESULTS])


def _pattern(args: dict) -> str:
    return str(args.get("pattern") or "").strip().removeprefix("./")


def _matching(folder, args: dict):
    """(path, is_dir) of every entry under folder whose name (or relative path) matches and whose kind fits."""
    pattern = _pattern(args)
    regex = re.compile(ignore.translate(pattern), re.DOTALL)
    by_name = "/" not in pattern
    kind = args.get("kind") or "file"
    for path, is_dir in ignore.walk(folder, bool(args.get("include_ignored"))):
        if (kind == "file" and is_dir) or (kind == "folder" and not is_dir):
            continue
        if regex.fullmatch(path.name if by_name else path.relative_to(folder).as_posix()):
            yield path, is_dir
