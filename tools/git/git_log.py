"""git_log: recent commits, one a line."""

from ankit.toolkit import ToolOutput, git as gitlib

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
returns = "list[dict]: one {'commit', 'date', 'author', 'email', 'subject'} per commit, newest first"
effects = ["read"]
needs_approval = False
examples = ["show the recent commits", "git log for src/app.py", "who changed this file last"]


FIELDS = ("commit", "date", "author", "email", "subject")


def touches(args: dict, ctx) -> dict:
    """The path it is limited to, else the repository; it runs git."""
    return {"reads": [args["path"]] if args.get("path") else ["."], "runs": ["git"]}


def run(args: dict, ctx) -> ToolOutput:
    """One line per commit; a program gets one record per commit."""
    count = max(1, min(500, int(args.get("max_count") or 20)))
    argv = ["log", f"--max-count={count}", "--date=short", "--format=%h%x1f%ad%x1f%an%x1f%ae%x1f%s"]
    if args.get("grep"):
        argv += [f"--grep={args['grep']}", "--regexp-ignore-case", "--fixed-strings"]
    if args.get("ref"):
        argv.append(gitlib.revision(args["ref"]))
    argv.append("--")
    if args.get("path"):
        argv.append(args["path"])
    records = [dict(zip(FIELDS, line.split("\x1f", 4))) for line in gitlib.git(ctx, *argv).splitlines() if line]
    out = "\n".join(f"{r['commit']} {r['date']} {r['author']}: {r.get('subject', '')}" for r in records)
    return ToolOutput(gitlib.cap(out or "(no commits match)"), records)
