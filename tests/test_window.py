from ankit.window import fit_history, message_bytes
from ankit.records import Message, ToolCall, ToolResult


def conversation():
    return [
        Message("user", "a" * 1000),
        Message("assistant", "", [ToolCall("1", "read_file", '{"path": "x"}')]),
        Message("tool", results=[ToolResult("1", "read_file", "b" * 1000)]),
        Message("assistant", "done"),
        Message("user", "second"),
        Message("assistant", "ok"),
    ]


def test_everything_kept_when_it_fits():
    kept, dropped = fit_history(conversation(), 10**6)
    assert dropped == 0 and len(kept) == 6


def test_oldest_turn_dropped_whole_with_its_tool_results():
    kept, dropped = fit_history(conversation(), 500)
    assert dropped == 4
    assert [m.role for m in kept] == ["user", "assistant"]
    assert kept[0].text == "second"


def test_last_turn_stays_even_when_too_big():
    messages = [Message("user", "x" * 5000)]
    assert fit_history(messages, 10) == (messages, 0)


def test_sizes_count_calls_and_results():
    assert message_bytes(Message("tool", results=[ToolResult("1", "n", "abc")])) > 3
