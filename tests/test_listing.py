"""The tool listing cache: an unchanged folder lists its tools without importing a module; a tool's module is
imported when the tool is first used; any change to a file of the folder lists it afresh."""

import json
import os
import textwrap
from pathlib import Path

from ankit.records import ToolCall
from ankit.tooling.listing import ListingCache
from ankit.tooling.loader import load_tools
from ankit.tooling.toolbox import ToolContext, run_call

TOOL = '''
import pathlib
pathlib.Path({marker!r}).open("a").write("imported\\n")
name = "{name}"
description = "{description}"
group = "things"
read_only = False
effects = ["read"]
parameters = {{"type": "object", "properties": {{"text": {{"type": "string", "enum": ["a", "b"]}}}}}}
examples = ["say a thing"]
time_limit = 7
def needs_approval(args):
    return args.get("text") == "b"
def preview(args, ctx):
    return "would say " + args.get("text", "")
def run(args, ctx):
    return "{name}:" + args.get("text", "")
'''


def write(folder: Path, rel: str, text: str) -> Path:
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def imports(marker: Path) -> int:
    return marker.read_text().count("imported") if marker.exists() else 0


def fields(tool) -> tuple:
    return (tool.spec(), tool.group, tool.read_only, tool.declared_effects(), tool.examples, tool.source, callable(tool.needs_approval),
            callable(tool.preview), tool.changes, tool.limit({}, ToolContext(cwd=Path("."))))


def setup(tmp_path):
    tools, cache, marker = tmp_path / "tools", tmp_path / "cache", tmp_path / "marker"
    write(tools, "things/say.py", TOOL.format(marker=str(marker), name="say", description="Say a thing."))
    return tools, cache, marker


def test_an_unchanged_folder_lists_from_the_cache_and_imports_on_first_use(tmp_path):
    tools, cache, marker = setup(tmp_path)
    [first], problems = load_tools([tools], cache=cache)
    assert problems == [] and imports(marker) == 1
    [second], _ = load_tools([tools], cache=cache)
    assert imports(marker) == 1  # listed without importing the module
    assert fields(second) == fields(first)
    ctx = ToolContext(cwd=tmp_path)
    assert second.wants_approval({"text": "b"}, ctx) and not second.wants_approval({"text": "a"}, ctx)
    assert imports(marker) == 2  # the first use imported it, once
    result = run_call(ToolCall("c1", "say", json.dumps({"text": "a"})), second, ctx, lambda t, a, p: True)
    assert result.content == "say:a" and imports(marker) == 2
    assert second.preview({"text": "x"}, ctx) == "would say x"


def test_any_change_to_a_file_of_the_folder_lists_it_afresh(tmp_path):
    tools, cache, marker = setup(tmp_path)
    load_tools([tools], cache=cache)
    write(tools, "things/say.py", TOOL.format(marker=str(marker), name="say", description="Say it louder."))
    [tool], _ = load_tools([tools], cache=cache)
    assert tool.description == "Say it louder." and imports(marker) == 2
    helper = write(tools, "_common/_words.py", "WORDS = 1\n")  # a helper a module might import
    load_tools([tools], cache=cache)
    assert imports(marker) == 3
    load_tools([tools], cache=cache)
    assert imports(marker) == 3
    stat = helper.stat()
    helper.write_text("WORDS = 2\n")
    os.utime(helper, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))  # same size, newer
    load_tools([tools], cache=cache)
    assert imports(marker) == 4


def test_broken_modules_are_reported_every_run_and_odd_values_are_never_cached(tmp_path):
    tools, cache, marker = setup(tmp_path)
    write(tools, "broken.py", "def run(:\n")
    odd = tmp_path / "odd-marker"
    write(tools, "odd.py", f"import pathlib\npathlib.Path({str(odd)!r}).open('a').write('imported')\n"
                           "name = 'odd'\ndescription = 'd'\ndef run(a, c): return 'ok'\n"
                           "parameters = {'type': 'object', 'properties': {'x': {'type': 'string', 'enum': ('a', 'b')}}}\n")
    for _ in range(2):
        listed, problems = load_tools([tools], cache=cache)
        assert problems == [f"skipped {tools / 'broken.py'}: syntax error at line 1: invalid syntax"]
        assert sorted(t.name for t in listed) == ["odd", "say"]
    assert imports(marker) == 1 and imports(odd) == 2  # a tuple would come back a list: imported every run


def test_a_broken_cache_file_is_no_cache(tmp_path):
    tools, cache, marker = setup(tmp_path)
    load_tools([tools], cache=cache)
    ListingCache(cache, tools).file.write_text('{"key": "x", "tools": [')
    [tool], _ = load_tools([tools], cache=cache)
    assert imports(marker) == 2 and tool.name == "say"
    entry = json.loads(ListingCache(cache, tools).file.read_text())
    entry["tools"] = {path: {"hooks": []} for path in entry["tools"]}  # the right key, entries missing fields
    ListingCache(cache, tools).file.write_text(json.dumps(entry))
    [tool], _ = load_tools([tools], cache=cache)
    assert imports(marker) == 3 and tool.name == "say"


def test_only_the_folders_named_are_listed_from_the_cache(tmp_path):
    tools, cache, marker = setup(tmp_path)
    other, other_marker = tmp_path / "mine", tmp_path / "mine-marker"
    write(other, "echo.py", TOOL.format(marker=str(other_marker), name="echo", description="Echo."))
    for _ in range(2):
        listed, _ = load_tools([tools, other], cache=cache, cached=[tools])
        assert [t.name for t in listed] == ["say", "echo"]
    assert imports(marker) == 1 and imports(other_marker) == 2  # the other folder's module is imported every run


def test_whether_a_cached_tool_outlives_the_session_is_asked_of_its_module(tmp_path):
    tools, cache, marker = setup(tmp_path)
    path = tools / "things" / "say.py"
    path.write_text(path.read_text() + "lasting = True\n")
    load_tools([tools], cache=cache)
    [cached], _ = load_tools([tools], cache=cache)
    ctx = ToolContext(cwd=tmp_path)
    assert cached.outlives({"text": "a"}, ctx) and cached.wants_approval({"text": "a"}, ctx)
    result = run_call(ToolCall("c1", "say", json.dumps({"text": "a"})), cached, ctx, lambda t, a, p: True)
    assert result.content.endswith("[kept for later sessions: written by the model]")
