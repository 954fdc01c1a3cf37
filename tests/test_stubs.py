"""Python stubs of tools from their JSON Schemas (ankit/codemode/stubs.py): what find_tools and the system prompt
say of tools in code mode."""

import ast

from ankit.records import ToolSpec
from ankit.codemode.stubs import code_prompt, named, python_type, signature, stub, stubs
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
                               "None = None, tags: list[str] | None = None, when: str | None = None, **kwargs)")


def test_a_stub_is_valid_python_with_the_first_sentence_as_its_docstring():
    text = stub(READ)
    tree = ast.parse("from typing import Literal\n" + text)
    function = tree.body[1]
    assert ast.get_docstring(function) == "Read a text file"


def test_every_bundled_tool_gives_a_stub_python_parses():
    tools = bundled()[0]
    ast.parse(stubs([t.spec() for t in tools.values()]))


def test_the_prompt_names_tools_at_the_level_asked():
    specs = [READ, ToolSpec("run_code", "Run.", {}), ToolSpec("get_time", "Get the time. More words.", {})]
    assert named(specs[:1], "none") == "read_file"
    assert named([READ, specs[2]], "first-sentence") == "- read_file: Read a text file\n- get_time: Get the time"
    assert named([specs[2]], "full") == "- get_time: Get the time. More words."
    prompt = code_prompt(specs, "none", only=True)
    assert prompt.endswith("Tools:\nread_file, get_time") and "through run_code alone" in prompt
