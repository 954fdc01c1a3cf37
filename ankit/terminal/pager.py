"""Long text through a pager: $PAGER, else `less -R` when installed, else printed as it is."""

import os
import shlex
import shutil
import signal
import subprocess
from typing import TextIO

from ankit.errors import AnkitError
from ankit.safety import processes
from ankit.safety.visible import visible
from ankit.terminal.render import animated


def pager_command(environ=os.environ) -> list[str] | None:
    """The pager to run, or None to print."""
    if environ.get("PAGER", "").strip():
        return shlex.split(environ["PAGER"])
    return ["less", "-R"] if shutil.which("less") else None


def page(text: str, out: TextIO, rows: int, terminal: bool) -> None:
    """Show text: through the pager when it is longer than the screen (on a terminal), else printed."""
    command = pager_command() if terminal and text.count("\n") + 1 >= rows - 1 else None
    if command is not None:
        out.flush()
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C belongs to the pager meanwhile
        try:
            pager = processes.spawn(command, stdin=subprocess.PIPE, stdout=None, stderr=None, terminal=True)
            pager.communicate(text.encode("utf-8", "replace"))
            return
        except OSError:  # no such pager: printed instead
            pass
        finally:
            signal.signal(signal.SIGINT, previous)
    out.write(text if text.endswith("\n") else text + "\n")
    out.flush()


def show(view, arg: str) -> None:
    """/show [N]: the whole output of the Nth-last tool call the view kept (the last by default)."""
    outputs = view.outputs
    if not outputs:
        raise AnkitError("no tool has run in this session yet")
    if arg and not (arg.isdigit() and 1 <= int(arg) <= len(outputs)):
        raise AnkitError(f"/show N: N from 1 (the last call) to {len(outputs)}")
    output = outputs[-int(arg or 1)]
    view.newline()
    rows = shutil.get_terminal_size((80, 24)).lines
    page(f"{output.title}\n{visible(output.text())}", view.out, rows, animated(view.out))
