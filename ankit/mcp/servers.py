"""The MCP servers of a session: lazy start, tool lists as ankit Tools, restarts, status, process lifetime.

A server whose tool list is cached does not start until a tool of its group is activated (`wake`) or called,
or the lists are refreshed; a server never listed starts in the background at once, and nothing waits for it
longer than its start_timeout: past that it is "not answering", and a late answer still adds its tools.
"""

import atexit
import hashlib
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ankit.errors import ConfigError
from ankit.mcp import NO_SERVERS
from ankit.mcp.cache import ToolCache, cache_key
from ankit.mcp.asks import Asks
from ankit.mcp.client import LEGACY, McpClient
from ankit.mcp.prompts import fill, messages_text, prompt_commands, resource_text, usage
from ankit.mcp.tokens import TokenStore
from ankit.mcp.settings import ServerConfig, launch, server_config
from ankit.mcp.tools import clean_name, make_tools
from ankit.mcp.transport import McpError
from ankit.protocols import Elicitor
from ankit.tooling.tool import Tool

MAX_RESTARTS = 3
LIST_CHANGED = "notifications/tools/list_changed"
RELIST_GAP = 0.5  # seconds between two re-lists of one server (list_changed is throttled to this)
RELIST_LIMIT, RELIST_WINDOW = 10, 60.0  # more list changes than this within the window: the server is stopped


@dataclass
class _Server:
    """What the manager knows of one configured server."""

    name: str
    label: str
    log_path: Path
    config: ServerConfig | None = None
    error: str = ""
    client: McpClient | None = None
    booting: McpClient | None = None  # a process being started, so close() can stop it too
    tools: list[Tool] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    restarts: int = 0
    ready: threading.Event = field(default_factory=threading.Event)
    lock: threading.RLock = field(default_factory=threading.RLock)
    key: str = ""  # the cache key of how it is started
    cached: dict | None = None  # its tool list as last seen, from the cache
    started: bool = False  # a process was asked for (in the background or by a call)
    since: float = 0.0  # when the current start began (time.monotonic)
    generation: int = 0  # bumped by refresh: a start begun before it reports nothing
    relists: deque = field(default_factory=deque)  # when its recent list changes came
    stays_off: str = ""  # why it is not restarted for the rest of the session
    prompts: list[dict] = field(default_factory=list)  # its prompts (slash commands), live or cached
    resources: list[dict] = field(default_factory=list)  # its resources (@NAME:URI), live or cached

    def starting(self) -> bool:
        """Whether a start is under way (its tools not listed yet)."""
        return self.started and not self.ready.is_set()

    def overdue(self) -> bool:
        """Whether a start under way has taken longer than start_timeout."""
        return self.starting() and time.monotonic() - self.since > self.config.start_timeout


def _labels(names: list[str]) -> dict[str, str]:
    """A short provider-safe label per server name, unique in config order."""
    labels, used = {}, set()
    for name in names:
        label = clean_name(name)
        if len(label) > 24 or label in used:
            label = f"{label[:17]}_{hashlib.sha1(name.encode()).hexdigest()[:6]}"
        labels[name] = label
        used.add(label)
    return labels


class McpManager:
    """Every configured MCP server, exposed as groups mcp:NAME; started lazily, stopped with its process group."""

    def __init__(self, servers: dict, log_dir: Path, on_change: Callable[[], None] | None = None,
                 cache: ToolCache | None = None, root: Path | None = None, elicit: Elicitor | None = None):
        self.log_dir = Path(log_dir)
        self.root = root  # offered as the root when a server asks for roots
        self.elicit = elicit  # asks the user a server's question
        self.on_change = on_change
        self.cache = cache
        self._lock = threading.Lock()
        self._closed = False
        self._started = False
        self._queued: list[str] = []  # lines for the user from server threads, until before_turn tells them
        self._told: set[str] = set()
        self._servers: list[_Server] = []
        for name, label in _labels(list(servers)).items():
            server = _Server(name, label, self.log_dir / f"mcp-{label}.log")
            try:
                server.config = server_config(name, servers[name])
            except ConfigError as exc:
                server.error = str(exc)
                server.ready.set()
            self._servers.append(server)
            if server.config is not None and cache is not None:
                cfg = server.config
                server.key = cache_key(cfg.url or cfg.command, cfg.args, cfg.env, cfg.cwd)
                server.cached = cache.load(server.key)
                if server.cached is not None:  # answer from the last list until the server lists again; every
                    # call asks until then: a cached readOnlyHint is no permission
                    server.tools, server.problems = make_tools(server.name, server.cached["tools"],
                                                               self._caller(server), server.label, hints=False)
                    server.prompts = [p for p in server.cached.get("prompts") or [] if isinstance(p, dict)]
                    server.resources = [r for r in server.cached.get("resources") or [] if isinstance(r, dict)]

    def start(self, uncached_only: bool = False) -> None:
        """Start the servers not started yet (uncached_only: only those never listed) in background threads;
        never blocks."""
        self._start([s for s in self._servers if not (uncached_only and s.cached is not None)])

    def wake(self, groups: list[str]) -> None:
        """Start, in the background, the servers of these groups (mcp:NAME or a part mcp:NAME/WORD) not started yet."""
        names = {g.removeprefix("mcp:").partition("/")[0] for g in groups if g.startswith("mcp:")}
        self._start([s for s in self._servers if s.name in names])

    def _start(self, servers: list[_Server]) -> None:
        with self._lock:
            if self._closed:
                return
            booting = [s for s in servers if s.config is not None and not s.started]
            for server in booting:
                server.started, server.since = True, time.monotonic()
            if booting and not self._started:
                self._started = True
                atexit.register(self.close)
        for server in booting:
            threading.Thread(target=self._boot, args=(server, server.generation), name=f"mcp-{server.label}",
                             daemon=True).start()

    def refresh(self) -> None:
        """Stop every server (its whole process group) and start all of them afresh, to list their tools again."""
        with self._lock:
            if self._closed:
                return
            stale = []
            for server in self._servers:
                if server.config is None:
                    continue
                stale += [c for c in (server.client, server.booting) if c is not None]
                server.client, server.error, server.restarts, server.stays_off = None, "", 0, ""
                server.started, server.generation = False, server.generation + 1
                server.ready.clear()
        _close_all([(client, 0.5) for client in stale])
        self.start()

    def _boot(self, server: _Server, generation: int) -> None:
        try:
            with server.lock:
                if server.generation == generation and (server.client is None or not server.client.alive):
                    self._launch(server)  # a call may have started it meanwhile
        except McpError as exc:
            if server.generation == generation:
                server.error = str(exc)
        except Exception as exc:  # a bug or an odd OS error must not print a traceback over the REPL
            if server.generation == generation:
                server.error = f"MCP server {server.name!r} failed to start: {type(exc).__name__}: {exc}"
        finally:
            if server.generation == generation:
                server.ready.set()

    def _launch(self, server: _Server) -> None:
        """Start a fresh process for the server, list its tools, and make it the current one."""
        cfg, generation = server.config, server.generation
        command, args = launch(cfg)  # sandbox = true: inside ankit's sandbox
        client = McpClient(cfg.name, command, args, cfg.env, cfg.cwd, server.log_path,
                           on_notice=lambda method, params: self._on_notice(server, client, method),
                           url=cfg.url, headers=cfg.headers, asks=Asks(cfg.name, self.root, self.elicit),
                           tokens=TokenStore(self.log_dir / "auth"))
        with self._lock:
            if self._closed:
                raise McpError("MCP servers are shut down")
            server.booting = client
        try:
            last = str((server.cached or {}).get("protocol") or "")
            client.start(cfg.startup_timeout, era="legacy" if last in LEGACY else "")
            specs = client.list_tools(cfg.startup_timeout)
            note = client.list_note
            extras = self._extras(server, client)
        except McpError:
            client.close(0.5)
            raise
        finally:
            server.booting = None
        with self._lock:
            closed = self._closed or server.generation != generation  # shut down, or refreshed meanwhile
            old, server.client = (None, server.client) if closed else (server.client, client)
        for stale in (old, client if closed else None):
            if stale is not None:
                stale.close()
        if not closed:
            server.error = ""
            server.prompts, server.resources = extras
            self._set_tools(server, specs, note)
            if self.cache is not None and server.key:
                self.cache.save(server.key, specs, client.instructions, client.server_info, client.protocol_version,
                                *extras)

    def _extras(self, server: _Server, client: McpClient) -> tuple[list[dict], list[dict]]:
        """The server's prompts and resources; a server that fails to list them keeps its tools all the same."""
        try:
            return client.list_prompts(server.config.startup_timeout), client.list_resources(server.config.startup_timeout)
        except McpError as exc:
            self._queue(f"MCP server {server.name!r} could not list its prompts or resources: {exc}")
            return [], []

    def _caller(self, server: _Server):
        return lambda original, args: self._call(server, original, args)

    def _set_tools(self, server: _Server, specs: list[dict], note: str = "") -> None:
        before = [t.spec() for t in server.tools]
        tools, server.problems = make_tools(server.name, specs, self._caller(server), server.label)
        server.problems += [note] if note else []
        server.tools = tools
        if [t.spec() for t in tools] == before:
            return
        if before:  # the list replaced one cached or listed before: say so once
            old, new = {s.name for s in before}, {t.name for t in tools}
            gained, lost = sorted(new - old), sorted(old - new)
            what = ", ".join([*(f"+{n}" for n in gained[:5]), *(f"-{n}" for n in lost[:5])]) or "descriptions"
            self._queue(f"MCP server {server.name!r} changed its tools ({len(before)} -> {len(tools)}: {what})")
        if self.on_change is not None:
            try:
                self.on_change()
            except Exception as exc:  # the listener's bug must not stop the server thread
                server.problems.append(f"on_change failed: {type(exc).__name__}: {exc}")

    def _queue(self, line: str) -> None:
        with self._lock:
            self._queued.append(line)

    def _on_notice(self, server: _Server, client: McpClient, method: str) -> None:
        """A list change re-lists the server's tools (on its inbox thread), at most once a RELIST_GAP; one that
        changes its list more than RELIST_LIMIT times within RELIST_WINDOW is stopped for the session."""
        if method != LIST_CHANGED:
            return
        now, times = time.monotonic(), server.relists
        times.append(now)
        while times[0] < now - RELIST_WINDOW:
            times.popleft()
        if len(times) > RELIST_LIMIT:
            self._stop_for_good(server, client, f"announced a changed tool list more than {RELIST_LIMIT} times "
                                                f"within {RELIST_WINDOW:g}s")
            return
        if len(times) > 1:
            time.sleep(max(0.0, times[-2] + RELIST_GAP - now))
        with server.lock:  # waits for a boot in progress, which makes this client current
            if client is not server.client or not client.alive:
                return
            try:
                specs = client.list_tools(server.config.startup_timeout)
                self._set_tools(server, specs, client.list_note)
                if self.cache is not None and server.key:
                    self.cache.save(server.key, specs, client.instructions, client.server_info, client.protocol_version)
            except McpError as exc:
                server.problems = [f"could not re-list tools: {exc}"]

    def _stop_for_good(self, server: _Server, client: McpClient, why: str) -> None:
        """Stop a misbehaving server for the rest of the session, with one line saying why."""
        server.stays_off = f"{why}, so ankit stopped it"
        self._queue(f"MCP server {server.name!r} {server.stays_off} (log: {server.log_path})")
        client.close(0.5)

    def _running(self, server: _Server) -> McpClient:
        """The server's live client, started now when it never was, restarting a stopped server at most
        MAX_RESTARTS times."""
        with server.lock:
            if self._closed:
                raise McpError("MCP servers are shut down")
            client = server.client
            if client is not None and client.alive:
                return client
            if server.stays_off or (client is not None and client.fatal):
                raise McpError(f"MCP server {server.name!r} {server.stays_off or client.failure}; it stays off for "
                               f"this session (log: {server.log_path})")
            why = client.failure if client is not None else server.error
            if client is None and not server.error:  # never started (listed from the cache): start it now
                with self._lock:
                    server.started, server.since = True, server.since or time.monotonic()
                try:
                    self._launch(server)
                except McpError as exc:
                    server.error = str(exc)
                    raise
                finally:
                    server.ready.set()
                return server.client
            if server.restarts >= MAX_RESTARTS:
                raise McpError(f"MCP server {server.name!r} stopped ({why}) and was restarted {MAX_RESTARTS} "
                               f"times already; it stays off for this session (log: {server.log_path})")
            server.restarts += 1
            try:
                self._launch(server)
            except McpError as exc:
                server.error = str(exc)
                raise McpError(f"MCP server {server.name!r} stopped and could not be restarted: {exc}") from None
            return server.client

    def _call(self, server: _Server, original: str, args: dict) -> dict:
        client = self._running(server)
        try:
            return client.call_tool(original, args, server.config.timeout)
        except McpError as exc:
            if client.alive or server.restarts >= MAX_RESTARTS or client.fatal:
                raise
            raise McpError(f"{exc} (ankit restarts it on the next call)") from None

    def tools(self) -> list[Tool]:
        """The tools of every server whose list has arrived, in config order."""
        return [tool for server in self._servers for tool in server.tools]

    def listed(self) -> list[tuple[str, str, list[Tool]]]:
        """(name, label, tools) of every server whose list has arrived, in config order."""
        return [(server.name, server.label, server.tools) for server in self._servers if server.tools]

    def group_meta(self) -> dict[str, dict]:
        """Catalog metadata per group mcp:NAME: summary, keywords and core flag.

        The server's name is a keyword only as a server is named ('the everything server', 'mcp:everything'):
        alone, a name that is an ordinary word ('time', 'everything') weighs like any other word.
        """
        return {f"mcp:{s.name}": {"summary": self._summary(s), "keywords": [f"{s.name} server", f"mcp {s.name}"],
                                  "core": bool(s.config and s.config.core)} for s in self._servers}

    def _summary(self, server: _Server) -> str:
        client, cached = server.client, server.cached or {}
        said = client.instructions if client else str(cached.get("instructions") or "")
        text = said[:2000].strip()  # the catalog makes it one clean sentence
        if text:
            return text
        info = client.server_info if client else cached.get("server_info")
        info = info if isinstance(info, dict) else {}
        title = info.get("title") or info.get("name") or ""
        head = f"MCP server {server.name}" + (f" ({title})" if title and title != server.name else "")
        names = [t.name.removeprefix(f"mcp__{server.label}__") for t in server.tools[:6]]
        return head + (": " + ", ".join(names) if names else "")

    def core_groups(self) -> list[str]:
        """Groups of the servers configured with core = true."""
        return [f"mcp:{s.name}" for s in self._servers if s.config is not None and s.config.core]

    def prompts(self) -> dict[str, tuple[str, dict]]:
        """Every server's prompts as slash commands: command name -> (server name, prompt)."""
        return {command: (s.name, prompt) for s in self._servers
                for command, prompt in prompt_commands(s.label, s.prompts).items()}

    def prompt_text(self, command: str, arguments: str) -> str:
        """Run one prompt command (the server starts if it has not): its messages as the text to send."""
        name, prompt = self.prompts()[command]
        server = next(s for s in self._servers if s.name == name)
        filled = fill(command, prompt, arguments)
        client = self._running(server)
        return messages_text(client.get_prompt(prompt["name"], filled, server.config.timeout))

    def login(self, name: str, open_url, say) -> str:
        """`ankit mcp login NAME` / `/mcp login NAME`: OAuth in the browser for a server over HTTP; its next start
        (or call) uses the token."""
        from ankit.mcp import oauth  # urllib and http.server: only when logging in
        cfg = self._http_config(name)
        line = oauth.login(cfg.name, cfg.url, TokenStore(self.log_dir / "auth"), open_url, say,
                           client_id=cfg.oauth_client_id, scope=cfg.oauth_scope)
        server = next(s for s in self._servers if s.name == name)
        with server.lock:
            server.error, server.restarts = "", 0  # a start refused for want of a login may go again
        return line

    def logout(self, name: str) -> str:
        """Forget (and revoke) a server's login."""
        from ankit.mcp import oauth
        cfg = self._http_config(name)
        return oauth.logout(cfg.name, cfg.url, TokenStore(self.log_dir / "auth"))

    def _http_config(self, name: str) -> ServerConfig:
        server = next((s for s in self._servers if s.name == name), None)
        if server is None:
            raise McpError(f"no MCP server named {name!r}; see ankit mcp list")
        if server.config is None:
            raise McpError(server.error)
        if not server.config.url:
            raise McpError(f"MCP server {name!r} runs on this machine (command); only servers over HTTP log in")
        return server.config

    def server_names(self) -> list[str]:
        """The configured servers' names."""
        return [s.name for s in self._servers if s.config is not None]

    def resources(self) -> list[tuple[str, dict]]:
        """(server name, resource) for every server's listed resources."""
        return [(s.name, r) for s in self._servers for r in s.resources if isinstance(r.get("uri"), str)]

    def read(self, name: str, uri: str) -> str:
        """The text of one resource of a server (started if it has not), for an @NAME:URI mention."""
        server = next((s for s in self._servers if s.name == name and s.config is not None), None)
        if server is None:
            raise McpError(f"no MCP server named {name!r}; see /mcp")
        client = self._running(server)
        return resource_text(name, uri, client.read_resource(uri, server.config.timeout))

    def server_text(self, name: str) -> str:
        """/mcp NAME: the server's state, its prompts (slash commands) and resources (@NAME:URI)."""
        server = next((s for s in self._servers if s.name == name), None)
        if server is None:
            raise McpError(f"no MCP server named {name!r}; /mcp lists them")
        lines = [f"{server.name}: {self._state(server)}", f"  {len(server.tools)} tools (/tools mcp:{server.name})"]
        commands = prompt_commands(server.label, server.prompts)
        lines += ["  prompts:" if commands else "  no prompts"]
        lines += [f"    {usage(c, p)}  {str(p.get('description') or '').splitlines()[0][:60] if p.get('description') else ''}".rstrip()
                  for c, p in commands.items()]
        lines += ["  resources:" if server.resources else "  no resources"]
        lines += [f"    @{server.name}:{r['uri']}  {str(r.get('name') or '')[:40]}".rstrip()
                  for r in server.resources if isinstance(r.get("uri"), str)]
        return "\n".join(lines)

    def status_lines(self) -> list[str]:
        """For `ankit mcp list` and /mcp: each server's state (not started, starting, ready, not answering, failed)
        and its tools."""
        if not self._servers:
            return [NO_SERVERS]
        lines = []
        for server in self._servers:
            lines.append(f"{server.name}: {self._state(server)}")
            for tool in server.tools:
                first = (tool.description.splitlines() or [""])[0]
                lines.append(f"  {tool.name}  {first[:70] + ('...' if len(first) > 70 else '')}")
            lines += [f"  {problem}" for problem in server.problems]
        return lines

    def troubled(self) -> bool:
        """Whether any server failed, is not answering or stays off (`ankit mcp list` then exits 1)."""
        return any(self._state(s).startswith(("failed", "not answering")) for s in self._servers)

    def failures(self) -> list[str]:
        """One line per server that could not start or be configured, or was stopped for good, for the user to see
        once."""
        lines = []
        for s in self._servers:
            client = s.client
            if s.stays_off or (client is not None and client.fatal):
                lines.append(f"MCP server {s.name!r} {s.stays_off or client.failure} (log: {s.log_path})")
            elif s.error and (client is None or not client.alive):
                lines.append(s.error + (f" (log: {s.log_path})" if s.config else ""))
        return lines

    def _state(self, server: _Server) -> str:
        client, cfg = server.client, server.config
        if cfg is None:
            return f"failed: {server.error}"
        if not server.started and server.cached is not None:
            listed = server.cached.get("listed") or "earlier"
            return (f"not started ({len(server.tools)} tools as listed {listed}; it starts when one is used, or "
                    f"with /mcp refresh or ankit mcp list --refresh)")
        if server.overdue():
            return (f"not answering after {cfg.start_timeout:g}s (still waiting up to {cfg.startup_timeout:g}s; "
                    f"log: {server.log_path})")
        if server.starting():
            return "starting..." + (f" ({len(server.tools)} tools as last listed)" if server.cached else "")
        if server.stays_off or (client is not None and client.fatal):
            return f"failed: {server.stays_off or client.failure} (log: {server.log_path})"
        if client is None or (server.error and not client.alive):
            return f"failed: {server.error} (log: {server.log_path})"
        if client.alive:
            info = client.server_info
            who = f"{info.get('name', '?')} {info.get('version', '')}".strip()
            core = ", core" if cfg.core else ""
            return f"ready ({len(server.tools)} tools; {who}, protocol {client.protocol_version}{core})"
        left = MAX_RESTARTS - server.restarts
        then = f"restarts on next use ({left} left)" if left > 0 else "stays off for this session"
        return f"stopped: {client.failure}; {then} (log: {server.log_path})"

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until every started server has listed its tools or failed, at most timeout seconds (default: each
        server's start_timeout from when it started); return whether all are done."""
        return self._wait([s for s in self._servers if s.started or s.config is None], timeout)

    def wait_uncached(self, timeout: float | None = None) -> bool:
        """Wait for the started servers that have no cached list (the others answer from the cache meanwhile)."""
        return self._wait([s for s in self._servers if s.started and s.cached is None], timeout)

    def _wait(self, servers: list[_Server], timeout: float | None) -> bool:
        began, done = time.monotonic(), True
        for server in servers:
            if timeout is not None:
                end = began + timeout
            else:
                end = server.since + server.config.start_timeout if server.config is not None else began
            done = server.ready.wait(max(0.0, end - time.monotonic())) and done
        return done

    def before_turn(self, view) -> None:
        """Wait (up to each one's start_timeout) for started servers never listed, then tell view.notice what the
        user has not heard yet: failures, servers not answering, changed tool lists."""
        pending = [s for s in self._servers if s.started and s.cached is None and s.starting() and not s.overdue()]
        if pending and not self.wait_uncached(0):
            view.notice("waiting for MCP servers to start…")
            self._wait(pending, None)
        for line in self.news():
            view.notice(line)

    def news(self) -> list[str]:
        """Lines the user has not been told yet, each once."""
        with self._lock:
            lines, self._queued = self._queued, []
        lines += [f"MCP server {s.name!r} is not answering after {s.config.start_timeout:g}s: its tools are missing "
                  f"from this turn (they join if it answers later; log: {s.log_path})"
                  for s in self._servers if s.config is not None and s.overdue()]
        lines += self.failures()
        fresh = [line for line in dict.fromkeys(lines) if line not in self._told]
        self._told.update(fresh)
        return fresh

    def close(self) -> None:
        """Stop every server: its whole process group, SIGKILL after a short grace."""
        with self._lock:
            self._closed = True
            clients = [(c, 1.0) for s in self._servers if (c := s.client) is not None]
            clients += [(c, 0.1) for s in self._servers if (c := s.booting) is not None]  # nothing to finish
        _close_all(clients)


def _close_all(clients: list[tuple[McpClient, float]]) -> None:
    """Close clients all at once (each may wait a moment for its process group to exit)."""
    closing = [threading.Thread(target=client.close, args=(grace,), daemon=True) for client, grace in clients]
    for (client, grace), thread in zip(clients, closing):
        try:
            thread.start()
        except RuntimeError:  # at interpreter exit (the atexit call) Python 3.12+ starts no threads
            client.close(grace)
    for thread in closing:
        if thread.ident is not None:
            thread.join(5)
