"""The turn: the session and its round loop (session.py), the system prompt (prompt.py), fitting the history
to the window (window.py), compaction, the tool registry and its activated set (registry.py), the settings
commands tools reach through ctx.admin (admin.py), asking the model for MCP servers' search phrases
(phrasing.py), and the assembly of all of them (app.py).

May import: providers, discovery, skills, mcp, storage, routines, tooling, usage, context, settings, safety,
ankit.protocols, ankit.records, ankit.errors. Never ankit.terminal or ankit.cli: nothing here calls back up.
"""
