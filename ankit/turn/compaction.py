"""/compact: the model summarizes the conversation so far; requests go on from the summary, the file keeps all."""

import time

from ankit.errors import AnkitError, Cancelled, ConfigError
from ankit.records import Message, Request, Usage
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

    The request carries the same system prompt and tools as a normal round, so its prefix stays cached.
    The activated set is untouched. On failure or Ctrl-C the history is left as it was.
    """
    if session.provider is None:
        raise ConfigError("no provider is configured, so there is no model to write a summary")
    if not session.live():
        raise AnkitError("nothing to compact yet: the history is empty")
    request, tools = session.request()
    request.messages = [*request.messages, Message("user", INSTRUCTION)]
    session.check_budget(request, tools)
    started = time.monotonic()
    text, usage, error = _summary(session, request)
    session.record_single_round(usage, tools, started)
    if error is None and not text.strip():
        error = AnkitError("the model returned no summary; the history is unchanged")
    if error is None:  # the title stays the first message's, not the summary's
        session.append_summary(Message("user", SUMMARY_HEAD + text.strip(), summary=True),
                               Message("assistant", ACKNOWLEDGED))
    session.save()
    if error is not None:
        raise error
    return text


def _summary(session: Session, request: Request) -> tuple[str, Usage, AnkitError | None]:
    """Stream the summary to the view; a cut stream or Ctrl-C comes back as the error.

    A tool call in the reply (the model was asked not to make one) is ignored, never run.
    """
    reply, usage, error = session.stream_reply(request)
    if isinstance(error, Cancelled):
        error = Cancelled("compaction cancelled; the history is unchanged")
    elif error is not None:
        error = AnkitError(f"{error}; the history is unchanged")
    return reply.text, usage, error
