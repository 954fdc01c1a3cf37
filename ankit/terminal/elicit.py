"""An MCP server's question to the user (elicitation) as a short form in the REPL, built from its schema.

The server is named on the first line, its message shown with controls made visible; the user answers, declines
(n) or cancels (c, Ctrl-C) with one key meant for the question (terminal/keys.py); then one line per field, Enter
taking the default. Only flat schemas of strings, numbers, integers, booleans and enums exist in the protocol;
anything else is asked as a string.
"""

import threading

from ankit.errors import Cancelled
from ankit.protocols import Asker
from ankit.safety.visible import visible
from ankit.terminal.keys import EOF, Keys
from ankit.terminal.render import BOLD, DIM, TerminalView

FIRST = "answer it? [Y]es / [n]o (decline) / [c]ancel: "
CHOICES = {"": "accept", "y": "accept", "yes": "accept", "n": "decline", "no": "decline", "c": "cancel",
           "cancel": "cancel"}
KEYS = {"\r": "accept", "\n": "accept", "y": "accept", "n": "decline", "c": "cancel", EOF: "cancel"}


def field_value(raw: str, prop: dict, required: bool) -> tuple[object, str]:
    """A typed-in answer as the field's type (None: left out), or a line saying what to type instead."""
    raw = raw.strip()
    kind, choices = prop.get("type"), prop.get("enum")
    if not raw:
        if "default" in prop:
            return prop["default"], ""
        return None, "this one is needed" if required else ""
    if isinstance(choices, list) and choices:
        if raw.isdigit() and 1 <= int(raw) <= len(choices):
            return choices[int(raw) - 1], ""
        return (raw, "") if raw in choices else (None, f"one of: {', '.join(map(str, choices))}")
    if kind == "boolean":
        yes = raw.lower() in ("y", "yes", "true")
        return (yes, "") if yes or raw.lower() in ("n", "no", "false") else (None, "y or n")
    if kind in ("number", "integer"):
        try:
            number = int(raw) if kind == "integer" else float(raw)
        except ValueError:
            return None, "a whole number" if kind == "integer" else "a number"
        return number, ""
    return raw, ""


class FormElicitor:
    """Asks an MCP server's question on the terminal, one form at a time (servers may ask from several threads)."""

    def __init__(self, view: TerminalView, ask: Asker, keys: Keys | None = None):
        self.view = view
        self.ask = ask
        self.keys = keys  # on a terminal the first question takes one key meant for it; the fields are lines
        self._lock = threading.Lock()

    def __call__(self, server: str, message: str, schema: dict) -> dict:
        with self._lock:
            try:
                return self._form(server, message, schema)
            except (Cancelled, KeyboardInterrupt, EOFError):
                return {"action": "cancel"}

    def _form(self, server: str, message: str, schema: dict) -> dict:
        self.view.line(f"MCP server {visible(server)} asks: {visible(message)}", BOLD)
        action = self._action()
        if action != "accept":
            return {"action": action}
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = schema.get("required") if isinstance(schema.get("required"), list) else []
        content = {}
        for name, prop in props.items():
            value = self._field(name, prop if isinstance(prop, dict) else {}, name in required)
            if value is not None:
                content[name] = value
        return {"action": "accept", "content": content}

    def _action(self) -> str:
        """accept, decline or cancel: one key meant for the question on a terminal, else a typed line."""
        if self.keys is not None:
            self.view.at_line_start = False  # the question is on the line until it is answered
            action = KEYS[self.keys.answer(FIRST, KEYS, "press y, n or c (Enter: yes)")]
            self.view.write(action + "\n")
            return action
        action = None
        while action is None:
            action = CHOICES.get(self.ask(FIRST).strip().lower())
        return action

    def _field(self, name: str, prop: dict, required: bool):
        label = visible(str(prop.get("title") or name))
        about = visible(str(prop.get("description") or ""))
        if isinstance(prop.get("enum"), list):
            about = (about + "; " if about else "") + " ".join(f"{i}) {visible(str(c))}"
                                                            for i, c in enumerate(prop["enum"], 1))
        default = f" [{visible(str(prop['default']))}]" if "default" in prop else ""
        if about:
            self.view.line(f"  {about}", DIM)
        while True:
            value, problem = field_value(self.ask(f"  {label}{'' if required else ' (optional)'}{default}: "),
                                         prop, required)
            if not problem:
                return value
            self.view.line(f"  {problem}", DIM)
