"""The command line: argument parsing (main.py), the settings, trust and the mode chosen (start.py), the
subcommands (commands.py; routines.py runs due routines), `-p` and its output formats (oneshot.py,
scripting.py), and `ankit bundle` (bundle.py).

May import: anything below it (ankit.terminal, ankit.turn and lower). Nothing in ankit imports it but __main__.
"""

from ankit.cli.main import main

__all__ = ["main"]
