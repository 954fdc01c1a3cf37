"""storage/lines: one message of a session file as a JSON object, and back."""

from ankit.records import Image, Message, ToolCall, ToolResult
from ankit.storage.lines import message_entry, message_from


def test_a_message_goes_to_a_line_and_back_whole_and_the_screen_summary_stays_out():
    message = Message("assistant", "hi", [ToolCall("c1", "read_file", '{"path": "a"}')], [], False, {"thinking": [1]},
                      [Image("image/png", "AAAA", "a.png")])
    assert message_from(message_entry(message)) == message
    result = Message("tool", results=[ToolResult("c1", "read_file", "text", False, "read a (1 line)")])
    entry = message_entry(result)
    assert "summary" not in entry["results"][0] and "opaque" not in entry and "images" not in entry
    assert message_from(entry).results[0].content == "text"
