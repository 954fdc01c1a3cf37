"""Shared by the routine tools: the `ankit routine ...` command line a call stands for."""

import shlex


def shown(argv: list[str]) -> str:
    """The command line as the user would type it."""
    return "$ " + shlex.join(["ankit", *argv])
