"""A prompt's content blocks as a message, and a saved history as the updates that replay it (acp/content.py):
real files, the real @mention attacher and scrubber."""

from ankit.acp.content import file_path, prompt_message, replay
from ankit.records import Message, ToolCall, ToolResult
from ankit.safety.scrub import Scrubber
from tests.helpers import bundled

SECRET = "sk-test-SECRET-0123456789abcdef"


def test_text_blocks_join_and_a_file_link_is_attached_as_an_at_mention(tmp_path):
    (tmp_path / "app.py").write_text("x = 1\n")
    blocks = [{"type": "text", "text": "explain"}, {"type": "resource_link", "uri": (tmp_path / "app.py").as_uri(),
                                                      "name": "app.py"}, {"type": "text", "text": "please"}]
    message = prompt_message(blocks, tmp_path, True, Scrubber())
    assert message.text.startswith('explain @"app.py" please')
    assert message.text.endswith('<file path="app.py">\nx = 1\n</file>') and message.attached == ["app.py"]


def test_a_link_that_is_no_file_goes_as_a_link_and_a_missing_file_is_a_notice(tmp_path):
    blocks = [{"type": "resource_link", "uri": "https://example.com/spec", "name": "spec"},
              {"type": "resource_link", "uri": (tmp_path / "gone.txt").as_uri(), "name": "gone.txt"}]
    message = prompt_message(blocks, tmp_path, True, Scrubber())
    assert "[spec](https://example.com/spec)" in message.text
    assert message.notices == ['@gone.txt: no such file or folder; the message goes without it']


def test_an_embedded_resource_is_attached_scrubbed_and_capped(tmp_path):
    body = f"key = '{SECRET}'\n" + "y" * 50_000
    blocks = [{"type": "text", "text": "look"}, {"type": "resource", "resource": {
        "uri": (tmp_path / "conf.py").as_uri(), "text": body}}]
    message = prompt_message(blocks, tmp_path, True, Scrubber(values=[SECRET]))
    assert SECRET not in message.text and '<file path="conf.py">' in message.text
    assert "[... cut: the file has" in message.text and len(message.text) < 45_000


def test_images_go_where_the_model_takes_them_and_audio_is_a_notice(tmp_path):
    image = {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}
    taken = prompt_message([{"type": "text", "text": "see"}, image], tmp_path, True, Scrubber())
    assert [(i.media_type, i.data) for i in taken.images] == [("image/png", "iVBORw0KGgo=")]
    refused = prompt_message([image, {"type": "audio", "mimeType": "audio/wav", "data": "UklG"}], tmp_path, False,
                             Scrubber())
    assert refused.images == [] and "does not take images" in refused.text
    assert any("audio" in n for n in refused.notices) and any("images" in n for n in refused.notices)


def test_file_uris_only_name_local_files():
    assert str(file_path("file:///home/a%20b/c.py")) == "/home/a b/c.py"
    assert file_path("https://x/y") is None and file_path("file://elsewhere/etc/passwd") is None


def test_a_history_replays_as_messages_and_finished_tool_calls():
    tools = bundled()[0]
    messages = [Message("user", "read it\n\nhook text", added=["hook text"]),
                Message("assistant", "Reading.", tool_calls=[ToolCall("c1", "read_file", '{"path": "a.txt"}')]),
                Message("tool", results=[ToolResult("c1", "read_file", "1\thello")]),
                Message("assistant", "It says hello.")]
    updates = list(replay(messages, tools.get))
    assert [u["sessionUpdate"] for u in updates] == ["user_message_chunk", "agent_message_chunk", "tool_call",
                                                     "agent_message_chunk"]
    assert updates[0]["content"]["text"] == "read it"  # what the user typed, not what a hook added
    assert updates[2]["title"] == "read_file a.txt" and updates[2]["kind"] == "read"
    assert updates[2]["status"] == "completed" and updates[2]["content"][0]["content"]["text"] == "1\thello"
