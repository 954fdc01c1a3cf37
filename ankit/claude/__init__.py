"""Claude Code's file formats as ankit's: settings files and their permission rules translated into ankit's
rules (settings.py), MCP server lists (.mcp.json, Claude Desktop's and Claude Code's own files: mcp.py),
plugins added with `ankit plugin add` (plugins.py), the hooks JSON read once for running, listing and trust
(hooksjson.py), and ankit's tools as Claude Code names them, with their
input keys (toolnames.py, the one table hooks, permission rules and the docs read).

May import: ankit.safety, ankit.paths, ankit.records, ankit.errors, ankit.wording. Never settings, tooling,
hooks or anything above: settings builds its layers on what is read here.
"""
