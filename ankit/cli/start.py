"""After the arguments: the settings (this folder's, once trusted), then a subcommand, -p or the REPL, and the one
line an error ends in. Imported by cli/main.py once it knows it needs them, so --version and --help stay fast."""

import contextlib
import os
import sys
from dataclasses import replace
from pathlib import Path

from ankit import paths
from ankit.cli import commands
from ankit.errors import AnkitError, bug_line
from ankit.safety.visible import VisibleStream, visible, visible_line
from ankit.settings import trust
from ankit.settings.layers import load_config
from ankit.settings.trust import Fingerprint
from ankit.terminal.keys import Keys
from ankit.terminal.trusting import ask_trust


def run(command: str, args, extra: list[str]) -> int:
    """Run the subcommand, -p or the REPL; an error ends in one line (exit 1, 130 on Ctrl-C, 70 for a bug)."""
    try:
        return _run(command, args, extra)
    except AnkitError as exc:
        print(f"ankit: {visible(str(exc))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nankit: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into a reader that stopped early, such as head
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:  # a bug in ankit: one line, not a traceback (a turn saved its session already)
        print(f"ankit: {visible(bug_line(exc))}", file=sys.stderr)
        return 70


def live_index(refresh: bool):
    """The index a session in this folder would search (for eval-discovery --live)."""
    try:
        return commands.live_index(load_config({}, os.environ, Path.cwd(), paths.config_home()), refresh)
    except AnkitError as exc:
        from ankit.discovery.evaluation import InputError
        raise InputError(f"ankit: {exc}") from None


@contextlib.contextmanager
def _safe_terminal_output():
    """Subcommands' listings show outside text (tool names, titles, server errors): controls made visible on a
    terminal; a pipe gets the exact text."""
    saved = sys.stdout, sys.stderr
    try:
        if sys.stdout.isatty():
            sys.stdout = VisibleStream(sys.stdout)
        if sys.stderr.isatty():
            sys.stderr = VisibleStream(sys.stderr)
        yield
    finally:
        sys.stdout, sys.stderr = saved


def _trusted(config, flags: dict, interactive: bool):
    """The config with this folder's held-back settings applied if the user trusts the folder as it is now (asked
    in the REPL, again after it changed, saying what changed); otherwise one line on stderr says what was ignored."""
    if not (config.held or config.held_tools or config.held_claude):
        return config
    cwd, home = Path.cwd(), paths.config_home()
    if interactive and sys.stdin.isatty() and sys.stdout.isatty():
        if ask_trust(cwd, config.trust_items, Keys(sys.stdin.fileno(), sys.stdout), changes=config.trust_changes):
            trust.remember(cwd, home, Fingerprint(config.trust_items).digest, config.trust_items)
            return load_config(flags, os.environ, cwd, home)
        print("ankit: not trusted; this folder's .ankit/ and .claude/ settings, hooks and tools are ignored this time",
              file=sys.stderr)
        return _asking(config, flags, "you did not trust it")
    what = _held_settings(config.held, cwd)
    what += (" and " if what and config.held_tools else "") + (
        f".ankit/ {len(config.held_tools)} tool module(s)" if config.held_tools else "")
    claude = f"{len(config.held_claude)} thing(s) it would run (.claude/ hooks, .mcp.json, agents, commands)"
    what += (" and " if what else "") + claude if config.held_claude else ""
    why = "it changed since you trusted it" if config.trust_changes else "the folder is not trusted"
    print(f"ankit: ignoring this folder's {what}: {why} (run ankit here to trust it, or pass --trust)",
          file=sys.stderr)
    return _asking(config, flags, why) if interactive else config


def _asking(config, flags: dict, why: str):
    """An untrusted folder's REPL session: every command asks before it runs (mode ask) until the folder is trusted,
    unless --sandbox named a mode or the mode is stricter already (plan, ask)."""
    if flags.get("sandbox") or config.sandbox in ("read-only", "off"):
        return config
    return replace(config, sandbox="off", untrusted=why)


def _held_settings(held: dict, cwd: Path) -> str:
    """Which of the folder's files the held settings come from: .ankit/'s keys, .mcp.json's servers."""
    own = (cwd / ".ankit" / "config.toml").is_file()
    keys = sorted(k for k in held if own or k != "mcp")
    parts = [".ankit/ " + visible_line(", ".join(keys))] if keys else []  # names from the file: shown, never obeyed
    return " and ".join(parts + ([".mcp.json servers"] if "mcp" in held and (cwd / ".mcp.json").is_file() else []))


def _run(command: str, args, extra: list[str]) -> int:
    """The settings (this folder's, if trusted), then the subcommand, -p or the REPL; ankit acp reads them for
    each session's folder."""
    if command == "acp":
        if extra:
            raise AnkitError(f"ankit acp takes the global options only, not {visible_line(' '.join(extra))}")
        from ankit.acp.server import serve  # the protocol's modules: only for ankit acp
        return serve(vars(args))
    if not command and args.prompt is None and args.resume is not None:
        from ankit.terminal.picker import resume_where  # the session and its folder, before that folder's settings
        resume_where(args)
    config = load_config(vars(args), os.environ, Path.cwd(), paths.config_home())
    config = _trusted(config, vars(args), interactive=not command and args.prompt is None)
    os.environ.update(config.claude_env)  # Claude Code settings' env (a project's only once trusted)
    if config.problems:
        for line in config.problems:
            print(f"ankit: {visible(line)}", file=sys.stderr)  # names from the files: shown, never obeyed
    if command:
        with _safe_terminal_output():
            return commands.run_command(command, extra, config)
    if args.prompt is not None:
        from ankit.cli.oneshot import run_once
        return run_once(args, config)
    from ankit.terminal.repl import run_repl
    return run_repl(args, config)
