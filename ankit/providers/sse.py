"""The event-stream reader: server-sent events from a binary file-like object, as records."""

from collections.abc import Iterator
from dataclasses import dataclass

READ_SIZE = 65536
LINE_CAP = 32 * 1024 * 1024  # bytes of one line (MCP's cap): a server that never ends a line is stopped there


class LineTooLong(ValueError):
    """A line longer than LINE_CAP: the stream is not read further."""


@dataclass
class ServerEvent:
    """One dispatched event: its name ("message" when none was given) and its data lines joined by newlines."""

    event: str
    data: str


def read_lines(stream) -> Iterator[bytes]:
    """Yield lines without their ends; CRLF, LF and CR all end a line, and a last unended line is kept."""
    read = getattr(stream, "read1", None) or stream.read
    parts: list[bytes] = []  # the unended line so far, joined only once a line end arrives
    held = 0
    while chunk := read(READ_SIZE):
        if b"\n" not in chunk and b"\r" not in chunk:
            parts.append(chunk)
            held += len(chunk)
            if held > LINE_CAP:
                raise LineTooLong(f"a line over {LINE_CAP // (1024 * 1024)} MB")
            continue
        held = 0
        data = b"".join(parts) + chunk
        # A CR at the very end may be the first half of a CRLF split across reads: keep it for the next round.
        cut = len(data) - 1 if data.endswith(b"\r") else len(data)
        *lines, rest = _split(data[:cut])
        parts = [rest + data[cut:]]
        yield from lines
    pending = b"".join(parts)
    if pending:
        lines = _split(pending[:-1] if pending.endswith(b"\r") else pending)
        if lines[-1] == b"":
            lines.pop()
        yield from lines


def _split(data: bytes) -> list[bytes]:
    """Split on CRLF, LF or CR; the last item is whatever follows the last line end (maybe b"")."""
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")


def read_events(stream) -> Iterator[ServerEvent]:
    """Yield the events of an event stream; comments, id and retry fields are ignored, an error field is
    an event named error."""
    name, data = "", []
    first = True
    for raw in read_lines(stream):
        line = raw.decode("utf-8", errors="replace")
        if first:
            line, first = line.removeprefix("\ufeff"), False
        if not line:
            if data:
                yield ServerEvent(name or "message", "\n".join(data))
            name, data = "", []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "data":
            data.append(value)
        elif field == "event":
            name = value
        elif field == "error":  # llama.cpp's server sends a failure as an `error: {...}` line: an error event
            name = "error"
            data.append(value)
    if data:  # a final event without its blank line is still delivered
        yield ServerEvent(name or "message", "\n".join(data))
