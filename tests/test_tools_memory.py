"""remember, recall and forget on a real SQLite file, with FTS5 and with the LIKE fallback."""

import sqlite3
from pathlib import Path

import pytest

from ankit.tooling.toolbox import LASTING_MARK as MARK, ToolContext
from tests.helpers import Approver, call, ok


@pytest.fixture(params=[True, False], ids=["fts5", "like"])
def make_ctx(request, tmp_path):
    """Contexts sharing one data folder; the parameter turns FTS5 on or off through the config."""

    def make(project: str = "proj") -> ToolContext:
        folder = tmp_path / project
        folder.mkdir(exist_ok=True)
        return ToolContext(cwd=folder, data_dir=tmp_path / "data", config={"memory_fts": request.param})

    make.fts = request.param
    return make


def triggers(db: Path) -> set[str]:
    with sqlite3.connect(db) as conn:
        return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}


def test_remember_and_recall_per_project_and_global(make_ctx, tmp_path):
    alpha, beta = make_ctx("alpha"), make_ctx("beta")
    assert ok("remember", {"fact": "This project uses tabs for indentation"}, alpha).startswith("remembered #1 for project")
    assert ok("remember", {"fact": "I prefer short answers", "scope": "global"}, alpha) == "remembered #2 globally" + MARK
    ok("remember", {"fact": "Beta deploys with Ansible"}, beta)
    mine = ok("recall", {}, alpha)
    assert "[project] This project uses tabs" in mine and "[global] I prefer short answers" in mine
    assert "Ansible" not in mine
    assert ok("recall", {"scope": "global"}, beta).startswith("#2 [global] I prefer short answers")
    assert "Ansible" in ok("recall", {"query": "ansible"}, beta)
    assert (tmp_path / "data" / "memory.sqlite3").is_file()


def test_recall_ranks_and_misses(make_ctx):
    ctx = make_ctx()
    ok("remember", {"fact": "The database is PostgreSQL 15 on port 5432"}, ctx)
    ok("remember", {"fact": "The cache is Redis"}, ctx)
    ok("remember", {"fact": "Staging database lives on db.staging.example.com"}, ctx)
    lines = ok("recall", {"query": "staging database"}, ctx).splitlines()
    assert "db.staging.example.com" in lines[0] and len(lines) == 3 and "written by the model" in lines[-1]
    assert ok("recall", {"query": "kubernetes"}, ctx) == "nothing remembered about 'kubernetes' (this project and global)"


def test_the_two_search_paths_really_differ(make_ctx):
    ctx = make_ctx()
    ok("remember", {"fact": "We deploy with kubectl"}, ctx)
    inner = ok("recall", {"query": "ubect"}, ctx)  # a piece inside a word: LIKE finds it, FTS prefix search does not
    assert ("kubectl" in inner) is (not make_ctx.fts)
    prefix = ok("recall", {"query": "kube"}, ctx)
    assert "kubectl" in prefix
    db = ctx.data_dir / "memory.sqlite3"
    assert bool(triggers(db)) is make_ctx.fts


def test_switching_from_fallback_to_fts_rebuilds_the_index(tmp_path):
    plain = ToolContext(cwd=tmp_path, data_dir=tmp_path / "data", config={"memory_fts": False})
    ok("remember", {"fact": "Invoices are generated nightly"}, plain)
    full = ToolContext(cwd=tmp_path, data_dir=tmp_path / "data", config={"memory_fts": True})
    assert "Invoices" in ok("recall", {"query": "invoices"}, full)
    ok("remember", {"fact": "Receipts are emailed"}, plain)
    assert "Receipts" in ok("recall", {"query": "receipts"}, full)


def test_duplicates_secrets_and_empty_facts(make_ctx):
    ctx = make_ctx()
    ok("remember", {"fact": "Use ruff for linting"}, ctx)
    assert ok("remember", {"fact": "Use  ruff for linting "}, ctx).startswith("already remembered #1")
    secret = call("remember", {"fact": "the key is sk-abcdefghijklmnopqrstuvwxyz123456"}, ctx)
    assert secret.is_error and "secret" in secret.content and "sk-abc" not in secret.content
    assert call("remember", {"fact": "   "}, ctx).is_error


def test_forget_previews_and_deletes(make_ctx):
    ctx = make_ctx()
    ok("remember", {"fact": "The old server is legacy.example.com"}, ctx)
    previews = []
    assert ok("forget", {"id": 1}, ctx, Approver(previews=previews)) == "forgot #1: The old server is legacy.example.com" + MARK
    assert previews[0].startswith("forget #1 [project] The old server")
    assert "nothing remembered" in ok("recall", {"query": "legacy"}, ctx)
    missing = call("forget", {"id": 1}, ctx)
    assert missing.is_error and "no fact #1" in missing.content


def test_default_location_follows_xdg_data_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    ok("remember", {"fact": "Stored under XDG"}, ToolContext(cwd=tmp_path))
    assert (tmp_path / "xdg" / "ankit" / "memory.sqlite3").is_file()
