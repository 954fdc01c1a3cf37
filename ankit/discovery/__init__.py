"""Finding tools: the catalog of groups (metadata, keywords, rules), the word index and its ranking, the
find_tools tool built on them, and eval-discovery, which measures that same ranking.

May import: ankit.tooling (the Tool record), ankit.records, ankit.errors. Never providers, terminal or session.
"""
