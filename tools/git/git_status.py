"""git_status: the branch and the changed, staged and untracked files."""

from ankit.toolkit import git as gitlib

name = "git_status"
description = (
    "Show the git status of the working folder's repository: the current branch, ahead/behind, and which "
    "files you have changed: staged, unstaged and untracked files in short form (XY path: X = staged, "
    "Y = unstaged; ?? = untracked)."
)
parameters = {"type": "object", "properties": {}, "additionalProperties": False}
read_only = True
effects = ["read"]
needs_approval = False
examples = ["what is the git status", "which files have I changed", "show uncommitted changes in the repo"]


def run(args: dict, ctx) -> str:
    """Short status with the branch line."""
    out = gitlib.git(ctx, "status", "--short", "--branch", "--untracked-files=all").rstrip("\n")
    lines = out.splitlines()
    if len(lines) <= 1:
        out += "\n(nothing to commit, working tree clean)"
    return gitlib.cap(out)
