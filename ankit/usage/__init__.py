"""Tokens and money: the per-round ledger, prices (prices.json and the config's own), every usage report
(/usage, ankit usage, the status line), and the meter every request to the model goes through (meter: max_cost
checked before it is sent, its cost recorded after).

May import: ankit.safety, ankit.settings, ankit.records, ankit.protocols, ankit.errors. Never providers, terminal or the turn loop.
"""
