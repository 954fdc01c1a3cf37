"""The turn: the session's round loop (session.py), the history and its edits (conversation.py), the hooks
around a turn (turnhooks.py), the system prompt (prompt.py), fitting the history to the window (window.py),
compaction, the tool registry and its activated set (registry.py), the settings commands tools reach through
ctx.admin (admin.py), asking the model for MCP servers' search phrases (phrasing.py), and the assembly of all
of them (app.py) and of one session (wiring.py).

May import: providers, discovery, skills, mcp, storage, routines, tooling, usage, context, settings, safety,
ankit.protocols, ankit.records, ankit.errors. Never ankit.terminal or ankit.cli: nothing here calls back up.
"""
