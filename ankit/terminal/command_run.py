"""Running a custom command: its template filled, then each !`command` of it run as a run_command call through
the session's tool runner (hooks, policy, sandbox and approval, as if the model had asked) and its output put in
its place. A project's command runs them only in a trusted folder; a declined one sends nothing."""

import json

from ankit.agents.families import agent_model, known_models
from ankit.records import ToolCall
from ankit.safety.visible import visible_line
from ankit.claude.settings import translate
from ankit.terminal.custom import SNIPPET, CustomCommand, expand_template, snippets

NOT_TRUSTED = ("/{name} runs {count} command(s) ({first}) and this folder is not trusted: not sent; run ankit here "
               "and trust the folder, or pass --trust")


def send_command(state, command: CustomCommand, arguments: str) -> None:
    """Send a custom command's message, on the model its model field names (for this turn only), its
    allowed-tools granted while its !`command` lines and its turn run (as in Claude Code)."""
    with state.app.policy.allowing(command_rules(state, command)):
        text = command_text(state, command, arguments)
        if text is not None:
            _send(state, command, text)


def _send(state, command: CustomCommand, text: str) -> None:
    """The message on the command's model, the session's coming back after it."""
    session = state.session
    model = command_model(state, command)
    before = session.provider.model if session.provider is not None else ""
    if not model or model == before:
        state.send(text, typed=False)  # see mentions.expand
        return
    session.switch_model(model)
    state.view.notice(f"/{command.name} runs on {model} (its model field); the next turns on {before}")
    try:
        state.send(text, typed=False)
    finally:
        session.switch_model(before)


def command_rules(state, command: CustomCommand) -> list[str]:
    """A command's allowed-tools (Claude Code's rules: Bash(git add:*), Read) as ankit's allow rules for its turn;
    an untrusted project's grant nothing, and a rule ankit cannot read is said once."""
    if not command.tools:
        return []
    if command.project and not state.app.config.trusted:
        state.view.notice(f"/{command.name}: its allowed-tools grant nothing (the folder is not trusted)")
        return []
    rules, unread = [], []
    for rule in command.tools:
        found = translate(rule, deny=False)
        rules, unread = (rules + found, unread) if found else (rules, unread + [rule])
    if unread:
        state.view.notice(f"/{command.name}: allowed-tools ankit cannot read, so not granted: "
                          f"{visible_line(', '.join(unread))}")
    return rules


def command_model(state, command: CustomCommand) -> str:
    """The model a command asks for as this provider's model name ("" for the session's); an untrusted project's
    command gets the session's, and an alias without a counterpart is said in one line."""
    if not command.model or state.session.provider is None:
        return ""
    if command.project and not state.app.config.trusted:
        state.view.notice(f"/{command.name}: its model {command.model!r} is ignored (the folder is not trusted)")
        return ""
    model, note = agent_model(command.model, state.session.provider.model, known_models())
    if note:
        state.view.notice(f"/{command.name}: {note}")
    return model


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
