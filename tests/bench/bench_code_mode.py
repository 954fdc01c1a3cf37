"""Benchmark: code mode off, on and only, on tasks of one, two and many tool calls. Prints a table and the default
the figures decide.

Each task runs through ankit's own App, Session, runner, sandbox and Anthropic provider against a loopback server
whose scripted model answers from what the requests carry, in a real git repository with an MCP server configured
(tests/mcp_fake_server.py):
- one call: read notes.txt and say what it says;
- two calls: find the .cfg file, then read it (the second call needs the first's answer);
- data crunching: the three stations with the highest temperature among 30 JSON files;
- 5 and 20 calls: count the TODO lines of the modules in src/, then add the counts with the server's `add` tool.
The model calls tools directly with code mode off (independent reads in one reply), and in code mode when a task
takes one call (a single direct call with `on`; a one-call program with `only`, where no other tool is sent); a
task of several calls is one run_code program in both code modes. The answers of the three must match, or the
benchmark stops. Request bytes are the bodies sent; input tokens are bytes / 4, as bench_cache.py accounts them.

Rule for the default (issue 41): code mode `on` becomes the default if on the one-call task it sends at most 5%
more bytes than off, and on every task of three calls or more it sends fewer requests and fewer bytes.

Run: python3 tests/bench/bench_code_mode.py
"""

import http.server
import json
import re
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from conftest import anthropic_sse  # noqa: E402

MODES = ("off", "on", "only")
STATIONS = 30
ONE_CALL_MARGIN = 0.05  # what code mode on may add to a one-call task's bytes


def module(i: int) -> str:
    """A module of about 1.6 KB with i % 7 TODO lines."""
    lines = [f'"""Module {i}: parts of the build step {i}."""', "", "import os", ""]
    for j in range(30):
        lines.append(f"def step_{i}_{j}(path):")
        lines.append(f"    # TODO: check path {j}" if j < i % 7 else f"    return os.path.join(path, 'part{j}')")
    return "\n".join(lines) + "\n"


def station(i: int) -> dict:
    return {"station": f"s{i:02d}", "max_temp": round(20 + (i * 37 % 101) / 7, 1), "days": 30}


def results(body: dict) -> list[str]:
    """The tool results the request carries, in order, as text."""
    found = []
    for message in body["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result":
                content = block.get("content")
                found.append(content if isinstance(content, str) else "".join(
                    part.get("text", "") for part in content or [] if isinstance(part, dict)))
    return found


def file_text(shown: str) -> str:
    """A file's text from read_file's display (numbered lines, then notes in brackets)."""
    return "".join(line.split("\t", 1)[1] + "\n" for line in shown.splitlines() if "\t" in line)


def call(name: str, **args) -> tuple[str, str, str]:
    return (f"{name}-{json.dumps(args, sort_keys=True)}"[:60].replace(" ", ""), name, json.dumps(args))


def program(code: str) -> list:
    return [("code", "run_code", json.dumps({"code": code}))]


class Task:
    """One task: what the direct model does step by step, the program code mode runs, and the answer."""

    name, calls = "", 0

    def direct(self, got: list[str]) -> tuple[str, list]:
        raise NotImplementedError

    def code(self) -> str:
        raise NotImplementedError

    def reply(self, mode: str, got: list[str]) -> tuple[str, list]:
        """The scripted model's next reply in this mode."""
        if mode == "off" or mode == "on" and self.calls == 1:
            return self.direct(got)
        if not got:
            return "", program(self.code())
        return got[-1].strip(), []


class OneCall(Task):
    name, calls = "one call: what notes.txt says", 1

    def direct(self, got):
        return ("", [call("read_file", path="notes.txt")]) if not got else (file_text(got[0]).strip(), [])

    def code(self):
        return "import tools\nprint(tools.read_file('notes.txt').strip())\n"


class TwoCalls(Task):
    name, calls = "two calls: find the .cfg file, read it", 2

    def direct(self, got):
        if not got:
            return "", [call("find_files", pattern="*.cfg")]
        if len(got) == 1:
            return "", [call("read_file", path=got[0].strip())]
        return file_text(got[1]).strip(), []

    def code(self):
        return "import tools\n[path] = tools.find_files('*.cfg')\nprint(tools.read_file(path).strip())\n"


class Crunch(Task):
    name, calls = f"data: 3 hottest of {STATIONS} JSON files", STATIONS + 1

    def direct(self, got):
        if not got:
            return "", [call("find_files", pattern="*.json")]
        if len(got) == 1:
            return "", [call("read_file", path=p) for p in got[0].split()]
        rows = [json.loads(file_text(text)) for text in got[1:]]
        return "hottest: " + ", ".join(r["station"] for r in sorted(rows, key=lambda r: -r["max_temp"])[:3]), []

    def code(self):
        return ("import json, tools\n"
                "rows = [json.loads(tools.read_file(p)) for p in tools.find_files('*.json')]\n"
                "print('hottest:', ', '.join(r['station'] for r in sorted(rows, key=lambda r: -r['max_temp'])[:3]))\n")


class Todos(Task):
    """Read `calls - adds` modules, count TODO lines, add the counts with the MCP server (each add needs the last)."""

    def __init__(self, calls: int):
        self.calls, self.adds = calls, max(1, calls // 5)
        self.files = calls - self.adds
        self.name = f"{calls} calls: TODO lines of src/, added by an MCP tool"

    def direct(self, got):
        if len(got) < self.files:
            return "", [call("read_file", path=f"src/mod{i}.py") for i in range(self.files)]
        done = len(got) - self.files
        if done < self.adds:
            counts = [file_text(text).count("TODO") for text in got[:self.files]]
            total = int(got[-1]) if done else 0
            return "", [call("mcp__fake__add", a=total, b=sum(counts[done::self.adds]))]
        return f"TODO total: {int(got[-1])}", []

    def code(self):
        return ("import tools\n"
                f"counts = [tools.read_file(f'src/mod{{i}}.py').count('TODO') for i in range({self.files})]\n"
                "total = 0\n"
                f"for g in range({self.adds}):\n"
                f"    total = int(tools.mcp__fake__add(a=total, b=sum(counts[g::{self.adds}])))\n"
                "print('TODO total:', total)\n")


TASKS = (OneCall(), TwoCalls(), Crunch(), Todos(5), Todos(20))


class Server(http.server.ThreadingHTTPServer):
    """Answers from the scripted model and counts each request's bytes."""

    def __init__(self, task: Task, mode: str):
        super().__init__(("127.0.0.1", 0), Handler)
        self.task, self.mode, self.answer, self.sizes = task, mode, "", []
        self.url = f"http://127.0.0.1:{self.server_address[1]}/v1"
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def respond(self, raw: bytes) -> bytes:
        self.sizes.append(len(raw))
        text, calls = self.task.reply(self.mode, results(json.loads(raw)))
        self.answer = text or self.answer
        return anthropic_sse(text=text, tool_calls=calls, usage={"input_tokens": len(raw) // 4})


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        data = self.server.respond(self.rfile.read(int(self.headers["content-length"])))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format, *args):
        pass


def repository(work: Path) -> None:
    """A real git repository with every task's files, committed."""
    (work / "src").mkdir(parents=True)
    (work / "conf").mkdir()
    (work / "data").mkdir()
    for i in range(16):
        (work / "src" / f"mod{i}.py").write_text(module(i))
    for i in range(STATIONS):
        (work / "data" / f"station{i:02d}.json").write_text(json.dumps(station(i)))
    (work / "notes.txt").write_text("the answer is 42\n")
    (work / "conf" / "app.cfg").write_text("port = 8080\n")
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    subprocess.run(["git", "add", "-A"], cwd=work, check=True)
    subprocess.run([*git, "commit", "-qm", "files"], cwd=work, check=True)


def run(root: Path, number: int, task: Task, mode: str, catalog: str = "none") -> Server:
    """One task in one mode (and code_mode_catalog), through ankit; the server's counts."""
    from ankit.protocols import NullView
    from ankit.settings.layers import load_config
    from ankit.turn.app import build_app

    tag = f"{number}{MODES.index(mode)}{catalog[0]}"  # the same length in every mode: the prompt names the folder
    work, home = root / f"work-{tag}", root / f"config-{tag}"
    repository(work)
    home.mkdir()
    (home / "config.toml").write_text(
        f'code_mode = "{mode}"\ncode_mode_catalog = "{catalog}"\npreload = false\ndeferred = "append"\nmax_rounds = 80\n[mcp.servers.fake]\n'
        f"command = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(ROOT / 'tests' / 'mcp_fake_server.py'))}]\n")
    server = Server(task, mode)
    flags = {"base_url": server.url, "provider": "anthropic", "model": "claude-sonnet-4-5"}
    app = build_app(load_config(flags, {"ANTHROPIC_API_KEY": "sk-ant-bench-0123456789"}, work, home), work)
    try:
        app.session(NullView(), lambda *a: True).turn(task.name)
    finally:
        app.close()
        server.shutdown()
    return server


def decision(figures: dict[str, dict[str, Server]]) -> str:
    """Whether the figures make code mode on the default, and if not, which figure stopped it."""
    one = figures[TASKS[0].name]
    added = sum(one["on"].sizes) / sum(one["off"].sizes) - 1
    stopped = [] if added <= ONE_CALL_MARGIN else [
        f"on the one-call task code mode on sends {added:+.1%} bytes (at most {ONE_CALL_MARGIN:+.0%} allowed)"]
    for task in TASKS:
        off, on = figures[task.name]["off"], figures[task.name]["on"]
        if task.calls >= 3 and not (len(on.sizes) < len(off.sizes) and sum(on.sizes) < sum(off.sizes)):
            stopped.append(f"on {task.name!r} code mode on sends {len(on.sizes)} requests, {sum(on.sizes):,} bytes "
                           f"against {len(off.sizes)}, {sum(off.sizes):,}")
    if stopped:
        return "code mode stays off by default: " + "; ".join(stopped)
    return f"code mode on becomes the default: one-call task {added:+.1%} bytes, fewer requests and bytes on every task of 3 calls or more"


def main() -> None:
    figures: dict[str, dict[str, Server]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for number, task in enumerate(TASKS):
            figures[task.name] = {mode: run(Path(tmp), number, task, mode) for mode in MODES}
            answers = {s.answer for s in figures[task.name].values()}
            if len(answers) != 1 or not next(iter(answers)):
                raise SystemExit(f"bench_code_mode: the modes answered differently for {task.name!r}: {answers}")
        sentences = run(Path(tmp), 0, TASKS[0], "on", "first-sentence").sizes[0]
    lines = ["| task | calls | off: requests / bytes | on | only | answer |", "|---|---:|---:|---:|---:|---|"]
    for task in TASKS:
        cells = [f"{len(s.sizes)} / {sum(s.sizes):,}" for s in figures[task.name].values()]
        lines.append(f"| {task.name} | {task.calls} | {' | '.join(cells)} | {figures[task.name]['off'].answer} |")
    first = {mode: figures[TASKS[0].name][mode].sizes[0] for mode in MODES}
    lines += ["", f"first request: off {first['off']:,} bytes, on {first['on']:,} (with code_mode_catalog = "
              f"\"first-sentence\": {sentences:,}), only {first['only']:,}",
              decision(figures)]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
