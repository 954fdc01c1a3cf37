"""Tokens and money: the per-round ledger, prices (prices.json and the config's own), and every usage report
(/usage, ankit usage, the status line).

May import: ankit.safety, ankit.settings, ankit.records, ankit.errors. Never providers, terminal or the turn loop.
"""
