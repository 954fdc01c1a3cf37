"""Running a custom command: its template filled, then each !`command` of it run as a run_command call through
the session's tool runner (hooks, policy, sandbox and approval, as if the model had asked) and its output put in
its place. A project's command runs them only in a trusted folder; a declined one sends nothing (an AnkitError
with the line saying so). A skill started as /skill-name sends its text and the arguments.

`state` is the REPL's ReplState, or -p's run of one prompt: anything with app, session, view (a View) and
send(text, mentions=True, typed=True)."""

import json

from ankit.agents.families import agent_model, known_models
from ankit.errors import AnkitError
from ankit.names import ambiguous, resolve
from ankit.records import ToolCall
from ankit.safety.visible import visible_line
from ankit.claude.settings import translate
from ankit.skills.library import skill_named
from ankit.skills.tool import load_skill
from ankit.terminal.custom import CustomCommand, expand_command, expand_template

NOT_TRUSTED = ("/{name} runs {count} command(s) ({first}) and this folder is not trusted: not sent; run ankit here "
               "and trust the folder, or pass --trust")


def run_named(state, name: str, arguments: str) -> bool:
    """Send the custom command or skill `name` answers to (a plugin's by plugin:name, or by the plain name when
    unique); False when it names neither. A command wins a name a skill also has, as in Claude Code."""
    found, candidates = resolve(state.custom, name)
    if candidates:
        raise AnkitError(ambiguous("/" + name, name, candidates))
    if found:
        send_command(state, state.custom[found], arguments)
        return True
    skill, why = skill_named(state.app.skills, name)
    if why:
        raise AnkitError(why)
    if skill is None:
        return False
    state.send(expand_template(load_skill([skill], skill.name), arguments), typed=False)
    return True


def send_command(state, command: CustomCommand, arguments: str) -> None:
    """Send a custom command's message, on the model its model field names (for this turn only), its
    allowed-tools granted while its !`command` lines and its turn run (as in Claude Code)."""
    with state.app.policy.allowing(command_rules(state, command)):
        _send(state, command, command_text(state, command, arguments))


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


def command_text(state, command: CustomCommand, arguments: str) -> str:
    """The message a custom command sends, its commands run and their output inlined; AnkitError (the line saying
    why) when it is not to be sent."""
    pieces, found = expand_command(command.body, arguments)
    if not found or state.session.provider is None:  # without a model, nothing is sent: nothing need run
        return expand_template(command.body, arguments)
    if command.project and not state.app.config.trusted:
        raise AnkitError(NOT_TRUSTED.format(name=command.name, count=len(found), first=visible_line(found[0])))
    outputs = []
    for number, line in enumerate(found, 1):
        call = ToolCall(f"command-{command.name}-{number}", "run_command", json.dumps({"command": line}))
        state.view.tool_start(call)
        result = state.session.tools.run(call, state.view.tool_output)
        state.view.tool_end(result)
        if result.summary.startswith("declined"):
            raise AnkitError(f"/{command.name} not sent: its command {visible_line(line)} was declined")
        outputs.append(result.content.strip())
    return "".join(piece + output for piece, output in zip(pieces, [*outputs, ""]))
