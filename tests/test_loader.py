"""Loading tool modules by path: groups from folders, same-named files, and what is skipped with one line each."""

import textwrap
from pathlib import Path

import pytest

from ankit.tooling.loader import load_tools

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


@pytest.mark.parametrize("name", ['""', "None", "42", '["a"]'])
def test_a_module_whose_name_is_empty_or_not_a_string_is_skipped(tmp_path, name):
    write(tmp_path, "odd.py", f"name = {name}\ndescription = 'd'\nparameters = {{}}\ndef run(a, c): pass\n")
    write(tmp_path, "fine.py", GOOD.format(name="fine"))
    tools, problems = load_tools([tmp_path])
    assert [t.name for t in tools] == ["fine"]
    assert problems == [f"skipped {tmp_path / 'odd.py'}: name must be a non-empty string"]


@pytest.mark.parametrize("name", ["my tool", "evil\x1b[2Jname", "x" * 65, "naïve", "a.b"])
def test_a_name_providers_would_reject_is_skipped_with_one_visible_line(tmp_path, name):
    """One such name in the tools list would make the provider refuse every request of the session."""
    write(tmp_path, "odd.py", f"name = {name!r}\ndescription = 'd'\nparameters = {{}}\ndef run(a, c): pass\n")
    write(tmp_path, "fine.py", GOOD.format(name="fine"))
    tools, problems = load_tools([tmp_path])
    assert [t.name for t in tools] == ["fine"]
    assert len(problems) == 1 and "must be 1 to 64 letters, digits, '_' or '-'" in problems[0]
    assert "\x1b" not in problems[0]
