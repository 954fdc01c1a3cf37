"""The MCP client: the protocol era and version (2026-07-28's server/discover, or the initialize handshake of the
revisions before it), tools/list with its pages and tools/call with its input rounds, over stdio or Streamable HTTP.
"""

import json
from functools import partial
from pathlib import Path

from ankit import __version__
from ankit.mcp.asks import Asks
from ankit.mcp.tokens import TokenStore
from ankit.mcp.transport import METHOD_NOT_FOUND, McpError, Notice, StdioTransport
from ankit.safety.text import outside

MODERN = "2026-07-28"  # stateless: every request carries its version and capabilities in _meta
LEGACY = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")  # an initialize handshake opens a session
PROTOCOL_VERSIONS = (MODERN, *LEGACY)
UNSUPPORTED_VERSION = -32022  # 2026-07-28's UnsupportedProtocolVersion
MODERN_ERRORS = (UNSUPPORTED_VERSION, -32021, -32020)  # errors only a 2026-07-28 server sends
PROBE_TIMEOUT = 5.0  # a server of an older revision may keep quiet on server/discover: initialize after this
INPUT_ROUNDS = 4  # a tools/call that asks for input more often than this is stopped
PAGE_CAP = 100  # tools/list pages followed; a server that always gives a new cursor stops here
TOOLS_CAP = 2000  # tools taken from one server in all
TOOLS_BYTES_CAP = 8 * 1024 * 1024  # their definitions' JSON in all

INSTRUCTIONS_CAP = 2000  # characters of a server's instructions kept (its catalog summary)
INFO_FIELDS = ("name", "version", "title")  # of serverInfo: what ankit shows of it
INFO_CAP = 80  # characters kept of each


class McpClient:
    """One MCP server: its era found, asked for its tools, called; what it said about itself."""

    def __init__(self, name: str, command: str, args: list[str] | None = None, env: dict | None = None,
                 cwd: str | None = None, log_path: Path | None = None, on_notice: Notice | None = None,
                 url: str | None = None, headers: dict | None = None, asks: Asks | None = None,
                 tokens: TokenStore | None = None):
        self.name = name
        self.asks = asks or Asks(name)
        if url:
            from ankit.mcp.oauth import Tokens  # urllib and ssl cost start-up time: only when used
            from ankit.mcp.streamable import HttpTransport
            auth = Tokens(name, url, tokens) if tokens is not None else None  # ankit mcp login's tokens
            self.transport = HttpTransport(name, url, headers, log_path, on_notice, self.asks.answer, auth)
        else:
            self._respawn = partial(StdioTransport, name, command, args, env, cwd, log_path, on_notice, self.asks.answer)
            self.transport = self._respawn()
        self.protocol_version = ""
        self.server_info: dict = {}
        self.instructions = ""
        self.capabilities: dict = {}
        self.list_note = ""  # one line when the last tools/list was cut at a cap
        self._closed = False  # close() was called: nothing is started again

    @property
    def modern(self) -> bool:
        """Whether the server speaks 2026-07-28 (stateless) rather than an initialize-era revision."""
        return self.protocol_version == MODERN

    @property
    def alive(self) -> bool:
        """Whether the server runs and is being listened to."""
        return self.transport.alive

    @property
    def fatal(self) -> bool:
        """Whether the server was stopped for misbehaving (a flood, an endless line): it is not restarted."""
        return self.transport.fatal

    @property
    def failure(self) -> str:
        """One line saying why the server is gone (empty while it runs)."""
        return self.transport.failure

    def start(self, timeout: float, era: str = "") -> None:
        """Launch the server and settle the protocol: server/discover first (2026-07-28), initialize when the server
        is of an older revision; era "legacy" (what it spoke last time) tries initialize first. Raise McpError in
        one line on failure."""
        try:
            self.transport.spawn()
            if era == "legacy" or not self._probe(timeout):
                self._initialize(timeout)
        except McpError:
            self.close()
            raise

    def _probe(self, timeout: float) -> bool:
        """server/discover; an older stdio server that exits on a method it does not know is started again."""
        try:
            return self._discover(timeout)
        except McpError:
            if self.transport.alive or self._closed or not isinstance(self.transport, StdioTransport):
                raise
            self.transport.close(0.2)
            self.transport = self._respawn()
            self.transport.spawn()
            if self._closed:  # closed meanwhile: the new process goes too
                self.transport.close(0.2)
                raise
            return False

    def _discover(self, timeout: float) -> bool:
        """Probe with server/discover; return whether the server speaks 2026-07-28 (False: an older revision)."""
        self.transport.protocol_version = MODERN  # its MCP-Protocol-Version header
        try:
            result = self.transport.request("server/discover", self._modern({}), min(timeout, PROBE_TIMEOUT))
        except McpError as exc:
            self.transport.protocol_version = ""
            if exc.status in (401, 403) or not self.transport.alive:
                raise
            if exc.code in MODERN_ERRORS and not set(self._offered(exc.data)) & set(LEGACY):
                raise self._unsupported(self._offered(exc.data)) from None
            return False  # an older server: any other error, or no answer in time
        said = result.get("supportedVersions") if isinstance(result, dict) else None
        versions = [v for v in said or [] if isinstance(v, str)]
        if MODERN not in versions:
            self.transport.protocol_version = ""
            if not versions or set(versions) & set(LEGACY):  # no versions: a server answering every method it does
                return False  # not know with an empty result, as many hand-written ones do; initialize settles it
            raise self._unsupported(versions)
        self._accept(MODERN, result)
        return True

    def _initialize(self, timeout: float) -> None:
        """The handshake of 2025-11-25 and before; a server that answers it with 2026-07-28's version error is
        spoken to statelessly instead."""
        try:
            result = self.transport.request("initialize", {
                "protocolVersion": LEGACY[0], "capabilities": self.asks.capabilities(),
                "clientInfo": {"name": "ankit", "version": __version__}}, timeout)
        except McpError as exc:
            if exc.code in MODERN_ERRORS and MODERN in self._offered(exc.data):
                if self._discover(timeout):
                    return
            raise
        version = result.get("protocolVersion")
        if version not in LEGACY:
            raise self._unsupported([version])
        self._accept(version, result)
        self.transport.notify("notifications/initialized")

    @staticmethod
    def _offered(data) -> list[str]:
        supported = data.get("supported") if isinstance(data, dict) else None
        return [v for v in supported if isinstance(v, str)] if isinstance(supported, list) else []

    def _unsupported(self, versions: list) -> McpError:
        said = ", ".join(repr(v) for v in versions) or "no version"
        return McpError(f"MCP server {self.name!r} speaks protocol version {said}, which ankit does not support "
                        f"(it speaks {', '.join(PROTOCOL_VERSIONS)}); try another version of the server")

    def _accept(self, version: str, result: dict) -> None:
        self.protocol_version = self.transport.protocol_version = version
        meta = result.get("_meta") if isinstance(result.get("_meta"), dict) else {}
        info = result.get("serverInfo") or meta.get("io.modelcontextprotocol/serverInfo")
        info = info if isinstance(info, dict) else {}
        # the fields ankit shows, each through the text boundary (a name is the server's to write, not to obey)
        self.server_info = {k: outside(v, INFO_CAP, line=True) for k, v in info.items()
                            if k in INFO_FIELDS and isinstance(v, str)}
        text = result.get("instructions")
        self.instructions = outside(text.strip(), INSTRUCTIONS_CAP) if isinstance(text, str) else ""
        caps = result.get("capabilities")
        self.capabilities = caps if isinstance(caps, dict) else {}

    def _modern(self, params: dict) -> dict:
        """Params with 2026-07-28's per-request _meta: the version, who ankit is, what it can answer."""
        return {**params, "_meta": {**(params.get("_meta") or {}),
                                    "io.modelcontextprotocol/protocolVersion": MODERN,
                                    "io.modelcontextprotocol/clientInfo": {"name": "ankit", "version": __version__},
                                    "io.modelcontextprotocol/clientCapabilities": self.asks.capabilities()}}

    def request(self, method: str, params: dict, timeout: float, progress: bool = False) -> dict:
        """One request in the server's era; a result whose resultType ankit does not know is an error."""
        result = self.transport.request(method, self._modern(params) if self.modern else params, timeout, progress)
        kind = result.get("resultType", "complete")
        if kind not in ("complete", "input_required"):
            raise McpError(f"MCP server {self.name!r} answered {method} with resultType {str(kind)[:40]!r}, "
                           "which ankit does not know")
        return result

    def list_tools(self, timeout: float) -> list[dict]:
        """Every tool the server offers (pages and caps as `_list` follows them); over HTTP at 2026-07-28 a tool
        whose x-mcp-header annotations are invalid is left out with a note, the others' are kept for their calls."""
        tools = self._list("tools/list", "tools", timeout)
        if not (self.modern and hasattr(self.transport, "param_headers")):
            return tools
        from ankit.mcp.streamable import param_headers
        kept, left = [], []
        for tool in tools:
            found = param_headers(tool)
            (kept if found is not None else left).append(tool)
            if found:
                self.transport.param_headers[str(tool.get("name"))] = found
        if left:
            names = ", ".join(repr(t.get("name")) for t in left[:5])
            self.list_note = (self.list_note + "; " if self.list_note else "") + \
                f"left out tool(s) {names} of MCP server {self.name!r}: invalid x-mcp-header annotations"
        return kept

    def list_prompts(self, timeout: float) -> list[dict]:
        """The server's prompts (its slash commands), when it declares the prompts capability."""
        return self._list("prompts/list", "prompts", timeout) if "prompts" in self.capabilities else []

    def list_resources(self, timeout: float) -> list[dict]:
        """The server's resources (what @server:uri attaches), when it declares the resources capability."""
        return self._list("resources/list", "resources", timeout) if "resources" in self.capabilities else []

    def _list(self, method: str, key: str, timeout: float) -> list[dict]:
        """Every item of a list, following nextCursor through its pages up to PAGE_CAP pages, TOOLS_CAP items and
        TOOLS_BYTES_CAP bytes (list_note then says so)."""
        items: list[dict] = []
        cursor, seen, size = None, set(), 0
        self.list_note = ""
        for _ in range(PAGE_CAP):
            try:
                page = self.request(method, {"cursor": cursor} if cursor else {}, timeout)
            except McpError as exc:
                if exc.code == METHOD_NOT_FOUND:
                    return []  # a server without any
                raise
            for item in (t for t in page.get(key) or [] if isinstance(t, dict)):
                size += len(json.dumps(item, ensure_ascii=False))
                if len(items) >= TOOLS_CAP or size > TOOLS_BYTES_CAP:
                    return self._cut(items, key)
                items.append(item)
            cursor = page.get("nextCursor")
            if not isinstance(cursor, str) or not cursor or cursor in seen:
                return items
            seen.add(cursor)
        return self._cut(items, key)

    def _cut(self, items: list[dict], key: str = "tools") -> list[dict]:
        self.list_note = (f"MCP server {self.name!r} offers more {key} than ankit takes (at most {PAGE_CAP} pages, "
                          f"{TOOLS_CAP} {key}, {TOOLS_BYTES_CAP // (1024 * 1024)} MB); only its first "
                          f"{len(items)} are used")
        return items

    def call_tool(self, name: str, arguments: dict, timeout: float) -> dict:
        """Call one tool by its original name; return the raw CallToolResult."""
        return self._rounds("tools/call", {"name": name, "arguments": arguments}, timeout)

    def get_prompt(self, name: str, arguments: dict, timeout: float) -> dict:
        """One of the server's prompts filled in with the arguments: the raw GetPromptResult (its messages)."""
        return self._rounds("prompts/get", {"name": name, "arguments": arguments}, timeout)

    def read_resource(self, uri: str, timeout: float) -> dict:
        """One resource's contents: the raw ReadResourceResult."""
        return self._rounds("resources/read", {"uri": uri}, timeout)

    def _rounds(self, method: str, params: dict, timeout: float) -> dict:
        """A request that a 2026-07-28 server may answer with an InputRequiredResult (a question for the user, the
        roots): asked, then retried with the answers and requestState echoed, at most INPUT_ROUNDS times."""
        first = params
        for _ in range(INPUT_ROUNDS + 1):
            result = self.request(method, params, timeout, progress=method == "tools/call")
            if result.get("resultType", "complete") == "complete":
                return result
            params = {**first, "inputResponses": self.asks.inputs(result.get("inputRequests"))}
            if isinstance(result.get("requestState"), str):
                params["requestState"] = result["requestState"]
        raise McpError(f"MCP server {self.name!r} asked for more input {INPUT_ROUNDS} times for one {method} of "
                       f"{params.get('name') or params.get('uri')!r}; ankit stopped asking")

    def close(self, grace: float = 1.0) -> None:
        """Stop the server process (grace: seconds each shutdown step waits)."""
        self._closed = True
        self.transport.close(grace)
