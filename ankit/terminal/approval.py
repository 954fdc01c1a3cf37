"""Asking the user before a tool that changes things runs: the preview, then yes / no / always / quit."""

import json
from collections.abc import Callable

from ankit.errors import Cancelled
from ankit.terminal.render import BOLD, CYAN, DIM, GREEN, RED, YELLOW, TerminalView, paint
from ankit.tooling.toolbox import Tool

QUESTION = "[y]es / [n]o / [a]lways for this session / [q]uit turn? "
ANSWERS = {"y": "yes", "yes": "yes", "n": "no", "no": "no", "a": "always", "always": "always",
           "q": "quit", "quit": "quit"}


def diff_style(line: str) -> str:
    """The colour of one line of a unified diff."""
    if line.startswith(("+++", "---")):
        return BOLD
    if line.startswith("+"):
        return GREEN
    if line.startswith("-"):
        return RED
    if line.startswith("@@"):
        return CYAN
    return ""


def looks_like_diff(text: str) -> bool:
    """Whether a preview is a unified diff."""
    return any(line.startswith("@@") for line in text.splitlines()) or "\n+++ " in "\n" + text


def preview_lines(tool: Tool, args: dict, preview: str, colour: bool) -> list[str]:
    """The lines shown before the question: the tool, then its preview (a diff in colour) or its arguments."""
    text = preview.rstrip("\n") or json.dumps(args, indent=2, ensure_ascii=False)
    diff = looks_like_diff(text)
    lines = [paint(f"{tool.name} wants to run:", BOLD, colour)]
    for line in text.splitlines():
        if line.startswith("NOTE:"):  # only the label is yellow, which is hard to read on a light background
            shown = paint("NOTE:", YELLOW, colour) + line[5:]
        else:
            shown = paint(line, diff_style(line) if diff else BOLD if line.startswith("$ ") else "", colour)
        lines.append("  " + shown)
    return lines


class Approver:
    """The REPL's approval callback: shows the preview and asks; remembers 'always' per tool for the session."""

    def __init__(self, view: TerminalView, ask: Callable[[str], str], yes: bool = False):
        self.view = view
        self.ask = ask
        self.yes = yes
        self.always: set[str] = set()

    def __call__(self, tool: Tool, args: dict, preview: str) -> bool:
        """True to run the call, False to decline it; raises Cancelled to stop the turn."""
        if self.yes or tool.name in self.always:
            return True
        self.view.newline()
        for line in preview_lines(tool, args, preview, self.view.colour):
            self.view.write(line + "\n")
        answer = self._answer()
        if answer == "always":
            self.always.add(tool.name)
            self.view.line(f"{tool.name} is approved for the rest of this session", DIM)
        if answer == "quit":
            raise Cancelled("cancelled at the approval prompt")
        self.view.waiting()  # the live line of the call, now running
        return answer in ("yes", "always")

    def _answer(self) -> str:
        while True:
            try:
                reply = self.ask(paint(QUESTION, BOLD, self.view.colour)).strip().lower()
            except EOFError:  # Ctrl-D
                return "quit"
            self.view.at_line_start = True  # the user's Enter ended the line
            if reply in ANSWERS:
                return ANSWERS[reply]
            self.view.line("answer y, n, a or q", DIM)
