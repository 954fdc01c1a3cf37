"""The agent's methods: initialize, authenticate, session/new, load, list, prompt and set_mode. Each session is an
App for its working folder and a Session built from its seams: this package's view, approver and editor."""

import os
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from ankit import __version__, paths
from ankit.acp.approver import AcpApprover, AcpElicitor
from ankit.acp.content import prompt_message, replay
from ankit.acp.editor import AcpEditor, Offers
from ankit.acp.turns import MODE_NAMES, Turns
from ankit.acp.view import AcpView
from ankit.acp.wire import AUTH_REQUIRED, INVALID_PARAMS, RESOURCE_NOT_FOUND, Connection, RpcError
from ankit.errors import AnkitError
from ankit.providers.presets import PRESETS
from ankit.safety.sandbox import MEANING, MODES, parse_mode
from ankit.safety.text import outside
from ankit.claude.mcp import servers_of
from ankit.settings.layers import load_config
from ankit.storage.sessions import SessionStore
from ankit.turn.app import App, build_app
from ankit.turn.session import Session

PROTOCOL_VERSION = 1
PAGE = 50  # sessions per session/list page
MODE_IDS = {ids[0]: mode for mode, ids in MODE_NAMES.items()}
KEY_HINT = ("export ANTHROPIC_API_KEY (or OPENAI_API_KEY, OPENROUTER_API_KEY, GITHUB_TOKEN) in the environment "
            "ankit acp starts in, or name a local server: ankit acp --base-url URL")


@dataclass
class Live:
    """One session the client opened: its folder's app, the session and the seams it reports through."""

    app: App
    session: Session
    view: AcpView
    turns: Turns


class Agent:
    """What the client talks to: `flags` are ankit acp's own command-line settings (--model, --trust, ...)."""

    def __init__(self, conn: Connection, flags: dict, guard: Callable[[str], AbstractContextManager[bool]]):
        self.conn, self.flags, self.guard = conn, flags, guard
        self.offers = Offers()
        self.sessions: dict[str, Live] = {}
        self.later: list[Callable[[], None]] = []  # what goes to the client after the answer being made

    def initialize(self, params: dict) -> dict:
        """The protocol version (1), what ankit takes in a prompt, and how to sign in when no key is set."""
        capabilities = params.get("clientCapabilities")
        self.offers = Offers.of(capabilities if isinstance(capabilities, dict) else {})
        keyed = any(os.environ.get(p.key_env) for p in PRESETS.values() if p.key_env) or self.flags.get("base_url")
        methods = [] if keyed else [{"id": "environment", "name": "API key in the environment",
                                     "description": KEY_HINT}]
        return {"protocolVersion": PROTOCOL_VERSION,
                "agentCapabilities": {"loadSession": True,
                                      "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
                                      "mcpCapabilities": {"http": True, "sse": False},
                                      "sessionCapabilities": {"list": {}}},
                "agentInfo": {"name": "ankit", "title": "ankit", "version": __version__},
                "authMethods": methods}

    def authenticate(self, params: dict) -> dict:
        """ankit signs in with a key from the environment only: say which."""
        raise RpcError(AUTH_REQUIRED, f"ankit reads its API key from the environment: {KEY_HINT}, then restart it")

    def new(self, params: dict) -> dict:
        """A session in the client's folder, its MCP servers joining the catalog as the folder's own would."""
        live = self._open(_folder(params), params.get("mcpServers"), None)
        return self._opened(live)

    def load(self, params: dict) -> dict:
        """A saved session, its conversation replayed as updates before the answer (its modes)."""
        wanted = str(params.get("sessionId") or "")
        live = self.sessions.get(wanted)
        if live is None:
            try:
                saved = SessionStore(paths.state_home() / "sessions").load(wanted)
            except AnkitError as exc:
                raise RpcError(RESOURCE_NOT_FOUND, str(exc)) from None
            live = self._open(_folder(params), params.get("mcpServers"), saved)
        live.view.open(live.session.id)
        for update in replay(live.session.conversation.messages, live.app.lookup):
            live.view.send(update)
        return {"modes": self._opened(live)["modes"]}

    def _opened(self, live: Live) -> dict:
        """The answer to session/new or load; after it, what was told meanwhile and the commands offered."""
        sandbox = live.app.sandbox
        current = MODE_NAMES[sandbox.name if sandbox else "off"][0]
        self.later += [partial(live.view.open, live.session.id), live.turns.advertise]
        return {"sessionId": live.session.id, "modes": {"currentModeId": current, "availableModes": [
            {"id": ident, "name": name, "description": MEANING[mode]} for mode, (ident, name) in MODE_NAMES.items()]}}

    def _open(self, cwd: Path, servers, saved) -> Live:
        """An app for the folder and a session in it (resumed from `saved`), wired to this client."""
        config = load_config(self.flags, os.environ, cwd, paths.config_home())
        os.environ.update(config.claude_env)
        told = config.problems + _held(config)
        told += self._join_servers(config, servers)
        elicitor = AcpElicitor(self.conn.request, self.offers.forms)
        app = build_app(config, cwd, elicit=elicitor)
        view = AcpView(self.conn.notify, app.lookup, cwd)
        elicitor.view = view
        for line in told + app.problems + app.notices + app.skill_problems:
            view.notice(line)  # held until the client knows the session
        try:
            session = self._session(app, view, saved)
            live = Live(app, session, view, Turns(app, session, view, self.guard))
        except BaseException:
            app.close()
            raise
        elicitor.session_id = session.id
        self.sessions[session.id] = live
        return live

    def _session(self, app: App, view: AcpView, saved) -> Session:
        """The session built from this package's seams; an auth_required error when no model is configured."""
        approver = AcpApprover(self.conn.request, "", view, app.policy, app.config.yes)
        editor = AcpEditor(self.conn.request, "", view, self.offers)
        session = app.session(view, approver, ask=_no_questions, resume=saved, editor=editor)
        if session.provider is None:  # the caller closes the app
            raise RpcError(AUTH_REQUIRED, f"{app.setup_error or KEY_HINT}")
        approver.session_id = editor.session_id = session.id
        return session

    def _join_servers(self, config, servers) -> list[str]:
        """The client's MCP servers as the folder's own (.mcp.json): they join when the folder is trusted."""
        listed = {str(s.get("name") or ""): _server_entry(s) for s in servers or [] if isinstance(s, dict)}
        if not listed:
            return []
        if not config.trusted:
            names = ", ".join(sorted(outside(n, 40, line=True) for n in listed))
            return [f"the editor's MCP servers ({names}) wait until this folder is trusted, as a project's .mcp.json "
                    "would: trust it by running ankit there, or add --trust to ankit acp's arguments in the editor's "
                    "settings"]
        tables, problems = servers_of({"mcpServers": listed}, "the editor's MCP servers")
        mcp = dict(config.raw.get("mcp") or {})
        mcp["servers"] = {**tables, **(mcp.get("servers") or {})}
        config.raw["mcp"] = mcp
        return problems

    def list(self, params: dict) -> dict:
        """The saved sessions, newest first, of one folder when asked."""
        cwd = params.get("cwd") if isinstance(params.get("cwd"), str) else ""
        start = int(params["cursor"]) if str(params.get("cursor") or "").isdigit() else 0
        found = [s for s in SessionStore(paths.state_home() / "sessions").list() if not cwd or s.cwd == cwd]
        page = found[start:start + PAGE]
        listed = [{"sessionId": s.id, "cwd": s.cwd or cwd or "/", "title": outside(s.title, 200, line=True),
                   "updatedAt": s.created} for s in page]
        return {"sessions": listed, **({"nextCursor": str(start + PAGE)} if start + PAGE < len(found) else {})}

    def set_mode(self, params: dict) -> dict:
        """One of ankit's modes (the sandbox's), as /mode switches it."""
        live = self.live(params)
        mode = MODE_IDS.get(str(params.get("modeId") or "")) or parse_mode(str(params.get("modeId") or ""))
        if mode not in MODES:
            raise RpcError(INVALID_PARAMS, f"no mode {outside(str(params.get('modeId')), 40, line=True)!r}: "
                                           f"use {', '.join(MODE_IDS)}")
        live.turns.switch_mode(mode)
        return {}

    def live(self, params: dict) -> Live:
        """The open session a request names."""
        live = self.sessions.get(str(params.get("sessionId") or ""))
        if live is None:
            raise RpcError(INVALID_PARAMS, "no such session here: open one with session/new or session/load")
        return live

    def prompt(self, params: dict) -> dict:
        """One turn: a slash command, or the message sent to the model; the reply streams as updates."""
        live = self.live(params)
        return {"stopReason": live.turns.run(params.get("prompt"), prompt_message)}

    def close(self) -> None:
        """Every session's end hooks run and its MCP servers stop."""
        for live in self.sessions.values():
            try:
                live.session.hooks.end(live.session.id)
            finally:
                live.app.close()


def _folder(params: dict) -> Path:
    """The session's working folder: an absolute path to an existing folder."""
    cwd = params.get("cwd")
    if not isinstance(cwd, str) or not os.path.isabs(cwd) or not os.path.isdir(cwd):
        raise RpcError(INVALID_PARAMS, "cwd must be the absolute path of an existing folder")
    return Path(cwd)


def _server_entry(server: dict) -> dict:
    """An ACP McpServer ({name, command, args, env: [{name, value}]} or {type: http, url, headers}) in the shape
    of Claude Code's .mcp.json, which claude/mcp.py reads."""
    if server.get("type") in ("http", "sse"):
        return {"type": server["type"], "url": server.get("url"), "headers": _pairs(server.get("headers"))}
    return {"command": server.get("command"), "args": server.get("args") or [], "env": _pairs(server.get("env"))}


def _pairs(listed) -> dict[str, str]:
    """ACP's [{name, value}] (env, headers) as an object."""
    return {str(p.get("name")): str(p.get("value")) for p in listed or [] if isinstance(p, dict)}


def _held(config) -> list[str]:
    """What this folder's settings hold back until it is trusted, in one line (cli/start.py says it so too)."""
    if not (config.held or config.held_tools or config.held_claude):
        return []
    why = "it changed since you trusted it" if config.trust_changes else "the folder is not trusted"
    return [f"ignoring this folder's .ankit/ settings, tools and what .claude/ would run: {why} (run ankit here to "
            "trust it, or start ankit acp --trust)"]


def _no_questions(question: str) -> str:
    """A tool's question to the user (ctx.ask): the editor has no way to answer it in this protocol version."""
    return ""
