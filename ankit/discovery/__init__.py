"""Finding tools: the catalog of groups (metadata, phrases, rules), the word index and its ranking, the
find_tools tool built on them, eval-discovery, which measures that same ranking, and the phrases a model writes
for servers' tools (the question, reading the answer, their store).

May import: ankit.tooling (the Tool record), ankit.safety (state files), ankit.records, ankit.errors. Never
providers, terminal or session: asking the model is the turn's (turn/phrasing.py).
"""
