"""The once-per-folder question: trust this folder's .ankit/ settings and tools, showing what they would add."""

import sys

from ankit.safety.visible import visible_line

QUESTION = "Trust this folder and apply them? [y/N] "


def ask_trust(cwd, lines: list[str], ask=input) -> bool:
    """Show what the folder's .ankit/ would add and ask; only y or yes trusts it (Enter, n or Ctrl-D do not)."""
    out = sys.stdout
    out.write(f"This folder ({visible_line(str(cwd))}) has project settings that can run code or send your keys "
              "elsewhere. If you trust it, ankit will:\n")
    for line in lines:
        out.write(f"  · {visible_line(line)}\n")
    out.flush()
    try:
        answer = ask(QUESTION)
    except (EOFError, KeyboardInterrupt):
        out.write("\n")
        return False
    return answer.strip().lower() in ("y", "yes")
