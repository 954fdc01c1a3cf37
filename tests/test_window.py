from ankit.records import Message, ToolCall, ToolResult
from ankit.turn.window import (context_window, fit_history, history_room, message_bytes, schema_budget, skills_budget,
                          tokens)


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


def test_budget_formula():
    assert schema_budget(1000, 100, 0) == 1000  # a quarter of a 4000-byte window
    assert schema_budget(1000, 500, 1500) == 500  # less room than the quarter
    assert schema_budget(1000, 900, 10**6) == 0


def test_context_window_lookup():
    assert context_window("claude-sonnet-4-5") == 200_000
    assert context_window("claude-sonnet-5-5") == 1_000_000
    assert context_window("gpt-4o-mini") == 128_000
    assert context_window("mystery") == 32_000
    assert context_window("claude-x", 8000) == 8000


def test_tokens_round_up_and_the_skills_list_gets_about_one_percent():
    assert [tokens(n) for n in (0, 1, 4, 5)] == [0, 1, 1, 2]
    assert skills_budget(200_000) == 8000  # 1% of the window, 4 characters a token


def test_history_room_is_the_window_less_the_reserve_and_the_fixed_part():
    assert history_room(1000, 100, 600) == 900 * 4 - 600
