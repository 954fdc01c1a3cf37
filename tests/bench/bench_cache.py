"""Benchmark: what activating tools mid-session costs in prompt-cache terms, path by path. Prints a table.

One scripted 40-round session (find_tools activates git at round 5, web at 15, shell at 30; the other rounds
read a file or answer) is replayed through ankit's own App, Session and providers against a loopback server
for each path: eager (every tool always sent), append (today's path: activated tools appended to `tools`),
native Anthropic (deferred catalog, tool_reference answers) and Responses client tool search; then Chat
Completions with the append path, without and with the three groups preloaded.

The server computes each request's cached prefix the way the providers document it: the prompt is rendered
in prefix order (tools, then system/instructions, then messages), deferred tools are left out of the rendered
tools, a loaded tool's definition appears where its tool_reference / tool_search_output is, and the cache read
is the longest common prefix with the previous request; the rest is written. Cost uses Anthropic's documented
multipliers for every path so they compare on equal terms: cache read 0.1x, 5-minute cache write 1.25x the
input price. A full rewrite is a round (after the first) that reads less than half of the previous prompt.

Run: python3 tests/bench/bench_cache.py
"""

import http.server
import json
import os
import sys
import tempfile
import threading
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from conftest import anthropic_sse, openai_sse, responses_sse  # noqa: E402

ROUNDS = 40
ACTIVATIONS = {5: "git", 15: "web", 30: "shell"}
READ, WRITE = 0.1, 1.25  # Anthropic's documented multipliers of the input price (5-minute cache)
NOTES = "\n".join(f"- note {i}: the build step {i} writes dist/part{i}.js and logs to build.log" for i in range(40))


def reply(number: int) -> tuple[str, list]:
    """The scripted model's answer at request `number`: text, or calls (id, name, arguments)."""
    if number in ACTIVATIONS:
        return "", [(f"call_{number}", "find_tools", json.dumps({"query": ACTIVATIONS[number]}))]
    if number % 2:
        return "", [(f"call_{number}", "read_file", '{"path": "notes.md"}')]
    return f"Round {number}: the notes say the build writes one part per step; step {number} is next.", []


def canonical(value) -> str:
    """JSON without cache_control markers (a breakpoint marks a place, it is not part of the cached content)."""
    if isinstance(value, dict):
        value = {k: v for k, v in value.items() if k != "cache_control"}
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def render_anthropic(body: dict) -> str:
    """tools (deferred ones left out), system, messages; a tool_reference expands to the definition it names."""
    tools = body.get("tools", [])
    defined = {t["name"]: t for t in tools}
    parts = [canonical(t) for t in tools if not t.get("defer_loading")]
    parts += [canonical(block) for block in body.get("system", [])]
    for message in body["messages"]:
        for block in message["content"]:
            content = block.get("content")
            if block.get("type") == "tool_result" and isinstance(content, list):
                parts += [canonical(defined[c["tool_name"]]) if c.get("type") == "tool_reference" else canonical(c)
                          for c in content]
            else:
                parts.append(canonical(block))
    return "".join(parts)


def render_responses(body: dict) -> str:
    """tools (deferred ones left out), instructions, input items; loaded tools sit at their tool_search_output."""
    parts = [canonical(t) for t in body.get("tools", []) if not t.get("defer_loading")]
    parts.append(body.get("instructions", ""))
    return "".join(parts + [canonical(item) for item in body["input"]])


def render_chat(body: dict) -> str:
    """tools, then the messages (system first)."""
    return "".join([canonical(t) for t in body.get("tools", [])] + [canonical(m) for m in body["messages"]])


def tokens(text: str) -> int:
    return (len(text.encode()) + 3) // 4


def common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


class CacheServer(http.server.ThreadingHTTPServer):
    """Answers every request from the script and accounts its cached prefix."""

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.previous = ""
        self.preloaded: dict[str, str] = {}
        self.rounds: list[tuple[int, int]] = []  # (tokens read from cache, tokens written) per request
        self.sent: list[tuple[str, list[str], bool, bool]] = []  # (endpoint, tool names, any deferred, tool search)
        self.url = f"http://127.0.0.1:{self.server_address[1]}/v1"
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def answer(self, path: str, body: dict) -> bytes:
        tools = body.get("tools", [])
        names = [t.get("name") or t.get("function", {}).get("name", "") for t in tools]
        self.sent.append((path, names, any(t.get("defer_loading") for t in tools),
                          any(t.get("type") == "tool_search" for t in tools)))
        render = {"/v1/messages": render_anthropic, "/v1/responses": render_responses}.get(path, render_chat)
        prompt = render(body)
        read = tokens(prompt[:common_prefix(self.previous, prompt)])
        total = tokens(prompt)
        self.previous = prompt
        self.rounds.append((read, total - read))
        text, calls = reply(len(self.rounds))
        if path == "/v1/messages":
            usage = {"input_tokens": 0, "cache_read_input_tokens": read, "cache_creation_input_tokens": total - read}
            return anthropic_sse(text=text, tool_calls=calls, usage=usage)
        if path == "/v1/responses":
            usage = {"input_tokens": total, "input_tokens_details": {"cached_tokens": read}, "output_tokens": 20}
            search = [c for c in calls if c[1] == "find_tools"]
            if search and any(t.get("type") == "tool_search" for t in body.get("tools", [])):
                query = json.loads(search[0][2])["query"]
                stream = responses_sse(search=query, usage=usage)
                return stream.replace(b"call_search", f"call_search_{len(self.rounds)}".encode())
            return responses_sse(text=text, tool_calls=calls, usage=usage)
        usage = {"prompt_tokens": total, "completion_tokens": 20, "prompt_tokens_details": {"cached_tokens": read}}
        return openai_sse(text=text, tool_calls=calls, usage=usage)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        data = self.server.answer(self.path, body)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format, *args):
        pass


def run_path(work: Path, config: str, provider: str) -> CacheServer:
    """Replay the session through ankit against a fresh cache server; return the server's accounts.

    The path's settings go in a user config of its own: a project's .ankit/config.toml would be ignored in
    this untrusted folder, and the row would silently measure another path.
    """
    from ankit.protocols import NullView
    from ankit.settings.layers import load_config
    from ankit.turn.app import build_app

    server = CacheServer()
    home = work.parent / f"config-{zlib.crc32(config.encode())}"
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text(config)
    env = {"ANTHROPIC_API_KEY": "sk-ant-bench-0123456789"}
    flags = {"base_url": server.url, "provider": provider}
    app = build_app(load_config(flags, env, work, home), work)
    session = app.session(NullView(), lambda *a: True)
    server.preloaded = dict(app.activation.preloaded)
    turn = 0
    while len(server.rounds) < ROUNDS:
        turn += 1
        session.turn(f"Question {turn}: what does notes.md say about the next build step?")
    app.close()
    server.shutdown()
    return server


def path_taken(server: CacheServer) -> str:
    """Which path the requests took, read from what was sent (the same names as the rows' `expected`)."""
    endpoints = {endpoint for endpoint, *_ in server.sent}
    first_names = server.sent[0][1]
    if endpoints == {"/v1/messages"}:
        if any(deferred for _, _, deferred, _ in server.sent):
            return "native"
        return "eager" if "git_log" in first_names else "append"
    if endpoints == {"/v1/responses"}:
        return "search" if any(search for *_, search in server.sent) else "responses append"
    return "chat preloaded" if "git_log" in first_names else "chat append"


def measured(work: Path, rows: list[tuple[str, str, str, str]]) -> list[tuple[str, CacheServer]]:
    """Each row's session; stops with one line when a row's requests took another path than it names."""
    out = []
    for name, config, provider, expected in rows:
        server = run_path(work, config, provider)
        taken = path_taken(server)
        if taken != expected:
            raise SystemExit(f"bench_cache: the row {name!r} measured the {taken} path, not {expected}: "
                             "check its settings")
        out.append((name, server))
    return out


def figures(server: CacheServer) -> tuple[float, int, int, int]:
    """Input cost in input-price tokens, tokens read, total input tokens, full rewrites."""
    cost = sum(read * READ + written * WRITE for read, written in server.rounds)
    read = sum(r for r, _ in server.rounds)
    total = sum(r + w for r, w in server.rounds)
    rewrites = sum(1 for (r, _), (pr, pw) in zip(server.rounds[1:], server.rounds) if r < (pr + pw) / 2)
    return cost, read, total, rewrites


PATHS = [
    ("eager (every tool always sent)",
     'preload = false\ndeferred = "append"\n'
     'core = ["core", "edit", "git", "github", "memory", "process", "shell", "web"]\n', "anthropic", "eager"),
    ("append (activated tools appended)", 'preload = false\ndeferred = "append"\n', "anthropic", "append"),
    ("native Anthropic (deferred + tool_reference)", 'deferred = "native"\n', "anthropic", "native"),
    ("Responses client tool search", 'api = "responses"\nmodel = "gpt-5.5"\ndeferred = "native"\n', "local", "search"),
]
CHAT = [  # by then this folder has sessions that loaded git, web and shell: preload picks them up
    ("Chat Completions, append", 'api = "chat"\npreload = false\n', "local", "chat append"),
    ("Chat Completions, append, habitual groups preloaded", 'api = "chat"\n', "local", "chat preloaded"),
]


def table(rows: list[tuple[str, CacheServer]]) -> list[str]:
    measured = [(name, *figures(server)) for name, server in rows]
    cheapest = min(cost for _, cost, *_ in measured)
    lines = [f"| path | input tokens | read from cache | full rewrites | input cost (x cheapest) |",
             "|---|---:|---:|---:|---:|"]
    for name, cost, read, total, rewrites in measured:
        lines.append(f"| {name} | {total:,} | {100 * read / total:.0f}% | {rewrites} | {cost / cheapest:.2f} |")
    return lines


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for var in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME"):
            os.environ[var] = str(Path(tmp) / var.lower())
        work = Path(tmp) / "work"
        work.mkdir()
        (work / "notes.md").write_text(NOTES)
        print(f"{ROUNDS} rounds; find_tools activates git, web and shell at rounds {', '.join(map(str, ACTIVATIONS))}; "
              f"cache read {READ}x, cache write {WRITE}x the input price\n")
        print("\n".join(table(measured(work, PATHS))))
        print()
        chat = measured(work, CHAT)
        print("\n".join(table(chat)))
        for group, why in chat[-1][1].preloaded.items():
            print(f"preloaded {group}: {why}")
        rewritten = activation_costs(chat[0][1])
        print(f"one activation on Chat Completions rewrites {sum(rewritten) / len(rewritten):,.0f} tokens of cached "
              f"prefix on average: {sum(rewritten) / len(rewritten) * (WRITE - READ):,.0f} input-price tokens more "
              "than reading them")


def activation_costs(server: CacheServer) -> list[int]:
    """Tokens of the earlier prompt written again at each full rewrite (beyond what the round added)."""
    out = []
    for (read, written), (before_read, before_written) in zip(server.rounds[1:], server.rounds):
        if read < (before_read + before_written) / 2:
            added = read + written - before_read - before_written
            out.append(written - max(0, added))
    return out or [0]


if __name__ == "__main__":
    main()
