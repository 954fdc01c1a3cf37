import textwrap
from pathlib import Path

import pytest

from ankit.errors import Cancelled
from ankit.records import ToolCall
from ankit.tooling.loader import load_tools
from ankit.tooling.toolbox import ToolContext, cap_output, parse_arguments, run_call

GOOD = '''
name = "{name}"
description = "Echo the text back."
parameters = {{"type": "object", "properties": {{"text": {{"type": "string"}}}}, "required": ["text"]}}
def run(args, ctx):
    return "{name}:" + args["text"]
'''


def write(folder: Path, rel: str, text: str) -> Path:
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


@pytest.fixture
def folder(tmp_path):
    write(tmp_path, "a/search.py", GOOD.format(name="search_a"))
    write(tmp_path, "b/search.py", GOOD.format(name="search_b"))
    write(tmp_path, "solo.py", GOOD.format(name="solo"))
    write(tmp_path, "_helper.py", "raise RuntimeError('never loaded')")
    write(tmp_path, "broken/syntax.py", "def run(:\n")
    write(tmp_path, "broken/missing.py", "name = 'x'\n")
    write(tmp_path, "broken/schema.py", "name='y'\ndescription='d'\nparameters={'type': 'string'}\ndef run(a, c): pass\n")
    write(tmp_path, "broken/raises.py", "raise ImportError('no module named yaml')\n")
    write(tmp_path, "dup/solo.py", GOOD.format(name="solo"))
    return tmp_path


def test_modules_with_the_same_file_name_both_load(folder):
    tools, problems = load_tools([folder])
    by_name = {t.name: t for t in tools}
    assert {"search_a", "search_b", "solo"} <= set(by_name)
    assert by_name["search_a"].group == "a" and by_name["solo"].group == "solo"
    assert by_name["search_a"].run({"text": "x"}, None) == "search_a:x"
    assert by_name["search_b"].run({"text": "x"}, None) == "search_b:x"


def test_broken_modules_are_reported_in_one_line_each(folder):
    _, problems = load_tools([folder])
    text = "\n".join(problems)
    assert len(problems) == 5
    assert "syntax.py: syntax error at line 1" in text
    assert "missing.py: missing export description, parameters, run" in text
    assert "schema.py: parameters has type 'string'; it must be 'object'" in text
    assert "raises.py: ImportError: no module named yaml" in text
    assert "duplicate tool name 'solo'" in text
    assert all("\n" not in p for p in problems)


def run(folder, call, approve=lambda *a: True, cap=65536):
    tools, _ = load_tools([folder])
    lookup = {t.name: t for t in tools}
    return run_call(call, lookup.get(call.name), ToolContext(cwd=folder), approve, cap)


def test_failures_become_error_results(folder):
    write(folder, "c/boom.py", "name='boom'\ndescription='d'\nparameters={}\ndef run(a, c): raise OSError('disk full')\n")
    assert run(folder, ToolCall("1", "nope")).content.startswith("Error: unknown tool 'nope'")
    bad_json = run(folder, ToolCall("2", "solo", '{"text": '))
    assert bad_json.is_error and "not valid JSON" in bad_json.content
    invalid = run(folder, ToolCall("3", "solo", '{"txt": "a"}'))
    assert invalid.is_error and "arguments.text is required" in invalid.content
    boom = run(folder, ToolCall("4", "boom", "{}"))
    assert boom.is_error and boom.content == "Error: OSError: disk full"
    ok = run(folder, ToolCall("5", "solo", '{"text": "line1\nline2"}'))  # raw newline inside a JSON string
    assert not ok.is_error and ok.content == "solo:line1\nline2"


def test_approval_declined_and_quit(folder):
    write(folder, "c/danger.py", "name='danger'\ndescription='d'\nparameters={}\nneeds_approval=True\n"
          "def preview(a, c): return 'will do it'\ndef run(a, c): return 'done'\n")
    seen = []
    declined = run(folder, ToolCall("1", "danger"), approve=lambda t, a, p: seen.append(p) or False)
    assert declined.is_error and "declined" in declined.content and seen == ["will do it"]

    def quit_turn(*_):
        raise Cancelled("quit")

    with pytest.raises(Cancelled):
        run(folder, ToolCall("2", "danger"), approve=quit_turn)


def test_output_cap_keeps_head_and_tail(folder):
    text = "h" * 100 + "m" * 1000 + "t" * 100
    cut = cap_output(text, 200)
    assert cut.startswith("h" * 100) and cut.endswith("t" * 100) and "[... 1000 characters cut ...]" in cut
    assert run(folder, ToolCall("1", "solo", '{"text": "%s"}' % ("x" * 500)), cap=100).content.count("x") == 95  # "solo:" takes 5 of the head


def test_parse_arguments():
    assert parse_arguments("") == {}
    with pytest.raises(ValueError, match="JSON object"):
        parse_arguments("[1]")


def test_a_tool_s_own_error_class_is_not_named(folder):
    write(folder, "c/own.py", "name='own'\ndescription='d'\nparameters={}\nclass EditError(Exception): pass\n"
          "def run(a, c): raise EditError('old_text occurs 2 times; give more context')\n")
    result = run(folder, ToolCall("1", "own"))
    assert result.content == "Error: old_text occurs 2 times; give more context"


def test_file_names_that_are_not_utf8_cannot_break_a_result(tmp_path):
    name = "caf\udce9.txt"  # how Python shows the bytes caf\xe9.txt from a Latin-1 file system
    write(tmp_path, "c/names.py", "name='names'\ndescription='d'\nparameters={}\n"
          "def run(a, c): return " + repr(name) + "\n")
    result = run(tmp_path, ToolCall("1", "names"))
    assert result.content == "caf?.txt"
    result.content.encode("utf-8")
