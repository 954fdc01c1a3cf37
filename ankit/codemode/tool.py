"""The run_code tool: its spec and preview; its run is the session's code mode (ankit/codemode/bridge.py), handed
in through ToolContext.run_code. Kept apart from the bridge so listing tools starts no process machinery."""

from ankit.errors import ToolError
from ankit.records import UNREAD_PROGRAM
from ankit.tooling.tool import Tool

RUN_CODE_DESCRIPTION = (
    "Run a Python program that calls tools: `import tools`, then e.g. `text = tools.read_file(\"a.txt\")`. "
    "Every tool is a function, loaded or not (arguments by name or in signature order); tools.help(\"name\") "
    "prints one's signature and description. A call returns the tool's value (a file's text, lists, records as "
    "dicts) or raises tools.ToolError (tools.ToolRefused: refused, do not retry). Only what the program prints "
    "comes back. Use it for tasks of several calls. Sandboxed, no network."
)


def make_run_code_tool() -> Tool:
    """The run_code tool; its run is the session's code mode (ToolContext.run_code)."""

    def run(args: dict, ctx) -> str:
        if ctx.run_code is None:
            raise ToolError("run_code is not available here (a program cannot start another)")
        return ctx.run_code(args, ctx)

    def preview(args: dict) -> str:
        return f"run this Python program (outside a sandbox):\n{args.get('code', '')}"

    def touches(args: dict) -> dict:
        return {"runs": [UNREAD_PROGRAM]}  # the policy cannot read what the program runs (safety/policy.py)

    parameters = {"type": "object", "properties": {"code": {
        "type": "string", "description": "The Python program; `import tools` gives the tools as functions"}},
        "required": ["code"], "additionalProperties": False}
    return Tool("run_code", RUN_CODE_DESCRIPTION, parameters, run, group="core", needs_approval=True,
                preview=preview, source="ankit", time_limit=0, confined=True, touches=touches,
                examples=["run a python program that calls tools", "write a program to crunch many files with tools"])
