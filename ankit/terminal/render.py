"""The terminal view: streamed reply text with light Markdown styling, tool lines, notices and the status line."""

import sys
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import TextIO

from ankit.protocols import View
from ankit.records import TodoList, ToolCall, ToolResult
from ankit.terminal.calls import call_summary, output_head, result_line, status_label, todo_lines
from ankit.terminal.live import ERASE_LINE, Live, Tail, clip, terminal_width  # noqa: F401 (ERASE_LINE, clip: shared)
from ankit.safety.visible import visible, wrap_note
from ankit.terminal.markdown import Markdown
from ankit.terminal.style import (  # noqa: F401 (shared: the views import them from here)
    BOLD, CODE, CYAN, DIM, GREEN, HEADING, RED, RESET, YELLOW, animated, paint, prompt_paint, use_colour)

SHOW_LIMIT = 8_000_000  # characters of one call's output kept for /show
SHOW_CALLS = 20  # calls kept for /show

@dataclass
class Output:
    """What one tool call printed, kept for /show: the live output as it came, else the result's text."""

    title: str
    pieces: list[str] = field(default_factory=list)
    size: int = 0

    def add(self, text: str) -> None:
        """Keep more output, up to SHOW_LIMIT characters."""
        if self.size < SHOW_LIMIT:
            self.pieces.append(text[: SHOW_LIMIT - self.size])
            self.size += len(self.pieces[-1])

    def text(self) -> str:
        """The whole kept output."""
        return "".join(self.pieces) + ("\n[… more output not kept]" if self.size >= SHOW_LIMIT else "")


class TerminalView(View):
    """What the REPL shows: the reply as it streams, tool lines with live output, notices, a dim status line."""

    def __init__(self, out: TextIO | None = None, colour: bool | None = None, spinner: bool | None = None,
                 wrap: bool | None = None):
        self.out = out or sys.stdout
        terminal = animated(self.out)
        self.colour = use_colour(self.out) if colour is None else colour
        self.wrap = terminal if wrap is None else wrap  # replies are word-wrapped on a terminal only
        self.markdown = self._markdown()
        self.at_line_start = True
        self.live = Live(self.out, self.colour) if (terminal if spinner is None else spinner) else None
        self.wait_label = ""  # set while a turn runs: the spinner comes back between rounds
        self.running: tuple[str, Tail] | None = None  # the tool call running now: its label and output tail
        self.outputs: deque[Output] = deque(maxlen=SHOW_CALLS)
        self._cr = ""  # a carriage return held back from the last reply piece
        self._typed: list[str] = []  # the footer's lines of what is typed while a turn runs
        self._status = ""  # the status line command's line, drawn under them while a turn runs
        self._footer_lock = threading.Lock()

    def waiting(self, label: str | None = None) -> None:
        """Show what ankit waits for (the model, or the tool running), on a terminal only, until the next output."""
        if label is not None:
            self.wait_label = label
        if self.live is None or not self.at_line_start:
            return
        if self.running is not None:
            self.live.start(*self.running)
        elif self.wait_label:
            self.live.start(self.wait_label)

    def done_waiting(self) -> None:
        """The turn is over: no live line until the next waiting(label)."""
        self.wait_label, self.running = "", None
        if self.live is not None:
            self.live.stop()

    def write(self, text: str) -> None:
        """Write and flush, remembering whether the cursor is at a line start."""
        if self.live is not None:
            self.live.stop()
        if text:
            # set first: a Ctrl-C landing right after the write must still find the cursor mid-line
            self.at_line_start = text.endswith("\n")
            if self.live is not None:  # above the footer, if one is shown
                self.live.write(text)
                return
            self.out.write(text)
            self.out.flush()

    def control(self, sequence: str) -> None:
        """A terminal mode's escape sequence (it shows nothing): written in turn with the live line's drawing."""
        if self.live is not None:
            self.live.write(sequence)
        else:
            self.out.write(sequence)
            self.out.flush()

    def footer(self, lines: list[str]) -> None:
        """Lines kept below the output until changed ([] takes them away), on a terminal only; each is cut to
        the width and holds nothing from outside ankit unmade visible. The status line's, if any, comes under."""
        with self._footer_lock:  # the typed keys' thread and the status line's both draw it
            self._typed = list(lines)
            if self.live is not None:
                self.live.footer(self._typed + ([self._status] if self._status else []))

    def status_footer(self, line: str) -> None:
        """The status line command's line under the footer's other lines ("" takes it away); cut and made
        visible already (terminal/statusline.py)."""
        with self._footer_lock:
            self._status = line
            if self.live is not None:
                self.live.footer(self._typed + ([line] if line else []))

    def _markdown(self) -> Markdown:
        # the width is read at each new line; layout on a terminal, whether or not NO_COLOR drops the colour
        return Markdown(self.colour, terminal_width if self.wrap else 0, layout=self.wrap)

    def width(self) -> int:
        """The columns a line may take: the terminal's width (80 when unknown) less one, kept free so a line that
        fills it is never wrapped again by the terminal or by line()."""
        return terminal_width() - 1

    def line(self, text: str = "", style: str = "") -> None:
        """Print one line on a fresh line; whatever outside text it holds is shown with controls visible; on a
        terminal a line wider than it breaks at spaces, never mid-word."""
        self.newline()
        self.write(paint(self._fitted(visible(text)), style, self.colour) + "\n")

    def _fitted(self, text: str) -> str:
        """ankit's own lines broken at spaces to the terminal's width (continued lines indented), on a terminal."""
        width = self.width() if self.wrap else 0
        if not width or all(len(line) <= width for line in text.split("\n")):
            return text
        return "\n".join("\n".join(wrap_note(line, width)) for line in text.split("\n"))

    def newline(self) -> None:
        """Move to a fresh line if the cursor is not at one."""
        if not self.at_line_start:
            self.write("\n")

    def text(self, delta: str) -> None:
        delta, self._cr = self._cr + delta, ""
        if delta.endswith("\r"):  # maybe half of a CR LF: decided with the next piece
            delta, self._cr = delta[:-1], "\r"
        self.write(self.markdown.feed(visible(delta)))

    def reply_end(self) -> None:
        self.write(self.markdown.feed(visible(self._cr)) + self.markdown.end())
        self._cr = ""
        self.markdown = self._markdown()  # an unclosed fence must not colour the next reply
        self.newline()

    def tool_start(self, call: ToolCall) -> None:
        self.line(f"· {call_summary(call, self.width() - 2)}", DIM)
        self.outputs.append(Output(call_summary(call, 200)))
        self.running = (status_label(call), Tail())
        self.waiting()

    def tool_output(self, text: str) -> None:
        running = self.running
        if running is not None:
            self.outputs[-1].add(text)
            running[1].feed(text)

    def tool_end(self, result: ToolResult) -> None:
        running, self.running = self.running, None
        output = self.outputs[-1] if self.outputs else None
        printed = running is not None and output is not None and bool(output.pieces)  # live output: a command's
        if output is not None and not printed:
            output.add(result.content)
        shown = result_line(result, self.width())
        self.line(shown, RED if result.is_error else DIM)
        if printed and not (result.is_error and "\n" in shown):  # a reason of several lines holds what it printed
            for line in output_head(output.text(), self.width()):
                self.line(line, DIM)
        self.waiting()  # the next round, or the next tool

    def inner_call(self, call: ToolCall, result: ToolResult) -> None:
        """A call a run_code program made: its two lines, as a direct call's, indented under the running call."""
        self.line(f"  · {call_summary(call, self.width() - 4)}", DIM)
        self.line("  " + result_line(result, self.width() - 2), RED if result.is_error else DIM)
        self.waiting()

    def todos(self, todos: TodoList) -> None:
        """The checklist after write_todos changed it, dim and compact."""
        for line in todo_lines(todos, self.width()):
            self.line(line, DIM)
        self.waiting()

    def notice(self, line: str) -> None:
        # only the label is yellow: yellow text is hard to read on a light background
        self.newline()
        label, text = "ankit:", self._fitted("ankit: " + visible(line))[len("ankit:"):]
        self.write(f"{paint(label, YELLOW, self.colour)}{text}\n")

    def status(self, line: str) -> None:
        """The dim line after a reply."""
        self.line(line, DIM)

    def error(self, line: str) -> None:
        """A failure, in one line."""
        self.line(f"ankit: {line}", RED)
