"""`ankit -p`: answer once, print the answer, exit."""

import json
import sys
import time

from ankit.cli.slashrun import names_command, run_slash
from ankit.cli.scripting import JsonView, Outcomes, result_object
from ankit.context.mentions import expand
from ankit.errors import AnkitError
from ankit.protocols import View
from ankit.records import ToolCall, ToolResult
from ankit.safety.visible import visible, visible_line
from ankit.settings.config import Config
from ankit.terminal.calls import call_summary, result_line
from ankit.terminal.picker import elsewhere
from ankit.tooling.tool import Tool
from ankit.turn.app import build_app, warn
from ankit.usage.pricing import load_prices


class PrintView(View):
    """Reply text to stdout as it streams; ankit's own lines to stderr."""

    def __init__(self):
        self.ended_with_newline = True
        self.terminal = _isatty(sys.stdout)  # a pipe gets the exact bytes; a terminal sees controls made visible
        self.outcomes = Outcomes()

    def text(self, delta: str) -> None:
        sys.stdout.write(visible(delta) if self.terminal else delta)
        sys.stdout.flush()
        self.ended_with_newline = delta.endswith("\n")

    def reply_end(self) -> None:
        if not self.ended_with_newline:
            sys.stdout.write("\n")
            self.ended_with_newline = True

    def tool_start(self, call: ToolCall) -> None:
        self.outcomes.start(call)
        print(f"· {call_summary(call, 200)}", file=sys.stderr)

    def tool_end(self, result: ToolResult) -> None:
        self.outcomes.end(result)
        print(result_line(result, 200), file=sys.stderr)

    def inner_call(self, call: ToolCall, result: ToolResult) -> None:
        self.outcomes.end(result, call)
        print(f"  · {call_summary(call, 200)}\n  {result_line(result, 200)}", file=sys.stderr)

    def notice(self, line: str) -> None:
        print(f"ankit: {visible(line)}", file=sys.stderr)


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class PrintApprover:
    """Approve everything with --yes; otherwise refuse, since nobody can be asked."""

    def __init__(self, yes: bool):
        self.yes = yes

    def __call__(self, tool: Tool, args: dict, preview: str) -> bool:
        """True with --yes; otherwise a line on stderr saying how to allow it, and False."""
        if not self.yes:
            print(f"ankit: {visible_line(tool.name)} needs approval; refused (rerun with --yes to allow it)", file=sys.stderr)
        return self.yes


def prompt_text(prompt: str) -> str:
    """The -p text, with piped standard input appended."""
    if sys.stdin is None or sys.stdin.isatty():
        return prompt
    piped = sys.stdin.read()
    return f"{prompt}\n\n{piped}" if piped.strip() else prompt


def decline_question(server: str, message: str, schema: dict) -> dict:
    """-p asks nobody: an MCP server's question (elicitation) is declined, with a line saying so."""
    shown = " ".join(visible(message).split())[:200]
    print(f"ankit: MCP server {server!r} asked \"{shown}\"; declined (-p asks nobody: run ankit to answer it)",
          file=sys.stderr)
    return {"action": "decline"}


STRICT_EXIT = 3  # --strict: the answer came, but a call was refused or failed


def run_once(args, config: Config) -> int:
    """Run one turn and exit: 0 on an answer, 1 with one line on failure, 3 with --strict when a call was refused
    or failed."""
    text = prompt_text(args.prompt)
    if not text.strip():
        print('ankit: -p needs a question, e.g. ankit -p "what does this repository do?"', file=sys.stderr)
        return 1
    fmt = getattr(args, "output_format", "text") or "text"
    if fmt != "text":
        return _run_json(text, args, config, fmt == "stream-json")
    app, view = build_app(config, mcp_start="deferred", elicit=decline_question), PrintView()
    try:
        warn(app.problems + app.notices + app.skill_problems)
        session = app.session(view, PrintApprover(config.yes), resume=_resumed(app, args))
        if session.provider is None:
            print(f"ankit: {app.setup_error}", file=sys.stderr)
            return 1
        _answer(text, app, session, view)
        session.hooks.end(session.id)
    except AnkitError as exc:
        print(f"ankit: {visible(_error_line(exc, args))}", file=sys.stderr)
        return 1
    finally:
        app.close()
    if view.outcomes.line():
        print(f"ankit: {visible_line(view.outcomes.line())}", file=sys.stderr)
    return _strict(args, view.outcomes)


def _strict(args, outcomes: Outcomes) -> int:
    """The exit code of a run that answered: 3 under --strict when a call was refused or failed, else 0."""
    return STRICT_EXIT if getattr(args, "strict", False) and outcomes.shortfall else 0


def _resumed(app, args):
    """The session --continue or --resume asks for; one that ran in another folder is said in a line."""
    data = app.resumed(args)
    if data is not None and elsewhere(data.cwd, app.cwd):
        print(f"ankit: {elsewhere(data.cwd, app.cwd)} (cd there to work there)", file=sys.stderr)
    return data


def _error_line(exc: AnkitError, args) -> str:
    """The error's one line, with the remedy -p has when the conversation does not fit the context."""
    if not getattr(exc, "overflow", False):
        return str(exc)
    carried = getattr(args, "cont", False) or getattr(args, "resume", None)
    return str(exc) + (" · the message was taken out of the session: --continue goes on without it" if carried
                       else " · shorten the prompt or its @files")


def _answer(text: str, app, session, view: View) -> str:
    """One turn: a /name line runs its custom command or skill (cli/slashrun.py), any other text is sent."""
    if names_command(text):
        return run_slash(text, app, session, view)
    return session.turn(*_message(text, app, session))


def _message(text: str, app, session) -> tuple[str, list]:
    """The text with its @mentions attached, and its images; notices go to stderr."""
    expanded = expand(text, app.cwd, session.provider.accepts_images, app.scrubber())
    for notice in expanded.notices:
        print(f"ankit: {visible(notice)}", file=sys.stderr)
    return expanded.text, expanded.images


def _run_json(text: str, args, config: Config, streaming: bool) -> int:
    """The run as JSON: one result object at the end, or one object per line as it happens."""
    started, view = time.monotonic(), JsonView(streaming)
    app = build_app(config, mcp_start="deferred", elicit=decline_question)
    session, answer, error, before = None, "", "", 0
    try:
        warn(app.problems + app.notices + app.skill_problems)
        session = app.session(view, PrintApprover(config.yes), resume=_resumed(app, args))
        view.session_id, before = session.id, len(session.ledger.rounds)
        if session.provider is None:
            error = app.setup_error.splitlines()[0]
        else:
            view.emit({"type": "system", "subtype": "init", "cwd": str(app.cwd), "model": session.provider.model,
                       "tools": [s.name for s in session.plan().tools.specs]})
            answer = _answer(text, app, session, view)
            session.hooks.end(session.id)
    except AnkitError as exc:
        error = _error_line(exc, args)
    finally:
        app.close()
    rounds = session.ledger.rounds[before:] if session else []
    result = result_object(session.id if session else "", answer, error, rounds, _prices(config), started,
                           view.outcomes.denials, view.outcomes.inner)
    print(json.dumps(result, ensure_ascii=False))
    if error:
        print(f"ankit: {error}", file=sys.stderr)
    return 1 if error else _strict(args, view.outcomes)


def _prices(config: Config) -> dict | None:
    try:
        return load_prices(config.prices)
    except AnkitError:
        return None
