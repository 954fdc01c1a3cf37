"""Code mode: the run_code tool (tool.py), its bridge to a child process in the sandbox (bridge.py), the child
that runs the program (child.py, started as a module and importing nothing of ankit), and tools as Python stubs for
the program and the system prompt (stubs.py).

May import: ankit.tooling, ankit.safety, ankit.protocols, ankit.records, ankit.errors. Never discovery,
providers, the turn or the terminal.
"""
