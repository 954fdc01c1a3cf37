"""What ankit keeps on disk between runs: session files (JSON Lines, appended, scrubbed).

May import: ankit.records, ankit.errors, ankit.usage. Never providers, terminal or the turn loop.
"""
