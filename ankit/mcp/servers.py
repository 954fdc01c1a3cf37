"""The MCP servers of a session: lazy start, tool lists as ankit Tools, restarts, waiting, process lifetime.

A server whose tool list is cached does not start until a tool of its group is activated (`wake`) or called,
or the lists are refreshed; a server never listed starts in the background at once, and nothing waits for it
longer than its start_timeout: past that it is "not answering", and a late answer still adds its tools.
"""

import atexit
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from ankit.errors import ConfigError
from ankit.mcp.cache import ToolCache, cache_key
from ankit.mcp.asks import Asks
from ankit.mcp.catalog import McpCatalog
from ankit.mcp.client import LEGACY, McpClient
from ankit.mcp.content import McpContent
from ankit.mcp.server import MAX_RESTARTS, Server, clashing, labels
from ankit.mcp.status import McpStatus
from ankit.mcp.tokens import TokenStore
from ankit.mcp.settings import launch, server_config
from ankit.mcp.tools import clean_name, make_tools
from ankit.mcp.transport import McpError
from ankit.protocols import Elicitor
from ankit.safety.scrub import Scrubber

if TYPE_CHECKING:
    from ankit.mcp.auth import McpLogin
LIST_CHANGED = "notifications/tools/list_changed"
RELIST_GAP = 0.5  # seconds between two re-lists of one server (list_changed is throttled to this)
FAILING = 5.0  # seconds past a startup_timeout for a start that timed out to stop its process and say so
RELIST_LIMIT, RELIST_WINDOW = 10, 60.0  # more list changes than this within the window: the server is stopped


class McpManager:
    """Every configured MCP server, exposed as groups mcp:NAME; started lazily, stopped with its process group.

    Its roles besides the servers' lifecycle: `catalog` (their tools and groups), `status` (what the user hears),
    `content` (prompts and resources) and `auth` (logging a server over HTTP in and out)."""

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
        self._servers: list[Server] = []
        self.catalog, self.status = McpCatalog(self._servers), McpStatus(self._servers)
        self.content = McpContent(self._servers, self.running)
        clashes = clashing(list(servers))
        for name, label in labels(list(servers)).items():
            if name in clashes:  # its tools and another server's could share a name: told apart, and said so
                self.status.queue(f"MCP servers {clashes[name]!r} and {name!r} could give two tools one name "
                                  f"(mcp__{clean_name(name)}__...): {name!r}'s tools are named mcp__{label}__...")
            elif label != clean_name(name):  # two names that read alike: told apart by a hash, and said so
                self.status.queue(f"MCP server {name!r}'s tools are named mcp__{label}__... ({clean_name(name)!r} "
                                  "is another server's, or too long)")
            server = Server(name, label, self.log_dir / f"mcp-{label}.log")
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
                server.failed_before = cache.failure(server.key)  # did not start lately: not waited for
                if server.cached is not None:  # answer from the last list until the server lists again; every
                    # call asks until then: a cached readOnlyHint is no permission
                    server.tools, server.problems = make_tools(server.name, server.cached["tools"],
                                                               partial(self._call, server), server.label, hints=False,
                                                               scrub=Scrubber(values=server.secrets()))
                    server.prompts = [p for p in server.cached.get("prompts") or [] if isinstance(p, dict)]
                    server.resources = [r for r in server.cached.get("resources") or [] if isinstance(r, dict)]

    @property
    def auth(self) -> "McpLogin":
        """Logging a server over HTTP in and out."""
        from ankit.mcp.auth import McpLogin  # OAuth's urllib and http.server: only when logging in or out
        return McpLogin(self._servers, self.log_dir)

    def start(self, uncached_only: bool = False) -> None:
        """Start the servers not started yet (uncached_only: only those never listed) in background threads;
        never blocks."""
        self._start([s for s in self._servers if not (uncached_only and s.cached is not None)])

    def unlisted(self) -> list[tuple[str, str]]:
        """(name, label) of the servers configured whose tools have never been listed (none cached), leaving out
        those that did not start lately."""
        return [(s.name, s.label) for s in self._servers if s.config is not None and not s.tools
                and s.failed_before is None]

    def wake(self, groups: list[str]) -> None:
        """Start, in the background, the servers of these groups (mcp:NAME or a part mcp:NAME/WORD) not started yet."""
        names = {g.removeprefix("mcp:").partition("/")[0] for g in groups if g.startswith("mcp:")}
        self._start([s for s in self._servers if s.name in names])

    def _start(self, servers: list[Server]) -> None:
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
                server.failed_before = None  # asked for: waited for again
                server.started, server.generation = False, server.generation + 1
                server.ready.clear()
        _close_all([(client, 0.5) for client in stale])
        self.start()

    def _boot(self, server: Server, generation: int) -> None:
        try:
            with server.lock:
                if server.generation == generation and (server.client is None or not server.client.alive):
                    self._launch(server)  # a call may have started it meanwhile
        except McpError as exc:
            if server.generation == generation:
                server.error = str(exc)
                if self.cache is not None and server.key:
                    self.cache.remember_failure(server.key, server.error)
        except Exception as exc:  # a bug or an odd OS error must not print a traceback over the REPL
            if server.generation == generation:
                server.error = f"MCP server {server.name!r} failed to start: {type(exc).__name__}: {exc}"
        finally:
            if server.generation == generation:
                server.ready.set()

    def _launch(self, server: Server) -> None:
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
            deadline = time.monotonic() + cfg.startup_timeout  # one budget for the whole start, not one per step
            client.start(cfg.startup_timeout, era="legacy" if last in LEGACY else "")
            specs = client.list_tools(_left(deadline))
            note = client.list_note
            extras = self._extras(server, client, deadline)
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
            server.error, server.failed_before = "", None
            if self.cache is not None and server.key:
                self.cache.forget_failure(server.key)
            server.prompts, server.resources = extras
            self._set_tools(server, specs, note)
            if self.cache is not None and server.key:
                self.cache.save(server.key, specs, client.instructions, client.server_info, client.protocol_version,
                                *extras)

    def _extras(self, server: Server, client: McpClient, deadline: float) -> tuple[list[dict], list[dict]]:
        """The server's prompts and resources; a server that fails to list them keeps its tools all the same."""
        try:
            return client.list_prompts(_left(deadline)), client.list_resources(_left(deadline))
        except McpError as exc:
            self.status.queue(f"MCP server {server.name!r} could not list its prompts or resources: {exc}")
            return [], []

    def _set_tools(self, server: Server, specs: list[dict], note: str = "") -> None:
        before = [t.spec() for t in server.tools]
        trusted = server.config is not None and server.config.trust_annotations  # the user's own word only
        tools, server.problems = make_tools(server.name, specs, partial(self._call, server), server.label,
                                            scrub=Scrubber(values=server.secrets()), trusted=trusted)
        server.problems += [note] if note else []
        server.tools = tools
        if [t.spec() for t in tools] == before:
            return
        if before:  # the list replaced one cached or listed before: say so once
            old, new = {s.name for s in before}, {t.name for t in tools}
            gained, lost = sorted(new - old), sorted(old - new)
            what = ", ".join([*(f"+{n}" for n in gained[:5]), *(f"-{n}" for n in lost[:5])]) or "descriptions"
            self.status.queue(f"MCP server {server.name!r} changed its tools ({len(before)} -> {len(tools)}: {what})")
        if self.on_change is not None:
            try:
                self.on_change()
            except Exception as exc:  # the listener's bug must not stop the server thread
                server.problems.append(f"on_change failed: {type(exc).__name__}: {exc}")

    def _on_notice(self, server: Server, client: McpClient, method: str) -> None:
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

    def _stop_for_good(self, server: Server, client: McpClient, why: str) -> None:
        """Stop a misbehaving server for the rest of the session, with one line saying why."""
        server.stays_off = f"{why}, so ankit stopped it"
        self.status.queue(f"MCP server {server.name!r} {server.stays_off} (log: {server.log_path})")
        client.close(0.5)

    def running(self, server: Server) -> McpClient:
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

    def _call(self, server: Server, original: str, args: dict) -> dict:
        client = self.running(server)
        try:
            return client.call_tool(original, args, server.config.timeout)
        except McpError as exc:
            if client.alive or server.restarts >= MAX_RESTARTS or client.fatal:
                raise
            raise McpError(f"{exc} (ankit restarts it on the next call)") from None

    def wait(self, timeout: float | None = None, patient: bool = False, names: list[str] | None = None) -> bool:
        """Wait until every started server (or those named) has listed its tools or failed, at most timeout
        seconds (default: each server's start_timeout from when it started, its whole startup_timeout when
        patient); return whether all are done."""
        servers = [s for s in self._servers if (s.started or s.config is None) and (names is None or s.name in names)]
        return self._wait(servers, timeout, patient)

    def wait_uncached(self, timeout: float | None = None, patient: bool = False) -> bool:
        """Wait for the started servers that have no cached list (the others answer from the cache meanwhile)."""
        return self._wait([s for s in self._servers if s.started and s.cached is None], timeout, patient)

    def _wait(self, servers: list[Server], timeout: float | None, patient: bool = False) -> bool:
        began, done = time.monotonic(), True
        for server in servers:
            if timeout is not None:
                end = began + timeout
            elif server.config is not None:
                cfg = server.config
                end = server.since + (cfg.startup_timeout + FAILING if patient else cfg.start_timeout)
            else:
                end = began
            done = server.ready.wait(max(0.0, end - time.monotonic())) and done
        return done

    def before_turn(self, view) -> None:
        """Wait (up to each one's start_timeout) for started servers never listed, then tell view.notice what the
        user has not heard yet: failures, servers not answering, changed tool lists."""
        pending = [s for s in self._servers if s.started and s.cached is None and s.starting() and not s.overdue()
                   and s.failed_before is None]  # one that did not start lately taxes no turn
        if pending and not self.wait_uncached(0):
            view.notice("waiting for MCP servers to start…")
            self._wait(pending, None)
        for line in self.status.news():
            view.notice(line)

    def close(self) -> None:
        """Stop every server: its whole process group, SIGKILL after a short grace."""
        with self._lock:
            self._closed = True
            clients = [(c, 1.0) for s in self._servers if (c := s.client) is not None]
            clients += [(c, 0.1) for s in self._servers if (c := s.booting) is not None]  # nothing to finish
        _close_all(clients)


def _left(deadline: float) -> float:
    """The seconds left before a deadline (a moment at least, so a step already due fails as a time-out)."""
    return max(0.1, deadline - time.monotonic())


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
