"""`!command` lines: run in the shell by the user's own hand, output shown live and kept for the next message."""

import codecs
import os
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

from ankit.safety import processes
from ankit.safety.scrub import Scrubber
from ankit.safety.visible import visible
from ankit.tooling.toolbox import cap_output

CONTEXT_CAP = 10_000  # characters of a command's output kept for the model (head and tail)


def run_shell(command: str, cwd: Path, write: Callable[[str], None], scrub: Scrubber | None = None) -> tuple[str, int]:
    """Run the command with the shell, writing its output as it comes; return the output and the exit code.

    Known secrets are scrubbed from what is shown and returned, as from tool output.

    Ctrl-C stops the command's whole process group and returns what came so far with code 130.
    """
    decoder, stream = codecs.getincrementaldecoder("utf-8")("replace"), (scrub or Scrubber()).stream()
    chunks: list[str] = []
    proc = processes.spawn(["/bin/sh", "-c", command], cwd)
    try:  # nothing between the start and here: a Ctrl-C must find the command under the handler below
        while chunk := os.read(proc.stdout.fileno(), 4096):
            _show(stream.feed(decoder.decode(chunk)), chunks, write)  # a secret across two reads is seen whole
        code = proc.wait()
    except KeyboardInterrupt:
        _stop(proc)
        code = 130
    finally:
        proc.stdout.close()
    _show(stream.feed(decoder.decode(b"", final=True)) + stream.end(), chunks, write)
    return "".join(chunks), code


def _show(text: str, chunks: list[str], write: Callable[[str], None]) -> None:
    if text:
        chunks.append(text)
        write(visible(text))


def _stop(proc: subprocess.Popen) -> None:
    """End the command and everything it started."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
            proc.wait(timeout=2)
            return
        except ProcessLookupError:
            return
        except subprocess.TimeoutExpired:
            continue


def context_text(command: str, output: str, code: int) -> str:
    """What the model gets with the next message: the command, its exit code and capped output."""
    status = "stopped with Ctrl-C" if code == 130 else f"exit code {code}"
    body = cap_output(output.rstrip("\n"), CONTEXT_CAP) or "(no output)"
    return f"[ankit] Before this message the user ran a shell command ({status}):\n$ {command}\n{body}"
