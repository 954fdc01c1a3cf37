"""Routines run from the crontab line `ankit routine install` prints, on a fixed clock, against loopback servers."""

import http.server
import json
import subprocess
import threading
from datetime import datetime, timedelta

from tests.test_oneshot import ankit, env_for


def cron_command(tmp_path) -> str:
    """The command part of the crontab line (after the five time fields)."""
    printed = ankit(tmp_path, "routine", "install")
    assert printed.returncode == 0, printed.stderr
    line = next(ln for ln in printed.stdout.splitlines() if not ln.startswith("#"))
    fields = line.split(" ", 5)
    assert fields[:5] == ["*/15", "*", "*", "*", "*"] and fields[5].endswith(" 2>&1")
    return fields[5]


def as_cron_reads_it(command: str) -> str:
    """What cron hands to sh: an unescaped % ends the command (the rest is stdin), and \\% is a plain %."""
    out, escaped = [], False
    for ch in command:
        if escaped:
            if ch == "%":
                out.pop()
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == "%":
            break
        out.append(ch)
    return "".join(out)


def run_cron(tmp_path, command: str, now: str, **env) -> str:
    """Run the crontab command as cron would (sh, the user's environment) with a fixed clock; return its log."""
    done = subprocess.run(["sh", "-c", as_cron_reads_it(command).replace(" >> ", f" --now {now} >> ", 1)], cwd="/", env=env_for(tmp_path, **env),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode in (0, 1) and done.stdout == "" and done.stderr == ""  # all of it goes to the log
    return (tmp_path / "state" / "ankit" / "routines.log").read_text()


def sessions(tmp_path) -> list[dict]:
    found = []
    for path in sorted((tmp_path / "state" / "ankit" / "sessions").glob("*.jsonl")):
        found.append([json.loads(line) for line in path.read_text().splitlines()])
    return found


def test_a_routine_runs_when_due_with_read_only_tools_only_and_its_answer_is_a_session(provider_server, tmp_path):
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "notes.txt").write_text("ship on friday\n")
    config = tmp_path / "config" / "ankit" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'base_url = "{provider_server.url}/v1"\n')
    added = ankit(tmp_path, "routine", "add", "every day 09:00", "what do my notes say?")
    assert added.returncode == 0 and added.stdout.startswith("added routine #1 every day 09:00"), added.stderr
    store = tmp_path / "data" / "ankit" / "routines.json"
    added_at = datetime.fromisoformat(json.loads(store.read_text())["routines"][0]["created"])
    first_day = added_at.date() + timedelta(days=0 if added_at.hour < 9 else 1)  # the first 09:00 after adding it
    created = first_day.isoformat()
    command = cron_command(tmp_path)
    log = run_cron(tmp_path, command, f"{created}T08:59")
    assert "no routine is due" in log and provider_server.requests == []
    provider_server.push_openai(tool_calls=[("c1", "read_file", '{"path": "notes.txt"}'),
                                            ("c2", "run_command", '{"command": "touch made"}')])
    provider_server.push_openai(text="Your notes say: ship on friday.")
    log = run_cron(tmp_path, command, f"{created}T09:05")
    assert "== routine #1 (every day 09:00)" in log and "Your notes say: ship on friday." in log
    results = provider_server.requests[1].json["messages"]
    assert "ship on friday" in results[-2]["content"]  # read_file ran: read-only
    assert results[-1]["content"].startswith("Error: the user declined")  # run_command was not allowed
    assert "run_command needs approval; refused (add the routine again with --allow run_command" in log
    assert not (tmp_path / "work" / "made").exists()
    [saved] = sessions(tmp_path)
    assert saved[0]["title"] == "routine #1: what do my notes say?" and saved[0]["cwd"] == str(tmp_path / "work")
    routine = json.loads(store.read_text())["routines"][0]
    assert routine["last_run"] == f"{created}T09:05:00" and routine["last_session"] == saved[0]["id"]
    assert "no routine is due" in run_cron(tmp_path, command, f"{created}T12:00").splitlines()[-1]  # once a day


def test_a_watch_routine_reports_what_changed_without_a_model(tmp_path):
    page = {"text": "<p>status: all good</p>"}

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = page["text"].encode()
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/status"
    try:
        assert ankit(tmp_path, "routine", "add", "every 1h", "--watch", url).returncode == 0
        raw = json.loads((tmp_path / "data" / "ankit" / "routines.json").read_text())["routines"][0]["created"]
        created = datetime.fromisoformat(raw)
        command = cron_command(tmp_path)
        assert f"first look at {url}" in run_cron(tmp_path, command, (created + timedelta(hours=1)).isoformat())
        page["text"] = "<p>status: degraded</p>"
        log = run_cron(tmp_path, command, (created + timedelta(hours=2)).isoformat())
    finally:
        server.shutdown()
    assert f"{url} changed since" in log and "-status: all good" in log and "+status: degraded" in log
    # both runs may start within one second, and ids of one second sort by their random part: look at each
    reports = [line["text"] for session in sessions(tmp_path) for line in session if line.get("role") == "assistant"]
    assert len(reports) == 2 and any("+status: degraded" in report for report in reports)  # kept as a session too


def test_run_due_with_a_bad_clock_and_a_bad_schedule_are_one_line(tmp_path):
    bad = ankit(tmp_path, "routine", "run-due", "--now", "yesterday")
    assert bad.returncode == 1 and bad.stderr.strip() == "ankit: usage: ankit routine run-due [--now YYYY-MM-DDTHH:MM]"
    schedule = ankit(tmp_path, "routine", "add", "every blue moon", "hi")
    assert schedule.returncode == 1 and len(schedule.stderr.splitlines()) == 1 and "cannot read the schedule" in schedule.stderr
    assert not (tmp_path / "data" / "ankit" / "routines.json").exists()


def test_an_allowed_tool_never_reaches_outside_the_routines_folder(provider_server, tmp_path):
    """A routine runs unattended: its --allow covers its own folder, never a path leading out of it."""
    (tmp_path / "work").mkdir()
    config = tmp_path / "config" / "ankit" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'base_url = "{provider_server.url}/v1"\n')
    assert ankit(tmp_path, "routine", "add", "every 1h", "tidy up", "--allow", "write_file").returncode == 0
    provider_server.push_openai(tool_calls=[("c1", "write_file", '{"path": "log.txt", "content": "ok"}'),
                                            ("c2", "write_file", '{"path": "../PWNED", "content": "x"}')])
    provider_server.push_openai(text="Done.")
    ran = ankit(tmp_path, "routine", "run-due", "--now", "2099-01-01T00:00")
    assert "Done." in ran.stdout, ran.stderr
    assert (tmp_path / "work" / "log.txt").read_text() == "ok" and not (tmp_path / "PWNED").exists()
    assert "write_file touches a path outside" in ran.stderr


def test_the_crontab_line_survives_cron_with_a_percent_sign_in_a_path(tmp_path):
    base = tmp_path / "50% off"
    base.mkdir()
    command = cron_command(base)
    assert "\\%" in command  # cron cuts a command at a bare %: the printed line escapes it
    log = run_cron(base, command, "2030-01-01T09:00")
    assert "no routine is due" in log


def test_a_routine_in_a_trusted_folder_runs_with_that_folders_settings_env(provider_server, tmp_path):
    """The merged settings env reaches a routine's commands as it reaches the REPL's (the folder's own once trusted)."""
    from ankit.settings import trust
    from ankit.settings.layers import load_config
    from ankit.settings.trust import Fingerprint
    work = tmp_path / "work"
    (work / ".claude").mkdir(parents=True)
    (work / ".claude" / "settings.json").write_text(json.dumps({"env": {"NODE_ENV": "nightly"}}))
    config_home = tmp_path / "config" / "ankit"
    config_home.mkdir(parents=True)
    (config_home / "config.toml").write_text(f'base_url = "{provider_server.url}/v1"\n')
    folder = load_config({}, {}, work, config_home)
    trust.remember(work, config_home, Fingerprint(folder.trust_items).digest, folder.trust_items)
    added = ankit(tmp_path, "routine", "add", "every day 09:00", "which stage?", "--allow", "run_command")
    assert added.returncode == 0, added.stderr
    created = json.loads((tmp_path / "data" / "ankit" / "routines.json").read_text())["routines"][0]["created"]
    provider_server.push_openai(tool_calls=[("c1", "run_command", '{"command": "echo stage=$NODE_ENV"}')])
    provider_server.push_openai(text="Nightly.")
    later = (datetime.fromisoformat(created) + timedelta(days=1)).strftime("%Y-%m-%dT09:05")
    log = run_cron(tmp_path, cron_command(tmp_path), later)
    assert "Nightly." in log, log
    assert "stage=nightly" in provider_server.requests[1].json["messages"][-1]["content"]
