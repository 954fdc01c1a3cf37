"""Wiring a session from the app's pieces: its tools' context, runner, checkpoints, subagents, hooks and provider.

Imported when a session is made (App.session), so the listings that make none start faster.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from functools import partial
from pathlib import Path

from ankit import paths
from ankit.context.nested import NestedInstructions
from ankit.errors import AnkitError
from ankit.protocols import Approver, Asker, Editor, Inbox, View
from ankit.records import SessionData, TodoList
from ankit.skills.tool import load_skill
from ankit.storage.checkpoints import Checkpoints
from ankit.providers.windows import ServerWindows
from ankit.storage.sessions import new_session_id
from ankit.codemode.bridge import CodeLimits, CodeMode
from ankit.tooling.toolbox import Runner, ToolContext
from ankit.turn.admin import Admin
from ankit.turn.session import Session
from ankit.turn.subagents import SubPrompt, Subagents
from ankit.turn.judge import ModelJudge
from ankit.turn.turnhooks import SessionHooks


def resumed(app, args) -> SessionData | None:
    """The session --continue or --resume ID asks for, if any; with --fork-session, a copy under a new id."""
    found = None
    if getattr(args, "resume", None):
        found = app.store().load(args.resume)
    elif getattr(args, "cont", False):
        found = app.store().latest(app.cwd)
        if found is None:
            raise AnkitError(f"no saved session started in this folder ({app.cwd}) to continue: "
                             "start one with ankit, or pick one from ankit sessions with --resume ID")
    if found is not None and getattr(args, "fork_session", False):
        found = replace(found, id=new_session_id(), forked_from=found.id)
        Checkpoints(paths.state_home() / "sessions").copy(found.forked_from, found.id)
    return found


def build_session(app, view: View, approve: Approver, ask: Asker = input, resume: SessionData | None = None,
                  inbox: Inbox | None = None, editor: Editor | None = None) -> Session:
    """A session wired to the provider (None when nothing is configured), resumed if asked; `app` is the
    turn.app.App it is made from (not imported here: the app imports this module when it makes a session)."""
    sid = resume.id if resume else new_session_id()
    app.hooks.bind(sid)
    todos = TodoList()
    confine = {"confine": app.sandbox.confine} if app.sandbox is not None else {}
    ctx = ToolContext(cwd=app.cwd, config=app.config.raw, data_dir=paths.data_home(), ask=ask,
                      find_tools=app.tools.search, load_skill=partial(load_skill, app.skills), todos=todos,
                      admin=Admin(app.config, app.cwd).for_tools, editor=editor, **confine)
    provider = app.session_provider(sid)
    if provider is not None and any(h.kind == "prompt" for h in app.hooks.hooks):
        app.hooks.judge = ModelJudge(provider, app.hooks.scrub, app.meter)  # prompt hooks: this model answers
    if resume is None and provider is not None and not provider.defers and app.config.preload:
        app.activation.preload(app.habits())
    checkpoints = Checkpoints(paths.state_home() / "sessions", resume.cwd if resume and resume.cwd else app.cwd)
    stop = threading.Event()
    runner = Runner(app.tools, ctx, approve, app.config.output_cap, checkpoints, app.policy, app.scrubber(),
                    app.sandbox, app.hooks, stop, notice=view.notice)
    subagents = _subagents(app, runner, stop, provider.settings if provider is not None else None)
    runner = replace(runner, ctx=replace(ctx, run_task=subagents.run))
    if app.config.code_mode in ("on", "only"):
        runner = replace(runner, ctx=replace(runner.ctx, run_code=_code_mode(app, runner, view).run))
    return Session(
        provider, NestedInstructions(runner, app.cwd, app.instructions, app.scrubber().text), app.activation,
        app.prompt(), view=view, store=app.store(),
        ready=app.registry if app.mcp is not None else None, model=app.config.model,
        cwd=Path(resume.cwd) if resume and resume.cwd else app.cwd,  # a session keeps the folder it began in
        max_tokens=app.config.max_tokens, max_rounds=app.config.max_rounds, todos=todos, id=sid,
        resume=resume, meter=app.meter, checkpoints=checkpoints,
        hooks=SessionHooks(app.hooks, view), subagents=subagents, inbox=inbox,
        server_window=ServerWindows(provider.settings) if provider is not None else None)


def _code_mode(app, runner: Runner, view: View) -> CodeMode:
    """run_code's programs, whose calls go through `runner` (a program's own run_code call is refused)."""
    return CodeMode(replace(runner, values=True), app.tools, app.cwd, app.sandbox, CodeLimits.from_config(app.config.raw),
                    view.inner_call)


def _subagents(app, runner: Runner, stop: threading.Event, settings) -> Subagents:
    """What runs the task tool's sub-sessions, from the main runner's pieces (its context has no run_task)."""
    prompt = SubPrompt(app.cwd, "", app.instructions.text, app.config.context_window)
    limits = CodeLimits.from_config(app.config.raw) if app.config.code_mode in ("on", "only") else None
    return Subagents(app.registry, settings, runner, prompt, app.agents, app.config.subagent_max_rounds,
                     app.config.max_tokens, app.meter, app.hooks, stop,
                     code_limits=limits)
