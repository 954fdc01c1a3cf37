"""mcp_manage: add, remove or show an MCP server in ankit's config, as `ankit mcp add/remove/get` does."""

import shlex

name = "mcp_manage"
description = (
    "Add an MCP server to ankit's config (the user's, or this project's with project), remove one, or show "
    "one: the same as running `ankit mcp add NAME -- COMMAND ARGS`, `ankit mcp remove NAME`, `ankit mcp get "
    "NAME`. The approval shows that exact command. A new server starts in the next ankit session."
)
parameters = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["add", "remove", "get"]},
        "name": {"type": "string", "description": "The server's name, e.g. playwright (letters, digits, - and _)"},
        "command": {"type": "string", "description": "add: the program that runs the server, e.g. npx"},
        "args": {"type": "array", "items": {"type": "string"}, "description": "add: its arguments, e.g. [\"@playwright/mcp@latest\"]"},
        "env": {"type": "object", "additionalProperties": {"type": "string"}, "description": "add: environment variables for it"},
        "project": {"type": "boolean", "description": "Use this project's .ankit/config.toml instead of the user's"},
        "scope": {"type": "string", "enum": ["user", "local", "project"],
                  "description": "As claude mcp add -s: user (the user's config), local (this folder's "
                                 ".ankit/config.toml), project (this folder's .mcp.json, shared)"},
    },
    "required": ["action", "name"],
    "additionalProperties": False,
}
effects = ["read", "lasting"]
examples = [
    "add the playwright MCP server to ankit",
    "install an MCP server for the filesystem",
    "remove the github MCP server from my config",
]


def argv(args: dict) -> list[str]:
    """The ankit command line this call stands for (without 'ankit')."""
    action, server = args["action"], str(args["name"])
    project = ["-s", str(args["scope"])] if args.get("scope") else ["--project"] if args.get("project") else []
    if action == "add":
        env = [part for key, value in (args.get("env") or {}).items() for part in ("--env", f"{key}={value}")]
        return ["mcp", "add", server, *env, *project, "--", str(args.get("command") or ""), *map(str, args.get("args") or [])]
    return ["mcp", action, server, *project] if action == "remove" else ["mcp", "get", server]


def needs_approval(args: dict, ctx) -> bool:
    """Adding and removing change the config; showing one does not."""
    return args.get("action") != "get"


def lasting(args: dict, ctx) -> bool:
    """Adding and removing change ankit's settings for later sessions."""
    return args.get("action") != "get"


def preview(args: dict, ctx) -> str:
    """The exact command that would run."""
    scope = args.get("scope") or ("local" if args.get("project") else "user")
    where = {"local": "this project's .ankit/config.toml", "project": "this project's .mcp.json"}.get(
        scope, "your ankit config")
    return f"$ {shlex.join(['ankit', *argv(args)])}\n(changes {where}; ankit starts the server in its next session)"


def run(args: dict, ctx) -> str:
    """Run the command through ankit and return what it said."""
    return ctx.admin(argv(args))
