"""The second wave of bundled tools, each found through find_tools and run in a real `ankit -p` loop."""

import hashlib
import http.server
import json
import threading

from tests.test_oneshot import ankit


class Api(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps({"status": "green", "echo": self.headers.get("X-Loop")}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def run_steps(provider_server, tmp_path, steps, *flags, **env):
    """Script one find_tools or tool call per round, then a final answer; run ankit -p; return the results."""
    for i, (name, arguments, _) in enumerate(steps):
        provider_server.push_openai(tool_calls=[(f"c{i}", name, arguments)])
    provider_server.push_openai(text="All done.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", *flags, "-p", "go", **env)
    assert done.returncode == 0, done.stderr
    results = [provider_server.requests[i + 1].json["messages"][-1] for i in range(len(steps))]
    for (name, _, expected), result in zip(steps, results):
        assert result["role"] == "tool", name
        if expected.startswith("Error"):
            assert result["content"].startswith(expected), (name, result["content"])
        else:
            assert not result["content"].startswith("Error") and expected in result["content"], (name, result["content"])
    return done, results


def test_edit_lines_jobs_http_and_project_notes_through_find_tools(provider_server, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "app.py").write_text("a = 1\nb = 2\n")
    digest = hashlib.sha256(b"a = 1\nb = 2\n").hexdigest()[:12]
    api = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Api)
    threading.Thread(target=api.serve_forever, daemon=True).start()
    steps = [
        ("find_tools", '{"query": "keep a todo checklist for this task"}', "write_todos"),
        ("write_todos", '{"todos": [{"text": "edit app.py", "status": "in_progress"}, {"text": "ask the API"}]}',
         "0/2 done, 1 in progress"),
        ("find_tools", '{"query": "replace line 2 of app.py"}', "Loaded edit"),
        ("edit_lines", json.dumps({"path": "app.py", "file_hash": digest, "start_line": 2, "new_text": "b = 3"}), "+1 -1"),
        ("find_tools", '{"query": "answer the prompt of a background job"}', "Loaded shell"),
        ("job_start", json.dumps({"command": "printf 'ok? '; read a; echo \"said $a\""}), "started job 1"),
        ("job_input", '{"job_id": "1", "text": "yes"}', "said yes"),
        ("job_wait", '{"job_id": "1", "timeout": 10}', "exited 0"),
        ("find_tools", '{"query": "call the REST API with a bearer token"}', "Loaded http"),
        ("http_request", json.dumps({"url": f"http://127.0.0.1:{api.server_port}/health",
                                     "headers": {"X-Loop": "${LOOP_VALUE}"}}), '"status": "green"'),
        ("find_tools", '{"query": "record a design decision for this project"}', "Loaded project_notes"),
        ("add_project_note", '{"text": "we use SQLite", "kind": "decision"}', "added decision #1"),
        ("list_project_notes", '{"query": "sqlite"}', "[decision] we use SQLite"),
    ]
    try:
        done, results = run_steps(provider_server, tmp_path, steps, "--yes", LOOP_VALUE="loop-secret-value-42")
    finally:
        api.shutdown()
    assert (work / "app.py").read_text() == "a = 1\nb = 3\n"
    assert '"echo": "[redacted]"' in results[9]["content"]  # sent, and scrubbed from what the model sees
    session = next((tmp_path / "state" / "ankit" / "sessions").glob("*.jsonl")).read_text()
    assert "loop-secret-value-42" not in session and "${LOOP_VALUE}" in session
    assert '{"type":"todos","items":[{"text":"edit app.py","status":"in_progress"}' in session


def test_without_yes_requests_and_job_input_are_refused_in_one_shot_mode(provider_server, tmp_path):
    (tmp_path / "work").mkdir()
    steps = [
        ("find_tools", '{"query": "send a POST request to the API"}', "Loaded http"),
        ("http_request", '{"url": "http://127.0.0.1:9/x", "method": "POST", "json": {}}', "Error: the user declined"),
    ]
    done, _ = run_steps(provider_server, tmp_path, steps)
    assert "http_request needs approval; refused" in done.stderr


def test_mcp_manage_and_the_routine_tools_through_find_tools(provider_server, tmp_path):
    import sys
    import tomllib
    from pathlib import Path

    fake = str(Path(__file__).resolve().parent / "mcp_fake_server.py")
    (tmp_path / "work").mkdir()
    add = {"action": "add", "name": "fake", "command": sys.executable, "args": [fake], "env": {"FAKE_GREETING": "hi"}}
    steps = [
        ("find_tools", '{"query": "add an MCP server to ankit"}', "Loaded mcp"),
        ("mcp_manage", json.dumps(add), "added MCP server fake"),
        ("mcp_manage", '{"action": "get", "name": "fake"}', "FAKE_GREETING=…"),
        ("find_tools", '{"query": "schedule a routine every day"}', "Loaded routines"),
        ("routine_add", '{"schedule": "weekdays 18:00", "prompt": "sum up the day", "allow": ["git_log"]}',
         "added routine #1 weekdays 18:00"),
        ("routine_add", '{"schedule": "every blue moon", "prompt": "x"}', "Error: cannot read the schedule"),
        ("routine_list", "{}", "#1 weekdays 18:00"),
        ("routine_remove", '{"id": 1}', "removed routine #1"),
    ]
    run_steps(provider_server, tmp_path, steps, "--yes")
    config = tomllib.loads((tmp_path / "config" / "ankit" / "config.toml").read_text())
    assert config["mcp"]["servers"]["fake"]["args"] == [fake]
    assert json.loads((tmp_path / "data" / "ankit" / "routines.json").read_text())["routines"] == []
