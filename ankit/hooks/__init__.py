"""Hooks: the user's commands run at points of a session with Claude Code's events and protocol (events.py),
read from config.toml and Claude Code's settings files (config.py), started with a capped reading of their
output (process.py), the CLAUDE_ENV_FILE a SessionStart hook writes (envfile.py), and PreToolUse and
PostToolUse around one tool call (toolcalls.py).

May import: ankit.claude, ankit.settings, ankit.safety, ankit.protocols, ankit.records, ankit.errors. Never
tooling (the tool runner calls hooks, not the other way round), the turn or the terminal.
"""
