"""git_show: one commit's message and changes."""

import importlib.util
import sys
from pathlib import Path


def _common(name: str):
    """Load tools/_common/_<name>.py once, by file path (tool modules never import ankit)."""
    path = Path(__file__).resolve().parents[1] / "_common" / f"_{name}.py"
    key = f"ankit_tools_common_{name}_{abs(hash(str(path)))}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, path)
        sys.modules[key] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[key])
    return sys.modules[key]



gitlib = _common("git")

name = "git_show"
description = (
    "Show what changed in one commit (by hash, tag or branch; default HEAD, the last commit): author, date, full message "
    "and its diff. Limit the diff to a path, or ask for stat only. With file_at_ref, show a file's whole "
    "content as it was at that commit."
)
parameters = {
    "type": "object",
    "properties": {
        "ref": {"type": "string", "description": "Commit, tag or branch (default HEAD)"},
        "path": {"type": "string", "description": "Only this file or folder's part of the diff"},
        "stat": {"type": "boolean", "description": "Only the changed files with line counts (default false)"},
        "file_at_ref": {"type": "string", "description": "Show this file's content at ref instead of the diff"},
    },
    "additionalProperties": False,
}
read_only = True
needs_approval = False
examples = ["show the last commit", "what changed in commit abc123", "show me config.py as it was in HEAD~3"]


def run(args: dict, ctx) -> str:
    """The commit with its diff, or a file's content at the commit."""
    ref = args.get("ref") or "HEAD"
    if args.get("file_at_ref"):
        path = args["file_at_ref"].removeprefix("./")
        return gitlib.cap(gitlib.git(ctx, "show", f"{ref}:./{path}"))
    argv = ["show", "--format=commit %H%nAuthor: %an <%ae>%nDate:   %ad%n%n%B", "--date=iso"]
    argv += ["--stat"] if args.get("stat") else ["--patch", "--stat"]
    argv += [ref, "--"] + ([args["path"]] if args.get("path") else [])
    return gitlib.cap(gitlib.git(ctx, *argv).rstrip("\n"))
