"""The interactive terminal: the REPL loop, line input, slash commands, approvals, rendering of replies and
tool lines, word wrap, and the /context and /tools texts.

May import: anything below it (ankit.app, ankit.session and lower). Nothing imports ankit.terminal except cli,
and ankit.commands, whose subcommands print the same listings as the slash commands (terminal.overview).
"""
