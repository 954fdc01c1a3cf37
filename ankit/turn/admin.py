"""Settings commands that change files and answer in text: `mcp add/remove/get` and `routine add/list/remove/install`.

`ankit mcp ...` and `ankit routine ...` print what these return; the mcp_manage and routine tools reach the
same through ctx.admin, so the approval shows the exact command that runs.
"""

import os
import shlex
import shutil
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from ankit.errors import AnkitError, ToolError
from ankit.mcp import admin as mcp_admin
from ankit.mcp.claude_import import import_servers
from ankit.routines.schedule import parse as parse_schedule
from ankit.routines.store import Routine, RoutineStore
from ankit.safety import statefiles
from ankit.settings.layers import load_config
from ankit import paths
from ankit.settings.config import Config

MCP_USAGE = ("ankit mcp add NAME [--env KEY=VALUE]... [--project] -- COMMAND [ARGS...] | add-json NAME JSON [--project] | "
             "import [--project] | remove NAME [--project] | get NAME | list | login NAME | logout NAME")
ROUTINE_USAGE = ('ankit routine add "SCHEDULE" "PROMPT" [--allow TOOL]... [--watch URL] | list | remove ID | '
                 'run-due [--now YYYY-MM-DDTHH:MM] | install [--systemd]')
CRON_EVERY = 15  # minutes between two run-due calls from cron or the timer


def routines() -> RoutineStore:
    """The user's routines file."""
    return RoutineStore(paths.data_home() / "routines.json")


class Admin:
    """Runs one settings command for a folder; AnkitError with one line when the command is wrong."""

    def __init__(self, config: Config, cwd: Path, now: Callable[[], datetime] = datetime.now):
        self.config, self.cwd, self.now = config, Path(cwd), now

    def __call__(self, argv: list[str]) -> str:
        """The output of `ankit mcp ...` or `ankit routine ...` given as argv (without 'ankit')."""
        if argv[:1] == ["mcp"]:
            return self.mcp(argv[1:])
        if argv[:1] == ["routine"]:
            return self.routine(argv[1:])
        raise AnkitError(f"not a settings command: {shlex.join(argv)}; use {MCP_USAGE} or {ROUTINE_USAGE}")

    def for_tools(self, argv: list[str]) -> str:
        """The same for a tool (ctx.admin): a wrong command is a ToolError, which the model reads as it is."""
        try:
            return self(argv)
        except ToolError:
            raise
        except AnkitError as exc:
            raise ToolError(str(exc)) from None

    def config_file(self, project: bool) -> Path:
        """The project's .ankit/config.toml, or the user's config.toml."""
        return self.cwd / ".ankit" / "config.toml" if project else paths.config_home() / "config.toml"

    def mcp(self, argv: list[str]) -> str:
        """mcp add / remove / get."""
        action, rest = (argv[0], argv[1:]) if argv else ("", [])
        if action == "add":
            name, options, command = _split_command(rest)
            env, project = _mcp_options(options)
            added = mcp_admin.add(self.config_file(project), name, command[0], command[1:], env, self.cwd)
            return added + "\n" + self._next_step(project)
        if action == "add-json" and len(rest) >= 2:
            _, project = _mcp_options(rest[2:])
            return mcp_admin.add_json(self.config_file(project), rest[0], rest[1], self.cwd) + "\n" + \
                self._next_step(project)
        if action == "import":
            _, project = _mcp_options(rest)
            return import_servers(self.config_file(project), Path.home(), self.cwd, self.config.env or os.environ)
        if action == "remove" and rest:
            _, project = _mcp_options(rest[1:])
            return mcp_admin.remove(self.config_file(project), rest[0], self.config_file(not project))
        if action == "get" and len(rest) == 1:
            return mcp_admin.describe(rest[0], [self.config_file(True), self.config_file(False)], self.cwd)
        raise AnkitError(f"usage: {MCP_USAGE}")

    def _next_step(self, project: bool) -> str:
        """What starts a server just added: ankit mcp list, unless the folder it was added to is not trusted as it is
        now (a server added to a trusted folder changes what was trusted, so it is asked again)."""
        if not project or load_config({}, self.config.env, self.cwd, paths.config_home()).trusted:
            return "ankit mcp list starts it and shows its tools"
        return ("this folder is not trusted, so ankit starts no server of its .ankit/config.toml: run ankit here and "
                "answer y when it asks, or add --trust for one run")

    def routine(self, argv: list[str]) -> str:
        """routine add / list / remove / install."""
        action, rest = (argv[0], argv[1:]) if argv else ("list", [])
        if action == "add":
            return self._add_routine(rest)
        if action == "list" and not rest:
            found = routines().load()
            if not found:
                return 'no routines yet; add one with ankit routine add "every day 09:00" "summarise my GitHub notifications"'
            return "\n".join(r.line(self.now()) for r in found)
        if action == "remove" and len(rest) == 1:
            if not rest[0].lstrip("#").isdigit():
                raise AnkitError(f"give the routine's number, e.g. ankit routine remove 2, not {rest[0]!r}")
            gone = routines().remove(int(rest[0].lstrip("#")))
            return f"removed routine #{gone.id} ({gone.schedule}): {gone.prompt or gone.watch}"
        if action == "install" and rest in ([], ["--systemd"]):
            return install_line(bool(rest))
        raise AnkitError(f"usage: {ROUTINE_USAGE}")

    def _add_routine(self, argv: list[str]) -> str:
        words, allow, watch = [], [], ""
        items = iter(argv)
        for item in items:
            if item in ("--allow", "--watch"):
                value = next(items, "")
                if not value:
                    raise AnkitError(f"{item} needs a value; usage: {ROUTINE_USAGE}")
                if item == "--allow":
                    allow.append(value)
                else:
                    watch = value
            else:
                words.append(item)
        if not words or len(words) > 2 or (len(words) == 1 and not watch):
            raise AnkitError(f'give the schedule and the prompt in quotes: ankit routine add "every day 09:00" "..."')
        schedule = parse_schedule(words[0])
        if watch and not watch.lower().startswith(("http://", "https://")):
            raise AnkitError(f"--watch takes an http:// or https:// address, not {watch!r}")
        routine = routines().add(Routine(0, schedule.text, words[1] if len(words) > 1 else "", str(self.cwd),
                                         self.now().isoformat(timespec="seconds"), watch, allow))
        return f"added routine {routine.line(self.now())}\nankit routine install prints the line that runs it"


def _split_command(argv: list[str]) -> tuple[str, list[str], list[str]]:
    """NAME, the options before --, and the server's command after it."""
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        raise AnkitError(f"put the server's command after --: {MCP_USAGE}")
    cut = argv.index("--")
    if cut == 0:
        raise AnkitError(f"name the server before --: {MCP_USAGE}")
    return argv[0], argv[1:cut], argv[cut + 1:]


def _mcp_options(options: list[str]) -> tuple[dict[str, str], bool]:
    """--env KEY=VALUE (repeatable) and --project."""
    pairs, project = [], False
    items = iter(options)
    for item in items:
        if item == "--project":
            project = True
        elif item in ("--env", "-e"):
            pairs.append(next(items, ""))
        elif item.startswith("--env="):
            pairs.append(item.removeprefix("--env="))
        else:
            raise AnkitError(f"unknown option {item!r}; usage: {MCP_USAGE}")
    return mcp_admin.parse_env(pairs), project


def install_line(systemd: bool) -> str:
    """The one crontab (or systemd-run) line that calls run-due every few minutes; nothing is installed."""
    program = shutil.which("ankit")
    command = [program] if program else [sys.executable, "-m", "ankit"]
    env = {k: os.environ[k] for k in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME") if os.environ.get(k)}
    if not program:
        env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    run = shlex.join([*command, "routine", "run-due"])
    log = paths.state_home() / "routines.log"
    statefiles.folder(log.parent)  # ankit's own folder (0700): the line's >> needs it to exist
    if systemd:
        settings = " ".join(f"--setenv={k}={shlex.quote(v)}" for k, v in env.items())
        line = f"systemd-run --user --on-calendar='*:0/{CRON_EVERY}' --unit=ankit-routines {settings} {run}".replace("  ", " ")
        return ("# run this once to create a user timer (systemctl --user list-timers shows it):\n"
                f"{line}")
    assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    command = f"umask 077; {assignments + ' ' if assignments else ''}{run} >> {shlex.quote(str(log))} 2>&1"  # log: 0600
    return ("# add this line with crontab -e; cron has no shell profile, so set your provider's key at the top\n"
            "# of the crontab (e.g. ANTHROPIC_API_KEY=...). ankit changes no system file itself.\n"
            f"*/{CRON_EVERY} * * * * {command.replace('%', chr(92) + '%')}")  # cron cuts a command at a bare %
