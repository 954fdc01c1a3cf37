"""Tools at run time: the Tool record and its context (tool.py, which imports only records), loading tool
modules by path, checking arguments against their schemas, running a call (approval, hooks, time limit, output
cap, errors as results), the activated set of groups with its byte budget, and task calls' live output kept to
their own block (relay.py). Hooks and code mode have rooms of their own (ankit/hooks/, ankit/codemode/).

May import: ankit.hooks, ankit.claude, ankit.safety, ankit.settings, ankit.records, ankit.errors. Never
discovery, providers, terminal or the turn loop.
"""
