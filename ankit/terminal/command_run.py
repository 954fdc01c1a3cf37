"""Running a custom command: its template filled, then each !`command` of it run as a run_command call through
the session's tool runner (hooks, policy, sandbox and approval, as if the model had asked) and its output put in
its place. A project's command runs them only in a trusted folder; a declined one sends nothing."""

import json

from ankit.records import ToolCall
from ankit.safety.visible import visible_line
from ankit.terminal.custom import SNIPPET, CustomCommand, expand_template, snippets

NOT_TRUSTED = ("/{name} runs {count} command(s) ({first}) and this folder is not trusted: not sent; run ankit here "
               "and trust the folder, or pass --trust")


def command_text(state, command: CustomCommand, arguments: str) -> str | None:
    """The message a custom command sends, its commands run and their output inlined; None (told on screen) when
    it is not to be sent."""
    text = expand_template(command.body, arguments)
    found = snippets(text)
    if not found or state.session.provider is None:  # without a model, nothing is sent: nothing need run
        return text
    if command.project and not state.app.config.trusted:
        state.view.error(NOT_TRUSTED.format(name=command.name, count=len(found), first=visible_line(found[0])))
        return None
    outputs = []
    for number, line in enumerate(found, 1):
        call = ToolCall(f"command-{command.name}-{number}", "run_command", json.dumps({"command": line}))
        state.view.tool_start(call)
        result = state.session.tools.run(call, state.view.tool_output)
        state.view.tool_end(result)
        if result.summary.startswith("declined"):
            state.view.error(f"/{command.name} not sent: its command {visible_line(line)} was declined")
            return None
        outputs.append(result.content.strip())
    filled = iter(outputs)
    return SNIPPET.sub(lambda match: next(filled), text)
