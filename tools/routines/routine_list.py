"""routine_list: the scheduled routines, as `ankit routine list` shows them."""

name = "routine_list"
description = "List the scheduled routines (prompts and page watches ankit runs by itself): number, schedule, next run, last result."
parameters = {"type": "object", "properties": {}, "additionalProperties": False}
effects = ["read"]
examples = ["what routines are scheduled", "list my recurring tasks", "when does the daily report run next"]


def run(args: dict, ctx) -> str:
    """The routines, one line each."""
    return ctx.admin(["routine", "list"])
