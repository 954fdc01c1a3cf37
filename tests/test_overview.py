"""The /context bar and the /tools texts, on a real App built from the bundled tools."""

import re

import pytest

from ankit.records import Message
from ankit.settings.layers import load_config
from ankit.terminal.overview import BAR_WIDTH, bar, group_text, tools_text
from ankit.turn.app import build_app


@pytest.fixture
def app(xdg_home):
    """An App over the bundled tools, with its XDG folders in a temp folder and no provider."""
    tmp_path = xdg_home
    built = build_app(load_config({}, {}, tmp_path / "work", tmp_path / "config" / "ankit"), tmp_path / "work")
    yield built
    built.close()


def test_the_bar_shows_prompt_reserve_and_free_room():
    assert bar(250, 250, 1000, width=8) == "[##++....]"
    assert bar(1, 0, 1000, width=8) == "[#.......]"  # a prompt is never shown as nothing
    assert bar(900, 500, 1000, width=8) == "[#######+]"  # over the window: the bar stays its width
    assert len(bar(0, 0, 0)) == BAR_WIDTH + 2


def test_tools_lists_each_group_in_its_state_with_aligned_columns(app):
    app.activation.activate(["web"])
    text = tools_text(app, width=80)
    assert re.search(r"core \(always sent\)\n  core ", text)
    assert re.search(r"activated \(sent from now on\)\n  web ", text)
    rows = [line for line in text.splitlines() if re.match(r"  \w+ +\d+ tools? ", line)]
    assert len(rows) == len(app.catalog.groups)
    assert len({line.index(" tool") for line in rows}) == 1  # "1 tool" and "6 tools" end their numbers alike
    assert len({line.index(" B ") for line in rows}) == 1
    assert all(len(line) <= 80 for line in text.splitlines())


def test_a_group_find_tools_loaded_some_tools_of_is_activated_with_how_many(app):
    app.activation.activate(["run_command", "job_status"])
    text = tools_text(app, width=100)
    assert re.search(r"activated \(sent from now on\)\n  shell +2 of 7 tools ", text)
    size = sum(app.activation.frozen(unit).size for unit in ("run_command", "job_status"))
    assert re.search(rf"  shell +2 of 7 tools +{size:,} B ", text)
    assert "shell" not in text.split("available")[1]
    assert group_text(app, "shell", width=200).startswith("shell (activated: run_command, job_status): ")
    from ankit.protocols import NullView
    from ankit.terminal.overview import context_text
    shown = context_text(app, app.session(NullView(), lambda *a: True), width=200)
    assert re.search(rf"\n  shell: run_command, job_status +{size:,} +[\d,]+ +activated, sent", shown)


def test_a_group_lists_its_tools_and_whether_they_ask(app):
    text = group_text(app, "git", width=200)
    assert text.startswith("git (available): ")
    assert re.search(r"\n  git_branch  may ask +List", text)  # it asks only for some arguments
    assert re.search(r"\n  git_commit  asks first ", text)
    assert re.search(r"\n  git_log     read-only ", text)
    assert "no group 'nope'; known groups: " in group_text(app, "nope")


def test_every_listing_fits_the_width(app, tmp_path):
    from ankit.storage.sessions import SessionData, SessionStore
    from ankit.terminal.overview import context_text, sessions_listing, tools_listing
    store = SessionStore(tmp_path / "sessions")
    store.save(SessionData("20261130-101500-ab12", "2026-11-30T10:15:00", "/w", "local", "a-rather-long-model-name",
                           title="a title that goes on and on and on and on and on",
                           messages=[Message("user", "hello")]))
    for width in (40, 60):
        for text in (tools_listing(app, width), tools_text(app, width), group_text(app, "core", width),
                     sessions_listing(store, width)):
            assert all(len(line) <= width for line in text.splitlines()), text
            assert any(line.endswith("…") for line in text.splitlines())
    assert "a title that goes on and on and on and on and on" in sessions_listing(store, 0)  # piped: whole
    store.save(SessionData("20261130-101600-cd34", "2026-11-30T10:16:00", "/w", "local", "m"))  # no message yet
    assert sessions_listing(store, 0).splitlines()[1:] == ["(1 session without a message not shown)"]
