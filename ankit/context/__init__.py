"""Project context: the project's instructions files (instructions.py) and @mentions expanded into a message
(mentions.py).

May import: ankit.settings, ankit.safety, ankit.records, ankit.errors. Never tooling, providers, the turn or
terminal.
"""
