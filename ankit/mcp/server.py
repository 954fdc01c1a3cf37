"""What the MCP manager knows of one configured server, and what it says of it (its state, its summary)."""

import hashlib
import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from ankit.mcp.client import McpClient
from ankit.mcp.settings import ServerConfig
from ankit.mcp.tools import clean_name
from ankit.tooling.tool import Tool

MAX_RESTARTS = 3


@dataclass
class Server:
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
    failed_before: dict | None = None  # a start that failed lately (the cache's note): nothing waits for this one

    def secrets(self) -> list[str]:
        """The values its configuration hands it (env, headers): scrubbed from whatever it writes."""
        cfg = self.config
        return [str(v) for v in [*cfg.env.values(), *cfg.headers.values()] if v] if cfg is not None else []

    def starting(self) -> bool:
        """Whether a start is under way (its tools not listed yet)."""
        return self.started and not self.ready.is_set()

    def overdue(self) -> bool:
        """Whether a start under way has taken longer than start_timeout."""
        return self.starting() and time.monotonic() - self.since > self.config.start_timeout


def clashing(names: list[str]) -> dict[str, str]:
    """The servers whose tools could be named as another's (server a's tool b__c and server a__b's tool c are both
    mcp__a__b__c), each with the server it would meet."""
    cleaned = {name: clean_name(name) for name in names}
    return {name: other for name, label in cleaned.items() for other, prefix in cleaned.items()
            if other != name and label.startswith(prefix + "__")}


def labels(names: list[str]) -> dict[str, str]:
    """A short provider-safe label per server name, unique in config order; a server whose tools could meet
    another's under one name gets its runs of _ made one (a__b: mcp__a_b__c), so both stay callable."""
    labels, used, clashes = {}, set(), clashing(names)
    for name in names:
        label = clean_name(name)
        if name in clashes:
            label = re.sub("_{2,}", "_", label)
        if len(label) > 24 or label in used:
            label = f"{label[:17]}_{hashlib.sha1(name.encode()).hexdigest()[:6]}"
        labels[name] = label
        used.add(label)
    return labels


def state(server: Server) -> str:
    """Where the server is: not started, starting, ready, not answering, stopped or failed, and why."""
    client, cfg = server.client, server.config
    if cfg is None:
        return f"failed: {server.error}"
    if not server.started and server.cached is not None:
        listed = server.cached.get("listed") or "earlier"
        return (f"not started ({len(server.tools)} tools as listed {listed}; it starts when one is used, or "
                f"with /mcp refresh or ankit mcp list --refresh)")
    if server.starting() and server.failed_before is not None:
        return (f"starting in the background; it did not start at {server.failed_before.get('when', '?')}, so "
                f"nothing waits for it for now (/mcp refresh waits; log: {server.log_path})")
    if server.overdue():
        left = server.since + cfg.startup_timeout - time.monotonic()
        if left <= 0:
            return (f"did not answer within its startup_timeout of {cfg.startup_timeout:g}s: stopping it "
                    f"(log: {server.log_path})")
        return (f"not answering after {cfg.start_timeout:g}s (it has {left:.0f}s more of its startup_timeout "
                f"{cfg.startup_timeout:g}s; log: {server.log_path})")
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


def summary(server: Server) -> str:
    """What the catalog says of a server: its instructions ("" without any: the catalog then says what its tools
    do, from their names)."""
    client, cached = server.client, server.cached or {}
    said = client.instructions if client else str(cached.get("instructions") or "")
    return said[:2000].strip()  # the catalog makes it one clean sentence
