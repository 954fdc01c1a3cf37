"""Notifications: the terminal bell and the OSC 9 / OSC 777 desktop notification many terminals show, when a
long turn ends or an approval waits (setting `notify`: the seconds a turn takes before its end rings; 0 never).
Notification hooks hear the same messages."""

from dataclasses import dataclass, field
from typing import TextIO

from ankit.hooks.events import Hooks
from ankit.safety.visible import visible_line

TITLE = "ankit"


def sequence(message: str, title: str = TITLE) -> str:
    """The bell, then OSC 9 (iTerm2, WezTerm, Windows Terminal...) and OSC 777 (VTE terminals, foot, kitty...)."""
    text = visible_line(message).replace(";", ",")[:200]  # no control character may end the sequence early
    return f"\a\033]9;{text}\a\033]777;notify;{title};{text}\a"


@dataclass
class Notifier:
    """Rings the terminal (when it is one and notify is on) and runs the Notification hooks."""

    out: TextIO
    after: float = 30.0  # seconds a turn takes before its end rings; 0: never ring
    hooks: Hooks | None = None
    terminal: bool = field(default=False)

    def approval(self, what: str) -> None:
        """An approval waits for the user."""
        self._send(f"ankit needs your approval: {what}", "permission_prompt")

    def turn_done(self, seconds: float) -> None:
        """A turn ended; it rings when it took longer than `after` seconds."""
        if self.after > 0 and seconds >= self.after:
            self._send(f"ankit finished after {seconds:.0f} s", "idle_prompt")

    def _send(self, message: str, kind: str) -> None:
        if self.after > 0 and self.terminal:
            self.out.write(sequence(message))
            self.out.flush()
        if self.hooks is not None and self.hooks.active("Notification"):
            self.hooks.run("Notification", {"message": message, "title": TITLE, "notification_type": kind}, kind)
