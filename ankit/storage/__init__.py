"""What ankit keeps on disk between runs: session files (JSON Lines, appended, scrubbed).

May import: ankit.usage, ankit.safety, ankit.settings, ankit.records, ankit.errors. Never providers, terminal or the
turn loop.
"""
