"""git_status: the branch and the changed, staged and untracked files."""

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

name = "git_status"
description = (
    "Show the git status of the working folder's repository: the current branch, ahead/behind, and which "
    "files you have changed: staged, unstaged and untracked files in short form (XY path: X = staged, "
    "Y = unstaged; ?? = untracked)."
)
parameters = {"type": "object", "properties": {}, "additionalProperties": False}
read_only = True
needs_approval = False
examples = ["what is the git status", "which files have I changed", "show uncommitted changes in the repo"]


def run(args: dict, ctx) -> str:
    """Short status with the branch line."""
    out = gitlib.git(ctx, "status", "--short", "--branch", "--untracked-files=all").rstrip("\n")
    lines = out.splitlines()
    if len(lines) <= 1:
        out += "\n(nothing to commit, working tree clean)"
    return gitlib.cap(out)
