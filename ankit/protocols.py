"""The seams of the turn loop, declared once: what `Session` is built from and reports to.

`App` assembles objects that fit these shapes and hands them to `Session` at construction; nothing is
patched on afterwards, and nothing below `App` calls back into it. Concrete fits: `View` by
terminal.render.TerminalView and oneshot.PrintView; `Approver` by terminal.approval.Approver and
oneshot.PrintApprover; `ToolRunner` by tooling.toolbox.Runner; `SessionStore` by storage.sessions.SessionStore;
`Prompt` by turn.prompt.Prompt; `WindowSource` by providers.windows.ServerWindows; `Ready` by turn.registry.Registry; `Provider` by providers.base.Provider;
`Checkpoints` by storage.checkpoints.Checkpoints; `Tool` by tooling.tool.Tool; `Elicitor` by
terminal.elicit.FormElicitor and cli.oneshot's decline; `Inbox` and `KeyShare` by terminal.typeahead.TypeAhead;
`TurnHooks` by turn.turnhooks.SessionHooks; `View`, `Approver` and `Editor` by acp.view.AcpView,
acp.approver.AcpApprover and acp.editor.AcpEditor too (`ankit acp`: the same session in an editor).

It sits at the bottom of the package: it names only records, so every layer may use these shapes.
"""

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

from ankit.records import (Event, Request, SessionData, SubagentRun, TerminalRun, TodoList, ToolCall,
                           ToolResult)


class View(Protocol):
    """What the loop shows while it works; a class that subclasses it gets a no-op for each method."""

    def text(self, delta: str) -> None:
        """A piece of reply text."""

    def reply_end(self) -> None:
        """The reply of one round is complete."""

    def tool_start(self, call: ToolCall) -> None:
        """A tool call is about to run."""

    def tool_output(self, text: str) -> None:
        """Output of the running tool as it comes, for the user only (called from any thread)."""

    def tool_end(self, result: ToolResult) -> None:
        """A tool call finished."""

    def inner_call(self, call: ToolCall, result: ToolResult) -> None:
        """A call a run_code program made finished (shown under the running call)."""

    def notice(self, line: str) -> None:
        """A one-line message from ankit itself."""

    def todos(self, todos: TodoList) -> None:
        """The session's checklist changed (write_todos): show it."""

    def stop_reason(self, reason: str) -> None:
        """Why the provider says a reply ended ("end_turn", "tool_use", "max_tokens", "refusal", ...)."""


class NullView(View):
    """A view that shows nothing (subcommands, tests)."""


class Tool(Protocol):
    """What the loop and the approver read of a tool (tooling.tool.Tool)."""

    name: str
    group: str
    read_only: bool
    source: str


class Approver(Protocol):
    """Decides whether a tool call that changes things may run: True runs it, False or the user's reason (a str)
    declines it; raises Cancelled to stop the turn."""

    def __call__(self, tool: Tool, args: dict, preview: str) -> bool | str: ...


class Editor(Protocol):
    """The user's editor, where it offers its own files and terminals (the Agent Client Protocol's fs/* and
    terminal/*, acp.editor.AcpEditor): reads see unsaved buffers, writes show in the editor and can be undone
    there, commands run in its terminals. The tools reach it as ctx.editor (None: ankit's own). The policy,
    the sandbox and the hooks have decided before any of these is called; each raises OSError on failure."""

    reads: bool  # fs/read_text_file offered
    writes: bool  # fs/write_text_file offered
    runs: bool  # terminal/* offered

    def read_text(self, path: Path) -> str:
        """The text of a file as the editor has it (an unsaved buffer's included)."""

    def write_text(self, path: Path, content: str) -> None:
        """Write a whole text file through the editor."""

    def run(self, argv: list[str], cwd: Path, timeout: float) -> TerminalRun:
        """Run argv (already inside the sandbox in force) in a terminal of the editor, to its end or the timeout
        (then it is killed); a KeyboardInterrupt kills it and is raised again."""


class Asker(Protocol):
    """Asks the user a question a tool put (ctx.ask) and returns the answer."""

    def __call__(self, question: str) -> str: ...


class ToolRunner(Protocol):
    """Looks tools up by name (active or not) and runs one call to a result the model sees."""

    def lookup(self, name: str) -> Tool | None: ...

    def start(self, calls: list[ToolCall], output: Callable[[str], None] | None = None) -> None:
        """Begin the calls of one reply that may run at once (task calls); run() then gives each one's result."""

    def run(self, call: ToolCall, output: Callable[[str], None] | None = None) -> ToolResult:
        """Run one call; `output` hears what it prints as it comes (View.tool_output)."""


class Provider(Protocol):
    """One wire format: translates a neutral request and streams neutral events back."""

    @property
    def name(self) -> str: ...

    @property
    def model(self) -> str: ...

    def use_model(self, model: str) -> None: ...

    def stream(self, request: Request) -> Iterator[Event]: ...


class Prompt(Protocol):
    """The system prompt and the context window for a model."""

    configured_window: int  # the config's context_window (0: none set)

    def system(self, model: str) -> str: ...

    def window(self, model: str, server: int = 0) -> int:
        """The window in tokens: the config's, else what the server said (server), else a guess from the name."""


class WindowSource(Protocol):
    """What the server says a model's context window is, in tokens (providers.windows.ServerWindows), or None."""

    def __call__(self, model: str) -> int | None: ...


class SessionStore(Protocol):
    """Where a session is written after every turn, and its turn so far kept after each round; raises AnkitError
    with one line when it cannot be."""

    def save(self, data: SessionData) -> Path: ...

    def save_progress(self, data: SessionData) -> None: ...


class Undone(Protocol):
    """What /undo did (storage.checkpoints.Undone)."""

    turn: int
    restored: list[str]
    refused: list[str]


class Checkpoints(Protocol):
    """What calls are about to change, kept by session and turn so /undo can put it back
    (storage.checkpoints.Checkpoints): the runner keeps and settles, the session begins turns and undoes."""

    notes: list[str]  # paths that could not be kept, one line each, until the view is told

    def begin(self, session_id: str, turn: int, at: int = 0) -> None: ...

    def keep(self, paths: list[Path]) -> None: ...

    def settle(self, paths: list[Path]) -> None: ...

    def undo(self, session_id: str) -> Undone: ...

    def rewind(self, session_id: str, at: int) -> Undone: ...

    def changed_since(self, session_id: str, at: int) -> list[str]: ...

    def copy(self, session_id: str, new_id: str) -> None: ...


class SubagentSource(Protocol):
    """Where the task tool's finished subagent runs wait for the session that asked (subagents.Subagents)."""

    def take(self) -> list[SubagentRun]: ...


class Elicitor(Protocol):
    """Asks the user an MCP server's question (elicitation) built from its schema: a short form in the REPL,
    declined with a line in -p. Returns an ElicitResult: {"action": "accept", "content": {...}}, or decline/cancel."""

    def __call__(self, server: str, message: str, schema: dict) -> dict: ...


class Ready(Protocol):
    """Makes the tool catalog ready before a turn (MCP servers still starting list their tools first)."""

    def before_turn(self, view: View) -> None: ...

    def before_calls(self, names: list[str], view: View) -> None:
        """Make the tools these calls name callable if they are on their way (a server still listing them)."""


class Inbox(Protocol):
    """What the user typed while the turn worked: the session takes it at each round boundary."""

    def take(self) -> list[str]:
        """The messages typed since the last take, oldest first (none: an empty list)."""


class TurnHooks(Protocol):
    """The hooks a session runs around its turns (turn.turnhooks.SessionHooks); a subclass gets a no-op for each."""

    def prompt(self, session_id: str, text: str, resumed: bool) -> list[str]:
        """What the hooks add after the user's message (kept apart from what was typed); raises Cancelled when a
        hook blocks it. A new turn begins."""
        return []

    def stop(self, session_id: str, answer: str) -> str | None:
        """The message that sends the model back to work once its answer is done, or None."""

    def compact(self, session_id: str, trigger: str) -> None:
        """A summary is about to be asked for ("manual": /compact)."""

    def end(self, session_id: str, reason: str = "other") -> None:
        """The session is over (ankit exits)."""


class NoHooks(TurnHooks):
    """A session without hooks (subagents, tests)."""


class KeyShare(Protocol):
    """Another reader of the terminal's keys (a running turn's type-ahead) that lets go while a question asks."""

    def paused(self) -> AbstractContextManager[None]:
        """Inside, the keys are the question's alone."""


class Judge(Protocol):
    """Answers a `"type": "prompt"` hook: the model's reply to one question, as text (turn.judge.ModelJudge)."""

    def __call__(self, prompt: str, timeout: float) -> str: ...
