"""git_log: recent commits, one a line."""

from ankit.toolkit import git as gitlib

name = "git_log"
description = (
    "Show the commit history: who changed what and when, the last changes to a file. Each line: hash, "
    "date, author and subject, newest first. Limit the count, pick a branch or range with ref, follow one "
    "path, or search commit messages with grep."
)
parameters = {
    "type": "object",
    "properties": {
        "max_count": {"type": "integer", "description": "How many commits (default 20, max 500)"},
        "ref": {"type": "string", "description": "Branch, commit or range such as main..feature (default HEAD)"},
        "path": {"type": "string", "description": "Only commits touching this file or folder"},
        "grep": {"type": "string", "description": "Only commits whose message contains this text"},
    },
    "additionalProperties": False,
}
read_only = True
effects = ["read"]
needs_approval = False
examples = ["show the recent commits", "git log for src/app.py", "who changed this file last"]


def run(args: dict, ctx) -> str:
    """One line per commit."""
    count = max(1, min(500, int(args.get("max_count") or 20)))
    argv = ["log", f"--max-count={count}", "--date=short", "--format=%h %ad %an: %s"]
    if args.get("grep"):
        argv += [f"--grep={args['grep']}", "--regexp-ignore-case", "--fixed-strings"]
    if args.get("ref"):
        argv.append(gitlib.revision(args["ref"]))
    argv.append("--")
    if args.get("path"):
        argv.append(args["path"])
    out = gitlib.git(ctx, *argv).rstrip("\n")
    return gitlib.cap(out or "(no commits match)")
