"""The conversation: the history and its edits (ankit/turn/conversation.py)."""

import pytest

from ankit.errors import AnkitError
from ankit.records import Message
from ankit.turn.conversation import Conversation


def talk() -> Conversation:
    conversation = Conversation()
    for text in ("first", "second"):
        conversation.add_user(text)
        conversation.messages.append(Message("assistant", f"answer to {text}"))
    return conversation


def test_kept_context_goes_after_the_typed_text_once():
    conversation = Conversation()
    conversation.add_context("$ ls\nREADME.md")
    conversation.add_user("what is here?")
    conversation.add_user("and now?")
    assert [m.text for m in conversation.messages] == ["what is here?\n\n$ ls\nREADME.md", "and now?"]


def test_rewind_points_leave_out_summaries_and_stop_hook_messages():
    conversation = talk()
    conversation.messages.append(Message("user", "[Stop hook] run the tests"))
    conversation.append_summary(Message("user", "summary", summary=True), Message("assistant", "ok"))
    assert conversation.rewind_points() == [(0, "first"), (2, "second")]
    assert [m.text for m in conversation.live()] == ["summary", "ok"] and conversation.title == "first"


def test_cut_goes_back_to_a_user_message_only():
    conversation = talk()
    with pytest.raises(AnkitError, match="not a message of this conversation"):
        conversation.cut(1)
    conversation.told_overflow = True
    conversation.cut(2)
    assert [m.text for m in conversation.messages] == ["first", "answer to first"]
    assert not conversation.told_overflow and conversation.title == "first"


def test_drop_last_turn_and_last_sent():
    conversation = talk()
    assert conversation.last_sent() == "second"
    conversation.drop_last_turn()
    assert conversation.last_sent() == "first" and len(conversation.messages) == 2
    conversation.clear()
    assert conversation.messages == [] and conversation.last_sent() is None
