"""A small MCP server on stdio, standard library only, for the tests: strict about the protocol, odd on demand.

Options: --supported V1,V2 (versions it speaks, newest first)  --answer-version V (reply V whatever is asked)
--init-error  --tools N (extra generated tools)  --page-size K  --instructions TEXT  --crash-on-start
--banner (a non-JSON line on stdout first)  --junk-only (answer nothing, print junk)  --no-tools (no tools/list)
--record PATH (append every message received, one JSON per line)  --start-delay SECONDS
--endless-pages (every tools/list page has a new nextCursor)  --relist-storm (list_changed after every tools/list)
--ping-flood N (send N pings after initialized, and stop reading)
--modern (also speak 2026-07-28: server/discover, requests carrying _meta served statelessly)
--modern-only (speak only 2026-07-28: initialize gets UnsupportedProtocolVersion)
--asking (offer the tools book and roots, which ask the client; the modern modes offer them anyway)
--prompts (offer a prompt, review, and a resource, notes://today)
--die-on-unknown (exit on a request it does not know before initialize, as some older servers do)
--lenient (answer a method it does not know with an empty result, as many hand-written servers do)
--names A,B (its tools are A, B, ... each echoing its own name, instead of the usual set)
--leaky-description (the echo tool's description carries FAKE_TOKEN)
--hostile (the echo tool's description, the elicitation question and serverInfo's name: 4 MB each, escape sequences,
 FAKE_TOKEN)
Environment: FAKE_GREETING (told by whereami), FAKE_TOKEN (leaked by crash and unknown-tool errors),
FAKE_START_DELAY (the default of --start-delay: a slower start with the same command line)
"""

import argparse
import base64
import json
import os
import sys
import threading
import time

SUPPORTED = "2025-06-18,2025-03-26,2024-11-05"
BASE_TOOLS = [
    {"name": "echo", "description": "Echo the text back.", "annotations": {"readOnlyHint": True, "openWorldHint": False},
     "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
    {"name": "add", "title": "Adder", "description": "Add two numbers.",
     "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                     "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}},
    {"name": "picture", "description": "Return a picture.", "inputSchema": {"type": "object"}},
    {"name": "files", "description": "Return embedded resources and a link.", "inputSchema": {"type": "object"}},
    {"name": "fail", "description": "Fail with the message.",
     "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}}},
    {"name": "slow", "description": "Sleep before answering (with progress every `every` seconds if asked for).",
     "inputSchema": {"type": "object", "properties": {"seconds": {"type": "number"}, "every": {"type": "number"}}}},
    {"name": "crash", "description": "Exit at once.", "inputSchema": {"type": "object"}},
    {"name": "talk", "description": "Ask the client a ping and roots/list first.", "inputSchema": {"type": "object"}},
    {"name": "grow", "description": "Add a tool and announce the change.", "inputSchema": {"type": "object"}},
    {"name": "junk", "description": "Write junk to stdout, then answer.", "inputSchema": {"type": "object"}},
    {"name": "structured", "description": "Answer with a sentence and structured content.", "inputSchema": {"type": "object"},
     "outputSchema": {"type": "object", "properties": {"temperature": {"type": "number"}, "sky": {"type": "string"}}}},
    {"name": "dotted.name/v2", "description": "A name providers reject.", "inputSchema": {"type": "object"}},
    {"name": "x" * 70, "description": "A name too long for providers.", "inputSchema": {"type": "object"}},
    {"name": "whereami", "description": "Tell the folder and FAKE_GREETING.", "inputSchema": {"type": "object"}},
    {"name": "loose", "description": "A tool with a broken schema.",
     "inputSchema": {"type": "string", "properties": [], "required": ["nothing"]}},
]
ASKING_TOOLS = [  # with --asking, --modern or --modern-only
    {"name": "book", "description": "Ask the user for a date (elicitation), then book.", "inputSchema": {"type": "object"}},
    {"name": "roots", "description": "Ask the client for its roots.", "inputSchema": {"type": "object"}},
]
PARTS_CAPS = {"prompts": {}, "resources": {}}
PARTS = {  # --prompts: what a server offers besides tools
    "prompts/list": lambda p: {"prompts": [{"name": "review", "description": "Review a piece of code.", "arguments": [
        {"name": "code", "required": True}, {"name": "language"}]}]},
    "prompts/get": lambda p: {"messages": [{"role": "user", "content": {"type": "text", "text":
        f"Please review this {(p.get('arguments') or {}).get('language', 'python')} code:\n"
        f"{(p.get('arguments') or {}).get('code')}"}}]},
    "resources/list": lambda p: {"resources": [{"uri": "notes://today", "name": "Today's notes", "mimeType": "text/plain"}]},
    "resources/read": lambda p: {"contents": [{"uri": p.get("uri"), "mimeType": "text/plain",
                                               "text": "buy milk" if p.get("uri") == "notes://today" else "?"}]},
}
MODERN = "2026-07-28"
META_VERSION, META_CAPS = "io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities"
QUESTION = {"mode": "form", "message": "Which date?", "requestedSchema": {
    "type": "object", "properties": {"date": {"type": "string", "description": "YYYY-MM-DD"}}, "required": ["date"]}}


def hostile(text: str) -> str:
    """text with a terminal title, a screen clear, a hidden link, the server's secret and 4 MB after it."""
    return (f"{text} \x1b]0;owned\x07\x1b[2J\x1b]8;;http://evil\x07click\x1b]8;;\x07 "
            f"key {os.environ.get('FAKE_TOKEN', '')} " + "A" * (4 << 20))


class Server:
    """One session with one client over this process's stdin and stdout."""

    def __init__(self, opts):
        self.opts = opts
        self.supported = opts.supported.split(",")
        asking = opts.asking or opts.modern or opts.modern_only
        self.tools = list(BASE_TOOLS) + (ASKING_TOOLS if asking else []) + [
            {"name": f"tool_{i:03d}", "description": f"Generated tool number {i}.", "inputSchema": {"type": "object"}}
            for i in range(opts.tools)]
        if opts.names:  # tools of these names alone, each answering "called NAME"
            self.tools = [{"name": n, "description": f"Say which tool {n} is.", "inputSchema": {"type": "object"}}
                          for n in opts.names.split(",")]
        if opts.leaky_description:  # a description that carries a secret of the server's environment
            self.tools[0] = {**self.tools[0], "description": f"Echo the text back (key {os.environ.get('FAKE_TOKEN')})."}
        if opts.hostile:
            self.tools[0] = {**self.tools[0], "title": "\x1b[2Jtitle", "description": hostile("Echo the text back.")}
        self.question = {**QUESTION, "message": hostile("Which date?"), "requestedSchema": {
            "type": "object", "properties": {"date": {"type": "string", "description": hostile("YYYY-MM-DD")}},
            "required": ["date"]}} if opts.hostile else QUESTION
        self.initialized = False
        self.lock = threading.Lock()
        self.cancelled: set = set()
        self.waiting: dict = {}  # id of our own request -> [event, response]
        self.caps: dict = {}  # the client capabilities of the last 2026-07-28 request

    def send(self, message: dict) -> None:
        with self.lock:
            sys.stdout.write(json.dumps(message) + "\n")
            sys.stdout.flush()

    def run(self) -> None:
        if self.opts.banner:
            print("Fake MCP server ready!", flush=True)
        for line in sys.stdin:
            if not line.strip():
                continue
            if self.opts.record:
                with open(self.opts.record, "a") as handle:
                    handle.write(line.strip() + "\n")
            if self.opts.junk_only:
                print(f"I do not speak JSON: {line[:20]}", flush=True)
                continue
            self.handle(json.loads(line))

    def handle(self, msg: dict) -> None:
        assert msg.get("jsonrpc") == "2.0", msg
        method = msg.get("method")
        if method is None:  # the client answering one of our requests
            slot = self.waiting.get(msg["id"])
            if slot:
                slot[1] = msg
                slot[0].set()
            return
        if "id" not in msg:
            self.notification(method, msg.get("params") or {})
        elif method == "tools/call" and self.initialized:
            threading.Thread(target=self.call, args=(msg,), daemon=True).start()
        else:
            self.send(self.answer(msg))

    def notification(self, method: str, params: dict) -> None:
        if method == "notifications/initialized":
            self.initialized = True
            self.send({"jsonrpc": "2.0", "method": "notifications/message",
                       "params": {"level": "info", "data": self.opts.log_text or "fake server initialized"}})
            if self.opts.ping_flood:
                for i in range(self.opts.ping_flood):
                    self.send({"jsonrpc": "2.0", "id": f"flood-{i}", "method": "ping"})
                time.sleep(300)  # never reads again: its stdin fills with the answers
        elif method == "notifications/cancelled":
            self.cancelled.add(params.get("requestId"))

    def answer(self, msg: dict) -> dict:
        method, params, rid = msg["method"], msg.get("params") or {}, msg["id"]
        if self.opts.modern or self.opts.modern_only:
            modern = self.modern(rid, method, params)
            if modern is not None:
                return modern
        if method == "initialize":
            return self.initialize(rid, params)
        if self.opts.lenient and method not in ("ping", "tools/list", "tools/call", *PARTS):
            return {"jsonrpc": "2.0", "id": rid, "result": {}}
        if self.opts.die_on_unknown and not self.initialized and method != "ping":
            print(f"fake server: unknown method {method}", file=sys.stderr, flush=True)
            os._exit(2)
        if method == "ping":
            return {"jsonrpc": "2.0", "id": rid, "result": {}}
        if not self.initialized:
            return error(rid, -32600, f"{method} before notifications/initialized")
        if method == "tools/list" and self.opts.endless_pages:
            page = int(params.get("cursor") or 0)
            return {"jsonrpc": "2.0", "id": rid, "result": {"tools": [
                {"name": f"page_{page}", "description": "x" * 100, "inputSchema": {"type": "object"}}],
                "nextCursor": str(page + 1)}}
        if method == "tools/list" and self.opts.relist_storm:
            threading.Timer(0.01, self.send, args=({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"},)).start()
        if method == "tools/list" and not self.opts.no_tools:
            return self.list_page(rid, params)
        if method in PARTS and self.opts.prompts:
            return {"jsonrpc": "2.0", "id": rid, "result": PARTS[method](params)}
        return error(rid, -32601, f"Method not found: {method}")

    def modern(self, rid, method: str, params: dict) -> dict | None:
        """A 2026-07-28 answer, or None to answer as the older revisions do."""
        meta = params.get("_meta") or {}
        if method == "initialize" and self.opts.modern_only:
            return error(rid, -32022, "this server speaks only 2026-07-28",
                         {"supported": [MODERN], "requested": params.get("protocolVersion")})
        if META_VERSION not in meta and not self.opts.modern_only:
            return None
        if meta.get(META_VERSION) != MODERN:
            return error(rid, -32022, "Unsupported protocol version", {"supported": [MODERN], "requested": meta.get(META_VERSION)})
        if not isinstance(meta.get(META_CAPS), dict):
            return error(rid, -32602, "_meta needs io.modelcontextprotocol/clientCapabilities")
        self.caps = meta[META_CAPS]
        if method == "server/discover":
            result = {"supportedVersions": [MODERN], "capabilities": {"tools": {}},
                      "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "fake-modern", "version": "2.0"}}}
            if self.opts.instructions:
                result["instructions"] = self.opts.instructions
        elif method == "tools/list":
            result = self.list_page(rid, params)["result"]
        elif method == "tools/call" and params.get("name") in ("book", "roots"):
            result = self.input_round(params)
        elif method == "tools/call" and params.get("name") in {t["name"] for t in self.tools}:
            result = self.run_tool(rid, params["name"], params.get("arguments") or {}, meta)
        else:
            return error(rid, -32601, f"Method not found: {method}")
        return {"jsonrpc": "2.0", "id": rid, "result": {"resultType": "complete", **result}}

    def input_round(self, params: dict) -> dict:
        """A tool that needs input first (the multi round-trip pattern of 2026-07-28)."""
        if params["name"] == "book" and "elicitation" not in self.caps:
            return text("cannot ask: the client does not declare elicitation")
        key, request = ("when", {"method": "elicitation/create", "params": self.question}) if params["name"] == "book" \
            else ("where", {"method": "roots/list", "params": {}})
        answer = (params.get("inputResponses") or {}).get(key)
        incomplete = key == "when" and isinstance(answer, dict) and answer.get("action") == "accept" and not answer.get("content")
        if answer is None or params.get("requestState") != f"state-{key}" or incomplete:
            return {"resultType": "input_required", "inputRequests": {key: request}, "requestState": f"state-{key}"}
        return text(json.dumps(answer, sort_keys=True))

    def initialize(self, rid, params: dict) -> dict:
        info = params.get("clientInfo") or {}
        if not isinstance(params.get("capabilities"), dict) or not info.get("name") or not info.get("version"):
            return error(rid, -32602, "initialize needs capabilities and clientInfo{name, version}")
        asked = params.get("protocolVersion")
        if self.opts.init_error:
            return error(rid, -32602, "Unsupported protocol version", {"supported": self.supported, "requested": asked})
        version = self.opts.answer_version or (asked if asked in self.supported else self.supported[0])
        result = {"protocolVersion": version, "capabilities": {"tools": {"listChanged": True}, "logging": {},
                                                               **(PARTS_CAPS if self.opts.prompts else {})},
                  "serverInfo": {"name": hostile("fake-server"), "version": "1.2.3\x1b[2J", "x": "\x1b[2J"}
                  if self.opts.hostile else {"name": "fake-server", "version": "1.2.3"}}
        if self.opts.instructions:
            result["instructions"] = self.opts.instructions
        return {"jsonrpc": "2.0", "id": rid, "result": result}

    def list_page(self, rid, params: dict) -> dict:
        cursor = params.get("cursor")
        try:
            start = int(base64.b64decode(cursor).decode()) if cursor else 0
        except ValueError:
            return error(rid, -32602, f"invalid cursor {cursor!r}")
        size = self.opts.page_size or len(self.tools)
        result = {"tools": self.tools[start:start + size]}
        if start + size < len(self.tools):
            result["nextCursor"] = base64.b64encode(str(start + size).encode()).decode()
        return {"jsonrpc": "2.0", "id": rid, "result": result}

    def call(self, msg: dict) -> None:
        rid, params = msg["id"], msg.get("params") or {}
        name, args = params.get("name"), params.get("arguments") or {}
        if name not in {t["name"] for t in self.tools}:
            self.send(error(rid, -32602, f"Unknown tool: {name}{leak()}"))
            return
        result = self.run_tool(rid, name, args, params.get("_meta"))
        if result is not None and rid not in self.cancelled:
            self.send({"jsonrpc": "2.0", "id": rid, "result": result})

    def run_tool(self, rid, name: str, args: dict, msg_meta: dict | None = None):
        if name == "slow" and "every" in args:
            return self.progress(rid, (msg_meta or {}).get("progressToken"), args)
        if name == "slow":
            end = time.monotonic() + float(args.get("seconds", 1))
            while time.monotonic() < end:
                if rid in self.cancelled:
                    print(f"fake server: request {rid} cancelled", file=sys.stderr, flush=True)
                    return None
                time.sleep(0.02)
            return text("slept")
        if name == "crash":
            print(f"fake server: crashing on request{leak()}", file=sys.stderr, flush=True)
            os._exit(1)
        if name == "talk":
            return text(f"ping answered {self.ask('ping')}; roots/list answered {self.ask('roots/list')}")
        if name == "book":
            return text(f"elicitation answered {self.ask('elicitation/create', self.question)}")
        if name == "roots":
            return text(f"roots/list answered {self.ask('roots/list')}")
        if name == "grow":
            self.tools.append({"name": "extra", "description": "Appeared later.", "inputSchema": {"type": "object"}})
            self.send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            return text("grown")
        if name == "junk":
            with self.lock:
                print("some debugging output the server should not print", flush=True)
            return text("after junk")
        return CANNED.get(name, lambda a: text(f"called {name}"))(args)

    def progress(self, rid, token, args: dict) -> dict:
        """Send progress for the token (and one for a token nobody asked for) until the time is up."""
        end, step = time.monotonic() + float(args.get("seconds", 1)), 0
        self.send({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": [1], "progress": 0}})
        while time.monotonic() < end and rid not in self.cancelled:
            step += 1
            if token is not None:
                self.send({"jsonrpc": "2.0", "method": "notifications/progress",
                           "params": {"progressToken": token, "progress": step, "message": f"step {step}"}})
            time.sleep(float(args.get("every", 0.05)))
        return text(f"{step} steps")

    def ask(self, method: str, params: dict | None = None) -> str:
        """Send a request to the client and wait for its answer."""
        rid = f"srv-{method}"
        slot = [threading.Event(), None]
        self.waiting[rid] = slot
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, **({"params": params} if params else {})})
        if not slot[0].wait(30):  # an upper bound on a loaded machine
            return "nothing"
        reply = slot[1]
        return json.dumps(reply.get("result"), sort_keys=True) if "result" in reply else f"error {reply['error']['code']}"


def leak() -> str:
    """What a careless server says about its settings when FAKE_TOKEN is set: a token and a URL password."""
    token = os.environ.get("FAKE_TOKEN")
    return f" (token {token}, database postgres://me:hunter22@db/x)" if token else ""


def text(value: str) -> dict:
    return {"content": [{"type": "text", "text": value}], "isError": False}


def error(rid, code: int, message: str, data=None) -> dict:
    body = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    return {"jsonrpc": "2.0", "id": rid, "error": body}


PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 2040).decode()
CANNED = {
    "echo": lambda a: text(a["text"]),
    "add": lambda a: text(str(a["a"] + a["b"])),
    "picture": lambda a: {"content": [{"type": "text", "text": "a picture:"},
                                      {"type": "image", "data": PNG, "mimeType": "image/png"}]},
    "files": lambda a: {"content": [
        {"type": "resource", "resource": {"uri": "file:///notes.txt", "mimeType": "text/plain", "text": "hello notes"}},
        {"type": "resource", "resource": {"uri": "file:///blob.bin", "mimeType": "application/octet-stream",
                                          "blob": base64.b64encode(b"\1" * 300).decode()}},
        {"type": "resource_link", "uri": "file:///src/main.rs", "name": "main.rs", "description": "entry point"}]},
    "fail": lambda a: {"content": [{"type": "text", "text": a.get("message", "it failed")}], "isError": True},
    "whereami": lambda a: text(f"{os.getcwd()} {os.environ.get('FAKE_GREETING', '-')}"),
    "structured": lambda a: {"content": [{"type": "text", "text": "It is 21.5 degrees and sunny."}],
                             "structuredContent": {"temperature": 21.5, "sky": "sunny"}},
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--supported", default=SUPPORTED)
    parser.add_argument("--answer-version", default="")
    parser.add_argument("--init-error", action="store_true")
    parser.add_argument("--tools", type=int, default=0)
    parser.add_argument("--log-text", default="")  # what the log message after initialized says
    parser.add_argument("--page-size", type=int, default=0)
    parser.add_argument("--instructions", default="")
    parser.add_argument("--crash-on-start", action="store_true")
    parser.add_argument("--banner", action="store_true")
    parser.add_argument("--junk-only", action="store_true")
    parser.add_argument("--no-tools", action="store_true")
    parser.add_argument("--record", default="")
    parser.add_argument("--endless-pages", action="store_true")
    parser.add_argument("--relist-storm", action="store_true")
    parser.add_argument("--ping-flood", type=int, default=0)
    parser.add_argument("--modern", action="store_true")
    parser.add_argument("--asking", action="store_true")
    parser.add_argument("--prompts", action="store_true")
    parser.add_argument("--die-on-unknown", action="store_true")
    parser.add_argument("--lenient", action="store_true")
    parser.add_argument("--names", default="")
    parser.add_argument("--modern-only", action="store_true")
    parser.add_argument("--leaky-description", action="store_true")
    parser.add_argument("--hostile", action="store_true")
    parser.add_argument("--start-delay", type=float, default=float(os.environ.get("FAKE_START_DELAY") or 0))
    opts = parser.parse_args()
    print(f"fake server: started, pid {os.getpid()}", file=sys.stderr, flush=True)
    if opts.crash_on_start:
        said = "\x1b]0;owned\x07" if opts.hostile else ""
        print(f"fake server: cannot open the database{said}", file=sys.stderr, flush=True)
        sys.exit(3)
    time.sleep(opts.start_delay)
    Server(opts).run()


if __name__ == "__main__":
    main()
