"""Command-line arguments: parse them, wire the pieces, and pick the REPL, -p or a subcommand."""

import argparse
import difflib
import functools
import os
import signal
import sys
from pathlib import Path

from ankit import __version__
from ankit.errors import AnkitError
from ankit.cli.subcommands import SUBCOMMANDS, help_text, own_words, split


class Parser(argparse.ArgumentParser):
    """argparse, with errors in one line."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


@functools.cache
def parser() -> argparse.ArgumentParser:
    """The argument parser for ankit's main mode and the shared flags (built once)."""
    p = Parser(prog="ankit", description="A terminal chat assistant on the Python standard library. "
                                          "ankit \"QUESTION\" opens the REPL with that first message.",
               epilog=f"subcommands: {', '.join(SUBCOMMANDS)} (e.g. ankit tools check)")
    _run_options(p)
    _model_options(p)
    _approval_options(p)
    _folder_options(p)
    _session_options(p)
    p.add_argument("--version", action="version", version=f"ankit {__version__}")
    return p


def _run_options(p: argparse.ArgumentParser) -> None:
    """How a run answers: once (-p) or in the REPL, in which format, within what cost."""
    p.add_argument("-p", "--prompt", "--print", nargs="?", const="", metavar="PROMPT",
                   help="answer this once and exit (stdin, if piped, is added); the question may also follow the "
                        "options, as in Claude Code: ankit -p --output-format json \"...\"")
    p.add_argument("--output-format", dest="output_format", choices=("text", "json", "stream-json"), default="text",
                   help="with -p: text (default), json (one object at the end) or stream-json (one per line)")
    p.add_argument("--strict", action="store_true",
                   help="with -p: exit 3 when the answer came but a tool call was refused or failed")
    p.add_argument("--max-cost", dest="max_cost", type=float, metavar="USD",
                   help="stop before a request that would take the session past this many USD")


def _model_options(p: argparse.ArgumentParser) -> None:
    """Which model answers, where, and what is added to its system prompt."""
    p.add_argument("--provider", help="anthropic, openai, github, openrouter, ollama or local")
    p.add_argument("--model", help="the model name")
    p.add_argument("--base-url", dest="base_url", help="the provider's base URL (an OpenAI-compatible server)")
    p.add_argument("--api", choices=("responses", "chat"),
                   help="OpenAI wire format: responses (default on api.openai.com) or chat (Chat Completions)")
    p.add_argument("--system", "-s", "--append-system-prompt", help="text appended to the system prompt for this run")


def _approval_options(p: argparse.ArgumentParser) -> None:
    """What runs without asking: --yes, the sandbox's mode, this folder's settings."""
    p.add_argument("--yes", "-y", "--dangerously-skip-permissions", action="store_true",
                   help="approve every tool call without asking (deny rules still hold)")
    p.add_argument("--sandbox", choices=("workspace", "accept-edits", "read-only", "plan", "off", "ask"),
                   metavar="MODE",
                   help="commands run unasked in a sandbox writing only the working folder (workspace), file edits "
                        "in the folder unasked too (accept-edits), run unasked writing nothing (read-only, also "
                        "named plan), or ask every time (off, also named ask); the same names as /mode")
    p.add_argument("--permission-mode", dest="permission_mode", metavar="MODE",
                   help="Claude Code's modes: default, acceptEdits (file edits in the folder unasked), plan "
                        "(read-only) or bypassPermissions (the same as --yes); ankit's own names work too")
    p.add_argument("--trust", action="store_true", help="apply this folder's .ankit/ settings and tools this run")


def _folder_options(p: argparse.ArgumentParser) -> None:
    """Extra folders of tools and skills."""
    p.add_argument("--tools-dir", dest="tools_dirs", action="append", default=[], help="extra folder of tool modules")
    p.add_argument("--skills-dir", dest="skills_dir", help="extra folder of skills (searched first)")


def _session_options(p: argparse.ArgumentParser) -> None:
    """Which session goes on: the last, one by id, or a copy."""
    p.add_argument("--continue", "-c", dest="cont", action="store_true", help="resume the last session")
    p.add_argument("--resume", "-r", metavar="ID", nargs="?", const="",
                   help="resume the session ID; without one, pick from the newest sessions")
    p.add_argument("--all", dest="all_folders", action="store_true",
                   help="with --resume: offer the sessions of every folder, not only this one's")
    p.add_argument("--fork-session", dest="fork_session", action="store_true",
                   help="with --resume or --continue: go on with a copy under a new id (the original stays)")


def eval_discovery(argv: list[str], live=None) -> int:
    """`ankit eval-discovery ...`: measure the tool search; 0 on success, 2 on bad arguments or input files."""
    from ankit.discovery import evaluation
    p = Parser(prog="ankit eval-discovery", description=evaluation.DESCRIPTION, epilog=evaluation.EPILOG)
    evaluation.add_arguments(p)
    try:
        args = p.parse_args(argv)
    except SystemExit as exc:
        return 0 if exc.code == 0 else 2
    return evaluation.run(args, live)


def bundle_command(argv: list[str]) -> int:
    """`ankit bundle [--output FILE]`: write the archive (ankit.pyz by default) and say where it went."""
    from ankit.cli.bundle import build
    p = Parser(prog="ankit bundle", description="Write ankit, its tools and its skills as one zipapp.")
    p.add_argument("--output", "-o", type=Path, default=Path("ankit.pyz"), help="the archive to write")
    output = p.parse_args(argv).output
    try:
        size = build(output)
    except AnkitError as exc:
        print(f"ankit: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {output} ({size / 1024:.0f} KB): run it with python3 {output}")
    return 0


def help_command(argv: list[str]) -> int:
    """`ankit help [TOPIC]`: the guide's topics, or one topic (laid out and paged on a terminal)."""
    from ankit.terminal.guide import show_help
    try:
        show_help(argv, sys.stdout)
    except AnkitError as exc:
        print(f"ankit: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # piped into a reader that stopped early, such as head
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _permission_mode(args) -> None:
    """--permission-mode as --yes (bypassPermissions) or as the mode --sandbox names (checked with the settings)."""
    name = args.permission_mode
    if name is None:
        return
    from ankit.safety.sandbox import ALIASES, MODES  # dataclasses, re and tempfile: not for --version
    if name == "bypassPermissions":
        args.yes = True
    elif name.lower() not in (*MODES, *ALIASES):
        parser().error(f"--permission-mode takes default, acceptEdits, plan or bypassPermissions (or ankit's "
                       f"workspace, accept-edits, read-only, ask), not {name!r}")
    elif args.sandbox and args.sandbox != name:
        parser().error(f"--permission-mode {name} and --sandbox {args.sandbox} name two modes: give one")
    else:
        args.sandbox = name


def _asks_help(words: list[str]) -> bool:
    """Whether -h or --help comes before any `--` (after which words belong to a server's command)."""
    head = words[:words.index("--")] if "--" in words else words
    return "-h" in head or "--help" in head


# Claude Code's options ankit takes another way: the one line that says how
CLAUDE_FLAGS = {
    "--allowedTools": "allow rules in the settings: allow = [\"run_command: npm test *\"] (ankit help approvals)",
    "--disallowedTools": "deny rules in the settings: deny = [\"run_command: rm *\"] (ankit help approvals)",
    "--system-prompt": "ankit keeps its own system prompt; --system TEXT adds TEXT to it",
    "--mcp-config": "ankit mcp add-json NAME JSON, or a .mcp.json in the folder (ankit help mcp)",
    "--session-id": "ankit names its sessions itself; --resume ID goes on with one",
    "--verbose": "ankit always shows each tool call (on standard error with -p)",
    "--max-turns": "ankit has no turn limit; --max-cost USD stops a run by its cost",
}
CLAUDE_FLAGS["--allowed-tools"] = CLAUDE_FLAGS["--allowedTools"]
CLAUDE_FLAGS["--disallowed-tools"] = CLAUDE_FLAGS["--disallowedTools"]


def _unexpected(extra: list[str]) -> str:
    """Say what to do with options ankit does not take (one of Claude Code's: what ankit has instead)."""
    for word in extra:
        flag = word.split("=", 1)[0]
        if flag in CLAUDE_FLAGS:
            return f"{flag} is Claude Code's; in ankit: {CLAUDE_FLAGS[flag]}"
    return f"unrecognized arguments: {' '.join(extra)}"


def _message_words(extra: list[str]) -> str:
    """The words after the options as the first message (ankit "question", as in Claude Code); a lone word close
    to a subcommand's name gets a hint instead, and an option ankit does not take one line."""
    if any(word.startswith("-") for word in extra):
        parser().error(_unexpected([w for w in extra if w.startswith("-")]))
    close = difflib.get_close_matches(extra[0], SUBCOMMANDS, n=1) if len(extra) == 1 else []
    if close:
        parser().error(f"unknown command {extra[0]!r}: did you mean ankit {close[0]}? (to ask it, add a word: "
                       f"ankit \"{extra[0]} ...\")")
    return " ".join(extra)


def _live_index(refresh: bool):
    """The index a session in this folder would search (for eval-discovery --live)."""
    from ankit.cli.start import live_index  # the settings and the app: not for --version and --help
    return live_index(refresh)


def _exit_on(signum: int, frame) -> None:
    raise SystemExit(128 + signum)


def exit_cleanly_on_signals() -> None:
    """SIGTERM and SIGHUP (a closed terminal) end ankit as an exit does, so what it started (MCP servers, their
    process groups) is stopped on the way out; a signal ignored when ankit started (nohup) stays ignored."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) == signal.SIG_DFL:
            signal.signal(sig, _exit_on)


def main(argv: list[str] | None = None) -> int:
    """Run ankit; return the exit code."""
    program = argv is None  # the program itself (a test calling main(argv) keeps its own signal handling)
    argv = sys.argv[1:] if argv is None else argv
    command, rest = split(argv, parser())
    if command in ("eval-discovery", "bundle") and argv[0] != command:  # their own flags only
        parser().error(f"the global options do not apply to ankit {command}: put its own after it")
    if command and command not in ("eval-discovery", "bundle") and _asks_help(rest):
        print(help_text(command))
        return 0
    if command == "eval-discovery":
        return eval_discovery(rest, _live_index)
    if command == "help":  # the guide needs no settings
        return help_command(rest)
    if command == "bundle":  # its own flags: here --output would read as an abbreviated --output-format
        return bundle_command(rest)
    rest, own = own_words(command, rest, parser())
    args, extra = parser().parse_known_args(rest)
    _permission_mode(args)
    extra += own
    args.message = _message_words(extra) if extra and not command else ""
    if args.message and args.prompt == "":  # ankit -p --output-format json "question"
        args.prompt, args.message = args.message, ""
    if args.resume == "" and (args.prompt is not None or command):
        parser().error("--resume without an ID picks a session in the REPL; here name one: --resume ID "
                       "(ankit sessions lists them)")
    if args.all_folders and args.resume != "":
        parser().error("--all goes with --resume (no ID): it offers the sessions of every folder")
    if args.fork_session and not (args.resume is not None or args.cont):
        parser().error("--fork-session copies a session: add --resume ID or --continue")
    if args.strict and args.prompt is None and not command:
        parser().error('--strict is for one-shot runs: add -p "..."')
    if args.output_format != "text" and args.prompt is None and not command:
        parser().error(f"--output-format {args.output_format} is for one-shot runs: add -p \"...\"")
    if program and (command or args.prompt is not None):
        # -p and the subcommands; the REPL keeps the default (a signal that lands just before readline waits for a
        # key would be handled only at the next key, and a closed terminal sends none)
        exit_cleanly_on_signals()
    from ankit.cli.start import run  # the settings, the app and the chosen mode: not for --version and --help
    return run(command, args, extra)
