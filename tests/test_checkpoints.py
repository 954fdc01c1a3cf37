"""Checkpoints: what a call is about to change is kept by turn, and /undo puts it back byte for byte."""

import os

from ankit.storage.checkpoints import Checkpoints


def change(keeper: Checkpoints, paths, action) -> None:
    """What the runner does around a call that declares these paths."""
    keeper.keep(paths)
    action()
    keeper.settle(paths)


def test_undo_restores_bytes_and_mode_and_removes_what_was_created(tmp_path):
    work, keeper = tmp_path / "work", Checkpoints(tmp_path / "sessions")
    work.mkdir()
    old = bytes(range(256)) + b"\r\nno newline at the end"
    (work / "a.bin").write_bytes(old)
    os.chmod(work / "a.bin", 0o751)
    keeper.begin("s1", 1)
    change(keeper, [work / "a.bin", work / "new.txt"],
           lambda: ((work / "a.bin").write_text("replaced"), (work / "new.txt").write_text("made")))
    done = keeper.undo("s1")
    assert done.turn == 1 and done.restored == [str(work / "a.bin")] and done.removed == [str(work / "new.txt")]
    assert done.lines() == [f"restored {work / 'a.bin'}", f"removed {work / 'new.txt'} (the turn created it)"]
    assert (work / "a.bin").read_bytes() == old and (work / "a.bin").stat().st_mode & 0o777 == 0o751
    assert not (work / "new.txt").exists()
    assert keeper.undo("s1").turn == 0  # used up


def test_undo_goes_back_turn_by_turn_and_keeps_the_first_state_within_a_turn(tmp_path):
    path, keeper = tmp_path / "notes.md", Checkpoints(tmp_path / "sessions")
    path.write_text("v0")
    keeper.begin("s1", 1)
    change(keeper, [path], lambda: path.write_text("v1"))
    keeper.begin("s1", 2)
    change(keeper, [path], lambda: path.write_text("v2a"))
    change(keeper, [path], lambda: path.write_text("v2b"))
    keeper.begin("s1", 3)
    change(keeper, [path], lambda: None)  # a call that changed nothing (declined, failed)
    assert keeper.undo("s1").turn == 2 and path.read_text() == "v1"
    assert keeper.undo("s1").turn == 1 and path.read_text() == "v0"


def test_a_file_changed_outside_ankit_since_is_refused(tmp_path):
    path, keeper = tmp_path / "a.txt", Checkpoints(tmp_path / "sessions")
    path.write_text("mine")
    keeper.begin("s1", 1)
    change(keeper, [path], lambda: path.write_text("model's"))
    path.write_text("edited by hand")
    done = keeper.undo("s1")
    assert done.restored == [] and done.refused == [f"{path}: changed outside ankit since; left as it is"]
    assert path.read_text() == "edited by hand"


def test_a_deleted_folder_and_a_moved_link_come_back(tmp_path):
    import shutil
    keeper = Checkpoints(tmp_path / "sessions")
    folder = tmp_path / "pkg"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "x.py").write_text("x = 1\n")
    (folder / "y.py").write_text("y = 2\n")
    os.symlink("pkg/y.py", tmp_path / "link")
    keeper.begin("s1", 1)
    change(keeper, [folder], lambda: shutil.rmtree(folder))
    change(keeper, [tmp_path / "link", tmp_path / "moved"], lambda: os.rename(tmp_path / "link", tmp_path / "moved"))
    done = keeper.undo("s1")
    assert len(done.restored) == 2 and done.removed == [str(tmp_path / "moved")]
    assert (folder / "sub" / "x.py").read_text() == "x = 1\n" and (folder / "y.py").read_text() == "y = 2\n"
    assert os.readlink(tmp_path / "link") == "pkg/y.py" and not os.path.lexists(tmp_path / "moved")


def test_sessions_are_kept_apart_and_forgotten(tmp_path):
    path, keeper = tmp_path / "a.txt", Checkpoints(tmp_path / "sessions")
    path.write_text("0")
    keeper.begin("s1", 1)
    change(keeper, [path], lambda: path.write_text("1"))
    assert keeper.undo("other").turn == 0
    keeper.forget("s1")
    assert keeper.undo("s1").turn == 0 and path.read_text() == "1"


def test_rewind_restores_every_turn_from_a_message_on_newest_first(tmp_path):
    work, keeper = tmp_path / "work", Checkpoints(tmp_path / "sessions")
    work.mkdir()
    (work / "a.txt").write_text("v0")
    keeper.begin("s1", 1, at=0)
    change(keeper, [work / "a.txt"], lambda: (work / "a.txt").write_text("v1"))
    keeper.begin("s1", 2, at=4)
    change(keeper, [work / "a.txt", work / "b.txt"],
           lambda: ((work / "a.txt").write_text("v2"), (work / "b.txt").write_text("new")))
    keeper.begin("s1", 3, at=8)
    change(keeper, [work / "a.txt"], lambda: (work / "a.txt").write_text("v3"))
    assert keeper.changed_since("s1", 4) == [str(work / "a.txt"), str(work / "b.txt")]
    keeper.copy("s1", "fork")
    done = keeper.rewind("s1", 4)
    assert done.turn == 2 and done.restored == [str(work / "a.txt")] and done.removed == [str(work / "b.txt")]
    assert (work / "a.txt").read_text() == "v1" and not (work / "b.txt").exists()
    assert keeper.changed_since("s1", 4) == [] and keeper.undo("s1").turn == 1  # turn 1's checkpoint is left
    assert keeper.changed_since("fork", 0) == [str(work / "a.txt"), str(work / "b.txt")]  # the fork kept its own


def test_rewind_leaves_a_file_changed_outside_ankit_since(tmp_path):
    path, keeper = tmp_path / "a.txt", Checkpoints(tmp_path / "sessions")
    path.write_text("v0")
    keeper.begin("s1", 1, at=0)
    change(keeper, [path], lambda: path.write_text("v1"))
    path.write_text("edited by hand")
    done = keeper.rewind("s1", 0)
    assert done.restored == [] and done.refused == [f"{path}: changed outside ankit since; left as it is"]
    assert path.read_text() == "edited by hand"


def test_a_file_created_then_edited_in_one_turn_is_said_removed(tmp_path):
    work, keeper = tmp_path / "work", Checkpoints(tmp_path / "sessions")
    work.mkdir()
    keeper.begin("s1", 1)
    change(keeper, [work / "n.txt"], lambda: (work / "n.txt").write_text("one"))
    change(keeper, [work / "n.txt"], lambda: (work / "n.txt").write_text("two"))
    done = keeper.undo("s1")
    assert done.removed == [str(work / "n.txt")] and done.restored == [] and not (work / "n.txt").exists()
    assert done.told() == f"removed {work / 'n.txt'}, which it had created"
