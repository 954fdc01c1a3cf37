"""The phrases a model writes for a server's tools: the question, reading its answer, the store, the search."""

import json

from ankit.discovery.catalog import build_catalog
from ankit.discovery.index import Index
from ankit.discovery.phrases import LONGEST, PER_TOOL, PhraseStore, question, read_answer
from ankit.tooling.toolbox import Tool


def server_tools() -> list[Tool]:
    schema = {"type": "object", "properties": {"query": {"type": "string"}}}
    return [Tool("mcp__db__read_query", "Execute a SELECT query on the SQLite database", schema, lambda a: "",
                 group="mcp:db"),
            Tool("mcp__db__list_tables", "List all tables in the SQLite database", {}, lambda a: "", group="mcp:db")]


def test_the_question_names_the_server_and_lists_each_tool_by_its_own_name():
    text = question("db", "db", server_tools())
    assert text.startswith('For each tool of the MCP server "db" below, write up to 8 short requests')
    assert text.endswith("Tools:\n- read_query: Execute a SELECT query on the SQLite database (parameters: query)\n"
                         "- list_tables: List all tables in the SQLite database (parameters: none)")


def test_an_answer_is_read_from_its_first_json_object_and_kept_within_bounds():
    answer = ("Sure! Here you go:\n```json\n" + json.dumps({
        "read_query": ["top 10 customers by revenue", "top 10 customers by revenue", "rows\x1b[31m in\nusers",
                       42, "x" * 500, *[f"ask {n}" for n in range(20)]],
        "drop_everything": ["not a tool of this server"],
        "list_tables": "not a list"}) + "\n```\nAnything else?")
    found = read_answer(answer, ["read_query", "list_tables"])
    assert list(found) == ["read_query"]  # unknown names and non-lists are dropped
    kept = found["read_query"]
    assert kept[:3] == ["top 10 customers by revenue", "rows^[[31m in users", "x" * LONGEST] and len(kept) == PER_TOOL
    assert read_answer("I cannot help with that.", ["read_query"]) == {}
    assert read_answer('Use {braces} like this: {"read_query": ["rows in users"]}', ["read_query"]) == \
        {"read_query": ["rows in users"]}
    assert read_answer("[" * 100_000 + '{"read_query": ["deep"]}', ["read_query"]) == {"read_query": ["deep"]}
    assert read_answer('{"read_query": ["unfinished', ["read_query"]) == {}


def test_the_store_keeps_phrases_per_tool_list_and_a_changed_list_asks_again(tmp_path):
    store, tools = PhraseStore(tmp_path / "phrases"), server_tools()
    assert store.load("db", "db", tools) is None
    PhraseStore(tmp_path / "phrases").save("db", "db", tools, {"read_query": ["rows in users"]})  # another ankit
    assert store.load("db", "db", tools) == {"read_query": ["rows in users"]}
    store.save("db", "db", tools, {"read_query": ["top 10 customers by revenue"]})
    assert store.load("db", "db", tools) == {"read_query": ["top 10 customers by revenue"]}
    assert store.attach("db", "db", tools) == 1 and tools[0].phrases == ["top 10 customers by revenue"]
    changed = server_tools()
    changed[0].description = "Run a read-only SQL query"
    assert store.load("db", "db", changed) is None  # another tool list: its phrases are asked anew
    next(store.folder.glob("*.json")).write_text("{not json")
    assert PhraseStore(tmp_path / "phrases").load("db", "db", tools) is None  # a damaged file is no entry


def test_a_tools_phrases_are_searched_and_never_sent_to_the_model():
    tools = server_tools()
    plain = Index(build_catalog(tools)[0], tools)
    assert "mcp__db__read_query" not in [n for n, _ in plain.rank_tools("top 10 customers by revenue", 5)]
    tools[0].phrases = ["top 10 customers by revenue", "monthly sales totals"]
    index = Index(build_catalog(tools)[0], tools)
    assert index.rank_tools("top 10 customers by revenue", 5)[0][0] == "mcp__db__read_query"
    assert tools[0].spec().description == "Execute a SELECT query on the SQLite database"
