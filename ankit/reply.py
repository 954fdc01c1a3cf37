"""One reply read from a provider's stream into a message, and how a cancelled round is told."""

from ankit.errors import Cancelled, StreamError
from ankit.records import Message, Notice, OpaqueData, Request, StreamEnd, TextDelta, ToolCallDone, Usage, UsageReport
from ankit.seams import Provider, View


def read_reply(provider: Provider, request: Request, view: View) -> tuple[Message, Usage, Exception | None]:
    """Stream one reply, its text shown on the view as it comes; a cut or a Ctrl-C keeps the partial text and
    comes back as the error."""
    reply, usage, error = Message("assistant"), Usage(), None
    try:
        for event in provider.stream(request):
            if isinstance(event, TextDelta):
                reply.text += event.text
                view.text(event.text)
            elif isinstance(event, ToolCallDone):
                reply.tool_calls.append(event.call)
            elif isinstance(event, UsageReport):
                usage = event.usage
            elif isinstance(event, OpaqueData):
                reply.opaque[event.kind] = event.data
            elif isinstance(event, Notice):
                view.notice(event.text)
            elif isinstance(event, StreamEnd):
                if event.stop_reason == "max_tokens":
                    view.notice(f"the reply reached max_tokens ({request.max_tokens:,} tokens) and was cut: say 'go on' "
                                f"for the rest, or raise max_tokens in the config")
                break
    except KeyboardInterrupt:
        error = Cancelled("cancelled; the partial reply is kept" if reply.text else "cancelled")
    except StreamError as exc:
        error = exc
    view.reply_end()
    if error is not None:
        # calls that will not run must not be sent back unanswered; half a thinking block would be refused
        reply.cut, reply.tool_calls, reply.opaque = True, [], {}
    return reply, usage, error


def cancel_message(head: str, ran: list[str], stopped: list[str], never: list[str]) -> str:
    """What a cancelled round did: which calls ran, which was stopped, which never started."""
    parts = [f"{kind}: {', '.join(names)}" for kind, names in
             (("ran", ran), ("stopped", stopped), ("never started", never)) if names]
    return f"{head} ({'; '.join(parts)})" if parts else head
