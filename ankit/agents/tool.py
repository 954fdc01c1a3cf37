"""The task tool: hands a task to a subagent through ctx.run_task, which the session's assembly provides (the
sub-session itself belongs to the turn); its description lists the named agents."""

from ankit.agents.definitions import AgentSpec, agents_listing
from ankit.errors import ToolError
from ankit.tooling.tool import Tool

DESCRIPTION = ("Delegate a side task to a subagent that works in a fresh context of its own; only its final answer "
               "comes back. Good for searching a code base, a review or a long investigation: their tool output "
               "stays out of this conversation. Write the prompt as a complete brief (the subagent sees nothing "
               "else). Several task calls in one reply run at once.")
PARAMETERS = {
    "type": "object",
    "properties": {
        "description": {"type": "string", "description": "A short label for the task (3-6 words), shown to the user"},
        "prompt": {"type": "string", "description": "The whole task for the subagent, with every detail it needs"},
        "agent": {"type": "string", "description": "A named agent to run it (optional; see the list above)"},
    },
    "required": ["description", "prompt"],
    "additionalProperties": False,
}



def make_task_tool(agents: dict[str, AgentSpec]) -> Tool:
    """The task tool, in its own group (find_tools finds it); it runs wherever ctx.run_task is provided."""
    listing = agents_listing(agents)
    text = DESCRIPTION + (f"\nNamed agents (the agent argument):\n{listing}" if listing else "")

    def run(args: dict, ctx) -> str:
        if not str(args.get("prompt") or "").strip():
            raise ToolError("the prompt is empty: write the whole task for the subagent")
        return ctx.run_task(args, ctx.output)

    # no effect of its own: each call its subagent makes is decided as the session's own calls are
    return Tool("task", text, PARAMETERS, run, group="agents", source="ankit", effects=frozenset(),
                examples=["delegate a task to a subagent", "run a side investigation in a separate context",
                          "several research tasks at once with subagents"], time_limit=24 * 3600)
