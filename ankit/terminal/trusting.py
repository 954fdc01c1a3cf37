"""The once-per-folder question: trust this folder's .ankit/ settings and tools, showing what they would add."""

import sys

from ankit.safety.visible import visible_line
from ankit.terminal.keys import Keys

QUESTION = "Trust this folder and apply them? [y/N] "


def ask_trust(cwd, lines: list[str], keys: Keys | None = None, ask=input) -> bool:
    """Show what the folder's .ankit/ would add and ask; only y trusts it (Enter, n, Ctrl-C or Ctrl-D do not).
    On a terminal one key answers, as approvals do; otherwise a typed line (y or yes)."""
    out = sys.stdout
    out.write(f"This folder ({visible_line(str(cwd))}) has project settings that can run code or send your keys "
              "elsewhere. If you trust it, ankit will:\n")
    for line in lines:
        out.write(f"  · {visible_line(line)}\n")
    out.flush()
    try:
        if keys is None:
            return ask(QUESTION).strip().lower() in ("y", "yes")
        with keys.cbreak():
            out.write(QUESTION)
            out.flush()
            trusted = keys.key().lower() == "y"
        out.write(("yes" if trusted else "no") + "\n")
        return trusted
    except (EOFError, KeyboardInterrupt):
        out.write("\n")
        return False
