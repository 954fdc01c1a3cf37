"""git_show: one commit's message and changes."""

from ankit.toolkit import git as gitlib

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
effects = ["read"]
needs_approval = False
examples = ["show the last commit", "what changed in commit abc123", "show me config.py as it was in HEAD~3"]


def run(args: dict, ctx) -> str:
    """The commit with its diff, or a file's content at the commit."""
    ref = gitlib.revision(args.get("ref") or "HEAD")
    if args.get("file_at_ref"):
        path = args["file_at_ref"].removeprefix("./")
        return gitlib.cap(gitlib.git(ctx, "show", f"{ref}:./{path}"))
    argv = ["show", "--format=commit %H%nAuthor: %an <%ae>%nDate:   %ad%n%n%B", "--date=iso"]
    argv += ["--stat"] if args.get("stat") else ["--patch", "--stat"]
    argv += [ref, "--"] + ([args["path"]] if args.get("path") else [])
    return gitlib.cap(gitlib.git(ctx, *argv).rstrip("\n"))
