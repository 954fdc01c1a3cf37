"""The MCP servers of a session: background start, tool lists as ankit Tools, restarts, status."""

import atexit
import hashlib
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ankit.errors import ConfigError
from ankit.mcp import NO_SERVERS
from ankit.mcp.cache import ToolCache, cache_key
from ankit.mcp.client import McpClient
from ankit.mcp.settings import ServerConfig, server_config
from ankit.mcp.tools import clean_name, make_tools
from ankit.mcp.transport import McpError
from ankit.tooling.toolbox import Tool

MAX_RESTARTS = 3
LIST_CHANGED = "notifications/tools/list_changed"


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
    """Every configured MCP server: started in the background, exposed as groups mcp:NAME."""

    def __init__(self, servers: dict, log_dir: Path, on_change: Callable[[], None] | None = None,
                 cache: ToolCache | None = None):
        self.log_dir = Path(log_dir)
        self.on_change = on_change
        self.cache = cache
        self._lock = threading.Lock()
        self._closed = False
        self._started = False
        self._awaited = False
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
                if server.cached is not None:  # answer from the last list until the server lists again
                    server.tools, server.problems = make_tools(server.name, server.cached["tools"],
                                                               self._caller(server), server.label)

    def start(self, uncached_only: bool = False, gentle: bool = False) -> None:
        """Start the servers not started yet (or only those with no cached list) in background threads; never
        blocks. Called again without uncached_only, it starts the rest; gentle: a few at a time (one fewer than
        the machine's cores), so servers nobody waits for do not starve ankit's own work."""
        with self._lock:
            if self._closed:
                return
            booting = [s for s in self._servers if s.config is not None and not s.started
                       and not (uncached_only and s.cached is not None)]
            for server in booting:
                server.started = True
            if booting and not self._started:
                self._started = True
                atexit.register(self.close)
        slots = threading.Semaphore(max(1, (os.cpu_count() or 2) - 1)) if gentle else None
        for server in booting:
            threading.Thread(target=self._boot, args=(server, slots), name=f"mcp-{server.label}", daemon=True).start()

    def _boot(self, server: _Server, slots: threading.Semaphore | None = None) -> None:
        if slots is not None:
            slots.acquire()  # a call meanwhile starts the server itself (see _running) and is never held up
        try:
            with server.lock:
                if server.client is None or not server.client.alive:  # a call may have started it meanwhile
                    self._launch(server)
        except McpError as exc:
            server.error = str(exc)
        except Exception as exc:  # a bug or an odd OS error must not print a traceback over the REPL
            server.error = f"MCP server {server.name!r} failed to start: {type(exc).__name__}: {exc}"
        finally:
            server.ready.set()
            if slots is not None:
                slots.release()

    def _launch(self, server: _Server) -> None:
        """Start a fresh process for the server, list its tools, and make it the current one."""
        cfg = server.config
        client = McpClient(cfg.name, cfg.command, cfg.args, cfg.env, cfg.cwd, server.log_path,
                           on_notice=lambda method, params: self._on_notice(server, client, method),
                           url=cfg.url, headers=cfg.headers)
        with self._lock:
            if self._closed:
                raise McpError("MCP servers are shut down")
            server.booting = client
        try:
            client.start(cfg.startup_timeout)
            specs = client.list_tools(cfg.startup_timeout)
        except McpError:
            client.close()
            raise
        finally:
            server.booting = None
        with self._lock:
            closed = self._closed
            old, server.client = server.client, (None if closed else client)
        for stale in (old, client if closed else None):
            if stale is not None:
                stale.close()
        if not closed:
            server.error = ""
            self._set_tools(server, specs)
            if self.cache is not None and server.key:
                self.cache.save(server.key, specs, client.instructions, client.server_info)

    def _caller(self, server: _Server):
        return lambda original, args: self._call(server, original, args)

    def _set_tools(self, server: _Server, specs: list[dict]) -> None:
        tools, server.problems = make_tools(server.name, specs, self._caller(server), server.label)
        changed = [t.spec() for t in tools] != [t.spec() for t in server.tools]
        server.tools = tools
        if changed and self.on_change is not None:
            try:
                self.on_change()
            except Exception as exc:  # the listener's bug must not stop the server thread
                server.problems.append(f"on_change failed: {type(exc).__name__}: {exc}")

    def _on_notice(self, server: _Server, client: McpClient, method: str) -> None:
        if method != LIST_CHANGED:
            return
        with server.lock:  # waits for a boot in progress, which makes this client current
            if client is not server.client or not client.alive:
                return
            try:
                specs = client.list_tools(server.config.startup_timeout)
                self._set_tools(server, specs)
                if self.cache is not None and server.key:
                    self.cache.save(server.key, specs, client.instructions, client.server_info)
            except McpError as exc:
                server.problems = [f"could not re-list tools: {exc}"]

    def _running(self, server: _Server) -> McpClient:
        """The server's live client, restarting a stopped server at most MAX_RESTARTS times."""
        with server.lock:
            if self._closed:
                raise McpError("MCP servers are shut down")
            client = server.client
            if client is not None and client.alive:
                return client
            why = client.failure if client is not None else server.error
            if client is None and not server.error:  # never started (listed from the cache): start it now
                server.started = True
                self._launch(server)
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
            if client.alive or server.restarts >= MAX_RESTARTS:
                raise
            raise McpError(f"{exc} (ankit restarts it on the next call)") from None

    def tools(self) -> list[Tool]:
        """The tools of every server whose list has arrived, in config order."""
        return [tool for server in self._servers for tool in server.tools]

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

    def status_lines(self) -> list[str]:
        """For `ankit mcp list` and /mcp: each server, whether it started or why not, and its tools."""
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

    def failures(self) -> list[str]:
        """One line per server that could not start or be configured, for the user to see once."""
        return [s.error + (f" (log: {s.log_path})" if s.config else "") for s in self._servers
                if s.error and (s.client is None or not s.client.alive)]

    def _state(self, server: _Server) -> str:
        client, cfg = server.client, server.config
        if cfg is None:
            return f"not started: {server.error}"
        if not server.started and server.cached is not None:
            listed = server.cached.get("listed") or "earlier"
            return f"{len(server.tools)} tools, as listed {listed} (not started; ankit mcp --refresh lists afresh)"
        if not server.ready.is_set():
            return "starting..." + (f" ({len(server.tools)} tools as last listed)" if server.cached else "")
        if client is None or (server.error and not client.alive):
            return f"failed: {server.error} (log: {server.log_path})"
        if client.alive:
            info = client.server_info
            who = f"{info.get('name', '?')} {info.get('version', '')}".strip()
            core = ", core" if cfg.core else ""
            return f"running ({who}, protocol {client.protocol_version}), {len(server.tools)} tools{core}"
        left = MAX_RESTARTS - server.restarts
        then = f"restarts on next use ({left} left)" if left > 0 else "stays off for this session"
        return f"stopped: {client.failure}; {then} (log: {server.log_path})"

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until every server has listed its tools or failed (default: their startup timeouts); return whether all are done."""
        if timeout is None:
            timeout = 2 * max([s.config.startup_timeout for s in self._servers if s.config] or [0]) + 1
        deadline = time.monotonic() + timeout
        waited = [s for s in self._servers if s.started or s.config is None]
        return all(s.ready.wait(max(0.0, deadline - time.monotonic())) for s in waited)

    def wait_uncached(self, timeout: float | None = None) -> bool:
        """Wait for the servers that have no cached list (the others answer from the cache meanwhile)."""
        if timeout is None:
            timeout = 2 * max([s.config.startup_timeout for s in self._servers if s.config] or [0]) + 1
        deadline = time.monotonic() + timeout
        waited = [s for s in self._servers if s.started and s.cached is None]
        return all(s.ready.wait(max(0.0, deadline - time.monotonic())) for s in waited)

    def before_turn(self, view) -> None:
        """Before the first turn, let servers with no cached list list their tools (once); failures go to view.notice.

        Servers listed before answer from the cache at once and update the catalog when they have started.
        """
        if self._awaited:
            return
        self._awaited = True
        if not self.wait_uncached(0):
            view.notice("waiting for MCP servers to start…")
            self.wait_uncached()
        for line in self.failures():
            view.notice(line)

    def close(self) -> None:
        """Stop every server process."""
        with self._lock:
            self._closed = True
            clients = [(c, 1.0) for s in self._servers if (c := s.client) is not None]
            clients += [(c, 0.1) for s in self._servers if (c := s.booting) is not None]  # nothing to finish
        closing = [threading.Thread(target=client.close, args=(grace,), daemon=True) for client, grace in clients]
        for (client, grace), thread in zip(clients, closing):  # all at once: each may wait a moment to exit
            try:
                thread.start()
            except RuntimeError:  # at interpreter exit (the atexit call) Python 3.12+ starts no threads
                client.close(grace)
        for thread in closing:
            if thread.ident is not None:
                thread.join(5)
