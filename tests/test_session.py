from pathlib import Path

import pytest

from ankit.errors import AnkitError, Cancelled, StreamError
from ankit.protocols import View
from ankit.records import Message, StreamEnd, TextDelta, Todo, TodoList
from ankit.tooling.activation import Activation
from ankit.tooling.toolbox import Runner, Tool, ToolContext
from ankit.turn.prompt import Prompt
from ankit.turn.session import Session
from ankit.turn.turnhooks import SessionHooks
from tests.scripted import ScriptedProvider, call, text

SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}}


def tool(name, group, run=lambda a, c: "ran " + a.get("text", ""), **kw):
    return Tool(name=name, description=f"{name} tool", parameters=SCHEMA, run=run, group=group, **kw)


TOOLS = {t.name: t for t in [tool("echo", "core"), tool("git_log", "git"), tool("danger", "edit", needs_approval=True)]}


class Recorder(View):
    def __init__(self):
        self.lines = []

    def text(self, delta):
        self.lines.append(("text", delta))

    def tool_start(self, call):
        self.lines.append(("tool", call.name))

    def tool_end(self, result):
        self.lines.append(("done", result.name))

    def notice(self, line):
        self.lines.append(("notice", line))


class FixedPrompt:
    """The same system prompt and window for every model."""

    configured_window = 0

    def __init__(self, window=32_000):
        self._window = window

    def system(self, model):
        return "system"

    def window(self, model, server=0):
        return self._window


def make(rounds, approve=lambda *a: True, window=32_000, provider=True, **kw):
    groups = lambda g: [t.spec() for t in TOOLS.values() if g in (t.group, t.name)]  # a group, or a tool alone
    scripted = ScriptedProvider(rounds)
    runner = Runner(TOOLS, ToolContext(cwd=Path(".")), approve)
    activation = Activation(groups, ["core"], all_groups=lambda: list(dict.fromkeys(t.group for t in TOOLS.values())))
    view = Recorder()
    if "hooks" in kw:
        kw["hooks"] = SessionHooks(kw["hooks"], view)
    session = Session(scripted if provider else None, runner, activation, FixedPrompt(window), view=view, **kw)
    return session, scripted


def roles(messages):
    return [m.role for m in messages]


def test_two_round_tool_loop_carries_the_result():
    session, provider = make([call("echo", '{"text": "hi"}'), text("done")])
    assert session.turn("go") == "done"
    assert roles(session.conversation.messages) == ["user", "assistant", "tool", "assistant"]
    second = provider.requests[1]
    assert second.messages[-1].results[0].content == "ran hi"
    assert [s.name for s in second.tools] == ["echo"]
    assert [r.round for r in session.ledger.rounds] == [1, 2]


class Typed:
    """An Inbox holding what the user typed during each round, handed out one batch per take."""

    def __init__(self, *batches: list[str]):
        self.batches = list(batches)

    def take(self) -> list[str]:
        return self.batches.pop(0) if self.batches else []


def test_what_was_typed_during_a_round_is_one_user_message_after_its_results():
    session, provider = make([call("echo", '{"text": "hi"}'), call("echo", '{"text": "again"}'), text("done")],
                             inbox=Typed(["use the", "fast tests"], []))
    assert session.turn("go") == "done"
    assert roles(session.conversation.messages) == ["user", "assistant", "tool", "user", "assistant", "tool", "assistant"]
    assert roles(provider.requests[1].messages)[-3:] == ["assistant", "tool", "user"]
    assert provider.requests[1].messages[-1].text == "use the\n\nfast tests"
    assert roles(provider.requests[2].messages)[-2:] == ["assistant", "tool"]  # nothing typed the second time


def test_deferred_tool_called_by_name_runs_and_is_activated_alone():
    session, provider = make([call("git_log"), call("echo"), text("ok")])
    session.turn("log")
    assert session.conversation.messages[2].results[0].content == "ran "
    assert session.activation.active == ["git_log"]  # not its whole group; echo is core: nothing to add
    assert [s.name for s in provider.requests[1].tools] == ["echo", "git_log"]
    assert session.ledger.rounds[0].activated == ["git_log"] and session.ledger.rounds[1].activated == []


def test_same_call_three_times_stops_the_loop():
    session, provider = make([call("echo"), call("echo"), call("echo"), text("never")])
    session.turn("loop")
    assert ("notice", "stopped: the model made the same call 3 times in a row") in session.view.lines
    assert roles(session.conversation.messages)[-1] == "tool" and len(provider.rounds) == 1


def test_round_limit():
    session, _ = make([call("echo", '{"text": "%d"}' % i) for i in range(3)], max_rounds=2)
    assert session.turn("x") == ""
    assert any("stopped after 2 rounds" in line for kind, line in session.view.lines if kind == "notice")


def test_stream_cut_keeps_partial_text_and_drops_unrun_calls():
    cut = [TextDelta("partial "), StreamError("stream from x ended early")]
    session, provider = make([cut, text("fine")])
    with pytest.raises(StreamError):
        session.turn("a")
    assert session.conversation.messages[-1].text == "partial " and session.conversation.messages[-1].cut
    session.turn("b")
    assert roles(provider.requests[1].messages) == ["user", "assistant", "user"]


def test_a_reply_cut_at_max_tokens_is_said_to_the_user():
    cut = [TextDelta("the first half"), StreamEnd("max_tokens")]
    session, _ = make([cut, text("whole")])
    assert session.turn("a") == "the first half"
    said = [line for kind, line in session.view.lines if kind == "notice"]
    assert said == ["the reply reached max_tokens (4,096 tokens) and was cut: say 'go on' for the rest, "
                    "or raise max_tokens in the config"]
    session.turn("b")
    assert [line for kind, line in session.view.lines if kind == "notice"] == said  # a whole reply says nothing


def test_ctrl_c_mid_stream_cancels_and_history_stays_valid():
    session, provider = make([[TextDelta("half"), KeyboardInterrupt()], text("next")])
    with pytest.raises(Cancelled):
        session.turn("a")
    assert session.conversation.messages[-1] == Message("assistant", "half", cut=True)
    session.turn("b")
    assert roles(provider.requests[1].messages) == ["user", "assistant", "user"]


def test_quit_at_approval_answers_every_call():
    def quit_turn(*_):
        raise Cancelled("quit")

    rounds = [[*call("danger", call_id="a")[:1], *call("echo", call_id="b")]]
    session, _ = make(rounds, approve=quit_turn)
    with pytest.raises(Cancelled):
        session.turn("x")
    results = session.conversation.messages[-1].results
    assert [(r.call_id, r.is_error) for r in results] == [("a", True), ("b", True)]


def test_held_back_groups_are_named_in_the_note_not_the_system_prompt():
    session, provider = make([text("a")], window=1050, max_tokens=1000)
    session.activation.activate(["git"])
    session.turn("x")
    request = provider.requests[0]
    assert "git" in request.note and "git" not in request.system
    assert [s.name for s in request.tools] == ["echo"]
    assert session.ledger.rounds[0].groups_held == ["git"]


def test_no_provider_says_how_to_set_up():
    session, _ = make([], provider=False)
    with pytest.raises(Exception, match="No provider is configured"):
        session.turn("x")


def test_groups_activated_by_find_tools_are_recorded_on_their_round():
    finder = tool("find_tools", "core", run=lambda a, c: str(session.activation.activate(["git"])))
    TOOLS["find_tools"] = finder
    try:
        session, _ = make([call("find_tools", '{"text": "git"}'), text("ok")])
        session.turn("find git")
    finally:
        del TOOLS["find_tools"]
    assert [r.activated for r in session.ledger.rounds] == [["git"], []]


def finder_loading(session_ref):
    def run(args, ctx):
        session_ref[0].activation.activate(["git"])
        return "Loaded git."
    return tool("find_tools", "core", run=run)


@pytest.mark.parametrize("window, sent", [(32_000, ["git"]), (60, [])])
def test_a_group_find_tools_activates_is_sent_when_it_fits_and_the_request_says_once_what_waits(window, sent):
    ref = []
    TOOLS["find_tools"] = finder_loading(ref)
    try:
        session, provider = make([call("find_tools", '{"query": "git"}'), text("ok")], window=window, max_tokens=10)
        ref.append(session)
        session.turn("git")
    finally:
        del TOOLS["find_tools"]
    batch, note = provider.requests[1].messages[-1], provider.requests[1].note
    assert batch.results[0].content == "Loaded git."  # find_tools' answer is its own: nothing edits it
    assert batch.activated == sent and session.conversation.messages[2].activated == sent  # the request's batch is the one kept
    assert ("held back this round for lack of room in the context window: git" in note) == (not sent)


def test_a_tool_activated_by_a_direct_call_is_sent_with_that_batch_and_building_a_request_changes_nothing():
    session, provider = make([call("git_log"), text("ok")])
    session.turn("log")
    assert provider.requests[1].messages[-1].activated == ["git_log"]
    deferred = provider.requests[1].deferred
    assert [(s.name, s.group) for s in deferred] == [("git_log", "git_log"), ("danger", "edit")]  # who loads it
    before = [m.activated for m in session.conversation.messages]
    request, _ = session.request()
    session.request()
    assert [m.activated for m in session.conversation.messages] == before and request.messages[2].activated == ["git_log"]


def test_the_view_hears_each_tool_start_before_the_tool_runs():
    ran = []
    TOOLS["mark"] = tool("mark", "core", run=lambda a, c: ran.append(list(session.view.lines)) or "marked")
    try:
        session, _ = make([[*call("mark", call_id="a")[:1], *call("echo", call_id="b")], text("ok")])
        session.turn("go")
    finally:
        del TOOLS["mark"]
    assert [line for line in session.view.lines if line[0] in ("tool", "done")] == [
        ("tool", "mark"), ("done", "mark"), ("tool", "echo"), ("done", "echo")]
    assert ran[0][-1] == ("tool", "mark")  # told before it ran


def test_a_changed_checklist_is_shown_once_saved_and_cleared_by_a_restart():
    todos = TodoList()
    keep = tool("keep", "core", run=lambda a, c: c.todos.replace([{"text": a["text"]}]) or "kept")
    shown = []

    class Shows(Recorder):
        def todos(self, listed):
            shown.append([t.text for t in listed.items])

    runner = Runner({"keep": keep, "echo": TOOLS["echo"]}, ToolContext(cwd=Path("."), todos=todos), lambda *a: True)
    session = Session(ScriptedProvider([call("keep", '{"text": "step one"}'), call("echo", "{}"), text("ok")]),
                      runner, Activation(lambda g: [keep.spec()], ["core"]), FixedPrompt(), view=Shows(), todos=todos)
    session.turn("plan")
    assert shown == [["step one"]]  # told after the call that changed it, not after the others
    assert session.snapshot().todos == [Todo("step one")]
    resumed = Session(None, runner, Activation(lambda g: [], ["core"]), FixedPrompt(), todos=TodoList(),
                      resume=session.snapshot())
    assert resumed.todos.items == [Todo("step one")]
    session.restart()
    assert session.todos.items == [] and session.snapshot().todos == []


# --- the round in process: a Ctrl-C while a tool runs, a save that fails, /compact ---

def test_ctrl_c_while_a_tool_runs_answers_every_call_records_the_round_and_saves(tmp_path):
    from ankit.storage.sessions import SessionStore

    def interrupted(args, ctx):
        raise KeyboardInterrupt

    TOOLS["slow"] = tool("slow", "core", run=interrupted)
    try:
        store = SessionStore(tmp_path / "sessions")
        session, _ = make([[*call("echo", call_id="a")[:1], *call("slow", call_id="b")[:1],
                            *call("echo", call_id="c")]], store=store)
        with pytest.raises(Cancelled, match=r"^cancelled \(ran: echo; stopped: slow; never started: echo\)$"):
            session.turn("go")
    finally:
        del TOOLS["slow"]
    results = session.conversation.messages[-1].results
    assert [(r.call_id, r.is_error, r.summary) for r in results] == [
        ("a", False, "ran "), ("b", True, "stopped"), ("c", True, "never started")]
    assert [(r.turn, r.round) for r in session.ledger.rounds] == [(1, 1)]
    saved = store.load(session.id).messages  # saved as it stands, every call answered
    assert [(r.call_id, r.content, r.is_error) for r in saved[-1].results] == [
        (r.call_id, r.content, r.is_error) for r in results]


def test_a_save_that_fails_is_one_notice_and_the_next_save_writes_what_it_missed(tmp_path):
    from ankit.storage.sessions import SessionStore
    folder = tmp_path / "sessions"
    folder.write_text("a file where the sessions folder should be")
    session, _ = make([text("one"), text("two")], store=SessionStore(folder))
    assert session.turn("first") == "one"  # the answer is not lost to the failed save
    notices = [line for kind, line in session.view.lines if kind == "notice"]
    assert len(notices) == 1 and notices[0].startswith(f"cannot save session {session.id}: ")
    folder.unlink()
    session.turn("second")
    assert [m.text for m in SessionStore(folder).load(session.id).messages] == ["first", "one", "second", "two"]


def test_compact_is_a_round_like_any_other_and_later_requests_start_at_its_summary():
    from ankit.turn.compaction import ACKNOWLEDGED, INSTRUCTION, SUMMARY_HEAD, compact
    session, provider = make([text("an answer"), text("- the user asked; it was answered"), text("next")])
    session.turn("a question")
    assert compact(session) == "- the user asked; it was answered"
    first, summary_round = provider.requests[:2]
    assert summary_round.system == first.system and summary_round.tools == first.tools  # the same cached prefix
    assert [m.text for m in summary_round.messages] == ["a question", "an answer", INSTRUCTION]
    assert [(r.turn, r.round) for r in session.ledger.rounds] == [(1, 1), (2, 1)]
    session.turn("go on")
    assert [m.text for m in provider.requests[2].messages] == [
        SUMMARY_HEAD + "- the user asked; it was answered", ACKNOWLEDGED, "go on"]
    assert [m.text for m in session.conversation.messages[:2]] == ["a question", "an answer"]  # kept in the session


def test_compact_cut_short_leaves_the_history_as_it_was():
    from ankit.turn.compaction import compact
    session, _ = make([text("an answer"), [TextDelta("- half a sum"), KeyboardInterrupt()]])
    session.turn("a question")
    before = list(session.conversation.messages)
    with pytest.raises(Cancelled, match="compaction cancelled; the history is unchanged"):
        compact(session)
    assert session.conversation.messages == before and session.conversation.live() == before


def test_user_prompt_submit_and_session_start_hooks_add_context(tmp_path):
    from ankit.hooks.events import Hook, Hooks
    hooks = Hooks([Hook("SessionStart", "echo 'branch: main'"), Hook("UserPromptSubmit", "echo 'the build is red'")],
                  tmp_path)
    session, scripted = make([text("ok"), text("again")], hooks=hooks)
    session.turn("hello")
    assert scripted.requests[0].messages[-1].text == "hello\n\nbranch: main\n\nthe build is red"
    session.turn("more")
    assert scripted.requests[1].messages[-1].text == "more\n\nthe build is red"  # SessionStart ran once


def test_a_user_prompt_submit_hook_exiting_2_stops_the_message(tmp_path):
    from ankit.hooks.events import Hook, Hooks
    session, scripted = make([text("never")], hooks=Hooks([Hook("UserPromptSubmit", "echo 'no secrets' >&2; exit 2")],
                                                           tmp_path))
    with pytest.raises(Cancelled, match="the UserPromptSubmit hook blocked this message: no secrets"):
        session.turn("my password is hunter2")
    assert scripted.requests == [] and session.conversation.messages == []


def test_a_stop_hook_sends_the_model_back_to_work_with_its_reason(tmp_path):
    from ankit.hooks.events import Hook, Hooks
    flag = tmp_path / "blocked-once"
    command = f"if [ -e {flag} ]; then exit 0; fi; touch {flag}; echo 'the tests were not run' >&2; exit 2"
    session, scripted = make([text("done"), text("ran them, all pass")], hooks=Hooks([Hook("Stop", command)], tmp_path))
    assert session.turn("fix it") == "ran them, all pass"
    assert scripted.requests[1].messages[-1].text == "[Stop hook] the tests were not run"
    assert [p[1] for p in session.conversation.rewind_points()] == ["fix it"]


def test_rewind_takes_the_history_back_and_fork_changes_only_the_id(tmp_path):
    session, _ = make([text("one"), text("two")])
    session.turn("first")
    session.turn("second")
    at = session.conversation.rewind_points()[1][0]
    assert session.rewind(at) is None and [m.text for m in session.conversation.messages] == ["first", "one"]
    old = session.fork()
    assert session.id != old and session.forked_from == old and session.snapshot().forked_from == old
    with pytest.raises(AnkitError, match="not a message of this conversation"):
        session.rewind(1)
