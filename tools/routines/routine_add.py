"""routine_add: schedule a prompt (or a page watch) that ankit runs by itself, as `ankit routine add` does."""

import shlex

name = "routine_add"
description = (
    "Schedule a routine: a prompt ankit answers by itself on a schedule ('every day 09:00', 'every 2h', 'mondays "
    "08:30', 'weekdays 18:00'), in this folder, with only read-only tools unless allow names others; or a watch "
    "of a web page that reports what changed. Same as `ankit routine add`; the user approves the exact command. "
    "It runs once `ankit routine install`'s line is in the crontab."
)
parameters = {
    "type": "object",
    "properties": {
        "schedule": {"type": "string", "description": "When, e.g. 'every day 09:00', 'every 30 minutes', 'fridays 16:00'"},
        "prompt": {"type": "string", "description": "What to ask each time (for a watch: what to do with the changes)"},
        "watch": {"type": "string", "description": "A URL to watch for changes instead of (or before) the prompt"},
        "allow": {"type": "array", "items": {"type": "string"}, "description": "Tools that may run without asking"},
    },
    "required": ["schedule"],
    "additionalProperties": False,
}
effects = ["lasting"]
needs_approval = True
lasting = True  # kept beyond this session: asked every time, refused in -p without --yes
examples = [
    "every morning at 9 write me a short poem",
    "schedule a daily report of the failing tests",
    "watch https://example.com/status for changes every hour",
]


def argv(args: dict) -> list[str]:
    """ankit routine add "SCHEDULE" "PROMPT" [--watch URL] [--allow TOOL]..."""
    out = ["routine", "add", args["schedule"]]
    if args.get("prompt"):
        out.append(args["prompt"])
    if args.get("watch"):
        out += ["--watch", args["watch"]]
    for tool in args.get("allow") or []:
        out += ["--allow", tool]
    return out


def preview(args: dict, ctx) -> str:
    """The exact command that would run."""
    allowed = ", ".join(args.get("allow") or []) or "none: read-only tools only"
    return f"$ {shlex.join(['ankit', *argv(args)])}\n(tools it may use without asking: {allowed})"


def run(args: dict, ctx) -> str:
    """Add the routine through ankit and return what it said."""
    return ctx.admin(argv(args))
