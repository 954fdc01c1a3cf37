"""The once-per-folder question: trust this folder's .ankit/ settings and tools, showing what they would add.

The question is laid out under the screen budget (terminal/screen.py): each line is counted down to a few rows
(long invisible runs and long middles counted), the MCP servers, tool modules and changes come first, so what
the folder would start is on screen next to the question whatever its arguments hold.
"""

import shutil
import sys

from ankit.safety.visible import visible_line
from ankit.terminal.keys import Keys, confirm
from ankit.terminal.screen import collapse, fit

QUESTION = "Trust this folder and apply them? [y/N] "
ITEM_ROWS = 3  # rows one line of the folder's may take


def item(line: str, width: int) -> str:
    """One line of the folder's, its invisible runs counted, controls shown, cut in the middle to ITEM_ROWS rows."""
    text = visible_line("⏎".join(collapse(line, keep_blank_lines=True)))
    room = max(ITEM_ROWS * (width - 6), 60)
    if len(text) <= room:
        return text
    hidden = len(text) - room
    return f"{text[: room // 2]}[… {hidden:,} characters not shown …]{text[-(room // 2):]}"


def trust_lines(cwd, lines: list[str], changes: list[str], width: int, rows: int) -> list[str]:
    """What the question shows above itself, within `rows` rows."""
    head = [f"This folder ({visible_line(str(cwd))}) has project settings that can run code or send your keys "
            "elsewhere. If you trust it, ankit will:"]
    if changes:
        head = [f"This folder ({visible_line(str(cwd))}) changed since you trusted it:"]
        head += [f"· {item(c, width)}" for c in changes] + ["If you trust it as it is now, ankit will:"]
    risky = [f"· {item(line, width)}" for line in lines if not line.startswith("set ")]
    settings = [f"· {item(line, width)}" for line in lines if line.startswith("set ")]
    return fit(head + risky, settings, rows, width)


def ask_trust(cwd, lines: list[str], keys: Keys | None = None, ask=input, changes: list[str] = ()) -> bool:
    """Show what the folder's .ankit/ would add (and what changed) and ask; only y trusts it (Enter, n, Ctrl-C or
    Ctrl-D do not). On a terminal one key meant for it answers, as approvals do; otherwise a typed line (y or
    yes)."""
    out = sys.stdout
    size = shutil.get_terminal_size((80, 24))
    for row in trust_lines(cwd, lines, list(changes), size.columns, size.lines - 2):
        out.write(row[2:] if row.startswith("  ") and not row.startswith("  ↪") else row)
        out.write("\n")
    out.flush()
    try:
        return confirm(QUESTION, keys, ask)
    except (EOFError, KeyboardInterrupt):
        out.write("\n")
        return False
