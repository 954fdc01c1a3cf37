"""Settings: the config (config.py), its layers and how they merge (layers.py), workspace trust and its
fingerprints (trust.py) and the TOML editor that changes a config file in place (tomledit.py). Claude Code's
files are read in ankit/claude/ and merged here as layers.

May import: ankit.claude, ankit.safety, ankit.paths, ankit.records, ankit.errors. Never providers, tooling,
hooks, the turn or terminal.
"""
