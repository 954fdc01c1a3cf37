"""The interactive loop: line editing, history, completion, multi-line input, turns and slash commands."""

import os
import shlex
import sys
import tempfile
import time
from contextlib import nullcontext, suppress
from pathlib import Path

from ankit import __version__
from ankit.context.mentions import expand
from ankit.errors import AnkitError, Cancelled, bug_line
from ankit.safety import processes
from ankit.safety.scrub import Scrubber
from ankit.safety.visible import visible
from ankit import paths
from ankit.settings.config import Config
from ankit.terminal import history, paste
from ankit.terminal.approval import Approver
from ankit.terminal.bang import context_text, run_shell
from ankit.terminal.elicit import FormElicitor
from ankit.terminal.keys import Keys, confirm
from ankit.terminal.live import terminal_width
from ankit.terminal.mcp_parts import attach_resources
from ankit.terminal.notify import Notifier
from ankit.terminal.render import BOLD, DIM, YELLOW, TerminalView, paint, prompt_paint
from ankit.terminal.picker import elsewhere
from ankit.terminal import statusline
from ankit.terminal.typeahead import TypeAhead
from ankit.turn.app import build_app, warn
from ankit.turn.phrasing import hint
from ankit.turn.window import tokens
from ankit.terminal.slash import (NO_PROVIDER, ReplState, app_commands, command_folders, completions, dispatch, is_command, model_call, open_session,
                         resumed_text)

HISTORY_LENGTH = 2000
PROMPT = "> "
MORE = ". "
BLOCK = '"""'

OVERFLOW_REMEDY = (" · that message was taken out of the conversation, so the next one goes through: shorten it, or "
                   "name a large file without @")


class LineReader:
    """Reads one message at a time: readline editing, persistent history, Tab completion, continued lines."""

    def __init__(self, history: Path, colour: bool, complete=None, scrub: Scrubber | None = None,
                 typeahead: TypeAhead | None = None, keys: Keys | None = None):
        self.history = history
        self.scrub = scrub or Scrubber()
        self.colour = colour
        self.readline = _readline() if sys.stdin.isatty() else None
        self.typeahead = typeahead  # what was typed while the last turn ran comes first
        self.keys = keys  # on a terminal: the questions' keys (the type-ahead lets go of them meanwhile)
        self.saved_length = 0
        self.matches: list[str] = []
        self.complete = complete  # before-cursor text -> candidates
        self.pastes: paste.Pastes | None = None  # large pastes of the message being typed (GNU readline only)
        if self.readline is not None:
            self._set_up()

    def _set_up(self) -> None:
        rl = self.readline
        rl.set_history_length(-1)  # the file is trimmed instead, so counting new lines stays right
        with suppress(OSError):  # not writable: trimmed another time
            history.trim(self.history, HISTORY_LENGTH)
        for entry in history.load(self.history):
            rl.add_history(entry)
        self.saved_length = rl.get_current_history_length()
        rl.set_completer_delims(" \t\n")
        rl.set_completer(self._completer)
        if "libedit" in (rl.__doc__ or ""):
            rl.parse_and_bind("bind ^I rl_complete")
        else:
            rl.parse_and_bind("tab: complete")
            for binding in paste.BINDINGS:  # a paste ends readline's line with a mark; _input reads the paste
                rl.parse_and_bind(binding)
            self.pastes = paste.Pastes()
            rl.parse_and_bind(r'"\C-x\C-e": "\C-a/edit \C-m"')  # the line so far goes to $EDITOR via /edit
            rl.parse_and_bind(r'"\e[Z": "\C-a/mode --next \C-m"')  # Shift-Tab: the next mode; the line comes back
            # Alt-Enter: a newline in the message (Enter sends). Ctrl-J stays Enter: keys typed before readline takes
            # the terminal pass the tty's ICRNL, which makes their Enter a Ctrl-J, and that Enter must still send.
            for keys in (r"\e\C-m", r"\e\C-j"):
                rl.parse_and_bind(f'"{keys}": "\\C-v\\C-j"')

    def _completer(self, text: str, index: int) -> str | None:
        if index == 0:
            before = self.readline.get_line_buffer()[: self.readline.get_endidx()]
            try:
                self.matches = self.complete(before) if self.complete else []
            except Exception:  # a completion must never break the prompt
                self.matches = []
            if len(self.matches) == 1 and not self.matches[0].endswith("/"):  # readline adds no space itself
                self.matches = [self.matches[0] + " "]
        return self.matches[index] if index < len(self.matches) else None

    def _input(self, prompt: str) -> str:
        """input() with a bold prompt; Ctrl-C marks the dropped line with ^C and keeps it in the history;
        Ctrl-C and Ctrl-D leave the cursor on a fresh line."""
        try:
            if self.pastes is None:
                return input(prompt_paint(prompt, BOLD, self.colour))
            return self._input_pasting(prompt)
        except KeyboardInterrupt:
            print("^C")
            dropped = self.readline.get_line_buffer() if self.readline is not None else ""
            if dropped.strip():
                self.readline.add_history(dropped)
            raise
        except EOFError:
            print()  # readline leaves the cursor after the prompt at Ctrl-D (its own bracketed paste is off)
            raise

    def _input_pasting(self, prompt: str) -> str:
        """input() with the terminal marking pastes: each paste is read whole and the line comes back with it
        (a large one as a placeholder), ready for more typing; the pastes are put in when Enter sends it."""
        rl, pastes, line = self.readline, self.pastes, None
        pastes.held.clear()  # a line dropped with Ctrl-C leaves nothing behind
        try:
            while line is None or line.endswith(paste.MARK):
                if line is not None:
                    sys.stdout.write(paste.erase_echo(prompt + line, terminal_width()))
                    text, after = paste.read_paste(sys.stdin.fileno())
                    shown = line[:-1] + pastes.hold(text)
                    if "\n" in after:  # Enter came with the paste: the line is done
                        line = shown + after.split("\n", 1)[0]
                        sys.stdout.write(prompt + line + "\n")
                        break
                    rl.set_startup_hook(lambda: rl.insert_text(shown + after))
                sys.stdout.write(paste.ON)
                sys.stdout.flush()
                line = input(prompt_paint(prompt, BOLD, self.colour))
                rl.set_startup_hook(None)
        finally:
            rl.set_startup_hook(None)
            sys.stdout.write(paste.OFF)
            sys.stdout.flush()
        return pastes.expand(line)

    def read(self) -> str | None:
        """The next message: None at end of input (Ctrl-D); "" when Ctrl-C cleared the line. A line typed
        while the last turn ran comes first, shown as if typed at the prompt."""
        queued = self.typeahead.next_queued() if self.typeahead is not None else None
        if queued is not None:
            self.typed(queued)
            return queued
        before = self.readline.get_current_history_length() if self.readline is not None else 0
        try:
            unfinished = self.typeahead.unfinished() if self.typeahead is not None else ""
            if unfinished:  # typed without Enter while the last turn ran: there to finish
                self.prefill(unfinished)
            first = self._input(PROMPT)
        except EOFError:
            return None
        except KeyboardInterrupt:
            return ""
        try:
            text = self._gather(first.split("\n"))  # a bracketed paste arrives as one input with newlines
        except EOFError:
            return None
        except KeyboardInterrupt:
            print("(input dropped; Up brings it back)")
            self._merge(before, None)
            return ""
        self._merge(before, text)
        return text

    def _merge(self, before: int, text: str | None) -> None:
        """Make the lines of one message one history entry (text None: the lines as they were typed)."""
        rl = self.readline
        if rl is None:
            return
        count = rl.get_current_history_length()
        typed = [rl.get_history_item(i) for i in range(before + 1, count + 1)]
        if len(typed) <= 1 and (text is None or typed in ([], [text])):
            return
        for position in range(count - 1, before - 1, -1):
            rl.remove_history_item(position)
        rl.add_history(text if text is not None else "\n".join(typed))

    def _gather(self, lines: list[str]) -> str:
        """Complete a message: a \"\"\" block up to its closing line, or lines ending in a backslash."""
        if lines[0].strip() == BLOCK:
            body = lines[1:]
            while BLOCK not in (line.strip() for line in body):
                body += self._input(MORE).split("\n")
            end = [line.strip() for line in body].index(BLOCK)
            return "\n".join(body[:end] + body[end + 1:])
        while lines[-1].endswith("\\"):
            lines[-1] = lines[-1][:-1]
            lines += self._input(MORE).split("\n")
        return "\n".join(lines)

    def typed(self, text: str) -> None:
        """Show text as if typed at the prompt (the command line's first message); Up brings it back."""
        print(paint(PROMPT, BOLD, self.colour) + visible(text))
        if self.readline is not None:
            self.readline.add_history(text)

    def prefill(self, text: str) -> None:
        """Put text on the next input line, as if typed (nothing without readline)."""
        rl = self.readline
        if rl is None:
            return

        def insert() -> None:
            rl.insert_text(text)
            rl.redisplay()
            rl.set_pre_input_hook(None)
        rl.set_pre_input_hook(insert)

    def ask(self, question: str) -> str:
        """Ask a one-off question (from a tool) on a line of its own, outside readline and its history.

        Readline is left out on purpose: a Ctrl-D there would leave it printing a blank line after every
        later prompt (GNU readline keeps its end-of-file flag set). On a terminal the line can be edited.
        """
        if self.keys is not None:
            head, _, last = question.rpartition("\n")
            with self.keys.cbreak():  # a turn's type-ahead lets go of the keys from the question's first line
                if head:
                    print(head)
                return self.keys.line(last)
        try:
            sys.stdout.write(question)
            sys.stdout.flush()
            answer = sys.stdin.readline()
        except KeyboardInterrupt:
            print()
            raise
        if not answer:
            print()
            raise EOFError
        return answer.rstrip("\n")

    def save(self) -> None:
        """Append the entries read since the last save to the history file (readable by the user only)."""
        rl = self.readline
        if rl is None or rl.get_current_history_length() <= self.saved_length:
            return
        count = rl.get_current_history_length()
        entries = [rl.get_history_item(i) or "" for i in range(self.saved_length + 1, count + 1)]
        clean = [self.scrub.text(entry) for entry in entries]  # a pasted key never reaches the file
        for offset, (entry, scrubbed) in enumerate(zip(entries, clean)):
            if entry != scrubbed:  # nor Up-arrow recall
                rl.replace_history_item(self.saved_length + offset, scrubbed)
        try:
            history.append(self.history, clean)
            self.saved_length = count
        except OSError as exc:
            print(f"ankit: history not saved ({exc.strerror or exc}); check {self.history.parent}", file=sys.stderr)


def _readline():
    try:
        import readline
    except ImportError:  # some builds have none: plain input() still works
        return None
    return readline


def send(state: ReplState, text: str, mentions: bool = True, typed: bool = True) -> None:
    """Run one turn (@mentions attached: only inside the folder when the user did not type the text, as with a
    custom command); Ctrl-C cancels it and keeps the partial reply; the status line follows."""
    session, view = state.session, state.view
    if session.provider is None:
        view.error(NO_PROVIDER)
        return
    text, images = attach(state, text, typed) if mentions else (text, [])
    if not fits_or_confirmed(state, text):
        view.line("not sent; Up brings the message back", DIM)
        return
    if state.phrases is not None:
        state.phrases.kick()
    started = time.monotonic()
    with model_call(state, f"waiting for {session.provider.model}"), statusline.during_turn(state):
        try:
            with state.typeahead.turn() if state.typeahead is not None else nullcontext():
                session.turn(text, images)
        except (Cancelled, KeyboardInterrupt) as exc:
            view.reply_end()
            view.line(str(exc) or "cancelled", DIM)
        except AnkitError as exc:
            view.reply_end()
            view.error(str(exc) + (OVERFLOW_REMEDY if getattr(exc, "overflow", False) else ""))
        except Exception as exc:  # a bug in ankit: one line, and the session (saved by the turn) goes on
            view.reply_end()
            view.error(visible(bug_line(exc)) + "; the session is kept")
    if state.notify is not None:
        state.notify.turn_done(time.monotonic() - started)
    statusline.show(state, DIM)
    view.write("\n")


def attach(state: ReplState, text: str, typed: bool) -> tuple[str, list]:
    """The text with its mentions attached (@SERVER:URI resources only when the user typed it: an MCP server's
    resource is read and attached), and its images; each notice and what was attached shown in a dim line."""
    view, scrubber = state.view, state.app.scrubber()
    notices, attached = [], []
    if typed:
        text, notices, attached = attach_resources(text, state.app.mcp, scrubber)
    expanded = expand(text, state.app.cwd, state.session.provider.accepts_images, scrubber, not typed)
    for notice in [*notices, *expanded.notices]:
        view.line(visible(notice), DIM)
    if attached or expanded.attached:
        view.line("attached: " + visible(", ".join([*attached, *expanded.attached])), DIM)
    return expanded.text, expanded.images


def fits_or_confirmed(state: ReplState, text: str) -> bool:
    """Whether to send a message: yes when it fits the model's context window, else only if the user says so. A
    window known for sure (the config's, the server's) is the session's to enforce: it refuses in one line."""
    size, window = tokens(len(text.encode("utf-8", "replace"))), state.session.window
    if size <= window or state.session.window_sure:
        return True
    view = state.view
    view.line(f"this message is about {size:,} tokens, more than the context window of "
              f"{state.session.provider.model} ({window:,} tokens): the provider will likely refuse it", YELLOW)
    keys = state.approve.keys if state.approve is not None else None
    view.at_line_start = keys is None  # the question is on the line until it is answered
    sent = confirm("send it anyway? [y/N] ", keys, state.approve.ask)
    view.at_line_start = True
    return sent


def banner(state: ReplState) -> str:
    """The first line: version, provider and model, and where help is."""
    provider = state.session.provider
    who = f"{provider.name} · {provider.model}" if provider else "no provider"
    mode = state.app.sandbox.label()
    return f"ankit {__version__} · {who} · {mode} (Shift-Tab) · /help for commands · Ctrl-D exits"


def run_repl(args, config: Config) -> int:
    """The interactive REPL; returns the exit code."""
    view = TerminalView(sys.stdout)
    typeahead = TypeAhead(sys.stdin.fileno(), view, waits) if sys.stdin.isatty() and view.live else None
    keys = Keys(sys.stdin.fileno(), sys.stdout, typeahead, view.colour) if sys.stdin.isatty() else None
    # an MCP server's question is asked on the line reader, which needs the app first: looked up when asked
    app = build_app(config, elicit=FormElicitor(view, lambda question: reader.ask(question), keys))
    try:
        # the phrases hint once, at start, only when the model does not write them in the background
        warn(app.problems + app.notices + app.skill_problems + ([] if config.phrases else hint(app.registry)))
        state = ReplState(app, None, view, None,
                          send=lambda text, mentions=True, typed=True: send(state, text, mentions, typed),
                          compose=compose, typeahead=typeahead)
        warn(refresh_commands(state))
        reader = LineReader(paths.state_home() / "history", view.colour, lambda before: completions(state, before),
                            app.scrubber(), typeahead, keys)
        state.notify = Notifier(sys.stdout, config.notify, app.hooks, terminal=sys.stdout.isatty())
        state.approve = Approver(view, reader.ask, yes=config.yes, keys=reader.keys,
                                 policy=app.policy, notify=state.notify)
        state.prefill = reader.prefill
        _open(state, args)
        try:
            if getattr(args, "message", ""):  # ankit "question": the first message, as if typed
                reader.typed(args.message)
                act(state, args.message)
            loop(state, reader)
        finally:
            reader.save()
            state.session.hooks.end(state.session.id, "prompt_input_exit")
        if state.session.conversation.messages:
            view.line(f"session saved; ankit --resume {state.session.id} goes on with it", DIM)
        return 0
    finally:
        app.close()


def _open(state: ReplState, args) -> None:
    """The session (new, resumed, or picked with --resume alone), the phrase writer, and the first lines."""
    app, view = state.app, state.view
    resume = app.resumed(args)  # --resume without an id was picked before the folder's settings were read
    open_session(state, resume)
    state.phrases = app.phrase_writer() if state.session.provider is not None else None
    if state.phrases is not None:
        state.phrases.kick()  # it waits for servers still starting, then asks about those without phrases
    view.line(banner(state), DIM)
    if app.config.untrusted:
        view.line(f"this folder is not trusted ({app.config.untrusted}): every command asks before it runs, and its "
                  ".ankit/ and .claude/ settings are ignored; run ankit here again and trust it to change that", YELLOW)
    state.status_line = statusline.for_state(state)
    statusline.show(state, DIM)
    if state.session.provider is None:
        view.line(app.setup_error)
        view.line("Meanwhile the commands that need no model work: /help, /tools, /skills, /sessions.", DIM)
    if resume is not None:
        view.line(resumed_text(state.session, resume.title, view.width()), DIM)
        if elsewhere(resume.cwd, app.cwd):
            view.line(elsewhere(resume.cwd, app.cwd), YELLOW)


def refresh_commands(state: ReplState) -> list[str]:
    """Read the custom commands and agent definitions again when their files changed since the last prompt; the
    problems found."""
    now = paths.stamp(command_folders(state.app)[0], "**/*.md")
    problems = state.app.refresh_agents()  # a definition written during the session: /agents and task know it
    if now != state.custom_stamp:
        state.custom_stamp = now
        state.custom, found = app_commands(state.app)
        problems += found
    return [visible(p) for p in problems]


def waits(text: str) -> bool:
    """Whether a line typed during a turn waits for its end: a command or a ! line, not a message."""
    return is_command(text) or (text.startswith("!") and bool(text[1:].strip()))


def bang(state: ReplState, command: str) -> None:
    """Run a !command in the shell (the user typed it: no approval); its output goes with the next message."""
    view = state.view
    view.line(f"$ {visible(command)}", DIM)
    output, code = run_shell(command, state.app.cwd, view.write, state.app.scrubber())
    if output and not output.endswith("\n"):
        view.write("\n")
    if code:
        view.line("(stopped)" if code == 130 else f"(exit code {code})", DIM)
    state.session.conversation.add_context(context_text(command, output, code))
    view.line("the command and its output go to the model with your next message", DIM)


def compose(initial: str = "") -> str | None:
    """Edit a message in $VISUAL or $EDITOR (vi when neither is set); None when it comes back empty."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    fd, name = tempfile.mkstemp(prefix="ankit-message-", suffix=".md")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(initial)
        try:
            code = processes.spawn([*shlex.split(editor), name], stdin=None, stdout=None, stderr=None,
                                   terminal=True).wait()
        except OSError as exc:
            raise AnkitError(f"cannot start the editor {editor!r} ({exc.strerror or exc}); set EDITOR") from None
        if code:
            raise AnkitError(f"the editor {editor!r} exited with code {code}; nothing sent")
        text = Path(name).read_text(encoding="utf-8", errors="replace").strip()
    finally:
        with suppress(OSError):
            os.unlink(name)
    return text or None


def loop(state: ReplState, reader: LineReader) -> None:
    """Read and act until /exit or Ctrl-D."""
    while state.running:
        text = reader.read()
        state.view.at_line_start = True
        if text is None:
            return
        reader.save()  # line by line: a closed terminal loses nothing
        for problem in refresh_commands(state):  # a file written while the prompt waited counts for this line
            state.view.line(problem, DIM)
        if text.strip():
            act(state, text)


def act(state: ReplState, text: str) -> None:
    """One message read: a ! line, a /command, or a message to the model."""
    if text.startswith("!") and text[1:].strip():
        bang(state, text[1:].strip())
    elif is_command(text):
        dispatch(state, text)
    else:
        state.send(text)
