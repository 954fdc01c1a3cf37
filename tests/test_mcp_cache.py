"""The MCP tool-list cache: keys, storage, and servers answering from it while they start (real fake servers)."""

import json
import sys
import time
from pathlib import Path

import pytest

from ankit.mcp.cache import ToolCache, cache_key
from ankit.mcp.servers import McpManager
from ankit.records import ToolCall
from ankit.tooling.toolbox import ToolContext, run_call
from tests.helpers import wait_for

FAKE = str(Path(__file__).with_name("mcp_fake_server.py"))


def fake(*flags, delay: float = 0) -> dict:
    """The fake server; its start delay is an env value, so the cache key stays the same whatever the delay."""
    return {"command": sys.executable, "args": [FAKE, *flags], "env": {"FAKE_START_DELAY": str(delay)}}


@pytest.fixture
def managers(tmp_path):
    made = []

    def build(servers: dict, on_change=None) -> McpManager:
        manager = McpManager(servers, tmp_path / "logs", on_change, cache=ToolCache(tmp_path / "cache"))
        made.append(manager)
        return manager

    yield build
    for manager in made:
        manager.close()


def echo(manager: McpManager, text: str = "hi") -> str:
    tool = next(t for t in manager.catalog.tools() if t.name.endswith("__echo"))
    return run_call(ToolCall("c1", tool.name, json.dumps({"text": text})), tool, ToolContext(cwd=Path(".")),
                    lambda t, a, p: True).content


def test_the_key_follows_how_a_server_starts_and_never_holds_env_values(tmp_path):
    base = cache_key(sys.executable, ["a"], {"TOKEN": "one"}, None)
    assert base == cache_key(sys.executable, ["a"], {"TOKEN": "two"}, None)  # a new token lists the same tools
    assert base != cache_key(sys.executable, ["b"], {"TOKEN": "one"}, None)
    assert base != cache_key(sys.executable, ["a"], {"OTHER": "one"}, None)
    assert base != cache_key(sys.executable, ["a"], {"TOKEN": "one"}, "/tmp")
    program = tmp_path / "server"
    program.write_text("#!/bin/sh\n")
    first = cache_key(str(program), [], {}, None)
    program.write_text("#!/bin/sh\necho upgraded\n")  # the executable changed: list afresh
    assert cache_key(str(program), [], {}, None) != first


def test_a_broken_or_missing_entry_is_no_entry_and_saving_is_atomic(tmp_path):
    cache = ToolCache(tmp_path / "cache")
    assert cache.load("nope") is None
    cache.save("k", [{"name": "echo"}], "Use me.", {"name": "x"})
    assert cache.load("k")["tools"] == [{"name": "echo"}] and cache.load("k")["instructions"] == "Use me."
    (tmp_path / "cache" / "k.json").write_text("{half")
    assert cache.load("k") is None
    assert [p.name for p in (tmp_path / "cache").iterdir()] == ["k.json"]  # no temporary file left behind


def test_a_listed_server_answers_from_the_cache_without_starting(managers):
    first = managers({"slow": fake(delay=0.2)})
    first.start()
    assert first.wait(20)
    listed = sorted(t.name for t in first.catalog.tools())
    first.close()
    second = managers({"slow": fake(delay=0.2)})
    assert sorted(t.name for t in second.catalog.tools()) == listed  # before any process runs
    second.start(uncached_only=True)
    assert second.wait_uncached(0)
    [line, *_] = second.status.lines()
    assert line.startswith("slow: ") and "as listed" in line and "not started" in line
    assert echo(second) == "hi"  # a call starts the server on demand


def test_a_call_to_a_server_still_starting_waits_for_it(managers):
    quick = managers({"late": fake()})
    quick.start()
    assert quick.wait(20)
    quick.close()
    slow = managers({"late": fake(delay=1)})
    started = time.monotonic()
    slow.start()
    assert slow.wait_uncached(0)  # nothing to wait for: the list is cached
    assert echo(slow, "waited") == "waited" and time.monotonic() - started >= 0.9


def test_a_changed_list_updates_the_catalog_and_the_cache(managers, tmp_path):
    plain = managers({"grows": fake()})
    plain.start()
    assert plain.wait(20)
    plain.close()
    changes = []
    bigger = managers({"grows": fake()}, on_change=lambda: changes.append(len(bigger.catalog.tools())))
    before = len(bigger.catalog.tools())
    bigger.start()
    assert bigger.wait(20) and changes == []  # the same list: nothing to rebuild
    tool = next(t for t in bigger.catalog.tools() if t.name.endswith("__grow"))
    run_call(ToolCall("c1", tool.name, "{}"), tool, ToolContext(cwd=Path(".")), lambda t, a, p: True)
    assert wait_for(lambda: changes) and changes[-1] == before + 1  # notifications/tools/list_changed

    def cached() -> list:  # the cache is written after the listener heard of the change: wait for it too
        return [json.loads(p.read_text()) for p in (tmp_path / "cache").glob("*.json")]
    assert wait_for(lambda: len(cached()[0]["tools"]) == before + 1) and len(cached()) == 1


def test_before_turn_waits_only_for_servers_never_listed(managers):
    class View:
        def __init__(self):
            self.notices = []

        def notice(self, text):
            self.notices.append(text)

    known = managers({"known": fake()})
    known.start()
    assert known.wait(20)
    known.close()
    # 'known' will not answer within this test; 'new' starts another way (its own cache key), so it is not listed yet
    both = managers({"known": fake(delay=60), "new": fake("--instructions", "I am new.")})
    both.start()
    view = View()
    both.before_turn(view)
    known_line, new_line = [line for line in both.status.lines() if not line.startswith("  ")]
    assert known_line.startswith("known: starting... (")  # not waited for (it would have failed by now)
    assert new_line.startswith("new: ready")  # waited for
    assert any(t.name.startswith("mcp__new__") for t in both.catalog.tools())
    assert any(t.name.startswith("mcp__known__") for t in both.catalog.tools())


def test_listings_answer_from_the_cache_and_refresh_waits_for_the_servers(tmp_path):
    import os
    import subprocess
    record = tmp_path / "record.jsonl"
    (tmp_path / "config" / "ankit").mkdir(parents=True)
    (tmp_path / "config" / "ankit" / "config.toml").write_text(
        f'[mcp.servers.notes]\ncommand = "{sys.executable}"\nargs = ["{FAKE}", "--record", "{record}"]\n')
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_STATE_HOME": str(tmp_path / "state"),
           "XDG_DATA_HOME": str(tmp_path / "data"), "PYTHONPATH": str(Path(__file__).resolve().parents[1])}

    def ankit(*args):
        done = subprocess.run([sys.executable, "-m", "ankit", *args], env=env, cwd=tmp_path, capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "ready" in ankit("mcp", "--refresh").splitlines()[0]
    assert "initialize" in record.read_text()
    record.unlink()
    listing = ankit("tools")
    assert "mcp:notes" in listing and "mcp__notes__echo" in listing
    assert "as listed" in ankit("mcp").splitlines()[0]
    assert not record.exists()  # answered from the cache: the server never started
