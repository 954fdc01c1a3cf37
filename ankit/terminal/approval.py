"""Asking the user before a tool that changes things runs: the preview, then yes / no / always / quit."""

import json
import re
from collections.abc import Callable

from ankit.errors import Cancelled
from ankit.safety.visible import visible, visible_line
from ankit.terminal.keys import Keys
from ankit.terminal.render import BOLD, CYAN, DIM, GREEN, RED, YELLOW, TerminalView, paint
from ankit.tooling.permissions import Permissions
from ankit.tooling.toolbox import Tool

# Characters a terminal draws as nothing (spaces of every width, the Braille blank): long runs of them, on a line
# or as blank lines, could push the part of a command that matters out of sight, so they are counted instead.
BLANK = "[ \t\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\u2800]"
LONG_BLANK = re.compile(BLANK + "{12,}")
BLANK_LINES = re.compile(r"\n(?:" + BLANK + r"*\n){3,}")

QUESTION = "[y]es / [N]o / [a]lways for this session / [q]uit turn / [r]efuse with a reason? "
# "reason": a no that asks why, for the model (e, the key an older ankit named "explain", still means it)
ANSWERS = {"y": "yes", "yes": "yes", "n": "no", "no": "no", "a": "always", "always": "always", "q": "quit",
           "quit": "quit", "r": "reason", "refuse": "reason", "e": "reason", "": "no"}
KEYS = {"y": "yes", "n": "no", "a": "always", "q": "quit", "r": "reason", "e": "reason", "\r": "no", "\n": "no",
        "\x04": "quit"}
WHY = "why not? (told to the model; Enter to skip) "


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


def wrapped(line: str, width: int) -> list[str]:
    """A line cut into pieces of at most width characters (never shortened: every character is shown)."""
    width = max(width, 20)
    return [line[i:i + width] for i in range(0, len(line), width)] or [""]


def shown_text(text: str, diff: bool = False) -> str:
    """Outside text as it is shown: controls visible, long runs of blanks and of blank lines counted rather than
    printed (a diff's lines are never blank: its blank context lines are kept)."""
    text = visible(text)
    if not diff:
        text = BLANK_LINES.sub(lambda m: f"\n[{m.group().count(chr(10)) - 1} blank lines]\n", text)
    return LONG_BLANK.sub(lambda m: f"[{len(m.group())} blanks]", text)


def preview_lines(tool: Tool, args: dict, preview: str, colour: bool, width: int = 80) -> list[str]:
    """The lines shown before the question: the tool, then its preview (a diff in colour) or its arguments.

    Everything comes from the model or the files, so it goes through visible(); nothing is cut: long lines
    wrap onto continuation lines marked with ↪.
    """
    text = preview.rstrip("\n") or json.dumps(args, indent=2, ensure_ascii=False)
    diff = looks_like_diff(text)
    lines = [paint(f"{visible_line(tool.name)} wants to run:", BOLD, colour)]
    for line in shown_text(text, diff).split("\n"):
        if line.startswith("NOTE:"):  # only the label is yellow, which is hard to read on a light background
            style, head, line = "", paint("NOTE:", YELLOW, colour), line[5:]
        else:
            style, head = (diff_style(line) if diff else BOLD if line.startswith("$ ") else ""), ""
        for number, piece in enumerate(wrapped(line, width - 4)):
            lines.append(("  " if number == 0 else "  ↪ ") + (head if number == 0 else "") + paint(piece, style, colour))
    return lines


class Approver:
    """The REPL's approval callback: shows the preview and asks; 'always' is remembered narrowly (a shell
    command's program and subcommand, a web origin) in the permissions for the rest of the session."""

    def __init__(self, view: TerminalView, ask: Callable[[str], str], yes: bool = False, keys: Keys | None = None,
                 permissions: Permissions | None = None):
        self.view = view
        self.ask = ask
        self.yes = yes
        self.keys = keys  # on a terminal: answers are single keys, reasons are edited lines
        self.permissions = permissions if permissions is not None else Permissions()

    def __call__(self, tool: Tool, args: dict, preview: str) -> bool | str:
        """True to run the call, False (or the user's reason) to decline it; raises Cancelled to stop the turn."""
        if self.yes:  # the settings' rules and earlier [a]lways answers were applied before asking (toolbox._gate)
            return True
        self.view.newline()
        for line in preview_lines(tool, args, preview, self.view.colour, self.view.width()):
            self.view.write(line + "\n")
        answer, reason = self._answer()
        if answer == "no":
            return reason or False
        if answer == "always":
            covered = self.permissions.remember(tool.name, args)
            self.view.line(f"approved for the rest of this session: {covered}", DIM)
        if answer == "quit":
            raise Cancelled("cancelled at the approval prompt")
        self.view.waiting()  # the live line of the call, now running
        return answer in ("yes", "always")

    def _answer(self) -> tuple[str, str]:
        """The answer, and the reason given with a no ("" when none)."""
        try:
            answer, reason = self._key() if self.keys is not None else self._typed()
            if answer == "reason" or (answer == "no" and reason is None):
                reason = self._reason(reason or "")
        except EOFError:  # Ctrl-D: the prompt has moved to a fresh line
            self.view.at_line_start = True
            return "quit", ""
        return ("no" if answer == "reason" else answer), reason or ""

    def _key(self) -> tuple[str, str | None]:
        """A single key; after n, a further key other than Enter starts the reason."""
        while True:
            with self.keys.cbreak():
                self.view.write(paint(QUESTION, BOLD, self.view.colour))
                key = self.keys.key()
            answer = KEYS.get(key.lower())
            if answer is None:
                self.view.write("\n")
                self.view.line("press y, n, a, q or r (Enter: no)", DIM)
                continue
            self.view.write(("refuse" if answer == "reason" else answer) + "\n")
            if key.lower() != "n":
                return answer, ""
            return answer, None  # a reason may follow

    def _typed(self) -> tuple[str, str]:
        """A typed line (not a terminal): "n because ..." carries its reason."""
        while True:
            reply = self.ask(paint(QUESTION, BOLD, self.view.colour)).strip()
            self.view.at_line_start = True  # the user's Enter ended the line
            word, _, rest = reply.partition(" ")
            answer = ANSWERS.get(word.lower())
            if answer is not None and (not rest or answer == "no"):
                return answer, rest.strip()
            self.view.line("answer y, n, a, q or r", DIM)

    def _reason(self, typed: str) -> str:
        """The reason for a no, read with line editing (Enter alone gives none)."""
        if self.keys is None:
            reason = self.ask(WHY).strip() if not typed else typed
        else:
            self.view.at_line_start = False  # until the line is ended with Enter
            reason = self.keys.line(WHY, typed).strip()
        self.view.at_line_start = True
        return reason
