"""git_status: the branch and the changed, staged and untracked files."""

import re

from ankit.toolkit import ToolOutput, git as gitlib

name = "git_status"
description = (
    "Show the git status of the working folder's repository: the current branch, ahead/behind, and which "
    "files you have changed: staged, unstaged and untracked files in short form (XY path: X = staged, "
    "Y = unstaged; ?? = untracked)."
)
parameters = {"type": "object", "properties": {}, "additionalProperties": False}
returns = ("dict: {'branch', 'upstream', 'ahead', 'behind', 'files'}, files a list of {'path', 'staged', "
           "'unstaged'} (one status letter each, '?' for untracked)")
effects = ["read"]
needs_approval = False
examples = ["what is the git status", "which files have I changed", "show uncommitted changes in the repo"]


BRANCH = re.compile(r"## (?:No commits yet on |Initial commit on )?(?P<branch>.+?)(?:\.\.\.(?P<upstream>\S+))?"
                    r"(?: \[(?P<counts>[^\]]*)\])?$")


def run(args: dict, ctx) -> ToolOutput:
    """Short status with the branch line; a program gets it as a record."""
    out = gitlib.git(ctx, "status", "--short", "--branch", "--untracked-files=all").rstrip("\n")
    lines = out.splitlines()
    if len(lines) <= 1:
        out += "\n(nothing to commit, working tree clean)"
    return ToolOutput(gitlib.cap(out), _record(lines))


def _record(lines: list[str]) -> dict:
    """The status as data: the branch line's parts and one entry per file."""
    head = BRANCH.match(lines[0]) if lines and lines[0].startswith("## ") else None
    counts = dict(re.findall(r"(ahead|behind) (\d+)", head["counts"] or "")) if head else {}
    files = [{"path": line[3:].split(" -> ")[-1], "staged": line[0].strip(), "unstaged": line[1].strip()}
             for line in lines[1:] if len(line) > 3]
    return {"branch": head["branch"] if head else "", "upstream": (head["upstream"] or "") if head else "",
            "ahead": int(counts.get("ahead", 0)), "behind": int(counts.get("behind", 0)), "files": files}
