"""Running a call: arguments, validation, approval, failures as results, the output cap."""

import json

import pytest
from tests.test_loader import folder, write  # noqa: F401 (folder is a fixture)

from ankit.errors import Cancelled
from ankit.records import ToolCall
from ankit.tooling.loader import load_tools
from ankit.tooling.toolbox import ToolContext, cap_output, parse_arguments, run_call


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
    assert boom.is_error and boom.content == ("Error: OSError: disk full (a bug in the tool boom at boom.py line 4: it "
                                              "raised this instead of a ToolError)")
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


def test_a_tool_error_is_shown_as_its_message_and_any_other_exception_as_a_bug_in_the_tool(folder):
    write(folder, "c/own.py", "from ankit.toolkit import ToolError\nname='own'\ndescription='d'\nparameters={}\n"
          "def run(a, c): raise ToolError('old_text occurs 2 times; give more context')\n")
    write(folder, "c/buggy.py", "name='buggy'\ndescription='d'\nparameters={}\nclass EditError(Exception): pass\n"
          "def run(a, c): raise EditError('old_text occurs 2 times')\n")
    write(folder, "c/quiet.py", "from ankit.toolkit import ToolError\nname='quiet'\ndescription='d'\nparameters={}\n"
          "def run(a, c): raise ToolError()\n")
    assert run(folder, ToolCall("1", "own")).content == "Error: old_text occurs 2 times; give more context"
    buggy = run(folder, ToolCall("2", "buggy"))
    assert buggy.is_error and buggy.content == ("Error: EditError: old_text occurs 2 times (a bug in the tool buggy at "
                                                "buggy.py line 5: it raised this instead of a ToolError)")
    assert run(folder, ToolCall("3", "quiet")).content == "Error: quiet failed without saying why"


def test_file_names_that_are_not_utf8_cannot_break_a_result(tmp_path):
    name = "caf\udce9.txt"  # how Python shows the bytes caf\xe9.txt from a Latin-1 file system
    write(tmp_path, "c/names.py", "name='names'\ndescription='d'\nparameters={}\n"
          "def run(a, c): return " + repr(name) + "\n")
    result = run(tmp_path, ToolCall("1", "names"))
    assert result.content == "caf\ufffd.txt"  # the text boundary: U+FFFD for a byte that was not UTF-8
    result.content.encode("utf-8")


def test_a_call_whose_changes_cannot_be_told_runs_and_the_user_hears_undo_will_not_cover_it(tmp_path):
    from ankit.storage.checkpoints import Checkpoints
    from ankit.tooling.toolbox import Tool

    def changes(args):
        return [args["path"]]  # the model left out "path": changes() raises KeyError

    tool = Tool("touch", "Create a file.", {"type": "object"}, lambda args, ctx: "made it", changes=changes)
    keeper = Checkpoints(tmp_path / "checkpoints")
    keeper.begin("s1", 1)
    result = run_call(ToolCall("c1", "touch", "{}"), tool, ToolContext(cwd=tmp_path), lambda *a: True, keeper=keeper)
    assert result.content == "made it" and not result.is_error
    assert keeper.notes == ["touch: cannot tell which files this call changes (its changes() raised KeyError); "
                            "/undo will not cover it"]


def test_a_program_s_call_carries_the_tool_s_value_scrubbed_and_a_direct_call_only_its_text(tmp_path):
    from ankit.records import ToolOutput
    from ankit.safety.scrub import Scrubber
    from ankit.tooling.tool import Tool
    secret = "sk-ant-api03-" + "x" * 40
    tool = Tool("rows", "Rows.", {"type": "object"}, lambda args: ToolOutput("2 rows", [{"key": secret}, 2]))
    call = ToolCall("c1", "rows", "{}")
    direct = run_call(call, tool, ToolContext(cwd=tmp_path), lambda *a: True, scrub=Scrubber())
    assert direct.content == "2 rows" and direct.data is None  # nothing computed for nobody
    program = run_call(call, tool, ToolContext(cwd=tmp_path), lambda *a: True, scrub=Scrubber(), values=True)
    assert program.content == "2 rows" and secret not in program.data and json.loads(program.data)[1] == 2
    listed = run_call(call, Tool("d", "D.", {"type": "object"}, lambda args: {"a": [1]}), ToolContext(cwd=tmp_path),
                      lambda *a: True, values=True)
    assert json.loads(listed.content) == {"a": [1]} and json.loads(listed.data) == {"a": [1]}
