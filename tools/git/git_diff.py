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
    """Every file whose diff it would print (a file the settings' rules deny reading is left out); it runs git."""
    spec = ["--"] + ([args["path"]] if args.get("path") else [])
    if args.get("ref"):
        found = gitlib.files(ctx, "diff", gitlib.revision(args["ref"]), *spec)
    else:
        which = args.get("which") or "both"
        found = [*(gitlib.files(ctx, "diff", "--cached", *spec) if which in ("both", "staged") else []),
                 *(gitlib.files(ctx, "diff", *spec) if which in ("both", "unstaged") else [])]
    return {"reads": found, "runs": ["git"], "withholds": True}


def run(args: dict, ctx) -> str:
    """The requested diffs, each under a heading; files the settings' rules deny reading left out, and said."""
    gitlib.require_repo(ctx)
    left = gitlib.leaving_out(ctx)
    extra = (["--stat"] if args.get("stat") else []) + ["--"] + ([args["path"]] if args.get("path") else []) + left
    note = f"\n[{len(left)} files left out: the settings' rules deny reading them]" if left else ""
    return _diffs(args, ctx, extra) + note


def _diffs(args: dict, ctx, extra: list[str]) -> str:
    """The diffs asked for (against a ref, or staged and unstaged under headings), git's extra words added."""
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
