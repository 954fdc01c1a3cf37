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
from ankit.mcp import words as mcp_words
from ankit.mcp.claude_import import import_servers
from ankit.routines.schedule import parse as parse_schedule
from ankit.routines.store import Routine, RoutineStore
from ankit.safety import statefiles
from ankit.settings.layers import load_config
from ankit import paths
from ankit.settings.config import Config

MCP_USAGE = ("ankit mcp add [-s local|project|user] [-t stdio|http] [-e KEY=VALUE]... [-H 'Name: value']... NAME "
             "[--] COMMAND [ARGS...] | URL | add-json NAME JSON [-s SCOPE] | import [-s local|user] | "
             "remove NAME [-s SCOPE] | get NAME | list | login NAME | logout NAME")
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

    def config_file(self, scope: str) -> Path:
        """Where a scope's servers are: the folder's .mcp.json (project), its .ankit/config.toml (local) or the
        user's config.toml (user)."""
        if scope == "project":
            return self.cwd / ".mcp.json"
        return self.cwd / ".ankit" / "config.toml" if scope == "local" else paths.config_home() / "config.toml"

    def mcp(self, argv: list[str]) -> str:
        """mcp add / add-json / import / remove / get."""
        action, rest = (argv[0], argv[1:]) if argv else ("", [])
        if action == "add":
            wanted = mcp_words.parse_add(rest, MCP_USAGE)
            return self._added(wanted.scope, mcp_admin.add_table(
                self.config_file(wanted.scope), wanted.name, wanted.table, self.cwd))
        if action == "add-json" and len(rest) >= 2:
            scope = mcp_words.parse_scope(rest[2:], MCP_USAGE)
            return self._added(scope, mcp_admin.add_json(self.config_file(scope), rest[0], rest[1], self.cwd))
        if action == "import":
            scope = mcp_words.parse_scope(rest, MCP_USAGE, ("user", "local"))
            return import_servers(self.config_file(scope), Path.home(), self.cwd, self.config.env or os.environ)
        if action == "remove" and rest:
            scope = mcp_words.parse_scope(rest[1:], MCP_USAGE)
            return mcp_admin.remove(self.config_file(scope), rest[0],
                                    [self.config_file(s) for s in mcp_words.SCOPES if s != scope])
        if action == "get" and len(rest) == 1:
            return mcp_admin.describe(rest[0], [self.config_file(s) for s in mcp_words.SCOPES])
        raise AnkitError(f"usage: {MCP_USAGE}")

    def _added(self, scope: str, line: str) -> str:
        """What ankit mcp add printed, and what starts the server: ankit mcp list, unless the folder it was added
        to is not trusted as it is now (a server added to a trusted folder changes what was trusted, so it is
        asked again)."""
        if scope == "user" or load_config({}, self.config.env, self.cwd, paths.config_home()).trusted:
            return line + "\nankit mcp list starts it and shows its tools"
        return (f"{line}\nthis folder is not trusted, so ankit starts no server of its {self.config_file(scope).relative_to(self.cwd)}: "
                "run ankit here and answer y when it asks, or add --trust for one run")

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
