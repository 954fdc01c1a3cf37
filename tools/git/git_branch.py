"""git_branch: list branches, or create or switch to one."""

from ankit.toolkit import ToolError, ToolOutput, git as gitlib

name = "git_branch"
description = (
    "List git branches with the current one marked and each branch's last commit (all includes remote "
    "branches); or create a new branch and switch to it, or switch to an existing branch."
)
parameters = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["list", "create", "switch"], "description": "Default list"},
        "name": {"type": "string", "description": "Branch to create or switch to"},
        "all": {"type": "boolean", "description": "With list: include remote branches (default false)"},
    },
    "additionalProperties": False,
}
returns = ("list[dict]: one {'name', 'current', 'commit', 'upstream'} per branch for list; str: what "
           "happened for create and switch")
effects = ["read", "write"]
examples = ["which branch am I on", "list all git branches", "create a new branch called feature/login"]


def needs_approval(args: dict, ctx) -> bool:
    """Listing is free; creating or switching changes the repository."""
    return (args.get("action") or "list") != "list"


def preview(args: dict, ctx) -> str:
    """The git command that would run."""
    return f"git {' '.join(_argv(args))}\n(in {ctx.cwd})"


FORMAT = "--format=%(HEAD)%00%(refname:short)%00%(objectname:short)%00%(upstream:short)"


def run(args: dict, ctx) -> ToolOutput | str:
    """List branches (a program gets records), or create/switch and report the current branch."""
    if (args.get("action") or "list") == "list":
        shown = gitlib.git(ctx, *_argv(args)).rstrip("\n") or "(no branches yet: make a first commit)"
        listed = gitlib.git(ctx, "branch", FORMAT, *(["--all"] if args.get("all") else [])).splitlines()
        fields = [line.split("\0") for line in listed if line.count("\0") == 3]
        return ToolOutput(gitlib.cap(shown), [{"name": name, "current": head == "*", "commit": commit,
                                               "upstream": upstream} for head, name, commit, upstream in fields])
    result = gitlib.run(ctx, *_argv(args))
    if result.returncode != 0:
        raise ToolError(gitlib.explain(result.stderr, ctx, ("switch",)))
    current = gitlib.git(ctx, "branch", "--show-current").strip()
    return f"now on branch {current}" + (f"\n{result.stderr.strip()}" if "warning" in result.stderr else "")


def _argv(args: dict) -> list[str]:
    action = args.get("action") or "list"
    if action == "list":
        return ["branch", "-vv"] + (["--all"] if args.get("all") else [])
    name = gitlib.revision(args.get("name") or "", "branch name")
    if not name:
        raise ToolError(f"give the branch name to {action}")
    return ["switch", "-c", name] if action == "create" else ["switch", name]
