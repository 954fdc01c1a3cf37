"""Subcommands: tools, skills, usage, mcp (list, add, remove, get), sessions, routine."""

import os
import sys
from datetime import datetime
from pathlib import Path

from ankit.errors import AnkitError
from ankit import paths
from ankit.settings.config import Config
from ankit.claude.plugins import plugin_command
from ankit.turn.app import App, build_app
from ankit.discovery.index import check_examples
from ankit.safety.visible import visible, visible_line
from ankit.skills.tool import skills_command
from ankit.terminal.keys import PastedLines
from ankit.terminal.overview import group_text, mcp_text, sessions_listing, tools_listing
from ankit.turn.phrasing import PHRASES_USAGE, hint, write_phrases
from ankit.usage.ledger import usage_summary
from ankit.usage.pricing import load_prices
from ankit.wording import count


def tools_check(app: App) -> tuple[str, int]:
    """Report every tool example that does not rank its tool in the top 3; exit 1 for a miss or a broken tool
    (a start-up notice, such as a folder with no sandbox, is shown but is not a problem of the tools)."""
    misses = check_examples(app.index, list(app.tools.values()))
    counted = sum(len(t.examples) for t in app.tools.values())
    lines = [*app.problems, *app.notices, *misses]
    if misses:
        lines.append(f"{len(misses)} of {counted} examples miss their tool's top 3")
    else:
        lines.append(f"all {counted} examples rank their tool in the top 3 ({count(len(app.tools), 'tool')})")
    return "\n".join(lines), 1 if misses or app.problems else 0


def live_index(config: Config, refresh: bool = False):
    """The session's index with every MCP server's tools (from the cache, or listed afresh with refresh)."""
    app = _listing_app(config, refresh)
    try:
        return app.index
    finally:
        app.close()


def output_width() -> int:
    """The terminal's width when printing to one; 0 (no limit) when piped, so nothing is cut."""
    try:
        return os.get_terminal_size(sys.stdout.fileno()).columns if sys.stdout.isatty() else 0
    except (OSError, ValueError):
        return 0


def _listing_app(config: Config, refresh: bool) -> App:
    """An app for a listing: servers answer from their cached tool lists; the others (or all, with refresh)
    start and are waited for, each up to its whole startup_timeout, so a slow one gets listed and cached."""
    app = build_app(config, mcp_start="refresh" if refresh else "uncached")
    if app.mcp is not None:
        app.mcp.wait(patient=True) if refresh else app.mcp.wait_uncached(patient=True)
        app.registry.take_changes()
    return app


def run_command(command: str, argv: list[str], config: Config) -> int:
    """Dispatch a subcommand; print its output; return the exit code."""
    if command in ("usage", "sessions"):
        from ankit.storage.sessions import SessionStore  # the listings of tools and skills read no session
        store = SessionStore(paths.state_home() / "sessions")
        if command == "sessions":
            return sessions_command(argv, store)
        print(usage_summary(store, load_prices(config.prices), datetime.now(), output_width()))
        return 0
    if command == "routine" and argv[:1] == ["run-due"]:
        from ankit.cli.routines import run_due
        return run_due(argv[1:], config)
    if command == "mcp" and argv[:1] in (["login"], ["logout"]):
        return mcp_login(argv[0], argv[1:], config)
    if command == "routine" or (command == "mcp" and argv[:1] in (["add"], ["add-json"], ["import"], ["remove"], ["get"])):
        from ankit.turn.admin import Admin
        print(Admin(config, Path.cwd())([command, *argv]))
        return 0
    if command == "plugin":
        print(plugin_command(argv, paths.config_home()))
        return 0
    if command == "skills":
        app = App(config, Path.cwd()).load_skills()
        text, code = skills_command(argv, app.skills, app.skill_problems)
        print(text)
        return code
    refresh = "--refresh" in argv and command in ("tools", "mcp")
    app = _listing_app(config, refresh) if command in ("tools", "mcp") else build_app(config)
    try:
        return _with_app(command, [a for a in argv if a != "--refresh"] if refresh else argv, app)
    finally:
        app.close()


def mcp_login(action: str, rest: list[str], config: Config) -> int:
    """`ankit mcp login NAME [--device]` (OAuth in the browser, a pasted address, or the device flow) and `ankit mcp
    logout NAME` for a server over HTTP."""
    import webbrowser
    from ankit.mcp.servers import McpManager
    device = action == "login" and "--device" in rest
    rest = [a for a in rest if a != "--device"] if action == "login" else rest
    if len(rest) != 1:
        raise AnkitError(f"usage: ankit mcp {action} NAME{' [--device]' if action == 'login' else ''} (a server with "
                         "url = ... in [mcp.servers.NAME])")
    servers = McpManager(config.mcp_servers, paths.state_home() / "mcp")  # nothing is started
    if action == "logout":
        print(servers.auth.logout(rest[0]))
    else:
        print(servers.auth.login(rest[0], webbrowser.open, say, PastedLines(sys.stdin.fileno()), device))
    return 0


def say(line: str) -> None:
    """A login's line, whole (an address is never broken: it is copied), controls made visible."""
    print(visible_line(line), flush=True)


SESSIONS_USAGE = "ankit sessions [show ID | rm ID | export ID [FILE.md]]"


def sessions_command(argv: list[str], store) -> int:
    """`ankit sessions`: list; `show ID` the whole transcript; `rm ID`; `export ID [FILE]` as Markdown."""
    from ankit.storage.export import export_markdown, show_text
    if not argv:
        print(sessions_listing(store, output_width()))
        return 0
    action, rest = argv[0], argv[1:]
    if action not in ("show", "rm", "export") or not rest or len(rest) > (2 if action == "export" else 1):
        raise AnkitError(f"usage: {SESSIONS_USAGE}")
    if action == "rm":
        from ankit.storage.checkpoints import Checkpoints
        removed = store.remove(rest[0])
        Checkpoints(store.folder).forget(removed)  # the files its /undo would have needed
        print(f"removed session {removed}")
        return 0
    data = store.load(rest[0])
    if action == "show":
        print(visible(show_text(data)))
        return 0
    text = export_markdown(data)
    if len(rest) == 1:
        print(visible(text) if sys.stdout.isatty() else text, end="")  # a file gets the text as it was
        return 0
    try:
        with open(rest[1], "x", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise AnkitError(f"cannot write {rest[1]}: {exc.strerror or exc} (an existing file is never overwritten)") from None
    print(f"exported session {data.id} to {rest[1]}")
    return 0


def _with_app(command: str, argv: list[str], app: App) -> int:
    if command == "tools":
        if argv[:1] == ["check"]:
            text, code = tools_check(app)
            print(text)
            return code
        if argv:
            if argv[0] not in app.catalog.groups:
                raise AnkitError(group_text(app, argv[0]))
            print(group_text(app, argv[0], output_width()))
            return 0
        print(tools_listing(app, output_width()))
        return 0
    if command == "mcp" and argv[:1] == ["phrases"]:
        names = [a for a in argv[1:] if a != "--again"]
        if app.registry is None or app.registry.mcp is None or any(a.startswith("-") for a in names):
            raise AnkitError(PHRASES_USAGE if app.registry and app.registry.mcp else "no MCP server is configured")
        for line in write_phrases(app.provider(), app.registry, names, "--again" in argv, app.scrubber(),
                                  app.meter):
            print(line, flush=True)
        return 0
    if command == "mcp":
        print(mcp_text(app.mcp, hint(app.registry)))
        return 1 if app.mcp is not None and app.mcp.status.troubled() else 0
    raise AnkitError(f"unknown command {command!r}; see ankit --help")
