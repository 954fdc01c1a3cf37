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


def test_a_line_past_the_cap_stops_the_reader_instead_of_growing_without_end():
    import pytest
    from ankit.providers.sse import LINE_CAP, LineTooLong
    endless = io.BytesIO(b"data: " + b"x" * (LINE_CAP + 70_000))  # never a line end
    with pytest.raises(LineTooLong):
        list(read_lines(endless))
    assert list(read_lines(io.BytesIO(b"data: " + b"x" * 1000 + b"\n"))) == [b"data: " + b"x" * 1000]


def test_a_provider_stream_line_past_the_cap_is_one_clear_line(provider_server, tmp_path):
    from ankit.providers.sse import LINE_CAP
    from tests.test_oneshot import ankit
    provider_server.push([b"data: {\"choices\": [{\"delta\": {\"content\": \"" + b"A" * (LINE_CAP + 1024)])
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "hello")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].endswith("sent a stream line over 32 MB; ankit stopped reading it "
                                                         "(a broken or hostile server: check --base-url)")


def test_tool_call_arguments_past_the_cap_are_not_run_kept_or_sent_back(provider_server, tmp_path):
    import json
    from ankit.records import ARGUMENTS_CAP
    from tests.test_oneshot import ankit
    huge = json.dumps({"path": "big.txt", "content": "y" * (ARGUMENTS_CAP + 1000)})
    provider_server.push_openai(tool_calls=[("c1", "write_file", huge)])
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--yes", "-p", "write it")
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "work" / "big.txt").exists()
    second = provider_server.requests[1]
    assert len(second.body) < 100_000  # the 8 MB went nowhere: neither kept nor sent back
    [call] = second.json["messages"][-2]["tool_calls"]
    assert json.loads(call["function"]["arguments"]) == {"ankit_arguments_too_long": len(huge)}
    result = second.json["messages"][-1]["content"]
    assert result.startswith(f"Error: the arguments of this call were {len(huge):,} characters, over ankit's cap")


def test_anthropic_tool_call_arguments_past_the_cap_become_the_marker(provider_server):
    import json
    from ankit.records import ARGUMENTS_CAP
    from conftest import stream_round
    huge = json.dumps({"content": "z" * (ARGUMENTS_CAP + 10)})
    provider_server.push_anthropic(tool_calls=[("t1", "write_file", huge)])
    events, error = stream_round(provider_server, kind="anthropic")
    assert error is None
    [call] = [e.call for e in events if type(e).__name__ == "ToolCallDone"]
    assert json.loads(call.arguments) == {"ankit_arguments_too_long": len(huge)}
