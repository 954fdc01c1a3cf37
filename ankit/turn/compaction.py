"""/compact: the model summarizes the conversation so far; requests go on from the summary, the file keeps all."""

from ankit.errors import AnkitError, Cancelled, ConfigError
from ankit.records import Message
from ankit.turn.session import Session

INSTRUCTION = (
    "[ankit] The conversation is about to be compacted: write a summary that will replace everything above. "
    "Do not call any tool. Keep what is needed to go on: the user's goals and requests, decisions made, "
    "files and commands involved (with exact paths and names), what was done, what failed and why, and "
    "what is left to do. Be concise; use short bullet points.")
SUMMARY_HEAD = "[ankit] Summary of the conversation so far (the earlier messages were compacted):\n\n"
ACKNOWLEDGED = "Understood. I have the summary and will continue from there."


def compact(session: Session) -> str:
    """Ask the model for a summary and append it; later requests start there. Return the summary.

    The summary is a round like any other (the same plan, system prompt and tools, so its prefix stays cached)
    with the instruction after the history; its reply stays out of the history. The activated set is
    untouched. On failure or Ctrl-C the history is left as it was.
    """
    if session.provider is None:
        raise ConfigError("no provider is configured, so there is no model to write a summary")
    if not session.conversation.live():
        raise AnkitError("nothing to compact yet: the history is empty")
    session.hooks.compact(session.id, "manual")
    reply, error = session.side_round(Message("user", INSTRUCTION))  # a call in the reply is ignored, never run
    if isinstance(error, SystemExit):
        raise error
    if isinstance(error, Cancelled):
        error = Cancelled("compaction cancelled; the history is unchanged")
    elif error is not None:
        error = AnkitError(f"{error}; the history is unchanged")
    elif not reply.text.strip():
        error = AnkitError("the model returned no summary; the history is unchanged")
    else:  # the title stays the first message's, not the summary's
        session.conversation.append_summary(Message("user", SUMMARY_HEAD + reply.text.strip(), summary=True),
                               Message("assistant", ACKNOWLEDGED))
    session.save()
    if error is not None:
        raise error
    return reply.text
