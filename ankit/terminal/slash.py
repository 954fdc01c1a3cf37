"""Slash commands: a table of commands dispatched by name, their completions, and a suggestion for typos."""

import difflib
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from ankit import docs
from ankit.errors import AnkitError, Cancelled, ConfigError
from ankit.terminal import guide
from ankit.safety.visible import visible, visible_line
from ankit.terminal.approval import Approver
from ankit.terminal.keys import PastedLines
from ankit.terminal.render import DIM, TerminalView, clip
from ankit.terminal.typeahead import TypeAhead
from ankit.tooling.tool import ToolContext
from ankit.terminal.mcp_parts import PROMPTS_HEAD, prompt_names, prompt_rows, resource_completions
from ankit.terminal.workflow import (CUSTOM_HEAD, cmd_edit, cmd_init, cmd_undo, custom_help, custom_rows, model_names,
                                    models_listing, served_models)
from ankit.terminal.overview import context_text, group_text, mcp_text, resumed_text, sessions_listing, tools_text
from ankit.terminal.picker import elsewhere, pick_session
from ankit.usage.ledger import render_usage, status_line, subagent_lines
from ankit.turn.app import App
from ankit.turn.judge import ModelJudge
from ankit.turn.phrasing import PhraseWriter
from ankit.turn.session import Session
from ankit.usage.pricing import load_prices
from ankit.wording import count
from ankit.terminal.notify import Notifier
from ankit.terminal.timeline import cmd_fork, cmd_rewind
from ankit.agents.definitions import agents_text
from ankit.agents.families import known_models
from ankit.context.mentions import complete_path
from ankit.skills.library import skills_listing
from ankit.skills.tool import load_skill
from ankit.terminal.calls import todo_lines
from ankit.names import resolve
from ankit import paths
from ankit.terminal.custom import command_dirs, load_commands
from pathlib import Path
from ankit.terminal.command_run import run_named
from ankit.terminal.modes import cmd_mode, cmd_permissions
from ankit.terminal.pager import show
from ankit.hooks.config import listing
from ankit.turn.compaction import SUMMARY_HEAD, compact
from ankit.turn.phrasing import PHRASES_USAGE, hint, write_phrases

NO_PROVIDER = "no provider is configured: set one up as shown at start, then restart"
INPUT_HELP = ('Input: end a line with \\ to go on; a line of """ opens and closes a block.\n'
              "Ctrl-C or Esc cancels a reply (what came is kept); Ctrl-D exits; Tab completes.\n"
              "While ankit works, type on: Enter queues the line for the model's next step.")
TOPICS_HINT = "ankit help lists the topics"


@dataclass
class ReplState:
    """What the commands work on; /resume replaces the session."""

    app: App
    session: Session | None  # None until open_session
    view: TerminalView
    approve: Approver | None  # None until the line reader it asks through exists
    send: Callable[..., None]  # send(text, mentions=True, typed=True): run one turn with this text
    running: bool = True
    custom: dict = field(default_factory=dict)  # name -> terminal.custom.CustomCommand
    custom_stamp: tuple | None = None  # the command files as last read (None: not read yet)
    compose: Callable[[str], str | None] | None = None  # $EDITOR on a text; None when it comes back empty
    served: list[str] | None = None  # the models the server lists, asked once (None: not asked yet)
    prefill: Callable[[str], None] | None = None  # puts text on the next input line (Shift-Tab keeps the line)
    notify: Notifier | None = None  # rings when a long turn ends
    typeahead: TypeAhead | None = None  # the keys typed while a turn runs (on a terminal)
    phrases: PhraseWriter | None = None  # writes MCP tools' search phrases in the background (None: off)
    status_line: object = None  # terminal.statusline.StatusLine: the settings' statusLine command (None: none)


def open_session(state: ReplState, resume=None) -> None:
    """Start the REPL's session, or switch to a resumed one (a store.SessionData)."""
    # questions from tools are asked as approvals are
    state.session = state.app.session(state.view, state.approve, ask=state.approve.ask, resume=resume,
                                      inbox=state.typeahead)


@contextmanager
def model_call(state: ReplState, label: str) -> Iterator[None]:
    """While the model is at work: the spinner with `label`, then the status line of the rounds it ran."""
    session, view = state.session, state.view
    before, started = len(session.ledger.rounds), time.monotonic()
    view.waiting(label)
    try:
        yield
    finally:
        view.done_waiting()
        rounds = session.ledger.rounds[before:]
        if rounds:
            view.status(f"{status_line(rounds, time.monotonic() - started)} · {state.app.sandbox.label()}")


@dataclass
class Command:
    """One slash command."""

    name: str
    args: str
    help: str
    run: Callable[[ReplState, str], str | None]
    complete: str = ""  # what its argument completes to: model, skill, group, session, command


def command_folders(app: App) -> tuple[list[Path], dict[Path, str]]:
    """The folders custom commands are read from, and which of them are plugins' (folder -> plugin name)."""
    plugins = {folder: plugin.name for plugin in app.plugins() for folder in plugin.folders("commands")}
    return command_dirs(app.cwd, paths.config_home(), paths.claude_home()) + list(plugins), plugins


def app_commands(app: App) -> tuple[dict, list[str]]:
    """The custom commands of the folder, the user and the plugins (the built-in commands keep their names), and
    the problems found."""
    folders, plugins = command_folders(app)
    return load_commands(folders, {*COMMANDS, *ALIASES}, app.cwd, plugins)


def is_command(text: str) -> bool:
    """Whether a line is a slash command (a path such as /etc/hosts is not)."""
    word = text.split(maxsplit=1)[0] if text.strip() else ""
    return word.startswith("/") and len(word) > 1 and "/" not in word[1:]


def dispatch(state: ReplState, text: str) -> None:
    """Run the command a line names; an unknown one gets the closest name as a suggestion."""
    word, _, arg = text.strip().partition(" ")
    name = ALIASES.get(word[1:], word[1:])
    command = COMMANDS.get(name)
    try:
        if command is None and run_named(state, name, arg.strip()):
            return
    except AnkitError as exc:
        state.view.error(str(exc))
        return
    if command is None and name in prompt_names(state.app.mcp):
        try:
            text = state.app.mcp.content.prompt_text(name, arg.strip())
        except AnkitError as exc:
            state.view.error(str(exc))
            return
        state.send(text, mentions=False, typed=False)  # a server's text: its @words are no mentions
        return
    if command is None:
        state.view.error(unknown(word, {**state.custom, **dict.fromkeys(prompt_names(state.app.mcp))}))
        return
    try:
        output = command.run(state, arg.strip())
    except Cancelled as exc:
        state.view.line(str(exc), DIM)
        return
    except KeyboardInterrupt:
        state.view.line(f"/{name} interrupted", DIM)
        return
    except AnkitError as exc:
        state.view.error(str(exc))
        return
    if output:
        state.view.line(output)


def unknown(word: str, custom: dict | None = None) -> str:
    """The message for an unknown command, naming the closest one."""
    close = difflib.get_close_matches(word[1:], [*COMMANDS, *ALIASES, *(custom or {})], n=1, cutoff=0.5)
    if close:
        return f"unknown command {word}: did you mean /{ALIASES.get(close[0], close[0])}? (/help lists them)"
    return f"unknown command {word}: /help lists the commands"


def completions(state: ReplState, before: str) -> list[str]:
    """Candidates for the word being typed, given the line up to the cursor."""
    words = before.split() + ([""] if before[-1:].isspace() or not before else [])
    if words[-1].startswith("@"):
        return resource_completions(words[-1], state.app.mcp) + complete_path(words[-1], state.app.cwd)
    if not words[0].startswith("/"):
        return []
    if len(words) == 1:
        names = [*COMMANDS, *state.custom, *prompt_names(state.app.mcp)]
        return [f"/{n}" for n in names if f"/{n}".startswith(words[0])]
    command = COMMANDS.get(ALIASES.get(words[0][1:], words[0][1:]))
    if command is None or not command.complete or len(words) > 2:
        return []
    return [c for c in _argument_values(state, command.complete) if c.startswith(words[-1])]


def _argument_values(state: ReplState, kind: str) -> list[str]:
    app = state.app
    if kind == "command":
        return [*COMMANDS, *(name for name, _ in docs.topics() if name not in COMMANDS)]
    if kind == "model":
        return model_names(state)
    if kind == "skill":
        return sorted(s.name for s in app.skills)
    if kind == "group":
        return list(app.catalog.groups)
    if kind == "session":
        return [s.id for s in app.store().list()]
    if kind == "server":
        return ["refresh", "login", "logout", *(app.mcp.catalog.server_names() if app.mcp is not None else [])]
    return []


def cmd_help(state: ReplState, arg: str) -> str:
    """The commands, one line each, one command's help, or a topic of the guide (paged)."""
    name = arg.lstrip("/")
    found = resolve(state.custom, name)[0] if name not in COMMANDS else ""
    if found:
        return custom_help(state.custom, found)
    if arg:
        command = COMMANDS.get(ALIASES.get(name, name))
        line = f"/{command.name} {command.args}".rstrip() + f"\n  {command.help}" if command else ""
        if arg.startswith("/") or docs.find(name) is None:
            return line or unknown("/" + name, state.custom) + f"; /help TOPIC reads the guide ({TOPICS_HINT})"
        state.view.newline()
        guide.show((line + "\n\n" if line else "") + docs.read(docs.find(name)), state.view.out)
        return ""
    rows, custom = [(f"/{c.name} {c.args}".rstrip(), c.help) for c in COMMANDS.values()], custom_rows(state.custom)
    prompts = prompt_rows(state.app.mcp)
    width = max(len(left) for left, _ in rows + custom)
    lines = [f"{left.ljust(width)}  {text}" for left, text in rows]
    if custom:
        lines += ["", CUSTOM_HEAD, *(f"{left.ljust(width)}  {text}" for left, text in custom)]
    if prompts:
        lines += ["", PROMPTS_HEAD, *(f"{left}  {text}" for left, text in prompts)]
    topics = textwrap.wrap("The guide: /help TOPIC, for " + ", ".join(name for name, _ in docs.topics()), 78)
    return "\n".join([*lines, "", INPUT_HELP, "", *topics])


def cmd_usage(state: ReplState, arg: str) -> str:
    """Tokens and estimated cost of the last turn, the session, and each round."""
    if arg not in ("", "all"):
        raise AnkitError("/usage shows the last 10 rounds; /usage all shows every round")
    session, prices = state.session, load_prices(state.app.config.prices)
    text = render_usage(session.ledger, prices, state.view.width(), arg == "all")
    runs = [(f"{r.turn}. {r.description}" + (f" ({r.agent})" if r.agent else ""), r.rounds) for r in session.runs]
    subagents = subagent_lines(runs, prices, state.view.width())
    text = text + "\n\n" + "\n".join(subagents) if subagents else text
    text += "".join("\n\n" + "\n".join(part) for part in _beside_turns(state, prices) if part)
    line = session.meter.line()
    return text + ("\n\n" + line if line else "")


def _beside_turns(state: ReplState, prices: dict) -> list[list[str]]:
    """/usage's requests beside the turns: search phrases written in the background, prompt hooks' questions,
    decision mode's questions (and how often it kept the lexical ranking, and why)."""
    writer, chooser, judge = state.phrases, state.app.chooser, state.app.hooks.judge
    runs = [("search phrases", list(writer.rounds))] if writer and writer.rounds else []
    runs += [("prompt hooks", list(judge.rounds))] if isinstance(judge, ModelJudge) and judge.rounds else []
    runs += [("find_tools decisions", list(chooser.rounds))] if chooser and chooser.rounds else []
    fell = [f"decision mode kept the lexical ranking {count(len(chooser.fallbacks), 'time')}: "
            f"{visible(chooser.fallbacks[-1])}"] if chooser and chooser.fallbacks else []
    return [subagent_lines(runs, prices, state.view.width(), head="beside the turns"), _searches(chooser) + fell]


def _searches(chooser) -> list[str]:
    """Decision mode's cost a search: questions, tokens, seconds."""
    asked = [s for s in chooser.searches if s.questions] if chooser else []
    if not asked:
        return []
    n = len(asked)
    return [f"decision mode: {count(n, 'search', 'searches')}, {sum(s.questions for s in asked) / n:.1f} questions, "
            f"{sum(s.tokens for s in asked) / n:,.0f} tokens, {sum(s.seconds for s in asked) / n:.1f} s a search"]


def cmd_context(state: ReplState, arg: str) -> str:
    """What the next request carries."""
    return context_text(state.app, state.session, state.view.width())


def cmd_tools(state: ReplState, arg: str) -> str:
    """The tool groups, or one group's tools."""
    return group_text(state.app, arg, state.view.width()) if arg else tools_text(state.app, state.view.width())


def cmd_find(state: ReplState, arg: str) -> str:
    """Run the model's own find_tools search and activate what it loads."""
    if not arg:
        raise AnkitError("say what to look for: /find edit a file")
    if state.app.lookup("find_tools") is None:
        raise AnkitError("find_tools is not loaded in this ankit")
    before, told = list(state.app.activation.active), []
    text = str(state.app.lookup("find_tools").run({"query": arg}, ToolContext(state.app.cwd, summarize=told.append)))
    added = [g for g in state.app.activation.active if g not in before]
    tail = f"\nactivated for the next requests: {', '.join(added)}" if added else ""
    return (told[-1] if told else text.rstrip()) + tail


def cmd_skills(state: ReplState, arg: str) -> str:
    """The skills found, or one skill's text."""
    if arg:
        return load_skill(state.app.skills, arg)
    return skills_listing(state.app.skills, state.app.skill_problems)


def cmd_model(state: ReplState, arg: str) -> str:
    """Show the model, or switch to another for the next turns."""
    session = state.session
    if session.provider is None:
        raise ConfigError(NO_PROVIDER)
    if not arg:
        head = f"{session.provider.name} · {session.provider.model} · window {session.window:,} tokens · /model NAME switches"
        return head + "\n" + models_listing(state)
    served = served_models(state)
    if served and arg not in served:
        close = difflib.get_close_matches(arg, served, n=3, cutoff=0.5)
        guess = f"did you mean {', '.join(close)}? " if close else ""
        raise ConfigError(f"this server lists no model {visible(arg)!r}: {visible(guess)}/model lists the {len(served)} it has")
    session.switch_model(arg)
    return f"model for the next turns: {arg} (window {session.window:,} tokens)"


def cmd_clear(state: ReplState, arg: str) -> str:
    """Start a fresh session id with an empty history; the old one stays saved, the activated groups stay."""
    session = state.session
    count, old = len(session.conversation.messages), session.id
    session.restart()
    active = ", ".join(state.app.activation.active) or "none"
    kept = f"\nthe earlier conversation stays saved: /resume {old}" if count else ""
    return f"history cleared ({count} messages); activated groups kept: {active}{kept}"


def cmd_compact(state: ReplState, arg: str) -> str:
    """Go on from a summary the model writes; the earlier messages stay in the session file."""
    session, count = state.session, len(state.session.conversation.live())
    if session.provider is None:
        raise ConfigError(NO_PROVIDER)
    if count:
        state.view.line(f"compacting {count} messages…", DIM)
    with model_call(state, f"waiting for {session.provider.model} to summarize"):
        compact(session)
    return (f"requests now start from the summary above ({count} messages → 2); the earlier messages stay in the "
            f"session file (ankit sessions show {session.id}); activated groups kept")


def cmd_save(state: ReplState, arg: str) -> str | None:
    """Save now, optionally with a title."""
    session = state.session
    path = session.save(title=arg)
    if path is None:
        return None  # the reason was told as a notice
    return f"saved session {session.id}" + (f" as {arg!r}" if arg else "") + f" ({path})"


def cmd_sessions(state: ReplState, arg: str) -> str:
    """Saved sessions, newest first; the current one is marked."""
    text = sessions_listing(state.app.store(), state.view.width() - 2)
    marked = [("* " if line.startswith(state.session.id + " ") else "  ") + line for line in text.splitlines()]
    return "\n".join(marked) + "\n\n/resume ID switches to one (a unique start of the id is enough)"


def cmd_resume(state: ReplState, arg: str) -> str:
    """Switch to a saved session (picked from this folder's, every folder's with --all): its messages, activated
    groups and usage come back; one from another folder says where it ran and how to work there."""
    store, cwd = state.app.store(), state.app.cwd
    if not arg or arg == "--all":
        arg = pick_session(store, state.approve.keys, state.approve.ask, state.view, None if arg else cwd)
    data = store.load(arg)
    open_session(state, data)
    text = resumed_text(state.session, data.title, state.view.width())
    if elsewhere(data.cwd, cwd):
        text += (f"\n{elsewhere(data.cwd, cwd)}; to work there: /exit, then cd {visible_line(data.cwd)} && "
                 f"ankit --resume {data.id}")
    return text


def cmd_retry(state: ReplState, arg: str) -> None:
    """Drop the last turn and send its text again."""
    text = state.session.conversation.last_sent()
    if text is None or text.startswith(SUMMARY_HEAD):
        raise AnkitError("nothing to retry: no message sent since the start (or the last /compact)")
    state.session.conversation.drop_last_turn()
    state.view.line(clip("retrying: " + " ".join(text.split()), state.view.width()), DIM)
    state.send(text, mentions=False)  # the files it mentioned are attached already


def cmd_todos(state: ReplState, arg: str) -> str:
    """The session's checklist, as the model keeps it with write_todos."""
    return "\n".join(todo_lines(state.session.todos, state.view.width()))


def cmd_mcp(state: ReplState, arg: str) -> str:
    """MCP servers and their tools; /mcp refresh stops every server and lists its tools afresh; /mcp NAME shows one
    server's prompts and resources; /mcp login NAME and /mcp logout NAME as ankit mcp login/logout; /mcp phrases as
    ankit mcp phrases."""
    action, _, name = arg.strip().partition(" ")
    if action in ("login", "logout") and state.app.mcp is not None:
        if not name.strip():
            raise AnkitError(f"usage: /mcp {action} NAME")
        if action == "logout":
            return state.app.mcp.auth.logout(name.strip())
        import webbrowser
        device = "--device" in name.split()
        name = " ".join(w for w in name.split() if w != "--device")

        def say(line: str) -> None:  # whole, never broken at the width: an address is copied from here
            state.view.newline()
            state.view.write(visible_line(line) + "\n")

        return state.app.mcp.auth.login(name, webbrowser.open, say, PastedLines(sys.stdin.fileno()), device)
    if action == "phrases" and state.app.mcp is not None:
        return _phrases(state, name.split())
    if arg.strip() == "refresh" and state.app.mcp is not None:
        state.app.mcp.refresh()
        with model_call(state, "waiting for MCP servers to list their tools"):
            state.app.mcp.wait(patient=True)  # asked for: each server's whole startup_timeout at most
        state.app.registry.take_changes()
    elif arg.strip() and state.app.mcp is not None and arg.strip() != "refresh":
        return visible(state.app.mcp.status.server_text(arg.strip()))
    return mcp_text(state.app.mcp, hint(state.app.registry))


def _phrases(state: ReplState, words: list[str]) -> None:
    """/mcp phrases [NAME ...] [--again]: the model writes the phrases users type for the servers' tools."""
    names = [w for w in words if w != "--again"]
    if any(n.startswith("-") for n in names):
        raise AnkitError(PHRASES_USAGE.replace("ankit mcp", "/mcp"))
    if state.session is None or state.session.provider is None:
        raise AnkitError("no provider is configured, so no model can write the phrases")
    state.view.line("asking the model for the words users type for each server's tools ...")
    for line in write_phrases(state.session.provider, state.app.registry, names, "--again" in words,
                              state.app.scrubber(), state.session.meter):
        state.view.line(line)


def cmd_show(state: ReplState, arg: str) -> None:
    """The whole output of the last (or Nth-last) tool call, through a pager when longer than the screen."""
    show(state.view, arg)


def cmd_hooks(state: ReplState, arg: str) -> str:
    """The active hooks: event, matcher, command, timeout and the file each came from."""
    return listing(state.app.hooks)


def cmd_agents(state: ReplState, arg: str) -> str:
    """The named subagents the task tool offers, and where each is defined."""
    model = state.session.provider.model if state.session and state.session.provider else ""
    return agents_text(state.app.agents, state.app.tool_groups(), model, known_models())


def cmd_exit(state: ReplState, arg: str) -> None:
    """Leave ankit."""
    state.running = False


COMMANDS: dict[str, Command] = {c.name: c for c in [
    Command("help", "[NAME]", "these commands, one command's help, or a topic of the guide", cmd_help, "command"),
    Command("usage", "[all]", "tokens and cost: last turn, session, last 10 rounds (or all)", cmd_usage),
    Command("context", "", "what the next request carries, against the model's window", cmd_context),
    Command("tools", "[GROUP]", "tool groups: core, activated, available (or one group's tools)", cmd_tools, "group"),
    Command("find", "QUERY", "search tools as the model does and activate what it finds", cmd_find, "group"),
    Command("skills", "[NAME]", "the skills found (or one skill's text)", cmd_skills, "skill"),
    Command("model", "[NAME]", "show the model, or switch to NAME for the next turns", cmd_model, "model"),
    Command("clear", "", "new session: the old one stays resumable, activated tools stay", cmd_clear),
    Command("compact", "", "go on from a summary the model writes (the file keeps all)", cmd_compact),
    Command("save", "[NAME]", "save the session now, optionally titled NAME", cmd_save),
    Command("sessions", "", "saved sessions, newest first", cmd_sessions),
    Command("resume", "ID", "switch to a saved session (--all: any folder's)", cmd_resume, "session"),
    Command("retry", "", "send the last message again (its reply is dropped)", cmd_retry),
    Command("todos", "", "the checklist the model keeps for the task at hand", cmd_todos),
    Command("mcp", "[NAME]", "MCP servers; NAME: prompts, resources; refresh; phrases", cmd_mcp, "server"),
    Command("undo", "", "put back the files the last turn changed (again: one more)", cmd_undo),
    Command("rewind", "[N]", "back to before an earlier message (files too, if you say)", cmd_rewind),
    Command("fork", "", "go on with a copy under a new id (the original stays)", cmd_fork),
    Command("hooks", "", "the active hooks and where each comes from", cmd_hooks),
    Command("agents", "", "the named subagents the task tool can run", cmd_agents),
    Command("init", "[NOTE]", "ask the model to write AGENTS.md for this project", cmd_init),
    Command("edit", "[TEXT]", "compose a message in $EDITOR (Ctrl-X Ctrl-E too)", cmd_edit),
    Command("show", "[N]", "the whole output of the last (or Nth-last) tool call", cmd_show),
    Command("mode", "[MODE]", "the mode; or default, acceptEdits, plan, ask (Shift-Tab)", cmd_mode),
    Command("permissions", "", "the mode and every rule in force, and where each is from", cmd_permissions),
    Command("exit", "", "leave ankit (Ctrl-D too)", cmd_exit),
]}
ALIASES = {"quit": "exit", "q": "exit", "?": "help"}
