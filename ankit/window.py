"""Fitting the history into the model's window by dropping the oldest turns whole."""

from ankit.records import Message


def message_bytes(message: Message) -> int:
    """An estimate of a message's size on the wire, in bytes."""
    size = len(message.text.encode()) + 16
    for call in message.tool_calls:
        size += len(call.name) + len(call.arguments.encode()) + 48
    for result in message.results:
        size += len(result.content.encode()) + 48
    return size


def turn_starts(messages: list[Message]) -> list[int]:
    """Indexes of the user messages that open a turn."""
    return [i for i, m in enumerate(messages) if m.role == "user"]


def fit_history(messages: list[Message], room: int) -> tuple[list[Message], int]:
    """Drop the oldest whole turns until the rest fits in room bytes; the last turn always stays.

    Returns the kept messages and how many were dropped. Dropping whole turns keeps every
    tool call next to its result.
    """
    sizes = [message_bytes(m) for m in messages]
    total = sum(sizes)
    start = 0
    for index in turn_starts(messages)[1:]:
        if total <= room:
            break
        total -= sum(sizes[start:index])
        start = index
    return messages[start:], start

