"""Tools at run time: the Tool record and its context (tool.py, which imports only records), loading tool
modules by path, checking arguments against their schemas, running a call (approval, time limit, output cap,
errors as results), the activated set of groups with its byte budget, and code mode (run_code's tool, its bridge
to a child process in the sandbox, Python stubs of tools).

May import: ankit.safety, ankit.settings, ankit.records, ankit.errors. Never discovery, providers, terminal or the
turn loop.
"""
