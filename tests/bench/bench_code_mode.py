"""Benchmark: tool calls one at a time (direct) against one run_code program (code mode). Prints a table.

Three scripted tasks need 5, 20 and 50 tool calls: read every module of a real git repository (src/mod*.py),
count its TODO lines, then add the counts up with an MCP server's `add` tool (tests/mcp_fake_server.py, one call
per fifth of the calls: each needs the last sum, so they go one after the other). The same task runs through
ankit's own App, Session, runner, sandbox and Anthropic provider against a loopback server, three ways:
- direct, one call a reply (the model waits for each result before it asks for the next);
- direct, parallel (every read in one reply, then the adds one by one);
- code mode (code_mode = "on": one run_code program does every call; only its printed line comes back).
The scripted model computes its answer from what the requests carry (tool results, or the program's line); the
answers of the three ways must match, or the benchmark stops.

The server accounts each request as bench_cache.py does: the prompt rendered in prefix order (tools, system,
messages), tokens = bytes / 4, the cache read is the common prefix with the previous request, the rest written.
Input cost uses Anthropic's multipliers (cache read 0.1x, 5-minute write 1.25x) at $3 per million input tokens.

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

from tests.bench.bench_cache import READ, WRITE, common_prefix, render_anthropic, tokens  # noqa: E402
from conftest import anthropic_sse  # noqa: E402

PRICE = 3.0  # USD per million input tokens
TASKS = (5, 20, 50)
WAYS = ("direct, one call a reply", "direct, parallel reads", "code mode (run_code)")
ANSWER = re.compile(r"TODO total: (\d+)")


def plan(calls: int) -> tuple[int, int]:
    """(files to read, adds) for a task of `calls` calls."""
    adds = max(1, calls // 5)
    return calls - adds, adds


def module(i: int) -> str:
    """A module of about 1.6 KB with i % 7 TODO lines."""
    lines = [f'"""Module {i}: parts of the build step {i}."""', "", "import os", ""]
    for j in range(30):
        lines.append(f"def step_{i}_{j}(path):")
        lines.append(f"    # TODO: check path {j}" if j < i % 7 else f"    return os.path.join(path, 'part{j}')")
    return "\n".join(lines) + "\n"


def program(files: int, adds: int) -> str:
    """What the scripted model writes in code mode."""
    return (
        "import tools\n"
        "counts = []\n"
        f"for i in range({files}):\n"
        "    text = tools.read_file(path=f'src/mod{i}.py')\n"
        "    counts.append(sum(1 for line in text.splitlines() if 'TODO' in line))\n"
        "total = 0\n"
        f"for g in range({adds}):\n"
        f"    total = int(tools.mcp__fake__add(a=total, b=sum(counts[g::{adds}])))\n"
        "print('TODO total:', total)\n")


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


def todo_count(text: str) -> int:
    return sum(1 for line in text.splitlines() if "TODO" in line)


class Model:
    """The scripted model of one task and way: its next reply from what the request carries."""

    def __init__(self, calls: int, way: int):
        self.files, self.adds = plan(calls)
        self.way = way

    def reply(self, body: dict) -> tuple[str, list]:
        got = results(body)
        if self.way == 2:
            if not got:
                return "", [("code", "run_code", json.dumps({"code": program(self.files, self.adds)}))]
            return f"TODO total: {ANSWER.search(got[-1]).group(1)}", []
        if len(got) < self.files:
            wanted = range(len(got), self.files if self.way == 1 else len(got) + 1)
            return "", [(f"read{i}", "read_file", json.dumps({"path": f"src/mod{i}.py"})) for i in wanted]
        done = len(got) - self.files
        if done < self.adds:
            counts = [todo_count(text) for text in got[:self.files]]
            total = int(got[-1]) if done else 0
            args = {"a": total, "b": sum(counts[done::self.adds])}
            return "", [(f"add{done}", "mcp__fake__add", json.dumps(args))]
        return f"TODO total: {int(got[-1])}", []


class Server(http.server.ThreadingHTTPServer):
    """Answers from the scripted model and accounts each request's bytes and cached prefix."""

    def __init__(self, model: Model):
        super().__init__(("127.0.0.1", 0), Handler)
        self.model, self.previous, self.answer = model, "", ""
        self.rounds: list[tuple[int, int, int]] = []  # (request bytes, tokens read from cache, tokens written)
        self.url = f"http://127.0.0.1:{self.server_address[1]}/v1"
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def respond(self, raw: bytes) -> bytes:
        body = json.loads(raw)
        prompt = render_anthropic(body)
        read, total = tokens(prompt[:common_prefix(self.previous, prompt)]), tokens(prompt)
        self.previous = prompt
        self.rounds.append((len(raw), read, total - read))
        text, calls = self.model.reply(body)
        self.answer = text or self.answer
        usage = {"input_tokens": 0, "cache_read_input_tokens": read, "cache_creation_input_tokens": total - read}
        return anthropic_sse(text=text, tool_calls=calls, usage=usage)


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


def repository(work: Path, files: int) -> None:
    """A real git repository with the modules, committed."""
    (work / "src").mkdir(parents=True)
    for i in range(files):
        (work / "src" / f"mod{i}.py").write_text(module(i))
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    subprocess.run(["git", "add", "-A"], cwd=work, check=True)
    subprocess.run([*git, "commit", "-qm", "modules"], cwd=work, check=True)


def run(root: Path, calls: int, way: int) -> Server:
    """One task, one way, through ankit; the server's accounts."""
    from ankit.protocols import NullView
    from ankit.settings.layers import load_config
    from ankit.turn.app import build_app

    work, home = root / f"work-{calls}-{way}", root / f"config-{calls}-{way}"
    repository(work, plan(calls)[0])
    home.mkdir()
    code = 'code_mode = "on"\n' if way == 2 else ""
    (home / "config.toml").write_text(
        f'{code}preload = false\ndeferred = "append"\nmax_rounds = 80\n[mcp.servers.fake]\n'
        f"command = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(ROOT / 'tests' / 'mcp_fake_server.py'))}]\n")
    server = Server(Model(calls, way))
    flags = {"base_url": server.url, "provider": "anthropic", "model": "claude-sonnet-4-5"}
    app = build_app(load_config(flags, {"ANTHROPIC_API_KEY": "sk-ant-bench-0123456789"}, work, home), work)
    try:
        app.session(NullView(), lambda *a: True).turn("Count the TODO lines of every module in src/ and add them up "
                                                      "with the fake server's add tool.")
    finally:
        app.close()
        server.shutdown()
    return server


def row(calls: int, way: int, server: Server) -> str:
    requests = len(server.rounds)
    sent = sum(b for b, _, _ in server.rounds)
    read = sum(r for _, r, _ in server.rounds)
    written = sum(w for _, _, w in server.rounds)
    cost = (read * READ + written * WRITE) * PRICE / 1e6
    return (f"| {calls} | {WAYS[way]} | {requests} | {sent:,} | {read + written:,} | {100 * read / (read + written):.0f}% "
            f"| ${cost:.4f} | {server.answer} |")


def main() -> None:
    lines = ["| calls | way | requests | request bytes | input tokens | cached | input cost | answer |",
             "|---:|---|---:|---:|---:|---:|---:|---|"]
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        for calls in TASKS:
            servers = [run(Path(tmp), calls, way) for way in range(len(WAYS))]
            answers = {s.answer for s in servers}
            if len(answers) != 1 or not ANSWER.fullmatch(servers[0].answer):
                raise SystemExit(f"bench_code_mode: the ways answered differently for {calls} calls: {answers}")
            lines += [row(calls, way, server) for way, server in enumerate(servers)]
            totals = [sum(r + w for _, r, w in s.rounds) for s in servers]
            ratios.append(f"{calls} calls: code mode takes {totals[0] / totals[2]:.1f}x fewer input tokens than "
                          f"one call a reply, {totals[1] / totals[2]:.1f}x fewer than parallel reads")
            first = [s.rounds[0][0] for s in servers]
    ratios.append(f"what code mode adds to every request (run_code, the tools named in the system prompt): "
                  f"{first[2] - first[0]:,} bytes ({first[0]:,} -> {first[2]:,} in the first request)")
    print("\n".join(lines + [""] + ratios))


if __name__ == "__main__":
    main()
