"""The project_notes group on real folders: notes kept per repository root, apart from other projects."""

import json
from pathlib import Path

from ankit.tooling.toolbox import ToolContext
from tests.helpers import Approver, call, ok


def contexts(tmp_path: Path) -> tuple[ToolContext, ToolContext, ToolContext]:
    """Two folders of one git repository and one unrelated folder, sharing a data folder."""
    repo, other = tmp_path / "repo", tmp_path / "other"
    (repo / ".git").mkdir(parents=True)
    (repo / "src" / "deep").mkdir(parents=True)
    other.mkdir()
    data = tmp_path / "data"
    return ToolContext(cwd=repo, data_dir=data), ToolContext(cwd=repo / "src" / "deep", data_dir=data), \
        ToolContext(cwd=other, data_dir=data)


def test_notes_belong_to_the_repository_root_and_stay_apart_from_other_projects(tmp_path):
    root, deep, other = contexts(tmp_path)
    assert ok("add_project_note", {"text": "the API is versioned under /v2"}, root).startswith("added note #1")
    assert ok("add_project_note", {"text": "use  PostgreSQL\n(not MySQL)", "kind": "decision"}, deep).startswith(
        "added decision #2")
    assert "already kept" in ok("add_project_note", {"text": "the API is versioned under /v2"}, deep)
    listed = ok("list_project_notes", {}, deep)
    assert listed.splitlines()[0] == f"project {tmp_path / 'repo'}:"
    assert [line.split(" (")[0] for line in listed.splitlines()[1:-1]] == [
        "#2 [decision] use PostgreSQL", "#1 [note] the API is versioned under /v2"]
    assert ok("list_project_notes", {"kind": "decision"}, root).count("#") == 1
    assert "no notes for project" in ok("list_project_notes", {}, other)
    files = list((tmp_path / "data" / "projects").glob("repo-*.json"))
    assert len(files) == 1 and json.loads(files[0].read_text())["project"] == str(tmp_path / "repo")


def test_search_finds_words_and_remove_asks_first(tmp_path):
    root, _, _ = contexts(tmp_path)
    ok("add_project_note", {"text": "deploy with ansible from the ops repo"}, root)
    ok("add_project_note", {"text": "tests need a running redis"}, root)
    found = ok("list_project_notes", {"query": "how do we deploy"}, root)
    assert "ansible" in found and "redis" not in found
    assert "no notes matching 'kubernetes'" in ok("list_project_notes", {"query": "kubernetes"}, root)
    previews = []
    assert call("remove_project_note", {"id": 1}, root, Approver(False, previews)).is_error
    assert "#1 [note] deploy with ansible" in previews[0]
    assert "ansible" in ok("list_project_notes", {}, root)
    assert ok("remove_project_note", {"id": 1}, root).startswith("removed #1")
    assert "ansible" not in ok("list_project_notes", {}, root)


def test_bad_input_is_one_line_and_writes_nothing(tmp_path):
    root, _, _ = contexts(tmp_path)
    missing = call("remove_project_note", {"id": 9}, root)
    assert missing.is_error and missing.content == "Error: this project has no note #9; use list_project_notes to see the ids"
    secret = call("add_project_note", {"text": "token ghp_" + "a" * 36}, root)
    assert secret.is_error and "secret" in secret.content
    assert call("add_project_note", {"text": "  "}, root).is_error
    assert not list((tmp_path / "data").glob("projects/*.json"))


def test_a_damaged_notes_file_is_reported_not_overwritten(tmp_path):
    root, _, _ = contexts(tmp_path)
    ok("add_project_note", {"text": "first"}, root)
    path = next((tmp_path / "data" / "projects").glob("*.json"))
    path.write_text("{not json")
    result = call("add_project_note", {"text": "second"}, root)
    assert result.is_error and "cannot read the project notes" in result.content
    assert path.read_text() == "{not json"
