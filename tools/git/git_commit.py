"""git_commit: record staged changes (optionally staging paths first) with a message."""

from ankit.toolkit import ToolError, git as gitlib

name = "git_commit"
description = (
    "Create a git commit with the given message from the staged changes. Give paths to stage those files "
    "first (git add), or all to stage every change to tracked files. Shows the diffstat and message for approval."
)
parameters = {
    "type": "object",
    "properties": {
        "message": {"type": "string", "description": "Commit message: a short subject line, optionally a body"},
        "paths": {"type": "array", "items": {"type": "string"}, "description": "Files or folders to stage first"},
        "all": {"type": "boolean", "description": "Stage all changes to tracked files first (default false)"},
    },
    "required": ["message"],
    "additionalProperties": False,
}
returns = "str: the new commit's hash, branch, subject and changed files"
effects = ["read", "write", "run"]  # git runs the repository's hooks
needs_approval = True
examples = ["commit my changes with the message fix login bug", "git commit the staged files", "stage app.py and commit it"]


def preview(args: dict, ctx) -> str:
    """The diffstat of what the commit would contain, and its message; stages nothing."""
    _check_message(args)
    gitlib.require_repo(ctx)
    parts = []
    staged = gitlib.git(ctx, "diff", "--cached", "--stat").rstrip()
    if staged:
        parts.append(f"staged:\n{staged}")
    if args.get("all"):
        tracked = gitlib.git(ctx, "diff", "--stat").rstrip()
        parts.append(f"to be staged (all tracked changes):\n{tracked or '(none)'}")
    if args.get("paths"):
        chosen = gitlib.git(ctx, "status", "--short", "--untracked-files=all", "--", *args["paths"]).rstrip()
        parts.append(f"to be staged ({', '.join(args['paths'])}):\n{chosen or '(no changes there)'}")
    if not parts:
        parts.append("(nothing is staged yet)")
    return "\n\n".join(parts) + f"\n\nmessage:\n{args['message'].strip()}"


def run(args: dict, ctx) -> str:
    """Stage what was asked, commit, and show the new commit's summary."""
    _check_message(args)
    if args.get("paths"):
        gitlib.git(ctx, "add", "--", *args["paths"])
    if args.get("all"):
        gitlib.git(ctx, "add", "--update")
    if gitlib.run(ctx, "diff", "--cached", "--quiet").returncode == 0:
        raise ToolError("nothing is staged to commit; give paths to stage, or set all to true")
    gitlib.git(ctx, "commit", "--quiet", f"--message={args['message'].strip()}", timeout=600)
    return gitlib.cap(gitlib.git(ctx, "show", "--stat", "--format=committed %h on %D: %s", "HEAD").rstrip())


def _check_message(args: dict) -> None:
    if not args["message"].strip():
        raise ToolError("the commit message is empty; give a short summary of the change")
