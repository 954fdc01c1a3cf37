"""Slash commands for project work: /init, /edit, custom commands' help lines (slash.py dispatches them)."""

from ankit.errors import AnkitError
from ankit.safety.visible import visible
from ankit.terminal.render import DIM
from ankit.providers.models import list_models
from ankit.usage.pricing import load_prices

INIT = ("[ankit /init] Look at this project (its layout, build, test and run set-up, conventions) and write "
        "AGENTS.md at the root of the working folder: the instructions an AI coding assistant needs here: how "
        "to build, test and run it, where things live, conventions to follow, and anything surprising. Keep it "
        "short (under 100 lines) and specific to this project. Create it with write_file.")
INIT_AGAIN = " An AGENTS.md exists already: improve it, keeping what is still right."
CUSTOM_HEAD = "Custom commands (.ankit/commands, ~/.config/ankit/commands, .claude/commands):"


def cmd_init(state, arg: str) -> str:
    """Ask the model to write AGENTS.md for the project (write_file asks for approval as always)."""
    app = state.app
    exists = (app.cwd / "AGENTS.md").is_file()
    state.send(INIT + (INIT_AGAIN if exists else "") + (f"\nThe user adds: {arg}" if arg else ""), mentions=False)
    app.reload_instructions()
    state.session.use_prompt(app.prompt())
    files = ", ".join(str(p) for p in app.instructions.files) or "none found"
    return f"project instructions for the next requests: {files}"


def cmd_edit(state, arg: str) -> None:
    """Compose a message in $EDITOR (Ctrl-X Ctrl-E too); an empty file sends nothing."""
    if state.compose is None:
        raise AnkitError("/edit needs a terminal")
    text = state.compose(arg)
    if text is None:
        state.view.line("nothing sent: the editor left an empty message", DIM)
        return
    state.send(text)


def cmd_undo(state, arg: str) -> str:
    """Put back the files the last turn changed; again for the turn before."""
    keeper = state.session.checkpoints
    if keeper is None:
        raise AnkitError("no checkpoints are kept in this session")
    done = keeper.undo(state.session.id)
    if not done.turn:
        return "nothing to undo: no file changed by a tool in this session is left to restore"
    lines = [visible(line) for line in done.lines()]
    head = f"undid the file changes of turn {done.turn}"
    if done.told():
        state.session.conversation.add_context(
            f"[ankit] The user undid the file changes of turn {done.turn} with /undo: {done.told()}.")
    note = "the model is told with your next message" if done.told() else ""
    return "\n".join([head + ":", *(f"  {line}" for line in lines), *([note] if note else [])])


def served_models(state) -> list[str]:
    """The models the provider's server lists (GET {base}/models), asked once per REPL; [] without the endpoint."""
    if state.served is None:
        provider = state.session.provider
        state.served = (list_models(provider.settings) or []) if provider is not None else []
    return state.served


def model_names(state) -> list[str]:
    """What /model completes to: the server's models, else the price table's, and the current one."""
    current = [state.session.provider.model] if state.session.provider else []
    names = served_models(state)
    if not names:
        try:
            names = list(load_prices(state.app.config.prices))
        except AnkitError:
            names = []
    return sorted(set(current + names))


def models_listing(state) -> str:
    """The server's models, as many on a line as fit the width; or why there is no list."""
    names = served_models(state)
    if not names:
        return "this server lists no models (no GET /models): Tab completes the names ankit knows prices for"
    width, lines, line = state.view.width(), [], ""
    for name in (visible(n) for n in names):
        if line and len(line) + 2 + len(name) > width:
            lines.append(line + ",")
            line = name
        else:
            line = f"{line}, {name}" if line else name
    return "\n".join([f"{len(names)} model{'s' if len(names) != 1 else ''} on this server:", *lines, line])


def custom_help(custom: dict, name: str) -> str:
    """One custom command's help."""
    found = custom[name]
    return visible(f"/{found.name} {found.hint}".rstrip() + f"\n  {found.description}\n  (a prompt from {found.source})")


def custom_rows(custom: dict) -> list[tuple[str, str]]:
    """The /help rows of the custom commands."""
    return [(visible(f"/{c.name} {c.hint}".rstrip()), visible(c.description)) for c in custom.values()]
