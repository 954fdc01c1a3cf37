"""Routines: recurring prompts and page watches kept by `ankit routine`, their schedules and when they are due.

The clock is always handed in (a datetime), so what is due at any moment can be tested. Running a routine
(a one-shot turn, a fetch) is the caller's business (ankit.cli.commands).

May import: ankit.errors, ankit.paths. Never app, session, providers or terminal.
"""
