"""Python stubs of tools from their JSON Schemas (ankit/codemode/stubs.py): what find_tools and the system prompt
say of tools in code mode."""

import ast

from ankit.records import ToolSpec
from ankit.codemode.stubs import call_form, code_prompt, named, parameter_order, python_type, signature, stub, stubs
from tests.helpers import bundled

READ = ToolSpec("read_file", "Read a text file. Lines are numbered.", {
    "type": "object", "properties": {"offset": {"type": "integer"}, "path": {"type": "string"},
                                     "mode": {"enum": ["text", "bytes"]}, "tags": {"type": "array", "items": {"type": "string"}},
                                     "when": {"type": ["string", "null"]}, "odd-name": {"type": "string"}},
    "required": ["path"]})


def test_types_follow_the_schema():
    assert python_type({"type": "array", "items": {"type": "integer"}}) == "list[int]"
    assert python_type({"enum": ["a", "b"]}) == "Literal['a', 'b']"
    assert python_type({"type": ["string", "null"]}) == "str | None"
    assert python_type({"anyOf": [{"type": "number"}, {"type": "boolean"}]}) == "float | bool"
    assert python_type({"type": "object"}) == "dict" and python_type({}) == "object"


def test_a_signature_puts_required_parameters_first_and_names_python_cannot_spell_go_to_kwargs():
    assert signature(READ) == ("read_file(path: str, offset: int | None = None, mode: Literal['text', 'bytes'] | "
                               "None = None, tags: list[str] | None = None, when: str | None = None, **kwargs) -> "
                               "str | dict | list")
    assert parameter_order(READ.parameters) == ["path", "offset", "mode", "tags", "when"]  # as the signature


def test_a_signature_carries_defaults_and_the_return_type():
    spec = ToolSpec("git_log", "Show commits.", {"type": "object", "properties": {
        "max_count": {"type": "integer", "default": 20, "description": "How many. At most 500."}}},
        returns="list[dict]: one {'commit', 'subject'} per commit")
    assert signature(spec) == "git_log(max_count: int = 20) -> list[dict]"
    assert call_form(spec) == "tools.git_log(max_count) -> list[dict]: one {'commit', 'subject'} per commit"


def test_a_stub_is_valid_python_with_the_description_each_parameter_and_what_it_returns():
    text = stub(READ)
    tree = ast.parse("from typing import Literal\n" + text)
    function = tree.body[1]
    assert ast.get_docstring(function) == "Read a text file"
    whole = stub(ToolSpec("w", "Write a file. Makes folders.", {"type": "object", "properties": {
        "path": {"type": "string", "description": "Where. Relative."}}}, returns="str: what was written"), whole=True)
    assert ast.get_docstring(ast.parse(whole).body[0]) == "Write a file. Makes folders.\n\npath: Where\nReturns what was written."


def test_every_bundled_tool_gives_a_stub_python_parses():
    tools = bundled()[0]
    ast.parse(stubs([t.spec() for t in tools.values()], whole=True))


def test_the_prompt_names_tools_grouped_at_the_level_asked_without_those_already_sent():
    specs = [ToolSpec("read_file", "Read a text file. Lines are numbered.", {}, "core"),
             ToolSpec("run_code", "Run.", {}, "core"), ToolSpec("get_time", "Get the time. More words.", {}, "core"),
             ToolSpec("git_log", "Show commits.", {}, "git"), ToolSpec("git_status", "Show status.", {}, "git")]
    assert named(specs[3:], "none") == "git: git_log, git_status"
    assert named([specs[0], specs[2]], "first-sentence") == "core:\n- read_file: Read a text file\n- get_time: Get the time"
    assert named([specs[2]], "full") == "core:\n- get_time: Get the time. More words."
    prompt = code_prompt(specs, "none", only=True)
    assert prompt.endswith("Also:\ncore: read_file, get_time\ngit: git_log, git_status")
    assert "through run_code alone" in prompt and "those find_tools lists" in prompt
    beside = code_prompt(specs, "none", only=False, skip={"read_file", "get_time", "git_log", "git_status"})
    assert "Also" not in beside and beside.startswith("Code mode: ")  # every name is said elsewhere already
    assert "find_tools" not in code_prompt(specs, "none", only=False, finder=False)
