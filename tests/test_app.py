"""Whole loops through the assembled App and the real loopback provider server: find_tools, budgets, skills, MCP."""

import dataclasses
import json
import sys
from pathlib import Path

import pytest

from ankit.errors import ProviderError
from ankit.protocols import NullView as View
from ankit.settings.layers import load_config
from ankit.turn.app import build_app
from conftest import TEST_KEY

ROOT = Path(__file__).resolve().parent.parent


def make_app(xdg_home, server, config_text="", env=None, **flags):
    (xdg_home / "work" / ".ankit").mkdir(exist_ok=True)
    (xdg_home / "work" / ".ankit" / "config.toml").write_text(config_text)
    flags = {"base_url": server.url + "/v1", "trust": True, **flags}  # the folder is the user's own
    config = load_config(flags, env or {}, xdg_home / "work", xdg_home / "config" / "ankit")
    return build_app(config, xdg_home / "work")


def claude_app(xdg_home, server, config_text=""):
    """An app talking the Anthropic Messages format to the loopback server."""
    return make_app(xdg_home, server, config_text, {"ANTHROPIC_API_KEY": TEST_KEY}, provider="anthropic")


def raw_tools(body: bytes) -> str:
    """The tools array exactly as it was sent."""
    text = body.decode()
    start = text.index('"tools":') + len('"tools":')
    start += len(text[start:]) - len(text[start:].lstrip())
    _, end = json.JSONDecoder().raw_decode(text, start)
    return text[start:end]


def tool_names(request) -> list[str]:
    return [t["function"]["name"] for t in request.json.get("tools", [])]


def test_find_tools_loads_a_group_and_the_tools_array_stays_byte_identical(xdg_home, provider_server):
    app = make_app(xdg_home, provider_server)
    session = app.session(View(), lambda *a: True)
    provider_server.push_openai(tool_calls=[("c1", "find_tools", '{"query": "show the recent git history"}')])
    provider_server.push_openai(tool_calls=[("c2", "git_log", "{}")])
    provider_server.push_openai(text="clean")
    session.turn("what changed?")
    first, second, third = provider_server.requests
    assert "git_log" not in tool_names(first) and {"find_tools", "skill", "read_file"} <= set(tool_names(first))
    assert "Loaded git:" in second.json["messages"][-1]["content"]
    assert "git_log" in tool_names(second)
    assert raw_tools(second.body) == raw_tools(third.body)
    assert raw_tools(second.body).startswith(raw_tools(first.body)[:-1])  # the new group is appended at the end
    app.close()


JOBS = {"job_start", "job_input", "job_output", "job_status", "job_wait", "job_stop"}  # not for "run the tests"


def test_a_search_loads_the_matched_tools_and_a_second_call_appends_the_rest_at_the_end(xdg_home, provider_server):
    app = make_app(xdg_home, provider_server)
    session = app.session(View(), lambda *a: True)
    provider_server.push_openai(tool_calls=[("c1", "find_tools", '{"query": "run the tests"}')])
    provider_server.push_openai(tool_calls=[("c2", "find_tools", '{"query": "shell"}')])
    provider_server.push_openai(text="ready")
    session.turn("run the tests")
    provider_server.push_openai(text="still ready")
    session.turn("and again")
    first, second, third, fourth = provider_server.requests
    assert "run_command" in tool_names(second) and not JOBS & set(tool_names(second))
    answer = second.json["messages"][-1]["content"]
    assert answer.startswith("Loaded shell: run_command (asks first)") and "not loaded yet: " in answer
    assert JOBS <= set(tool_names(third)) and tool_names(third).count("run_command") == 1
    assert raw_tools(second.body).startswith(raw_tools(first.body)[:-1])  # each load appended at the end
    assert raw_tools(third.body).startswith(raw_tools(second.body)[:-1])
    assert raw_tools(fourth.body) == raw_tools(third.body)
    assert fourth.json["messages"][:len(third.json["messages"])] == third.json["messages"]
    assert "run_command" in session.ledger.rounds[0].activated and session.ledger.rounds[1].activated == ["shell"]
    app.close()


@pytest.mark.parametrize("query_of", ["name", "example"])
def test_every_bundled_tool_is_found_and_offered_in_a_real_loop(xdg_home, provider_server, query_of):
    app = make_app(xdg_home, provider_server)
    session = app.session(View(), lambda *a: True)
    optional = [t for t in app.tools.values() if not app.activation.is_active(t.group)]
    assert len(optional) >= 20
    for tool in optional:
        query = tool.name if query_of == "name" else tool.examples[0]
        provider_server.push_openai(tool_calls=[("c", "find_tools", json.dumps({"query": query}))])
        provider_server.push_openai(text="ok")
        session.turn(query)
        assert tool.name in tool_names(provider_server.requests[-1]), (tool.name, query)
    app.close()


def test_a_held_back_group_comes_back_byte_identical(xdg_home, provider_server):
    roomy = make_app(xdg_home, provider_server)
    roomy.activation.activate(["git", "web"])
    provider_server.push_openai(text="a")
    roomy.session(View(), lambda *a: True).turn("hi")
    reference = raw_tools(provider_server.requests[-1].body)

    tight = make_app(xdg_home, provider_server, "context_window = 6000\nmax_tokens = 1000\n")
    tight.activation.activate(["git", "web"])
    session = tight.session(View(), lambda *a: True)
    act = tight.activation
    target = act.frozen("git").size + act.frozen("web").size // 2  # room for git, not for web as well
    room = (6000 - 1000) * 4 - len(session.system.encode()) - act.core_bytes()
    provider_server.push_openai(text="b")
    session.turn("x" * (room - target - 16))  # a long message (16: its estimated envelope)
    squeezed = provider_server.requests[-1]
    assert "web_fetch" not in tool_names(squeezed) and "git_log" in tool_names(squeezed)
    assert "held back" in squeezed.json["messages"][-1]["content"] and "web" in squeezed.json["messages"][-1]["content"]
    assert session.ledger.rounds[-1].groups_held == ["web"]
    session.conversation.clear()
    provider_server.push_openai(text="c")
    session.turn("hi")
    assert raw_tools(provider_server.requests[-1].body) == reference


def test_the_model_loads_a_skill_and_the_next_request_carries_it(xdg_home, provider_server):
    app = make_app(xdg_home, provider_server)
    session = app.session(View(), lambda *a: True)
    assert "review-commit:" in session.system
    provider_server.push_openai(tool_calls=[("c1", "skill", '{"name": "Review-Commit"}')])
    provider_server.push_openai(text="ok")
    session.turn("review my staged changes")
    result = provider_server.requests[1].json["messages"][-1]
    assert result["role"] == "tool" and result["content"].startswith("# Skill: review-commit")


def test_an_mcp_server_is_found_and_called_in_a_real_loop(xdg_home, provider_server):
    server = ROOT / "tests" / "mcp_fake_server.py"
    config = f'[mcp.servers.fake]\ncommand = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(server))}]\n'
    app = make_app(xdg_home, provider_server, config)
    assert app.mcp.wait(20)
    session = app.session(View(), lambda *a: True)
    provider_server.push_openai(tool_calls=[("c1", "find_tools", '{"query": "fake"}')])
    provider_server.push_openai(tool_calls=[("c2", "mcp__fake__echo", '{"text": "over stdio"}')])
    provider_server.push_openai(text="done")
    session.turn("echo over stdio with the fake server")
    second, third = provider_server.requests[1], provider_server.requests[2]
    assert "Loaded mcp:fake" in second.json["messages"][-1]["content"]
    assert "mcp__fake__echo" in tool_names(second)
    assert third.json["messages"][-1] == {"role": "tool", "tool_call_id": "c2", "content": "over stdio"}
    app.close()


def test_find_tools_description_lists_mcp_groups_once_they_arrive(xdg_home, provider_server):
    server = ROOT / "tests" / "mcp_fake_server.py"
    config = (f'[mcp.servers.fake]\ncommand = {json.dumps(sys.executable)}\n'
              f'args = [{json.dumps(str(server))}, "--start-delay", "1"]\n')
    app = make_app(xdg_home, provider_server, config)
    # ready=None: turns do not wait for the server, so tools arriving late (or re-listed) take the same path
    session = dataclasses.replace(app.session(View(), lambda *a: True), ready=None)
    provider_server.push_openai(text="hi")
    session.turn("before the server is up")
    assert "mcp:fake" not in provider_server.requests[-1].body.decode()
    assert app.mcp.wait(20)
    app.registry.before_turn(View())  # the main thread takes the server's tools in, as before every turn
    provider_server.push_openai(text="hi")
    session.turn("after")
    finder = [t for t in provider_server.requests[-1].json["tools"] if t["function"]["name"] == "find_tools"][0]
    assert "- mcp:fake:" in finder["function"]["description"] and "- git:" in finder["function"]["description"]
    app.close()


def test_core_is_configurable_by_tool_or_group(xdg_home, provider_server):
    app = make_app(xdg_home, provider_server, 'core = ["git_status", "web"]\n')
    session = app.session(View(), lambda *a: True)
    provider_server.push_openai(tool_calls=[("c1", "find_tools", '{"query": "git"}')])
    provider_server.push_openai(text="ok")
    session.turn("hi")
    first, second = (tool_names(r) for r in provider_server.requests)
    assert "git_status" in first and "git_log" not in first and {"web_fetch", "web_search"} <= set(first)
    assert "git_log" in second and second.count("git_status") == 1


def test_with_every_group_core_the_request_has_no_find_tools_and_the_prompt_does_not_speak_of_it(
        xdg_home, provider_server):
    app = make_app(xdg_home, provider_server, 'preload = false\n')
    groups = [g for g in app.registry.catalog.groups if g != "core"]
    app.close()
    app = make_app(xdg_home, provider_server, f'preload = false\ncore = {json.dumps(groups)}\n')  # eager
    session = app.session(View(), lambda *a: True)
    provider_server.push_openai(text="ok")
    session.turn("hi")
    [first] = provider_server.requests
    assert "find_tools" not in tool_names(first) and {"git_log", "web_fetch", "read_file"} <= set(tool_names(first))
    system = first.json["messages"][0]["content"]
    assert "find_tools" not in system and "Only a few tools" not in system
    app.close()


def test_an_mcp_server_token_never_reaches_the_session_file(xdg_home, provider_server):
    server = ROOT / "tests" / "mcp_fake_server.py"
    config = (f'[mcp.servers.fake]\ncommand = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(server))}]\n'
              '[mcp.servers.fake.env]\nFAKE_GREETING = "tok-SECRET-0123456789"\n')
    app = make_app(xdg_home, provider_server, config)
    session = app.session(View(), lambda *a: True)
    provider_server.push_openai(tool_calls=[("c1", "mcp__fake__whereami", "{}")])
    provider_server.push_openai(text="done")
    session.turn("where are you?")
    files = list((xdg_home / "state" / "ankit" / "sessions").glob("*.jsonl"))
    assert len(files) == 1 and "tok-SECRET" not in files[0].read_text()
    assert "[redacted]" in files[0].read_text()
    app.close()


# --- Anthropic: one tools array for the whole session; find_tools answers with tool_reference blocks ---

class Notices(View):
    def __init__(self):
        self.lines = []

    def notice(self, line):
        self.lines.append(line)


def declared(request) -> list[tuple[str, bool]]:
    return [(t["name"], t.get("defer_loading", False)) for t in request.json["tools"]]


def plain_tools(request) -> str:
    return json.dumps([t for t in request.json["tools"] if not t.get("defer_loading")])


def test_anthropic_plain_tools_never_change_and_a_group_travels_from_the_round_find_tools_references_it(
        xdg_home, provider_server):
    app = claude_app(xdg_home, provider_server)
    session = app.session(View(), lambda *a: True)
    provider_server.push_anthropic(tool_calls=[("t1", "find_tools", '{"query": "git"}')])  # the group whole
    provider_server.push_anthropic(tool_calls=[("t2", "git_status", "{}")])
    provider_server.push_anthropic(text="clean")
    session.turn("what changed?")
    provider_server.push_anthropic(text="still clean")
    session.turn("and now?")
    requests = provider_server.requests
    assert len({plain_tools(r) for r in requests}) == 1  # the cached part: the same bytes in every request
    assert {"find_tools", "skill", "read_file"} <= {name for name, deferred in declared(requests[0]) if not deferred}
    assert not any(deferred for _, deferred in declared(requests[0]))  # nothing found yet: no definition travels
    group = app.catalog.groups["git"].tools
    for request in requests[1:]:  # from the round that references them on, and only those
        assert [name for name, deferred in declared(request) if deferred] == list(group)
        assert raw_tools(request.body) == raw_tools(requests[1].body)
    assert not any("cache_control" in t for t in requests[1].json["tools"] if t.get("defer_loading"))
    answer = requests[1].json["messages"][-1]["content"]
    assert answer[0] == {"type": "tool_result", "tool_use_id": "t1",
                         "content": [{"type": "tool_reference", "tool_name": n} for n in group]}
    assert answer[1]["type"] == "text" and answer[1]["text"].startswith("Loaded git:")
    assert requests[2].json["messages"][-1]["content"][0]["content"] == session.conversation.messages[4].results[0].content
    assert session.ledger.rounds[0].activated == ["git"]
    app.close()


def references(request, at: int) -> list[str]:
    return [block["tool_name"] for block in request.json["messages"][at]["content"][0]["content"]]


def test_anthropic_a_search_references_the_matched_tools_and_a_second_call_only_the_rest(xdg_home, provider_server):
    app = claude_app(xdg_home, provider_server)
    session = app.session(View(), lambda *a: True)
    provider_server.push_anthropic(tool_calls=[("t1", "find_tools", '{"query": "run the tests"}')])
    provider_server.push_anthropic(tool_calls=[("t2", "find_tools", '{"query": "shell"}')])
    provider_server.push_anthropic(text="ready")
    session.turn("run the tests")
    first, second, third = provider_server.requests
    assert len({plain_tools(r) for r in provider_server.requests}) == 1
    loaded = references(second, -1)
    assert "run_command" in loaded and not JOBS & set(loaded)
    assert {name for name, deferred in declared(second) if deferred} == set(loaded)
    assert references(third, -3) == loaded  # the first answer goes back as it was
    rest = references(third, -1)
    assert JOBS <= set(rest) and not set(loaded) & set(rest)
    assert {name for name, deferred in declared(third) if deferred} == set(loaded) | set(rest)
    app.close()


def test_anthropic_refusing_deferred_tools_falls_back_once_and_says_so(xdg_home, provider_server):
    app = claude_app(xdg_home, provider_server)
    view = Notices()
    session = app.session(view, lambda *a: True)
    provider_server.push_anthropic(tool_calls=[("t1", "find_tools", '{"query": "git"}')])
    provider_server.push("anthropic_400_defer_loading.http")
    provider_server.push_anthropic(text="ok")
    session.turn("hi")
    first, refused, retried = provider_server.requests
    assert "git_log" not in dict(declared(first)) and ("git_log", True) in declared(refused)
    assert not any(deferred for _, deferred in declared(retried)) and "git_log" in dict(declared(retried))
    assert retried.json["messages"][-1]["content"][0]["content"].startswith("Loaded git:")
    assert len([line for line in view.lines if "refused deferred tools" in line]) == 1
    provider_server.push_anthropic(text="again")
    session.turn("more")
    assert len(provider_server.requests) == 4 and "defer_loading" not in provider_server.requests[-1].body.decode()
    app.close()


@pytest.mark.parametrize("mode", ["native", "append"])
def test_anthropic_deferred_setting(xdg_home, provider_server, mode):
    app = claude_app(xdg_home, provider_server, f'deferred = "{mode}"\n')
    session = app.session(View(), lambda *a: True)
    if mode == "native":  # no fallback: the refusal is the answer, in one line
        provider_server.push("anthropic_400_defer_loading.http")
        with pytest.raises(ProviderError, match="400 from anthropic: tools.3.custom.defer_loading"):
            session.turn("hi")
        assert len(provider_server.requests) == 1
    else:
        provider_server.push_anthropic(text="ok")
        session.turn("hi")
        assert "defer_loading" not in provider_server.requests[0].body.decode() and len(provider_server.requests) == 1
    app.close()


def test_anthropic_mcp_tools_arriving_late_are_found_and_deferred_at_the_end(xdg_home, provider_server):
    server = ROOT / "tests" / "mcp_fake_server.py"
    config = (f'[mcp.servers.fake]\ncommand = {json.dumps(sys.executable)}\n'
              f'args = [{json.dumps(str(server))}, "--start-delay", "1"]\n')
    app = claude_app(xdg_home, provider_server, config)
    session = dataclasses.replace(app.session(View(), lambda *a: True), ready=None)  # it finishes mid-session
    provider_server.push_anthropic(text="hi")
    session.turn("before the server is up")
    assert app.mcp.wait(20)
    app.registry.before_turn(View())  # the main thread takes the server's tools in
    provider_server.push_anthropic(tool_calls=[("t1", "find_tools", '{"query": "mcp:fake"}')])
    provider_server.push_anthropic(text="found")
    session.turn("after")
    before, _, after = (declared(r) for r in provider_server.requests)
    assert after[:len(before)] == before
    added = after[len(before):]
    assert added and all(deferred and name.startswith("mcp__fake__") for name, deferred in added)
    app.close()


# --- Responses: find_tools is the client tool search; the tools array never changes ---

def test_responses_tool_search_loads_a_group_without_touching_the_tools(xdg_home, provider_server):
    app = make_app(xdg_home, provider_server, 'api = "responses"\nmodel = "gpt-5.5"\n')
    session = app.session(View(), lambda *a: True)
    provider_server.push_responses(search="git")  # the group whole
    provider_server.push_responses(tool_calls=[("c2", "git_status", "{}")])
    provider_server.push_responses(text="clean")
    session.turn("what changed?")
    requests = provider_server.requests
    sent = [json.dumps(r.json["tools"], ensure_ascii=False) for r in requests]  # exactly as sent (checked below)
    assert all(r.path == "/v1/responses" and s in r.body.decode() for r, s in zip(requests, sent))
    assert len(set(sent)) == 1
    kinds = [t["type"] for t in requests[0].json["tools"]]
    assert "tool_search" in kinds and "find_tools" not in [t.get("name") for t in requests[0].json["tools"]]
    output = requests[1].json["input"][-2]
    assert output["type"] == "tool_search_output" and output["call_id"] == "call_search"
    assert [t["name"] for t in output["tools"]] == app.catalog.groups["git"].tools
    assert requests[1].json["input"][-1]["content"][0]["text"].startswith("Loaded git:")
    assert requests[2].json["input"][-1] == {"type": "function_call_output", "call_id": "c2",
                                             "output": session.conversation.messages[-2].results[0].content}
    assert [r.usage.input_tokens for r in session.ledger.rounds] == [10, 10, 10]
    app.close()


def test_responses_a_search_answers_with_the_matched_tools_and_a_second_search_with_the_rest(
        xdg_home, provider_server):
    app = make_app(xdg_home, provider_server, 'api = "responses"\nmodel = "gpt-5.5"\n')
    session = app.session(View(), lambda *a: True)
    provider_server.push_responses(search="run the tests", search_id="s1")
    provider_server.push_responses(search="shell", search_id="s2")
    provider_server.push_responses(text="ready")
    session.turn("run the tests")
    first, second, third = provider_server.requests
    assert len({json.dumps(r.json["tools"]) for r in provider_server.requests}) == 1
    loaded = [t["name"] for t in second.json["input"][-2]["tools"]]
    assert "run_command" in loaded and not JOBS & set(loaded)
    assert [t["name"] for t in third.json["input"][2]["tools"]] == loaded  # the first answer goes back as it was
    rest = [t["name"] for t in third.json["input"][-2]["tools"]]
    assert JOBS <= set(rest) and not set(loaded) & set(rest)
    app.close()


# --- preload: groups this folder's recent sessions activated are sent from the first request ---

def past_sessions(app, groups_per_session):
    from ankit.storage.sessions import SessionData
    for number, groups in enumerate(groups_per_session):
        app.store().save(SessionData(f"2026113{number}-000000-aaaa", "", str(app.cwd), "local", "m",
                                     activated=groups))


@pytest.mark.parametrize("config, preloaded", [("", ["git"]), ("preload = false\n", [])])
def test_habitual_groups_are_preloaded_on_the_append_path(xdg_home, provider_server, config, preloaded):
    app = make_app(xdg_home, provider_server, config)
    past_sessions(app, [["git", "web"], ["git"], ["shell"], ["git", "shell"], ["web"]])
    session = app.session(View(), lambda *a: True)
    provider_server.push_openai(text="hi")
    session.turn("hello")
    assert ("git_log" in tool_names(provider_server.requests[0])) == bool(preloaded)
    assert "web_fetch" not in tool_names(provider_server.requests[0])  # 2 of 5 is not a habit
    from ankit.terminal.overview import context_text
    lines = [line for line in context_text(app, session).splitlines() if line.startswith("preloaded")]
    assert lines == (["preloaded git: activated in 3 of the last 5 sessions in this folder "
                      "(preload = false turns this off)"] if preloaded else [])
    app.close()


def test_nothing_is_preloaded_where_activation_costs_no_rewrite(xdg_home, provider_server):
    app = claude_app(xdg_home, provider_server)
    past_sessions(app, [["git"], ["git"], ["git"]])
    app.session(View(), lambda *a: True)
    assert app.activation.active == [] and app.activation.preloaded == {}
    app.close()


def test_a_second_run_lists_tools_from_the_cache_and_sends_and_runs_them_alike(xdg_home, provider_server):
    (xdg_home / "work" / "notes.txt").write_text("cached listing\n")
    runs = []
    for _ in range(2):
        app = make_app(xdg_home, provider_server)
        session = app.session(View(), lambda *a: True)
        provider_server.push_openai(tool_calls=[("c1", "read_file", '{"path": "notes.txt"}')])
        provider_server.push_openai(text="done")
        session.turn("read my notes")
        runs.append((app, provider_server.requests[-2:]))
        app.close()
    (first_app, first), (second_app, second) = runs
    assert type(second_app.tools["read_file"].run).__name__ == "_Hook"  # the module was not imported to list it
    assert raw_tools(first[0].body) == raw_tools(second[0].body)
    assert second[1].json["messages"][-1] == first[1].json["messages"][-1]
    assert "cached listing" in second[1].json["messages"][-1]["content"]
