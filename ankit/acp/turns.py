"""One session/prompt to its stop reason: a slash command ankit runs itself (/usage, /compact, /clear, /undo,
/mode, /model, /todos, /help), a custom command or a skill run as the REPL and -p run them
(terminal/command_run.py: this class is the `state` it takes), or the message sent to the model; and the commands
offered to the client (available_commands_update)."""

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass

from ankit.acp.view import AcpView
from ankit.acp.wire import INTERNAL_ERROR, INVALID_PARAMS, RpcError
from ankit.context.mentions import expand
from ankit.errors import AnkitError, Cancelled
from ankit.safety.sandbox import MEANING, SHOWN, parse_mode
from ankit.safety.visible import visible_line
from ankit.terminal.command_run import run_named
from ankit.terminal.slash import app_commands, is_command
from ankit.turn.app import App
from ankit.turn.compaction import compact
from ankit.turn.session import Session
from ankit.usage.budget import spent
from ankit.usage.ledger import render_usage, subagent_lines
from ankit.usage.pricing import load_prices
from ankit.wording import count

TODO_MARKS = {"pending": "○", "in_progress": "◐", "done": "●"}
# ankit's modes as the client lists them: Claude Code's names (its ACP adapter's too) beside ankit's ask
MODE_NAMES = {"workspace": ("default", "Default"), "accept-edits": ("acceptEdits", "Accept edits"),
              "read-only": ("plan", "Plan (read-only)"), "off": ("ask", "Ask")}


@dataclass
class BuiltIn:
    """A slash command ankit runs itself under ankit acp."""

    name: str
    hint: str
    description: str
    run: Callable[["Turns", str], str]


class Turns:
    """One session's prompts: `guard(session_id)` is the server's (a cancel stops what runs inside it)."""

    def __init__(self, app: App, session: Session, view: AcpView,
                 guard: Callable[[str], AbstractContextManager[bool]]):
        self.app, self.session, self.view, self.guard = app, session, view, guard
        self.prompt_stale = False  # the mode changed since the system prompt was made
        self.custom, problems = app_commands(app)  # the folder's, the user's, Claude Code's and the plugins'
        for line in problems:
            view.notice(line)

    def advertise(self) -> None:
        """Tell the client which slash commands this session takes."""
        offered = [{"name": c.name, "description": c.description, **({"input": {"hint": c.hint}} if c.hint else {})}
                   for c in BUILT_INS.values()]
        offered += [{"name": c.name, "description": visible_line(c.description)[:200],
                     **({"input": {"hint": visible_line(c.hint)[:100]}} if c.hint else {})} for c in self.custom.values()]
        offered += [{"name": k.name, "description": visible_line(k.description)[:200]} for k in self.app.skills
                     if k.name not in self.custom and k.name not in BUILT_INS]
        self.view.send({"sessionUpdate": "available_commands_update", "availableCommands": offered})

    def run(self, blocks, message: Callable) -> str:
        """The prompt to its ACP stop reason; a cancel (as Ctrl-C) is "cancelled", never an error."""
        with self.guard(self.session.id) as going:  # a cancel sent with the prompt finds it here
            if not going:
                return "cancelled"
            if self.prompt_stale:
                self.prompt_stale = False
                self.session.use_prompt(self.app.prompt())
            typed = _typed(blocks)
            self.view.stopped = ""
            try:
                if is_command(typed.strip().split("\n", 1)[0]):
                    return self._command(typed.strip())  # its own text, @mentions attached as it is sent
                return self._turn(message(blocks, self.app.cwd, self.session.provider.accepts_images,
                                          self.app.scrubber()))
            except (KeyboardInterrupt, Cancelled) as exc:
                self.view.stopped_running(str(exc) or "stopped by the user")
                self.view.notice(str(exc) or "cancelled")
                return "cancelled"
            except AnkitError as exc:  # the provider failed, max_cost...: the editor shows the line and its fix
                raise RpcError(INTERNAL_ERROR, str(exc)) from None
            finally:
                self.report_usage()

    def report_usage(self) -> None:
        """usage_update: the tokens the last request carried against the window, and what the session cost so far
        (as /usage counts it: subagents included; left out where a price is not known)."""
        rounds = self.session.ledger.rounds
        if not rounds or not rounds[-1].usage.reported:
            return
        last = rounds[-1].usage
        update = {"sessionUpdate": "usage_update", "used": last.input_tokens + last.output_tokens,
                  "size": self.session.window}
        try:
            amount = spent(self.session.spent_rounds(), load_prices(self.app.config.prices))
        except AnkitError:  # a malformed [prices] table: /usage says so
            amount = None
        if amount is not None:
            update["cost"] = {"amount": round(amount, 6), "currency": "USD"}
        self.view.send(update)

    def _turn(self, expanded) -> str:
        """The message (a mentions.Expanded) as a turn of the model; its stop reason."""
        if not expanded.text.strip() and not expanded.images:
            raise RpcError(INVALID_PARAMS, "the prompt is empty: send a list of content blocks with some text")
        for line in expanded.notices:
            self.view.notice(line)
        before = len(self.session.ledger.rounds)
        self.session.turn(expanded.text, expanded.images)
        return self._why_stopped(before)

    def _command(self, text: str) -> str:
        """A slash command: ankit's own answer, or a custom command or skill sent as a turn; its stop reason."""
        before = len(self.session.ledger.rounds)
        name, _, arguments = text[1:].partition(" ")
        if name in BUILT_INS:
            self.view.text(BUILT_INS[name].run(self, arguments.strip()) + "\n")
        elif run_named(self, name, arguments.strip()):
            return self._why_stopped(before)
        else:
            self.view.text(f"unknown command /{visible_line(name)[:40]}: /help lists the commands ankit takes here\n")
        return "end_turn"

    def send(self, text: str, mentions: bool = True, typed: bool = True) -> None:
        """A custom command's or a skill's message as one turn (command_run's `state.send`): @mentions attached,
        only inside the folder when the user did not type them."""
        images = []
        if mentions:
            expanded = expand(text, self.app.cwd, self.session.provider.accepts_images, self.app.scrubber(), not typed)
            for line in expanded.notices:
                self.view.notice(line)
            text, images = expanded.text, expanded.images
        self.session.turn(text, images)

    def _why_stopped(self, before: int) -> str:
        """end_turn, or why the model stopped short: max_tokens, refusal, or max_turn_requests (max_rounds)."""
        if self.view.stopped:
            return self.view.stopped
        rounds = self.session.ledger.rounds[before:]
        last = self.session.conversation.messages[-1] if self.session.conversation.messages else None
        if len(rounds) >= self.session.max_rounds and last is not None and last.role == "tool":
            return "max_turn_requests"
        return "end_turn"

    def switch_mode(self, mode: str) -> str:
        """Use one of ankit's modes (the sandbox's) from now on, and tell the client the mode in force; may run
        while a turn does (session/set_mode is answered at once): the calls still to come follow the new mode,
        the system prompt from the next prompt on."""
        sandbox = self.app.sandbox
        if sandbox is None:
            raise AnkitError("no sandbox in this session")
        line = sandbox.switch(mode)
        self.prompt_stale = True  # plan mode is in the system prompt: the next prompt takes it (see run)
        self.view.send({"sessionUpdate": "current_mode_update", "currentModeId": MODE_NAMES[sandbox.name][0]})
        return line


def _typed(blocks) -> str:
    """The text blocks of a prompt, joined: what the user typed."""
    blocks = blocks if isinstance(blocks, list) else []
    return "".join(str(b.get("text") or "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")


def cmd_help(turns: Turns, arg: str) -> str:
    """The commands ankit takes here."""
    lines = [f"/{c.name}{' ' + c.hint if c.hint else ''}: {c.description}" for c in BUILT_INS.values()]
    lines += [f"/{c.name}: {visible_line(c.description)}" for c in turns.custom.values()]
    lines += [f"/{k.name}: {visible_line(k.description)[:120]}" for k in turns.app.skills]
    return "\n".join(lines)


def cmd_usage(turns: Turns, arg: str) -> str:
    """Tokens and cost: the last turn, the session, its rounds."""
    session, prices = turns.session, load_prices(turns.app.config.prices)
    text = render_usage(session.ledger, prices, 100, arg == "all")
    runs = [(f"{r.turn}. {r.description}", r.rounds) for r in session.runs]
    lines = subagent_lines(runs, prices, 100)
    text += "\n\n" + "\n".join(lines) if lines else ""
    return f"```\n{text}\n```" + (f"\n{session.meter.line()}" if session.meter.line() else "")


def cmd_compact(turns: Turns, arg: str) -> str:
    """Go on from a summary the model writes."""
    before = len(turns.session.conversation.live())
    compact(turns.session)
    return f"requests now start from the summary ({count(before, 'message')} before it stay in the session file)"


def cmd_clear(turns: Turns, arg: str) -> str:
    """A fresh history (ankit saves it under a new id; the earlier conversation stays saved under its own)."""
    old = turns.session.id
    turns.session.restart()
    return f"history cleared; the earlier conversation stays saved as {old} (ankit --resume {old})"


def cmd_undo(turns: Turns, arg: str) -> str:
    """Put back the files the last turn changed."""
    if turns.session.checkpoints is None:
        raise AnkitError("no checkpoints are kept in this session")
    done = turns.session.checkpoints.undo(turns.session.id)
    if not (done.restored or done.removed or done.refused):
        return "nothing to undo"
    lines = [f"restored {p}" for p in done.restored] + [f"removed {p}" for p in done.removed]
    return "\n".join(lines + [f"left alone: {p}" for p in done.refused])


def cmd_mode(turns: Turns, arg: str) -> str:
    """Show or switch the mode: ask, workspace or read-only."""
    if not arg:
        name = turns.app.sandbox.name
        return f"mode: {SHOWN[name]}: {MEANING[name]} (/mode default, acceptEdits, plan or ask)"
    mode = parse_mode(arg)
    if mode is None:
        raise AnkitError("/mode takes default, acceptEdits, plan or ask")
    return turns.switch_mode(mode)


def cmd_model(turns: Turns, arg: str) -> str:
    """Show the model, or switch for the next turns."""
    session = turns.session
    if arg:
        session.switch_model(arg)
    return f"{session.provider.name} · {session.provider.model} · window {session.window:,} tokens"


def cmd_todos(turns: Turns, arg: str) -> str:
    """The checklist the model keeps."""
    todos = turns.session.todos
    if not todos.items:
        return "no todos (the model keeps a checklist with write_todos for work of several steps)"
    return "\n".join([f"todos {todos.counts()}"] + [f"{TODO_MARKS.get(t.status, '○')} {visible_line(t.text)}"
                                                     for t in todos.items])


BUILT_INS = {c.name: c for c in [
    BuiltIn("help", "", "the commands ankit takes here", cmd_help),
    BuiltIn("usage", "[all]", "tokens and cost: last turn, session, rounds", cmd_usage),
    BuiltIn("compact", "", "go on from a summary the model writes (the file keeps all)", cmd_compact),
    BuiltIn("clear", "", "a fresh history (the earlier one stays in the session file)", cmd_clear),
    BuiltIn("undo", "", "put back the files the last turn changed", cmd_undo),
    BuiltIn("mode", "[default | acceptEdits | plan | ask]", "show or switch the mode", cmd_mode),
    BuiltIn("model", "[NAME]", "show the model, or switch to NAME for the next turns", cmd_model),
    BuiltIn("todos", "", "the checklist the model keeps", cmd_todos),
]}
