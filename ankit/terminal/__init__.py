"""The interactive terminal: the REPL loop, line input, slash commands, approvals, rendering of replies and
tool lines, word wrap, and the /context and /tools texts.

May import: anything below it (ankit.turn and lower). Nothing imports ankit.terminal except ankit.cli: main,
oneshot (tool lines as the REPL shows them) and commands (the same listings as the slash commands).
"""
