"""Asking the user before a tool that changes things runs: the preview, then yes / no / always / quit."""

import json
import shutil
from collections.abc import Callable
from contextlib import nullcontext

from ankit.errors import Cancelled
from ankit.safety.policy import Policy
from ankit.safety.visible import visible, visible_line, wrap_note
from ankit.terminal.keys import Keys
from ankit.terminal.notify import Notifier
from ankit.terminal.render import BOLD, CYAN, DIM, GREEN, RED, YELLOW, TerminalView, paint
from ankit.terminal.screen import collapse, fit
from ankit.tooling.tool import Tool

QUESTION = "[y]es / [N]o / [a]lways for this session / [q]uit turn / [r]efuse with a reason? "
# "reason": a no that asks why, for the model (e, the key an older ankit named "explain", still means it)
ANSWERS = {"y": "yes", "yes": "yes", "n": "no", "no": "no", "a": "always", "always": "always", "q": "quit",
           "quit": "quit", "r": "reason", "refuse": "reason", "e": "reason", "": "no"}
KEYS = {"y": "yes", "n": "no", "a": "always", "q": "quit", "r": "reason", "e": "reason", "\r": "no", "\n": "no",
        "\x04": "quit"}
RESERVED_ROWS = 4  # the header, the line saying what [a]lways covers, the question and the line typed after it
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


def preview_lines(tool: Tool, args: dict, preview: str, colour: bool, width: int = 80, rows: int = 50) -> list[str]:
    """The lines shown before the question: the tool, then its preview (a diff in colour) or its arguments, laid
    out under the screen budget (terminal/screen.py): the preview's first lines up to its command (`$ ...`) always
    show, invisible runs are counted, and what does not fit is cut in the middle with a count.

    Everything comes from the model or the files, so it goes through visible() after the invisible runs are
    counted; long lines wrap onto continuation lines marked with ↪.
    """
    text = preview.rstrip("\n") or json.dumps(args, indent=2, ensure_ascii=False)
    diff = looks_like_diff(text)
    lines = [visible(line) for line in collapse(text, keep_blank_lines=diff)]
    cut = next((i + 1 for i, line in enumerate(lines) if line.startswith("$ ")), 1)
    rows_shown = fit(lines[:cut], lines[cut:], rows - RESERVED_ROWS, width)
    return [paint(f"{visible_line(tool.name)} wants to run:", BOLD, colour)] + [_styled(r, diff, colour) for r in rows_shown]


def _styled(row: str, diff: bool, colour: bool) -> str:
    """One shown row in its colour: a diff line's, a command's bold, a NOTE: label yellow."""
    lead, body = ("  ↪ ", row[4:]) if row.startswith("  ↪ ") else (row[:2], row[2:])
    if lead.strip() or not body.startswith("NOTE:"):
        style = diff_style(body) if diff and not lead.strip() else BOLD if body.startswith("$ ") else ""
        return lead + paint(body, style, colour)
    return lead + paint("NOTE:", YELLOW, colour) + body[5:]


def question_lines(question: str, width: int, room: int = len("refuse ")) -> str:
    """A question broken between its answers (" / ") to the width, leaving room after its last line for the answer:
    an answer ("[q]uit turn", "[r]efuse") is never split."""
    width, lines = max(width - room, 20), [""]
    for item in question.rstrip().split(" / "):
        if lines[-1] and len(f"{lines[-1]} / {item}") > width:
            lines[-1] += " /"
            lines.append(item)
        else:
            lines[-1] = f"{lines[-1]} / {item}" if lines[-1] else item
    return "\n".join(lines) + question[len(question.rstrip()):]


class Approver:
    """The REPL's approval callback: shows the preview and what [a]lways would cover, and asks; 'always' is
    remembered by the policy engine (ankit/safety/policy.py) as narrowly as it can be."""

    def __init__(self, view: TerminalView, ask: Callable[[str], str], yes: bool = False, keys: Keys | None = None,
                 policy: Policy | None = None, notify: Notifier | None = None):
        self.view = view
        self.ask = ask
        self.yes = yes
        self.keys = keys  # on a terminal: answers are single keys, reasons are edited lines
        self.policy = policy if policy is not None else Policy()
        self.notify = notify  # rings the terminal while a question waits

    def __call__(self, tool: Tool, args: dict, preview: str) -> bool | str:
        """True to run the call, False (or the user's reason) to decline it; raises Cancelled to stop the turn."""
        if self.yes:  # the settings' rules and earlier [a]lways answers were applied before asking (toolbox._gate)
            return True
        with self.keys.cbreak() if self.keys is not None else nullcontext():  # the keys are the question's alone
            self.view.newline()  # from its first line to its answer and reason
            rows = shutil.get_terminal_size((80, 24)).lines
            for line in preview_lines(tool, args, preview, self.view.colour, self.view.width(), rows):
                self.view.write(line + "\n")
            covers = self.policy.coverage(tool.name, args, tool.exact_grant(args, None))
            covered = "\n".join(wrap_note(visible_line(f"[a]lways covers: {covers}"), self.view.width()))
            self.view.write(paint(covered, DIM, self.view.colour) + "\n")
            if self.notify is not None:
                self.notify.approval(visible_line(tool.name))
            answer, reason = self._answer()
        if answer == "no":
            return reason or False
        if answer == "always":
            covered = self.policy.remember(tool.name, args, tool.exact_grant(args, None))
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
        """A single key meant for the question (keys.answer); after n, a further key other than Enter starts the
        reason."""
        self.view.at_line_start = False  # the question is on the line until it is answered
        head, _, last = question_lines(QUESTION, self.view.width()).rpartition("\n")
        if head:
            self.view.write(paint(head, BOLD, self.view.colour) + "\n")
        key = self.keys.answer(paint(last, BOLD, self.view.colour), KEYS, "press y, n, a, q or r (Enter: no)")
        answer = KEYS[key]
        self.view.write(("refuse" if answer == "reason" else answer) + "\n")
        return answer, (None if key == "n" else "")  # after n a reason may follow

    def _typed(self) -> tuple[str, str]:
        """A typed line (not a terminal): "n because ..." carries its reason."""
        while True:
            reply = self.ask(paint(question_lines(QUESTION, self.view.width()), BOLD, self.view.colour)).strip()
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
