"""`ankit acp`: ankit as an Agent Client Protocol agent (JSON-RPC 2.0, one message a line, on stdin and stdout),
another face of the same session as the REPL and -p.

The messages (wire), the methods and their sessions (agent), the prompt's content and a saved session replayed
(content), what the loop reports as session/update notifications (view), approvals as
session/request_permission (approver), the editor's files and terminals (editor), slash commands (commands)
and the loop that reads stdin (server). Each implements a seam of ankit/protocols.py; the session is never
patched.

May import: the turn (app, session) and everything below it, and of terminal/ (the same layer) only what runs
custom commands (command_run, slash's list of them); never cli/.
"""
