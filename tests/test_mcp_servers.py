"""The MCP server manager: background start, Tools, groups, status, restarts, list changes."""

import os
import re
import time
import sys
import threading
from pathlib import Path

import pytest

from ankit.errors import ConfigError
from ankit.mcp.cache import ToolCache
from ankit.mcp.client import PAGE_CAP
from ankit.mcp.servers import MAX_RESTARTS, RELIST_LIMIT, McpManager, server_config
from ankit.records import ToolCall
from ankit.tooling.schema import check_schema
from ankit.tooling.toolbox import ToolContext, run_call
from tests.helpers import pids_started, process_gone, stubborn_server, wait_for

FAKE = str(Path(__file__).with_name("mcp_fake_server.py"))
VALID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def fake(*flags, **extra) -> dict:
    return {"command": sys.executable, "args": [FAKE, *flags], **extra}


@pytest.fixture
def manage(tmp_path):
    managers = []

    def build(servers: dict, on_change=None) -> McpManager:
        manager = McpManager(servers, tmp_path / "logs", on_change)
        managers.append(manager)
        manager.start()
        return manager

    yield build
    for manager in managers:
        manager.close()


def call(manager: McpManager, name: str, arguments: str = "{}"):
    tool = next((t for t in manager.catalog.tools() if t.name == name), None)
    return run_call(ToolCall("c1", name, arguments), tool, ToolContext(cwd=Path(".")), lambda t, a, p: True)


def test_server_config_checks_each_key_in_one_line():
    cfg = server_config("t", {"command": "uvx", "args": ["mcp-server-time", 3], "env": {"TZ": "UTC"},
                              "core": True, "timeout": 5})
    assert (cfg.command, cfg.args, cfg.env, cfg.core, cfg.timeout) == ("uvx", ["mcp-server-time", "3"],
                                                                       {"TZ": "UTC"}, True, 5.0)
    for raw, words in (({}, "needs command"), ({"command": "x", "args": "a b"}, "args must be a list"),
                       ({"command": "x", "env": ["A=1"]}, "env must be a table"),
                       ({"command": "x", "timeout": 0}, "timeout must be a number"),
                       ({"command": "x", "cwd": 3}, "cwd must be"), ("uvx", "must be a table")):
        with pytest.raises(ConfigError, match=words) as caught:
            server_config("t", raw)
        assert "[mcp.servers.t]" in str(caught.value) and "\n" not in str(caught.value)


def test_start_does_not_wait_for_servers(manage):
    manager = manage({"late": fake("--start-delay", "3")})
    assert manager.catalog.tools() == []
    assert manager.status.lines() == ["late: starting..."]
    assert manager.wait(0.05) is False


def test_tools_arrive_with_safe_unique_names_and_valid_schemas(manage):
    changes = threading.Event()
    manager = manage({"fake": fake("--tools", "30", "--page-size", "7", trust_annotations=True)},
                     on_change=changes.set)
    assert manager.wait(10)
    assert changes.is_set()
    tools = manager.catalog.tools()
    names = [t.name for t in tools]
    assert len(tools) == 45 and len(set(names)) == len(names)
    assert all(VALID.match(n) for n in names)
    assert all(check_schema(t.parameters) is None for t in tools)
    assert all(t.group == "mcp:fake" for t in tools)
    by_name = {t.name: t for t in tools}
    assert by_name["mcp__fake__echo"].read_only and not by_name["mcp__fake__echo"].needs_approval
    assert by_name["mcp__fake__add"].needs_approval and not by_name["mcp__fake__add"].read_only
    assert "mcp__fake__dotted_name_v2" in by_name


def test_calls_go_through_run_call(manage):
    manager = manage({"fake": fake()})
    manager.wait(10)
    assert call(manager, "mcp__fake__add", '{"a": 2, "b": 3}').content == "5"
    assert call(manager, "mcp__fake__dotted_name_v2").content == "called dotted.name/v2"
    picture = call(manager, "mcp__fake__picture")
    assert picture.content == "a picture:\n[image: image/png, 2.0 KB, not shown]" and not picture.is_error
    failed = call(manager, "mcp__fake__fail", '{"message": "quota exceeded"}')
    assert failed.is_error and "quota exceeded" in failed.content
    assert call(manager, "mcp__fake__talk").content == "ping answered {}; roots/list answered error -32601"


def test_a_slow_call_times_out_as_an_error_result(manage):
    # the timeout holds for the echo too: 1 s leaves a loaded machine room for a quick round trip
    manager = manage({"fake": fake(timeout=1)})
    manager.wait(10)
    slow = call(manager, "mcp__fake__slow", '{"seconds": 30}')
    assert slow.is_error and "did not answer tools/call within 1s" in slow.content
    assert call(manager, "mcp__fake__echo", '{"text": "on"}').content == "on"


def test_a_crashed_server_restarts_on_next_use_at_most_three_times(manage):
    manager = manage({"fake": fake()})
    manager.wait(10)
    for attempt in range(MAX_RESTARTS + 1):
        crashed = call(manager, "mcp__fake__crash")
        assert crashed.is_error and "exited with code 1: fake server: crashing on request" in crashed.content
        if attempt < MAX_RESTARTS:
            assert "restarts it on the next call" in crashed.content
            assert "restarts on next use" in manager.status.lines()[0]
            assert call(manager, "mcp__fake__echo", '{"text": "back"}').content == "back"
    assert "stays off" in manager.status.lines()[0]
    off = call(manager, "mcp__fake__echo", '{"text": "x"}')
    assert off.is_error and "stays off for this session" in off.content


def test_a_list_change_re_lists_and_tells_the_listener(manage):
    changes: list[int] = []
    grown = threading.Event()

    def changed():
        changes.append(1)
        if len(changes) == 2:
            grown.set()

    manager = manage({"fake": fake()}, on_change=changed)
    manager.wait(10)
    assert "mcp__fake__extra" not in [t.name for t in manager.catalog.tools()]
    assert call(manager, "mcp__fake__grow").content == "grown"
    assert grown.wait(30)
    assert call(manager, "mcp__fake__extra").content == "called extra"


def test_failures_are_one_line_each_and_the_others_run(manage):
    manager = manage({
        "good": fake(),
        "missing": {"command": "no-such-mcp-server"},
        "broken": fake("--crash-on-start"),
        # junk at once from a shell (a Python server may take longer than the 3 s to start on a loaded machine)
        "noisy": {"command": "/bin/sh", "args": ["-c", "echo I do not speak JSON; while read -r line; do :; done"],
                  "startup_timeout": 3},
        "old": fake("--answer-version", "2023-01-01"),
        "empty": {"args": []},
    })
    assert manager.wait(30)
    heads = [line for line in manager.status.lines() if not line.startswith("  ")]
    assert len(heads) == 6
    assert heads[0] == "good: ready (15 tools; fake-server 1.2.3, protocol 2025-06-18)"
    assert "missing: failed: " in heads[1] and "command not found" in heads[1]
    assert "broken: failed: " in heads[2] and "exited with code 3: fake server: cannot open the database" in heads[2]
    assert "noisy: failed: " in heads[3] and "not JSON-RPC" in heads[3]
    assert "old: failed: " in heads[4] and "'2023-01-01'" in heads[4]
    assert heads[5] == "empty: failed: [mcp.servers.empty] needs command = \"program\" (the server's executable) or url = \"http://...\""
    assert {t.group for t in manager.catalog.tools()} == {"mcp:good"}
    failures = manager.status.failures()
    assert len(failures) == 5 and all("\n" not in line for line in failures)
    assert "'missing' could not start" in failures[0] and failures[0].endswith(f"mcp-missing.log)")
    assert failures[-1] == "[mcp.servers.empty] needs command = \"program\" (the server's executable) or url = \"http://...\""


def test_group_meta_and_core_groups(manage):
    manager = manage({"notes": fake("--instructions", "Search and edit the team notes.\n\nMore detail."),
                      "plain": fake(core=True)})
    manager.wait(10)
    meta = manager.catalog.group_meta()
    assert meta["mcp:notes"]["summary"].startswith("Search and edit the team notes.")
    assert "keywords" not in meta["mcp:notes"] and meta["mcp:notes"]["core"] is False  # the name is a field
    assert meta["mcp:plain"]["core"] is True
    assert "summary" not in meta["mcp:plain"]  # no instructions: the catalog says what its tools do
    assert manager.catalog.core_groups() == ["mcp:plain"]


def test_server_names_that_clean_to_the_same_label_stay_apart(manage):
    manager = manage({"a.b": fake(), "a_b": fake()})
    manager.wait(10)
    names = [t.name for t in manager.catalog.tools()]
    assert len(names) == len(set(names)) == 30
    assert "mcp__a_b__echo" in names
    assert call(manager, next(n for n in names if n.endswith("__echo") and n != "mcp__a_b__echo"),
                '{"text": "second"}').content == "second"


def test_stderr_goes_to_a_log_per_server(manage, tmp_path):
    manager = manage({"fake": fake()})
    manager.wait(10)
    assert "fake server: started" in (tmp_path / "logs" / "mcp-fake.log").read_text()


def test_close_stops_the_servers(manage):
    manager = manage({"fake": fake()})
    manager.wait(10)
    pid = manager._servers[0].client.transport.pid
    manager.close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    closed = call(manager, "mcp__fake__echo", '{"text": "x"}')
    assert closed.is_error and "shut down" in closed.content


def test_no_servers_says_how_to_add_one(tmp_path):
    assert "[mcp.servers.NAME]" in McpManager({}, tmp_path).status.lines()[0]


class View:
    def __init__(self):
        self.notices = []

    def notice(self, text):
        self.notices.append(text)


def test_a_server_that_does_not_answer_in_its_start_timeout_is_not_answering_and_joins_later(manage):
    changes = threading.Event()
    manager = manage({"late": fake("--start-delay", "3", start_timeout=0.5)}, on_change=changes.set)
    view = View()
    manager.before_turn(view)  # waits at most the start_timeout
    assert re.match(r"late: not answering after 0.5s \(it has (29|30)s more of its startup_timeout 30s; log: ",
                    manager.status.lines()[0])
    assert view.notices[-1].startswith("MCP server 'late' is not answering after 0.5s: its tools are missing from "
                                       "this turn (they join if it answers later; log: ")
    assert view.notices[:-1] in ([], ["waiting for MCP servers to start…"])  # said unless 0.5 s had passed already
    assert manager.catalog.tools() == [] and manager.status.troubled()
    assert manager.wait(30) and changes.is_set()  # the late answer still adds its tools
    assert manager.status.lines()[0].startswith("late: ready (15 tools;") and not manager.status.troubled()
    again = View()
    manager.before_turn(again)
    assert again.notices == []  # each line is told once


def test_a_stubborn_server_and_its_children_are_gone_after_close(manage, tmp_path):
    manager = manage({"stubborn": stubborn_server(tmp_path, FAKE)})
    assert manager.wait(30)
    assert call(manager, "mcp__stubborn__echo", '{"text": "alive"}').content == "alive"
    log = (tmp_path / "logs" / "mcp-stubborn.log").read_text()
    pids = pids_started(tmp_path) + [int(re.search(r"started, pid (\d+)", log)[1])]
    assert len(pids) == 3 and not any(process_gone(pid) for pid in pids)
    manager.close()
    assert all(process_gone(pid) for pid in pids)


def test_a_server_that_never_answers_and_its_children_are_gone_after_close(manage, tmp_path):
    manager = manage({"mute": {**stubborn_server(tmp_path, FAKE, answers=False), "start_timeout": 0.2}})
    assert not manager.wait() and "not answering" in manager.status.lines()[0]
    assert wait_for(lambda: (tmp_path / "pids").exists() and len(pids_started(tmp_path)) == 2)
    manager.close()
    assert all(process_gone(pid) for pid in pids_started(tmp_path))


def test_refresh_ends_the_old_process_groups_and_lists_afresh(manage, tmp_path):
    manager = manage({"stubborn": stubborn_server(tmp_path, FAKE)})
    assert manager.wait(30)
    first = pids_started(tmp_path)
    manager.refresh()
    assert all(process_gone(pid) for pid in first)
    assert manager.wait(30) and manager.status.lines()[0].startswith("stubborn: ready (15 tools;")
    assert len(pids_started(tmp_path)) == 4


def test_endless_pages_stop_at_the_page_cap(manage):
    manager = manage({"endless": fake("--endless-pages")})
    assert manager.wait(60)
    assert len(manager.catalog.tools()) == PAGE_CAP
    assert any("offers more tools than ankit takes" in line for line in manager.status.lines())


def test_a_server_that_announces_a_change_after_every_list_is_throttled_then_stopped(manage):
    manager = manage({"storm": fake("--relist-storm")})
    assert manager.wait(30)
    assert wait_for(lambda: manager.status.lines()[0].startswith("storm: failed: "), 60)
    line = manager.status.lines()[0]
    assert f"announced a changed tool list more than {RELIST_LIMIT} times" in line
    assert [n for n in manager.status.news() if "storm" in n] == ["MCP server 'storm' " + line.removeprefix("storm: failed: ")]
    stopped = call(manager, "mcp__storm__echo", '{"text": "x"}')
    assert stopped.is_error and "stays off for this session" in stopped.content


def test_a_ping_flood_from_a_server_that_stops_reading_costs_no_thread_per_message(manage):
    before = threading.active_count()
    manager = manage({"flood": fake("--ping-flood", "20000")})
    manager.wait(60)
    line = manager.status.lines()[0]
    assert line.startswith("flood: failed: ") and "so it was stopped" in line
    assert threading.active_count() <= before + 3
    assert len(manager.status.failures()) == 1 and "\n" not in manager.status.failures()[0]


def test_prompts_and_resources_are_listed_cached_and_used_on_demand(tmp_path):
    cache = ToolCache(tmp_path / "cache")
    first = McpManager({"fake": fake("--prompts")}, tmp_path / "logs", cache=cache)
    try:
        first.start()
        assert first.wait(30)
        assert list(first.content.prompts()) == ["mcp__fake__review"]
        assert first.content.prompt_text("mcp__fake__review", 'code="print(1)" language=go') == \
            "Please review this go code:\nprint(1)"
        assert first.content.prompt_text("mcp__fake__review", "x = 1") == "Please review this python code:\nx = 1"
        with pytest.raises(ConfigError, match=r"code needed; usage: /mcp__fake__review code \[language\]"):
            first.content.prompt_text("mcp__fake__review", "")
        assert first.content.read("fake", "notes://today") == "[resource notes://today (text/plain)]\nbuy milk"
    finally:
        first.close()
    second = McpManager({"fake": fake("--prompts")}, tmp_path / "logs", cache=cache)
    try:
        text = second.status.server_text("fake")  # from the cache: nothing started
        assert text.splitlines()[0].startswith("fake: not started (15 tools as listed")
        assert "    /mcp__fake__review code [language]  Review a piece of code." in text
        assert "    @fake:notes://today  Today's notes" in text
        assert second.content.resources() == [("fake", {"uri": "notes://today", "name": "Today's notes", "mimeType": "text/plain"})]
    finally:
        second.close()


def test_a_server_that_exits_while_its_child_holds_its_output_is_failed_with_its_code(manage, tmp_path):
    pids = tmp_path / "pids"
    manager = manage({"quitter": {"command": "/bin/sh", "args": ["-c", f"sleep 300 & echo $! > {pids}; exit 4"]}})
    assert manager.wait(30)
    assert manager.status.lines()[0].startswith("quitter: failed: MCP server 'quitter' exited with code 4")
    assert all(process_gone(pid) for pid in pids_started(tmp_path))


def test_a_server_that_did_not_start_is_remembered_and_taxes_no_turn_for_a_while(tmp_path):
    from ankit.mcp.cache import ToolCache
    cache = ToolCache(tmp_path / "cache")
    servers = {"dead": fake("--start-delay", "100", start_timeout=0.3, startup_timeout=1)}
    first = McpManager(servers, tmp_path / "logs", cache=cache)
    try:
        first.start()
        assert first.wait(30)  # its startup_timeout passes, then its start has failed
        assert first.status.lines()[0].startswith("dead: failed: ")
    finally:
        first.close()
    second = McpManager(servers, tmp_path / "logs", cache=cache)
    try:
        second.start()
        view = View()
        second.before_turn(view)
        assert "waiting for MCP servers to start…" not in view.notices  # not waited for this time
        assert re.match(r"dead: starting in the background; it did not start at \d\d:\d\d, so nothing waits for it",
                        second.status.lines()[0])
        assert second.unlisted() == []  # find_tools and calls do not wait for it either
    finally:
        second.close()
    assert cache.failure(first._servers[0].key, now=time.time() + 601) is None  # forgotten after ten minutes



def test_two_servers_whose_names_read_alike_are_told_apart_and_it_is_said(tmp_path):
    manager = McpManager({"my.srv": fake(), "my_srv": fake()}, tmp_path / "logs")
    try:
        view = View()
        manager.before_turn(view)
        assert any(line.startswith("MCP server 'my_srv''s tools are named mcp__my_srv_") for line in view.notices)
        assert [s.label for s in manager._servers][0] == "my_srv" and manager._servers[1].label != "my_srv"
    finally:
        manager.close()


def test_a_tool_description_carrying_the_servers_own_secret_is_scrubbed(manage):
    secret = "not-shaped-like-a-key-but-given-in-env-7f3a9"
    manager = manage({"fake": fake("--leaky-description", env={"FAKE_TOKEN": secret})})
    assert manager.wait(10)
    echo = next(t for t in manager.catalog.tools() if t.name == "mcp__fake__echo")
    assert secret not in echo.description and "[redacted]" in echo.description, echo.description
