"""A stdio MCP server that replays a recorded exchange (tests/fixtures/mcp_*.jsonl), standard library only.

usage: python3 tests/mcp_replay_server.py FIXTURE [--record PATH]
Each fixture line is {"from": "client" | "server", "line": "<the JSON-RPC line as it crossed stdio>"}. For every
message the client sends, the server finds the recorded client message it matches (same method; for tools/call
the same tool name and arguments; for an answer to the server's own request, the same id), then writes the server
lines recorded after it, with the recorded request id (and progress token) replaced by the live one; matched a
second time (a second tools/list), it answers again without repeating the notifications. A request
with no recorded match gets a JSON-RPC error naming it, so a test fails in one line instead of hanging. Lines the
server wrote before the first client message are written at start.

A fixture recorded over Streamable HTTP (tests/fixtures/http_mcp_*.jsonl) is replayed by `ReplayHttp`, a server on
127.0.0.1 that answers each POST with the recorded lines as an event stream and keeps every request's headers.
"""

import http.server
import json
import sys
import threading

UNMATCHED = -32603


def load(path: str) -> list[tuple[str, str]]:
    """The fixture as (from, line) pairs."""
    with open(path, encoding="utf-8") as handle:
        return [(entry["from"], entry["line"]) for entry in map(json.loads, handle) if entry]


def parse(line: str):
    try:
        return json.loads(line)
    except ValueError:
        return None  # junk the real server printed: replayed as is


def matches(recorded, live: dict) -> bool:
    """Whether a recorded client message stands for the live one."""
    if not isinstance(recorded, dict) or recorded.get("method") != live.get("method"):
        return False
    if live.get("method") is None:  # an answer to one of the server's requests
        return recorded.get("id") == live.get("id")
    if live["method"] == "tools/call":
        mine, theirs = recorded.get("params") or {}, live.get("params") or {}
        return mine.get("name") == theirs.get("name") and mine.get("arguments") == theirs.get("arguments")
    return True


class Replay:
    """The recorded exchange and which client messages it has answered."""

    def __init__(self, entries: list[tuple[str, str]], record: str, out=None):
        self.entries = entries
        self.record = record
        self.used: set[int] = set()
        self.out = out  # a list that collects the answers (HTTP), instead of stdout

    def write(self, line: str) -> None:
        if self.out is not None:
            self.out.append(line)
            return
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def start(self) -> None:
        for who, line in self.entries:
            if who == "client":
                return
            self.write(line)

    def find(self, live: dict) -> int | None:
        """The first unanswered matching client message; else an answered one (a second tools/list, say)."""
        found = [i for i, (who, line) in enumerate(self.entries) if who == "client" and matches(parse(line), live)]
        fresh = [i for i in found if i not in self.used]
        if fresh or (found and live.get("method") != "tools/call"):
            return (fresh or found)[0]
        return None

    def handle(self, line: str) -> None:
        if self.record:
            with open(self.record, "a", encoding="utf-8") as handle:
                handle.write(line + "\n")
        live = json.loads(line)
        index = self.find(live)
        if index is None:
            if "id" in live and live.get("method"):
                self.write(json.dumps({"jsonrpc": "2.0", "id": live["id"], "error": {
                    "code": UNMATCHED, "message": f"replay: nothing recorded for {line[:200]}"}}))
            return
        again = index in self.used  # its notifications were sent the first time
        self.used.add(index)
        recorded = parse(self.entries[index][1])
        old = recorded.get("id") if recorded.get("method") else None
        meta = (live.get("params") or {}).get("_meta") or {}
        for who, answer in self.entries[index + 1:]:
            if who == "client":
                break
            if again and "id" not in (parse(answer) or {}):
                continue
            answer = self.rewrite(answer, old, live.get("id"), meta.get("progressToken"))
            if answer is not None:
                self.write(answer)

    def rewrite(self, line: str, old, new, token) -> str | None:
        """The recorded line with the recorded request's id and progress token made the live ones (None: a
        progress notification the live request did not ask for)."""
        message = parse(line)
        if old is None or not isinstance(message, dict):
            return line
        if message.get("id") == old and "method" not in message:
            message["id"] = new
        params = message.get("params")
        if message.get("method") == "notifications/progress" and isinstance(params, dict):
            if token is None:
                return None
            params["progressToken"] = token
        return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


class ReplayHttp(http.server.ThreadingHTTPServer):
    """The recorded HTTP exchange served on 127.0.0.1: `url`, and `seen` (headers, message) of each POST."""

    def __init__(self, fixture: str):
        super().__init__(("127.0.0.1", 0), _ReplayHandler)
        self.replay = Replay(load(fixture), "", out=[])
        self.seen: list[tuple[dict, dict]] = []
        self.lock = threading.Lock()
        self.url = f"http://127.0.0.1:{self.server_address[1]}/mcp"
        threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


class _ReplayHandler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        with self.server.lock:
            self.server.seen.append(({k.lower(): v for k, v in self.headers.items()}, json.loads(body)))
            self.server.replay.out.clear()
            self.server.replay.handle(body)
            lines = list(self.server.replay.out)
        data = "".join(f"event: message\ndata: {line}\n\n" for line in lines).encode()
        self.send_response(200 if lines else 202)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def main() -> None:
    record = sys.argv[sys.argv.index("--record") + 1] if "--record" in sys.argv else ""
    replay = Replay(load(sys.argv[1]), record)
    replay.start()
    for line in sys.stdin:
        if line.strip():
            replay.handle(line.strip())


if __name__ == "__main__":
    main()
