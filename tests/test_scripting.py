"""-p --output-format json and stream-json, as a script reads them (a real subprocess, the loopback server)."""

import json

from tests.test_oneshot import ankit

USAGE = {"prompt_tokens": 1234, "completion_tokens": 56, "total_tokens": 1290, "prompt_tokens_details": {"cached_tokens": 1000}}


def test_json_prints_one_object_whose_usage_matches_the_server(provider_server, tmp_path):
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "a.txt").write_text("alpha\n")
    provider_server.push_openai(tool_calls=[("call_1", "read_file", '{"path": "a.txt"}')], usage=USAGE)
    provider_server.push_openai(text="It says alpha.", usage=USAGE)
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--model", "gpt-4.1-mini",
                 "--output-format", "json", "-p", "read a.txt")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["type"] == "result" and result["is_error"] is False and result["result"] == "It says alpha."
    assert result["num_turns"] == 2
    assert result["usage"] == {"input_tokens": 2 * 234, "cache_creation_input_tokens": 0,
                               "cache_read_input_tokens": 2 * 1000, "output_tokens": 2 * 56}
    assert isinstance(result["total_cost_usd"], float) and result["total_cost_usd"] > 0
    assert isinstance(result["duration_ms"], int)
    saved = tmp_path / "state" / "ankit" / "sessions" / f"{result['session_id']}.jsonl"
    assert saved.is_file()


def test_json_on_failure_is_still_one_object_and_an_unknown_price_is_null(provider_server, tmp_path):
    provider_server.push({"error": {"message": "model not found"}}, status=404)
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--model", "no-such-model",
                 "--output-format", "json", "-p", "hi")
    assert done.returncode == 1
    result = json.loads(done.stdout)
    assert result["is_error"] is True and "404" in result["result"] and result["total_cost_usd"] is None
    assert done.stderr.count("\n") == 1


def test_stream_json_prints_events_as_they_happen(provider_server, tmp_path):
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "a.txt").write_text("alpha\n")
    provider_server.push_openai(tool_calls=[("call_1", "read_file", '{"path": "a.txt"}')], usage=USAGE)
    provider_server.push_openai(text="It says alpha.", usage=USAGE)
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--output-format", "stream-json", "-p", "read a.txt")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [(o["type"], o.get("subtype")) for o in lines]
    assert kinds[0] == ("system", "init") and "read_file" in lines[0]["tools"]
    assert ("assistant", None) in kinds and ("user", None) in kinds and kinds[-1] == ("result", "success")
    tool_use = next(o for o in lines if o["type"] == "assistant")["message"]["content"][0]
    assert tool_use == {"type": "tool_use", "id": "call_1", "name": "read_file", "input": {"path": "a.txt"}}
    result = next(o for o in lines if o["type"] == "user")["message"]["content"][0]
    assert result["tool_use_id"] == "call_1" and "alpha" in result["content"]
    deltas = "".join(o["event"]["delta"]["text"] for o in lines if o["type"] == "stream_event")
    assert deltas == "It says alpha." == lines[-1]["result"]
    assert len({o["session_id"] for o in lines}) == 1


def test_output_format_without_p_is_one_line(tmp_path):
    done = ankit(tmp_path, "--output-format", "json")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "--output-format json is for one-shot runs: add -p" in done.stderr


def test_a_refused_call_is_listed_in_permission_denials_and_strict_exits_3(provider_server, tmp_path):
    for strict in ((), ("--strict",)):
        provider_server.push_openai(tool_calls=[("call_9", "write_file", '{"path": "x.txt", "content": "hi"}')])
        provider_server.push_openai(text="I could not write it.")
        done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--output-format", "json", *strict,
                     "-p", "write x.txt")
        assert done.returncode == (3 if strict else 0), done.stderr
        result = json.loads(done.stdout)
        assert result["subtype"] == "success" and result["is_error"] is False  # as Claude Code: listed, not failed
        assert result["permission_denials"] == [{
            "tool_name": "write_file", "tool_use_id": "call_9", "tool_input": {"path": "x.txt", "content": "hi"},
            "reason": "needs approval; -p asks nobody (rerun with --yes to allow it)"}]
    assert not (tmp_path / "work" / "x.txt").exists()


def test_a_run_with_nothing_refused_has_empty_permission_denials_and_strict_exits_0(provider_server, tmp_path):
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "a.txt").write_text("alpha\n")
    provider_server.push_openai(tool_calls=[("call_1", "read_file", '{"path": "a.txt"}')])
    provider_server.push_openai(text="alpha")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--output-format", "stream-json", "--strict",
                 "-p", "read a.txt")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["permission_denials"] == []


def test_a_programs_inner_calls_are_events_under_run_code_and_listed_in_json(provider_server, tmp_path):
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "a.txt").write_text("alpha\n")
    (tmp_path / "config" / "ankit").mkdir(parents=True)
    (tmp_path / "config" / "ankit" / "config.toml").write_text('code_mode = "on"\n')
    code = "import tools\nprint(tools.read_file('a.txt').strip(), tools.find_files('*.txt'))\n"
    for fmt in ("stream-json", "json"):
        provider_server.push_openai(tool_calls=[("call_1", "run_code", json.dumps({"code": code}))])
        provider_server.push_openai(text="It says alpha.")
        done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--output-format", fmt, "-p", "read a.txt")
        assert done.returncode == 0, done.stderr
        lines = [json.loads(line) for line in done.stdout.splitlines()]
        inner = [{"tool_use_id": "code-1", "parent_tool_use_id": "call_1", "tool_name": "read_file",
                  "tool_input": {"path": "a.txt"}, "is_error": False},
                 {"tool_use_id": "code-2", "parent_tool_use_id": "call_1", "tool_name": "find_files",
                  "tool_input": {"pattern": "*.txt"}, "is_error": False}]
        assert lines[-1]["inner_calls"] == inner
        if fmt == "stream-json":
            under = [o for o in lines if o.get("parent_tool_use_id") == "call_1"]
            assert [o["type"] for o in under] == ["assistant", "user", "assistant", "user"]
            assert under[0]["message"]["content"][0] == {"type": "tool_use", "id": "code-1", "name": "read_file",
                                                         "input": {"path": "a.txt"}}
            assert "alpha" in under[1]["message"]["content"][0]["content"]  # the result the model would read
            outer = [o for o in lines if o["type"] == "user" and "parent_tool_use_id" not in o]
            assert outer[0]["message"]["content"][0]["content"] == "alpha ['a.txt']\n"
        else:
            assert len(lines) == 1
