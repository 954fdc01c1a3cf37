"""The pty helper the REPL tests use: the child runs on the pty as its own session, and pytest never forks."""

import os
import sys

from tests.pty_spawn import read_all, spawn_on_pty


def test_the_pty_helper_never_forks_this_multi_threaded_process(tmp_path):
    """pty.fork() here would fork pytest's threads too (Python 3.12+ warns that the child may deadlock)."""
    forks: list[int] = []
    watching = [True]
    os.register_at_fork(before=lambda: forks.append(1) if watching[0] else None)
    try:
        process, fd = spawn_on_pty([sys.executable, "-c", "import os, sys; print(os.isatty(0), os.getsid(0) == os.getpid())"],
                                   dict(os.environ), tmp_path)
        assert process.wait(timeout=30) == 0
        shown = read_all(fd)
        os.close(fd)
    finally:
        watching[0] = False
    assert forks == []
    assert shown.split() == [b"True", b"True"]  # on the pty, leading its own session
