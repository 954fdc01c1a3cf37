"""git_diff: staged and unstaged changes, or the changes since a commit."""

from ankit.toolkit import git as gitlib

name = "git_diff"
description = (
    "Show git diffs of the repository: by default both staged changes (git diff --cached) and unstaged "
    "changes (git diff). Choose which, compare against a commit or branch with ref, limit to a path, or ask "
    "for stat only (files and line counts)."
)
parameters = {
    "type": "object",
    "properties": {
        "which": {"type": "string", "enum": ["both", "staged", "unstaged"], "description": "Which changes (default both)"},
        "ref": {"type": "string", "description": "Compare the working tree with this commit or branch instead"},
        "path": {"type": "string", "description": "Only this file or folder"},
        "stat": {"type": "boolean", "description": "Only the list of files with line counts (default false)"},
    },
    "additionalProperties": False,
}
returns = "str: the diff text"
effects = ["read"]
needs_approval = False
examples = ["show me the diff of my changes", "what is staged for commit", "diff against the main branch"]


def touches(args: dict, ctx) -> dict:
    """The path it is limited to, else the repository; it runs git."""
    return {"reads": [args["path"]] if args.get("path") else ["."], "runs": ["git"]}


def run(args: dict, ctx) -> str:
    """The requested diffs, each under a heading."""
    gitlib.require_repo(ctx)
    extra = (["--stat"] if args.get("stat") else []) + ["--"] + ([args["path"]] if args.get("path") else [])
    if args.get("ref"):
        ref = gitlib.revision(args["ref"])
        out = gitlib.git(ctx, "diff", ref, *extra)
        return gitlib.cap(out or f"(no differences from {ref})")
    which = args.get("which") or "both"
    parts = []
    if which in ("both", "staged"):
        staged = gitlib.git(ctx, "diff", "--cached", *extra)
        parts.append("## staged changes\n" + (staged or "(none)\n"))
    if which in ("both", "unstaged"):
        unstaged = gitlib.git(ctx, "diff", *extra)
        parts.append("## unstaged changes\n" + (unstaged or "(none; untracked files are listed by git_status)\n"))
    return gitlib.cap("\n".join(parts).rstrip("\n"))
