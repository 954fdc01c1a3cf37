"""The event-stream reader, over in-memory streams and over a real HTTP response."""

import io
import urllib.request

from ankit.providers.sse import ServerEvent, read_events, read_lines
from conftest import fixture_bytes


class Trickle(io.RawIOBase):
    """A stream that hands out its bytes a few at a time, like a slow socket."""

    def __init__(self, data: bytes, size: int):
        self.data, self.size = data, size

    def readable(self):
        return True

    def read1(self, n=-1):
        piece, self.data = self.data[: self.size], self.data[self.size:]
        return piece

    read = read1


def events(data: bytes, size: int = 1 << 16) -> list[ServerEvent]:
    return list(read_events(Trickle(data, size)))


def test_data_lines_join_with_newlines_and_event_names_are_kept():
    assert events(b"event: add\ndata: one\ndata: two\n\ndata: three\n\n") == [
        ServerEvent("add", "one\ntwo"), ServerEvent("message", "three")]


def test_comments_id_and_retry_are_ignored():
    data = b": keep-alive\nid: 7\nretry: 1000\ndata: x\n\n:\n\n"
    assert events(data) == [ServerEvent("message", "x")]


def test_crlf_lf_and_cr_line_ends_read_alike():
    expected = [ServerEvent("e", "a\nb"), ServerEvent("message", "c")]
    for end in (b"\n", b"\r\n", b"\r"):
        data = end.join([b"event: e", b"data: a", b"data: b", b"", b"data: c", b"", b""])
        assert events(data) == expected, end


def test_crlf_split_across_reads_is_one_line_end():
    data = b"data: a\r\n\r\ndata: b\r\n\r\n"
    for size in range(1, 8):
        assert events(data, size) == [ServerEvent("message", "a"), ServerEvent("message", "b")], size


def test_final_event_without_blank_line_is_delivered():
    assert events(b"data: one\n\ndata: last") == [ServerEvent("message", "one"), ServerEvent("message", "last")]
    assert events(b"data: last\r") == [ServerEvent("message", "last")]


def test_field_rules_from_the_spec():
    # one leading space is removed, no more; a line without a colon is a field with an empty value
    data = b"data:  two spaces\ndata\ndata:x\n\nevent: lonely\n\n"
    assert events(data) == [ServerEvent("message", " two spaces\n\nx")]


def test_event_without_data_is_not_dispatched_and_its_name_does_not_leak():
    assert events(b"event: nothing\n\ndata: x\n\n") == [ServerEvent("message", "x")]


def test_byte_order_mark_and_multibyte_text_split_across_reads():
    data = "\ufeffdata: héllo ✓\n\n".encode()
    assert events(data, 3) == [ServerEvent("message", "héllo ✓")]


def test_read_lines_keeps_an_unended_last_line():
    assert list(read_lines(io.BytesIO(b"a\r\nb\rc\nd"))) == [b"a", b"b", b"c", b"d"]
    assert list(read_lines(io.BytesIO(b""))) == []


def test_reads_a_real_chunked_http_response_event_by_event(provider_server):
    provider_server.push("anthropic_text.sse")
    with urllib.request.urlopen(urllib.request.Request(provider_server.url, data=b"{}"), timeout=5) as response:
        got = list(read_events(response))
    assert [e.event for e in got] == ["message_start", "content_block_start", "ping", "content_block_delta",
                                      "content_block_delta", "content_block_stop", "message_delta", "message_stop"]
    assert got[3].data == '{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello"}}'
    assert fixture_bytes("anthropic_text.sse").count(b"\n\n") == len(got)
