"""git_show: one commit's message and changes."""

from ankit.toolkit import ToolOutput, git as gitlib

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
returns = ("dict: {'commit', 'author', 'email', 'date', 'message', 'diff'} (str: the file's text "
           "with file_at_ref)")
effects = ["read"]
needs_approval = False
examples = ["show the last commit", "what changed in commit abc123", "show me config.py as it was in HEAD~3"]


def touches(args: dict, ctx) -> dict:
    """The file it shows at the commit (refused when the rules deny reading it), or every file of the commit's
    diff (one the rules deny is left out); it runs git."""
    if args.get("file_at_ref"):
        return {"reads": [args["file_at_ref"].removeprefix("./")], "runs": ["git"]}
    ref = gitlib.revision(args.get("ref") or "HEAD")
    found = gitlib.files(ctx, "show", "--format=", ref, "--", *([args["path"]] if args.get("path") else []))
    return {"reads": found, "runs": ["git"], "withholds": True}


def run(args: dict, ctx) -> ToolOutput:
    """The commit with its diff, or a file's content at the commit; a program gets the commit as a record."""
    ref = gitlib.revision(args.get("ref") or "HEAD")
    if args.get("file_at_ref"):
        path = args["file_at_ref"].removeprefix("./")
        content = gitlib.git(ctx, "show", f"{ref}:./{path}")
        return ToolOutput(gitlib.cap(content), content)
    head = "commit %H%nAuthor: %an <%ae>%nDate:   %ad%n%n%B"
    argv = ["show", f"--format=%x1e{head}%x1e", "--date=iso"]
    argv += ["--stat"] if args.get("stat") else ["--patch", "--stat"]
    left = gitlib.leaving_out(ctx)
    argv += [ref, "--"] + ([args["path"]] if args.get("path") else []) + left
    raw = gitlib.git(ctx, *argv) or gitlib.git(ctx, *argv[:3], "--no-patch", ref)  # all its files left out
    raw += f"\n[{len(left)} files left out: the settings' rules deny reading them]" if left else ""
    _, shown, diff = (raw + "\x1e\x1e").split("\x1e", 2)
    diff = diff.rstrip("\x1e").strip("\n")
    fields = dict(zip(("commit", "author", "date"), (line.split(maxsplit=1)[-1] for line in shown.split("\n", 3)[:3])))
    author, _, email = fields.get("author", "").rpartition(" <")
    message = shown.split("\n\n", 1)[-1].strip("\n")
    record = {**fields, "author": author, "email": email.rstrip(">"), "message": message, "diff": diff}
    return ToolOutput(gitlib.cap(raw.replace("\x1e", "").rstrip("\n")), record)
