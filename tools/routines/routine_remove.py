"""routine_remove: delete a scheduled routine by its number, as `ankit routine remove` does."""

import shlex

name = "routine_remove"
description = "Remove a scheduled routine by its number (see routine_list), so it no longer runs."
parameters = {
    "type": "object",
    "properties": {"id": {"type": "integer", "description": "The routine's number"}},
    "required": ["id"],
    "additionalProperties": False,
}
effects = ["lasting"]
needs_approval = True
lasting = True  # kept beyond this session: asked every time, refused in -p without --yes
examples = ["remove routine 2", "stop the scheduled daily report routine"]


def preview(args: dict, ctx) -> str:
    """The exact command that would run."""
    return "$ " + shlex.join(["ankit", "routine", "remove", str(args["id"])])


def run(args: dict, ctx) -> str:
    """Remove it through ankit and return what it said."""
    return ctx.admin(["routine", "remove", str(args["id"])])
