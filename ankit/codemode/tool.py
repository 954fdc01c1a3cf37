"""The run_code tool: its spec and preview; its run is the session's code mode (ankit/codemode/bridge.py), handed
in through ToolContext.run_code. Kept apart from the bridge so listing tools starts no process machinery."""

from ankit.errors import ToolError
from ankit.tooling.tool import Tool

RUN_CODE_DESCRIPTION = (
    "Run a Python program that calls tools as functions: `import tools`, then e.g. `text = tools.read_file("
    "\"a.txt\")` (arguments in the order of the tool's parameters, or by name; tools.help(\"name\") prints a "
    "tool's signature and whole description, tools.names() lists every tool). Every tool of the catalog is there, "
    "loaded by find_tools or not. A call returns the tool's value (a file's text, a list of paths, records as "
    "dicts, an MCP tool's structured content, else its text) and raises tools.ToolError when it fails "
    "(tools.ToolRefused when the user or a rule refused it: do not retry it). Each call is checked and approved "
    "as a direct call would be. Only what the program prints comes back to you: print just what you need. Use it "
    "for tasks of several calls (reading or changing many files, pages or records) instead of one call per step. "
    "The program runs in the sandbox, without network, and is stopped past its time limit."
)


def make_run_code_tool() -> Tool:
    """The run_code tool; its run is the session's code mode (ToolContext.run_code)."""

    def run(args: dict, ctx) -> str:
        if ctx.run_code is None:
            raise ToolError("run_code is not available here (a program cannot start another)")
        return ctx.run_code(args, ctx)

    def preview(args: dict) -> str:
        return f"run this Python program (outside a sandbox):\n{args.get('code', '')}"

    parameters = {"type": "object", "properties": {"code": {
        "type": "string", "description": "The Python program; `import tools` gives the tools as functions"}},
        "required": ["code"], "additionalProperties": False}
    return Tool("run_code", RUN_CODE_DESCRIPTION, parameters, run, group="core", needs_approval=True,
                preview=preview, source="ankit", time_limit=0, confined=True,
                examples=["read many files and summarise them", "run a program that calls tools"])
