"""MCP tool definitions and results turned into ankit tools and text."""

import base64
import re

import pytest

from ankit.errors import ToolError
from ankit.mcp.tools import content_text, exposed_name, make_tools, object_schema, result_text
from ankit.records import ToolCall
from ankit.tooling.schema import check_schema
from ankit.tooling.toolbox import ToolContext, run_call

VALID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def test_plain_names_read_as_server_and_tool():
    assert exposed_name("time", "get_current_time", set()) == "mcp__time__get_current_time"


def test_bad_characters_become_underscores():
    assert exposed_name("my.server", "files/read v2", set()) == "mcp__my_server__files_read_v2"


def test_long_names_are_cut_with_a_hash_and_stay_distinct():
    taken: set[str] = set()
    first = exposed_name("srv", "a" * 80 + "_one", taken)
    taken.add(first)
    second = exposed_name("srv", "a" * 80 + "_two", taken)
    assert VALID.match(first) and VALID.match(second) and first != second
    assert first.startswith("mcp__srv__aaa") and len(first) == 64


def test_a_taken_name_gets_a_hash():
    taken = {"mcp__s__a_b"}
    name = exposed_name("s", "a.b", taken)
    assert name != "mcp__s__a_b" and VALID.match(name) and name.startswith("mcp__s__a_b_")


def test_object_schema_repairs_what_providers_reject():
    fixed = object_schema({"type": "string", "properties": {"ok": {"type": "string"}, "bad": 3},
                           "required": ["ok", "missing"], "$schema": "x", "additionalProperties": False})
    assert fixed == {"type": "object", "properties": {"ok": {"type": "string"}}, "required": ["ok"],
                     "additionalProperties": False}
    assert object_schema(None) == {"type": "object", "properties": {}}
    assert object_schema({"properties": []}) == {"type": "object", "properties": {}}
    for schema in (fixed, object_schema(None), object_schema({"required": ["x"]})):
        assert check_schema(schema) is None


def test_text_content_is_joined():
    result = {"content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]}
    assert result_text(result) == "one\ntwo"


def test_binary_content_is_described_not_dumped():
    data = base64.b64encode(b"x" * 3000).decode()
    assert content_text({"type": "image", "data": data, "mimeType": "image/png"}) == \
        "[image: image/png, 2.9 KB, not shown]"
    assert content_text({"type": "audio", "data": base64.b64encode(b"ab").decode(), "mimeType": "audio/wav"}) == \
        "[audio: audio/wav, 2 bytes, not shown]"
    blob = {"type": "resource", "resource": {"uri": "file:///b", "mimeType": "application/zip",
                                             "blob": base64.b64encode(b"z" * 5).decode()}}
    assert content_text(blob) == "[resource file:///b: application/zip, 5 bytes, not shown]"
    assert data not in result_text({"content": [{"type": "image", "data": data, "mimeType": "image/png"}]})


def test_text_resources_links_and_unknown_blocks():
    text = {"type": "resource", "resource": {"uri": "file:///n.txt", "mimeType": "text/plain", "text": "hi"}}
    assert content_text(text) == "[resource file:///n.txt (text/plain)]\nhi"
    link = {"type": "resource_link", "uri": "file:///m.rs", "name": "m.rs"}
    assert content_text(link) == "[resource link: file:///m.rs (m.rs)]"
    assert content_text({"type": "hologram"}) == "[hologram content, not shown]"


def test_structured_only_and_empty_results():
    assert result_text({"content": [], "structuredContent": {"t": 1}}) == '{"t": 1}'
    assert result_text({"content": []}) == "(no output)"


def test_is_error_raises_with_the_servers_text():
    with pytest.raises(ToolError, match="^rate limited$"):
        result_text({"content": [{"type": "text", "text": "rate limited"}], "isError": True})


def specs():
    return [
        {"name": "look", "description": "Look around.", "annotations": {"readOnlyHint": True, "openWorldHint": False},
         "inputSchema": {"type": "object", "properties": {"where": {"type": "string"}}, "required": ["where"]}},
        {"name": "write", "title": "Writer", "inputSchema": {"type": "object"}},
        {"name": "write", "description": "A duplicate."},
        {"description": "No name."},
    ]


def test_make_tools_maps_annotations_groups_and_names():
    calls = []
    tools, problems = make_tools("fs", specs(), lambda name, args: calls.append((name, args)) or {}, trusted=True)
    look, write = tools
    assert [t.name for t in tools] == ["mcp__fs__look", "mcp__fs__write"]
    assert look.group == write.group == "mcp:fs"
    assert look.read_only and not look.needs_approval
    assert not write.read_only and write.needs_approval and write.description == "Writer"
    assert len(problems) == 2 and "second tool named 'write'" in problems[0]
    assert look.run({"where": "here"}, None) == "(no output)"
    assert calls == [("look", {"where": "here"})]
    assert "MCP server fs, tool write" in write.preview({"a": 1}, None)


def test_annotations_of_a_server_the_user_has_not_marked_are_claims_only():
    look, write = make_tools("fs", specs(), lambda name, args: {})[0]
    assert look.needs_approval and not look.read_only and look.claims == {"read"} and "run" in look.effects
    assert write.claims is None and write.effects == look.effects  # no annotations: it does everything


def test_a_label_replaces_the_server_name_in_exposed_names():
    tools, _ = make_tools("my server", specs()[:1], lambda n, a: {}, label="my_server_ab12")
    assert tools[0].name == "mcp__my_server_ab12__look" and tools[0].group == "mcp:my server"


def test_an_error_result_reaches_the_model_as_an_error():
    reply = {"content": [{"type": "text", "text": "disk full"}], "isError": True}
    tools, _ = make_tools("fs", specs()[:1], lambda name, args: reply)
    result = run_call(ToolCall("c1", tools[0].name, '{"where": "x"}'), tools[0], ToolContext(cwd="."),
                      approve=lambda tool, args, preview: True)
    assert result.is_error and "disk full" in result.content


def test_structured_content_is_the_value_for_run_code_programs_and_the_text_stays_the_models():
    from ankit.mcp.tools import result_value
    from ankit.records import ToolOutput
    assert result_value({"content": [], "structuredContent": {"t": 1}}) == ToolOutput('{"t": 1}', {"t": 1})
    told = result_value({"content": [{"type": "text", "text": "It is warm."}], "structuredContent": {"t": 1}})
    assert told == ToolOutput("It is warm.", {"t": 1})  # the model reads the text, a program gets the data
    assert result_value({"content": [{"type": "text", "text": "plain"}]}) == "plain"


def test_a_hostile_listing_from_a_real_server_is_capped_scrubbed_and_visible(tmp_path, monkeypatch):
    """A server whose tool description is 4 MB with escape sequences and a secret ankit knows."""
    from ankit.mcp.client import McpClient
    from tests.test_mcp_client import FAKE, SECRET
    import sys
    monkeypatch.setenv("FAKE_API_KEY", SECRET)
    client = McpClient("fake", sys.executable, [FAKE, "--hostile"], env={"FAKE_TOKEN": SECRET},
                       log_path=tmp_path / "fake.log")
    try:
        client.start(10)
        tools, problems = make_tools("fake", client.list_tools(30), lambda name, args: {})
    finally:
        client.close()
    echo = next(t for t in tools if t.name == "mcp__fake__echo")
    assert echo.description.startswith("Echo the text back. ^[]0;owned^G^[[2J^[]8;;http://evil^Gclick")
    assert "[redacted]" in echo.description and SECRET not in echo.description and "\x1b" not in echo.description
    assert len(echo.description) < 2100 and echo.description.endswith(" more characters cut]")


def test_a_tool_with_an_enormous_schema_is_left_out_in_one_line():
    specs = [{"name": "big", "inputSchema": {"type": "object", "properties": {
        f"p{i}": {"type": "string", "description": "x" * 100} for i in range(1000)}}}, {"name": "small"}]
    tools, problems = make_tools("srv", specs, lambda name, args: {})
    assert [t.name for t in tools] == ["mcp__srv__small"]
    assert problems == ["skipped tool 'big' of MCP server 'srv': its inputSchema is over 65,536 characters"]
