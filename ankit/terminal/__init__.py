"""The interactive terminal: the REPL loop, line input, slash commands, approvals, rendering of replies and
tool lines, word wrap, and the /context and /tools texts.

May import: anything below it (ankit.app, ankit.session and lower). Nothing imports ankit.terminal except cli,
ankit.oneshot (tool lines as the REPL shows them) and ankit.commands (the same listings as the slash commands).
"""
