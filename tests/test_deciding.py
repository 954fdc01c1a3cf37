"""Decision mode against the loopback provider in each wire format (Chat Completions with and without
log-probabilities, Anthropic Messages, Responses): the question on the wire, the first chunk standing alone, the
rest asked side by side, the groups question after "none fits", written letters ranking by their order, and a
model answering by position caught; then one-shot runs whose find_tools is ranked by the model."""

import json
import math
import re
import threading
import time

import pytest

from tests.conftest import anthropic_sse, fixture_parts, logprobs_sse, openai_sse, responses_sse
from tests.test_decision import catalog_index
from tests.test_oneshot import ankit
from ankit.discovery.decision import CANDIDATES, LETTERS, Decision, decide, group_options, letters, rotation
from ankit.providers import make_provider
from ankit.turn.deciding import ModelChooser

FORMATS = ["chat+logprobs", "chat", "anthropic", "responses"]
USAGE = {"chat+logprobs": {"prompt_tokens": 210, "completion_tokens": 1, "total_tokens": 211}}


def answer(kind: str, said: list[str], probs: list[float] = (0.9, 0.05, 0.03)) -> list[bytes]:
    """One reply writing these letters (best first) in the format's stream; with log-probabilities for the first."""
    text = ", ".join(said)
    if kind == "chat+logprobs":
        return fixture_parts(logprobs_sse({letter: math.log(p) for letter, p in zip(said, probs)},
                                          usage=USAGE[kind]))
    stream = {"chat": openai_sse, "anthropic": anthropic_sse, "responses": responses_sse}[kind]
    return fixture_parts(stream(text=text))


def chooser_for(server, kind: str) -> ModelChooser:
    wire = "openai" if kind.startswith("chat") else kind
    return ModelChooser(lambda: make_provider(server.settings(wire)))


def letter_of(request: str, names: list[str], wanted: str, turn: int = 0) -> str:
    return LETTERS[rotation(request, names, turn).index(wanted)]


def chunks_of(index, request: str, size: int) -> list[list[str]]:
    top = [name for name, _ in index.rank_tools(request, CANDIDATES)]
    return [top[i:i + size] for i in range(0, len(top), size)]


@pytest.mark.parametrize("kind", FORMATS)
def test_a_clear_first_chunk_is_one_short_question_on_the_wire(provider_server, kind):
    index, request = catalog_index(30), "read file number 3 from the disk"
    first = chunks_of(index, request, 10)[0]
    provider_server.push(answer(kind, [letter_of(request, first, "file_tool_3")]))
    decision = decide(index, request, chooser_for(provider_server, kind))
    assert decision.mode == "decision" and decision.ranked[0][0] == "file_tool_3" and decision.questions == 1
    assert decision.source == ("logprobs" if kind == "chat+logprobs" else "letters")
    body = provider_server.requests[0].json
    assert len(provider_server.requests) == 1 and "tools" not in body
    limit = body.get("max_tokens") or body.get("max_completion_tokens") or body.get("max_output_tokens")
    assert limit == (16 if kind == "responses" else 12)  # the Responses API takes no fewer than 16
    if kind.startswith("chat"):
        assert body["logprobs"] is True and body["top_logprobs"] == 20
    else:
        assert "logprobs" not in body and "top_logprobs" not in body and "logprobs" not in str(body.get("include"))
    if kind == "chat+logprobs":
        assert decision.tokens == 211


@pytest.mark.parametrize("kind", FORMATS)
def test_a_first_chunk_saying_none_fits_asks_the_rest_side_by_side_and_their_winners_meet(provider_server, kind):
    index, request = catalog_index(30), "read the file of sockets for a port"
    provider_server.push(answer(kind, ["Z", "A"], (0.6, 0.3)))  # no tool first
    gate = provider_server.gate()
    for _ in range(3):
        provider_server.push(answer(kind, ["B"], (0.9,)), delay=gate)
    provider_server.push(answer(kind, ["C", "A"], (0.7, 0.2)))  # the final question over the three winners
    found = {}
    asking = threading.Thread(target=lambda: found.setdefault("d", decide(index, request, chooser_for(
        provider_server, kind), chunk=5)))
    asking.start()
    deadline = time.monotonic() + 10
    while len(provider_server.requests) < 4 and time.monotonic() < deadline:
        time.sleep(0.01)
    together = len(provider_server.requests)
    gate.set()
    asking.join(10)
    assert together == 4  # the three later chunks were all asked before any was answered
    decision = found["d"]
    final = provider_server.requests[4].json
    options = [line for line in str(final.get("messages") or final.get("input")).split("\\n") if line[1:3] == ". "]
    assert len(options) == 4 and options[2].startswith("C. ")  # three winners and Z
    assert decision.ranked[0][0] == options[2][3:].split(":")[0] and (decision.questions, decision.rounds) == (5, 3)


@pytest.mark.parametrize("kind", FORMATS)
def test_none_fits_then_the_groups_question_picks_one(provider_server, kind):
    index, request = catalog_index(3), "read file number 2 from the disk"
    provider_server.push(answer(kind, ["Z"]))
    provider_server.push(answer(kind, [letter_of(request, group_options(index, request), "mail")]))
    decision = decide(index, request, chooser_for(provider_server, kind))
    assert decision.mode == "decision" and decision.ranked == [] and decision.group == "mail"
    asked = provider_server.requests[1].json
    text = str(asked.get("messages") or asked.get("input"))
    assert "Which tool group fits best?" in text and "No tool group in this list fits." in text
    assert decision.asked[-1] == "none fit; then which of 3 tool groups fits: mail"


@pytest.mark.parametrize("kind", FORMATS)
def test_written_letters_rank_by_their_order(provider_server, kind):
    index, request = catalog_index(4), "read file number 2 from the disk"
    names = chunks_of(index, request, 10)[0]
    said = [letter_of(request, names, "file_tool_2"), letter_of(request, names, "file_tool_0")]
    provider_server.push(answer(kind, said, (0.6, 0.3)))
    decision = decide(index, request, chooser_for(provider_server, kind))
    assert [n for n, _ in decision.ranked] == ["file_tool_2", "file_tool_0"]


@pytest.mark.parametrize("kind", FORMATS)
def test_a_model_answering_a_whatever_the_order_is_caught_and_asked_no_more(provider_server, kind):
    index, request = catalog_index(30), "read file number 3 from the disk"
    provider_server.push(answer(kind, ["A"]))
    provider_server.push(answer(kind, ["A"]))
    chooser = chooser_for(provider_server, kind)
    assert chooser.decide(index, "zzzz qqqq").mode == "words"  # no word matched: nothing asked, nothing probed
    decision = chooser.decide(index, request)
    questions = [str(r.json.get("messages") or r.json.get("input")) for r in provider_server.requests]
    assert len(questions) == 2 and questions[0] != questions[1]  # one chunk in two rotations
    assert decision.mode == "words" and "whatever the options' order" in decision.fallback_reason
    again = chooser.decide(index, "read file number 4 from the disk")
    assert again.mode == "words" and len(provider_server.requests) == 2 and chooser.off


def test_a_search_s_questions_tokens_and_time_are_kept_for_usage(provider_server):
    index, request = catalog_index(30), "read file number 3 from the disk"
    first = chunks_of(index, request, 10)[0]
    for turn in (0, 1):  # the session's first search asks its first chunk in two rotations, side by side: the
        # replies go in the order the questions arrive, each names a tool, and the first rotation's answer ranks
        provider_server.push(answer("chat+logprobs", [letter_of(request, first, "file_tool_3", turn)]))
    chooser = chooser_for(provider_server, "chat+logprobs")
    decision = chooser.decide(index, request)
    assert decision.mode == "decision" and len(decision.ranked) == 1 and len(chooser.rounds) == 2
    search = chooser.searches[0]
    assert (search.questions, search.tokens, search.mode) == (2, 422, "decision") and search.seconds > 0


def decision_config(tmp_path, extra: str = ""):
    config = tmp_path / "config" / "ankit"
    config.mkdir(parents=True)
    (config / "config.toml").write_text('search = "decision"\n' + extra)


def last_text(server) -> str:
    """What the last request sent, as text (the find_tools result among it)."""
    return json.dumps(server.requests[-1].json)


def test_a_one_shot_search_where_nothing_fits_answers_with_the_groups(provider_server, tmp_path):
    decision_config(tmp_path)
    provider_server.push_openai(tool_calls=[("c1", "find_tools", '{"query": "who is listening on port 8080"}')])
    for _ in range(3):  # the one chunk in two rotations, then the groups question: none fits
        provider_server.push(fixture_parts(logprobs_sse({"Z": -0.05, "A": -4.0})))
    provider_server.push_openai(text="Nothing fits.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "who listens on 8080?")
    assert done.returncode == 0, done.stderr
    asked = provider_server.requests[1].json
    assert asked["max_tokens"] == 12 and asked["logprobs"] is True and "tools" not in asked
    assert asked["messages"][1]["content"].startswith('A user asked an assistant: "who is listening on port 8080"')
    assert "Which tool group fits best?" in provider_server.requests[3].json["messages"][1]["content"]
    answer_text = provider_server.requests[4].json["messages"][-1]["content"]
    assert answer_text.startswith("Nothing matched 'who is listening on port 8080'")
    assert "(mode: decision: asked the model which of the words' top 4 tools fits; none fit; then which of" in (
        answer_text) and "tool groups fits: none (3 questions" in answer_text


@pytest.mark.parametrize("kind", ["anthropic", "responses"])
def test_a_one_shot_search_without_log_probabilities_is_ranked_by_the_letters(provider_server, tmp_path, kind):
    decision_config(tmp_path, 'api = "responses"\n' if kind == "responses" else "")
    push = provider_server.push_anthropic if kind == "anthropic" else provider_server.push_responses
    push(tool_calls=[("c1", "find_tools", '{"query": "who is listening on port 8080"}')])
    push(text="B")  # the one chunk of four, in two rotations half way round: B and D are the same tool
    push(text="D")
    push(text="done")
    provider = "anthropic" if kind == "anthropic" else "openai"
    done = ankit(tmp_path, "--provider", provider, "--base-url", provider_server.url + "/v1", "-p", "who listens?",
                 ANTHROPIC_API_KEY="k", OPENAI_API_KEY="k")
    assert done.returncode == 0, done.stderr
    asked = [str(r.json) for r in provider_server.requests[1:3]]
    picked = {said.split(f"\\n{letter}. ")[1].split(":")[0] for said, letter in zip(asked, "BD")}
    assert len(picked) == 1
    result = last_text(provider_server)
    assert re.search(rf"Loaded [\w:-]+: {picked.pop()}\b", result)
    assert "(mode: decision: asked the model which of the words' top 4 tools fits (2 questions" in result
    assert "Also among the top (find_tools loads them by name)" in result


def test_decision_mode_loads_what_the_model_picks_over_the_words_first_choice(provider_server, tmp_path):
    decision_config(tmp_path)
    provider_server.push_openai(tool_calls=[("c1", "find_tools", '{"query": "who is listening on port 8080"}')])
    provider_server.push(fixture_parts(logprobs_sse({"B": -0.1, "A": -2.6})))  # two rotations half way round:
    provider_server.push(fixture_parts(logprobs_sse({"D": -0.1, "A": -2.6})))  # B and D are the same tool
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "who listens on 8080?")
    assert done.returncode == 0, done.stderr
    lines = [r.json["messages"][1]["content"].splitlines() for r in provider_server.requests[1:3]]
    picked = {next(line for line in said if line.startswith(f"{letter}. ")).split(":")[0][3:]
              for said, letter in zip(lines, "BD")}
    assert len(picked) == 1
    answer_text = provider_server.requests[3].json["messages"][-1]["content"]
    assert f" {picked.pop()}" in answer_text.splitlines()[0] and "(mode: decision: " in answer_text


def test_llama_cpp_s_real_answer_is_read_token_for_token(provider_server):
    # tests/fixtures/llamacpp_logprobs.sse: llama.cpp's server (xllamacpp, SmolLM2-135M-Instruct) answering a choice
    # question: a role chunk with "content": null, then one token with id, bytes and twenty top_logprobs (words
    # such as "The" and "I" among the letters), then usage and timings.
    provider_server.push("llamacpp_logprobs.sse")
    chooser = chooser_for(provider_server, "chat+logprobs")
    said = chooser.choose("You choose the tool an assistant should use.", "Which one?\nA. port_status\nB. kill")
    chosen = letters(said.logprobs)
    assert math.isclose(chosen["A"], -0.764681339263916) and math.isclose(chosen["B"], -1.8688759803771973)
    assert math.isclose(chosen["Z"], -3.5276856422424316) and "The" not in chosen
    assert said.tokens == chooser.rounds[0].usage.input_tokens + chooser.rounds[0].usage.output_tokens
    assert chooser.rounds[0].usage.input_tokens == 157 and chooser.fallbacks == []


def test_auto_asks_the_model_only_where_it_ranks(provider_server):
    index, request = catalog_index(4), "read file number 2 from the disk"
    quiet = ModelChooser(lambda: make_provider(provider_server.settings()), wanted=lambda: False)
    assert quiet.decide(index, request) == Decision("words") and provider_server.requests == []
    assert quiet.searches == [] and quiet.fallbacks == []
    names = chunks_of(index, request, 10)[0]
    for turn in (0, 1):
        provider_server.push(answer("chat", [letter_of(request, names, "file_tool_2", turn)]))
    asked = ModelChooser(lambda: make_provider(provider_server.settings()), wanted=lambda: True)
    assert asked.decide(index, request).mode == "decision" and len(provider_server.requests) == 2


def test_a_model_whose_answers_name_no_letter_twice_is_asked_no_more(provider_server):
    index = catalog_index(3)
    for _ in range(4):  # two searches, each the chunk in two rotations (the first) or once
        provider_server.push_anthropic(text="I would use the file tool.")
    chooser = chooser_for(provider_server, "anthropic")
    first = chooser.decide(index, "read file number 1 from the disk")
    second = chooser.decide(index, "read file number 2 from the disk")
    assert first.fallback_reason == second.fallback_reason == "the model's answer named none of the choice letters"
    asked = len(provider_server.requests)
    third = chooser.decide(index, "read file number 0 from the disk")
    assert len(provider_server.requests) == asked and third.mode == "words"
    assert third.fallback_reason.startswith("the model's answers named no choice letter in 2 searches in a row")


def test_max_cost_stops_a_decision_question_and_the_words_rank(provider_server, tmp_path):
    """The turn's first request is under the cap; what it cost leaves no room for a question, which is not sent:
    find_tools ranks by the words, and the next round is stopped the same way."""
    decision_config(tmp_path, 'max_cost = 0.5\n[prices."priced-model"]\ninput = 1\noutput = 0\n')
    spent = {"prompt_tokens": 499_990, "completion_tokens": 1, "total_tokens": 499_991}  # $0.49999 of $0.50
    provider_server.push_openai(tool_calls=[("c1", "find_tools", '{"query": "read a file"}')], usage=spent)
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--model", "priced-model", "-p", "read it")
    assert done.returncode == 1 and "stopped by max_cost $0.5000" in done.stderr
    assert len(provider_server.requests) == 1  # the turn's first round alone: no question reached the model


def test_questions_past_max_cost_are_not_sent_and_the_words_stand(provider_server):
    from ankit.usage.budget import Budget
    from ankit.usage.meter import Meter
    meter = Meter(Budget(0.5, {"test-model": {"input": 1_000_000, "output": 0}}))  # a dollar a token
    chooser = ModelChooser(lambda: make_provider(provider_server.settings()), meter=meter)
    decision = chooser.decide(catalog_index(4), "read file number 2 from the disk")
    assert provider_server.requests == [] and decision.mode == "words"
    assert decision.fallback_reason.startswith("the question failed: stopped by max_cost $0.5000")
