"""Decision mode against the loopback provider: the choice question on the wire, the log-probabilities read back,
the fallbacks, and a one-shot run whose find_tools is ranked by the model."""

import json
import math

from tests.conftest import fixture_parts, logprobs_sse, openai_sse
from tests.test_oneshot import ankit
from ankit.providers import make_provider
from ankit.turn.deciding import NO_LOGPROBS, ModelChooser, letters


def test_the_question_asks_for_one_token_s_log_probabilities_and_reads_the_letters(provider_server):
    provider_server.push(fixture_parts(logprobs_sse({"B": -0.2, " B": -2.5, "A": -1.9, "Z": -3.2, "The": -4.0},
                                                    usage={"prompt_tokens": 210, "completion_tokens": 1,
                                                           "total_tokens": 211})))
    chooser = ModelChooser(lambda: make_provider(provider_server.settings()))
    chosen = chooser.choose("Answer with one letter only.", "Which one?\nA. x\nB. y\nZ. none")
    body = provider_server.requests[0].json
    assert body["logprobs"] is True and body["top_logprobs"] == 20
    assert body.get("max_tokens", body.get("max_completion_tokens")) == 1
    assert "tools" not in body and body["messages"][0] == {"role": "system", "content": "Answer with one letter only."}
    assert set(chosen) == {"A", "B", "Z"}  # "The" is no letter
    assert math.isclose(chosen["B"], math.log(math.exp(-0.2) + math.exp(-2.5)))  # " B" is B too
    assert chooser.rounds[0].usage.input_tokens == 210 and chooser.fallbacks == []


def test_a_server_without_log_probabilities_is_a_reason_not_a_ranking(provider_server):
    provider_server.push_openai(text="B")
    chooser = ModelChooser(lambda: make_provider(provider_server.settings()))
    assert chooser.choose("s", "q") == NO_LOGPROBS and chooser.fallbacks == [NO_LOGPROBS]
    provider_server.push("openai_500.http")
    provider_server.push("openai_500.http")
    provider_server.push("openai_500.http")
    reason = chooser.choose("s", "q")
    assert reason.startswith("the question failed: 500 from") and len(chooser.fallbacks) == 2


def test_letters_reads_the_ways_a_model_writes_one():
    assert letters({" b": -1.0, "C.": -2.0, "(": -0.5, "AB": -0.1}) == {"B": -1.0, "C": -2.0}


def test_a_one_shot_search_in_decision_mode_loads_the_tool_the_model_picks(provider_server, tmp_path):
    config = tmp_path / "config" / "ankit"
    config.mkdir(parents=True)
    (config / "config.toml").write_text('search = "decision"\n')
    provider_server.push_openai(tool_calls=[("c1", "find_tools", '{"query": "who is listening on port 8080"}')])
    provider_server.push(fixture_parts(logprobs_sse({"Z": -0.05, "A": -4.0})))  # the model: nothing fits
    provider_server.push_openai(text="Nothing fits.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "who listens on 8080?")
    assert done.returncode == 0, done.stderr
    asked = provider_server.requests[1].json
    assert asked["max_tokens"] == 1 and asked["logprobs"] is True and "tools" not in asked
    assert asked["messages"][1]["content"].startswith('A user asked an assistant: "who is listening on port 8080"')
    answer = provider_server.requests[2].json["messages"][-1]["content"]
    assert answer.startswith("Nothing matched 'who is listening on port 8080'") and "(mode: decision" in answer


def test_decision_mode_on_a_server_without_log_probabilities_keeps_the_words_and_says_why(provider_server, tmp_path):
    config = tmp_path / "config" / "ankit"
    config.mkdir(parents=True)
    (config / "config.toml").write_text('search = "decision"\n')
    provider_server.push_openai(tool_calls=[("c1", "find_tools", '{"query": "show the git log"}')])
    provider_server.push(openai_sse("A"))  # a server that ignores logprobs
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "what changed lately?")
    assert done.returncode == 0, done.stderr
    answer = provider_server.requests[2].json["messages"][-1]["content"]
    assert "Loaded git" in answer and f"(mode: words; fallback_reason: {NO_LOGPROBS})" in answer


def test_decision_mode_loads_what_the_model_picks_over_the_words_first_choice(provider_server, tmp_path):
    config = tmp_path / "config" / "ankit"
    config.mkdir(parents=True)
    (config / "config.toml").write_text('search = "decision"\n')
    provider_server.push_openai(tool_calls=[("c1", "find_tools", '{"query": "who is listening on port 8080"}')])
    provider_server.push(fixture_parts(logprobs_sse({"B": -0.1, "A": -2.6})))  # the second option
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "who listens on 8080?")
    assert done.returncode == 0, done.stderr
    options = [line for line in provider_server.requests[1].json["messages"][1]["content"].splitlines()
               if line[:3] in ("A. ", "B. ")]
    picked = options[1].split(":")[0][3:]
    answer = provider_server.requests[2].json["messages"][-1]["content"]
    assert f" {picked}" in answer.splitlines()[0] and answer.endswith("(mode: decision: ranked by the model's choice)")


def test_llama_cpp_s_real_answer_is_read_token_for_token(provider_server):
    # tests/fixtures/llamacpp_logprobs.sse: llama.cpp's server (xllamacpp, SmolLM2-135M-Instruct) answering the
    # question below as ankit asked it: a role chunk with "content": null, then one token with id, bytes and twenty
    # top_logprobs (words such as "The" and "I" among the letters), then usage and timings.
    provider_server.push("llamacpp_logprobs.sse")
    chooser = ModelChooser(lambda: make_provider(provider_server.settings()))
    chosen = chooser.choose("You choose the tool an assistant should use. Answer with one letter only.",
                            "Which one tool fits best?\nA. port_status: ...\nB. kill_process: ...\nZ. No tool fits.")
    assert math.isclose(chosen["A"], -0.764681339263916) and math.isclose(chosen["B"], -1.8688759803771973)
    assert math.isclose(chosen["Z"], -3.5276856422424316) and "The" not in chosen
    assert chooser.rounds[0].usage.input_tokens == 157 and chooser.fallbacks == []


def test_a_one_shot_search_ranked_by_llama_cpp_s_recorded_choice(provider_server, tmp_path):
    config = tmp_path / "config" / "ankit"
    config.mkdir(parents=True)
    (config / "config.toml").write_text('search = "decision"\n')
    provider_server.push_openai(tool_calls=[("c1", "find_tools", '{"query": "who is listening on port 8080"}')])
    provider_server.push("llamacpp_logprobs.sse")  # recorded for exactly this question (A. port_status)
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "who listens on 8080?")
    assert done.returncode == 0, done.stderr
    question = provider_server.requests[1].json["messages"][1]["content"]
    assert "A. port_status: " in question and "B. kill_process: " in question
    answer = provider_server.requests[2].json["messages"][-1]["content"]
    assert "port_status" in answer.splitlines()[0] and answer.endswith("(mode: decision: ranked by the model's choice)")
