"""Start a program on a fresh pseudo-terminal without forking the (multi-threaded) test process.

os.forkpty() and pty.fork() fork the whole pytest process, threads and all; Python 3.12+ warns that this may
deadlock. Here subprocess starts the child in a new session with the pty's slave as its standard streams, and
a tiny Python first makes the pty its controlling terminal (so Ctrl-C typed into it arrives as SIGINT, as on a
real terminal) and SIGINT's and SIGHUP's handling the default (pytest may run with them ignored), then execs
the program.
"""

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

_SETUP = ("import fcntl, os, signal, sys, termios\n"
          "fcntl.ioctl(0, termios.TIOCSCTTY, 0)\n"
          "signal.signal(signal.SIGINT, signal.SIG_DFL)\n"
          "signal.signal(signal.SIGHUP, signal.SIG_DFL)\n"
          "os.execv(sys.argv[1], sys.argv[1:])\n")


def spawn_on_pty(argv: list[str], env: dict, cwd: Path, rows: int = 50, cols: int = 200) -> tuple[subprocess.Popen, int]:
    """Run argv (argv[0] an absolute path) on a new pty of rows x cols; return the process and the master fd."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    try:
        process = subprocess.Popen([sys.executable, "-I", "-S", "-c", _SETUP, *argv], env=env, cwd=cwd,
                                   stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
    except BaseException:
        os.close(master)
        raise
    finally:
        os.close(slave)
    return process, master


def read_all(fd: int, quiet: float = 0.5) -> bytes:
    """Everything the program writes to the pty until it closes it, or until nothing comes for `quiet` seconds."""
    shown = b""
    while select.select([fd], [], [], quiet)[0]:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the program exited and the pty closed
            break
        if not chunk:
            break
        shown += chunk
    return shown
