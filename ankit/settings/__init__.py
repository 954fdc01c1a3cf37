"""Settings: the config (config.py), its layers and how they merge (layers.py), workspace trust and its
fingerprints (trust.py) and the TOML editor that changes a config file in place (tomledit.py).

May import: ankit.safety, ankit.paths, ankit.records, ankit.errors. Never providers, tooling, the turn or terminal.
"""
