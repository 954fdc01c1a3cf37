"""[a]lways answers: what one covers (`make`) and whether it covers a later call (`covers`). It widens only over
calls with the same effects: a command's program and subcommand with options all in the inert table
(programs.INERT_OPTIONS: `grep -R`, which follows links out of the folder, is not), git only in the session's own
repository whose config names no program; for HTTP the origin and the method class; a tool that runs the program
it is given (run_code) or whose effect outlives the session: that exact call only."""

import fnmatch
import json
import os
import re
import unicodedata
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

from ankit.safety import sandbox
from ankit.safety.pathrules import PATH_KEYS
from ankit.safety.programs import command_key, inert_options, runs_code
from ankit.safety.shellwords import scan

SHELL_KEY = "command"
READING = {"GET", "HEAD", "OPTIONS"}
SECRET_REF = re.compile(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?")
RUNS_LATER = set(sandbox.PROTECTED)  # files a program reads and runs later: one list with the sandbox's
# keys of a git config that name a program git may run (or another config that could): such a repository's
# commands are never covered by an [a]lways
GIT_PROGRAMS = re.compile(r"^\s*(?:textconv|command|cmd|program|pager|editor|external|sshcommand|fsmonitor|hookspath"
                          r"|askpass|helper|clean|smudge|process|tool|sequenceeditor|gpgprogram)\s*=|^\s*\[\s*"
                          r"(?:include|includeif)\b", re.I | re.M)


@dataclass(frozen=True)
class Grant:
    """What one [a]lways answer covers: kind "command" (a program and subcommand), "exact" (these arguments),
    "origin" (an origin and a method class) or "tool" (every call inside the working folder)."""

    tool: str
    kind: str
    value: str = ""


def make(tool: str, args: dict, exact: bool, cwd: Path | None) -> Grant:
    """The narrowest [a]lways answer that still helps for this call."""
    text = args.get(SHELL_KEY) if isinstance(args.get(SHELL_KEY), str) else None
    if exact:
        return Grant(tool, "exact", canonical(args))
    if text is not None:
        found = scan(text)
        words = found.top[0] if single(found) else []
        key = command_key(words) if words and not runs_code(words) and inert_options(words) else None
        if key and key.startswith("git ") and not _own_repository(args, cwd):
            key = None
        return Grant(tool, "command", key) if key else Grant(tool, "exact", canonical(args))
    url = args.get("url")
    if isinstance(url, str):
        where = origin(url)
        if where is None or carries_secret(args):
            return Grant(tool, "exact", canonical(args))
        return Grant(tool, "origin", f"{method_class(args)} {where}")
    return Grant(tool, "tool")


def covers(grant: Grant, tool: str, args: dict, exact: bool, paths: tuple, cwd: Path | None) -> bool:
    """Whether an [a]lways answer covers this call."""
    if grant.tool != tool:
        return False
    if grant.kind == "exact" or exact:
        return grant.kind == "exact" and grant.value == canonical(args)
    named = [v for key in PATH_KEYS for v in (args.get(key) if isinstance(args.get(key), list) else [args.get(key)])]
    if any(runs_later(str(p), cwd) for p in [*named, *paths] if p):
        return False
    if grant.kind == "tool":
        return True
    if grant.kind == "origin":
        url = args.get("url")
        return (isinstance(url, str) and not carries_secret(args)
                and f"{method_class(args)} {origin(url)}" == grant.value)
    return _command_covered(grant, args, cwd)


def _command_covered(grant: Grant, args: dict, cwd: Path | None) -> bool:
    """A "command" grant over a shell line: one plain command, no word leading out of the folder or to a file
    that runs later, inert options only, and for git the session's own repository."""
    text = args.get(SHELL_KEY)
    found = scan(text) if isinstance(text, str) else None
    if found is None or not single(found):
        return False
    words = found.top[0]
    if cwd is not None and any(leaves(word, cwd) for word in words[1:]):
        return False
    where = cwd / str(args["cwd"]) if cwd is not None and args.get("cwd") else cwd
    if any(runs_later(value, where) for word in words[1:] for value in {word, word.split("=", 1)[-1]}):
        return False  # `cp x .git/config` under an [a]lways for cp: a program would run it later
    if runs_code(words) or not inert_options(words) or command_key(words) != grant.value:
        return False
    return words[0] != "git" or _own_repository(args, cwd)


def _own_repository(args: dict, cwd: Path | None) -> bool:
    """Whether git run here (the call's cwd) finds the session's own repository, and its config names no program
    (a bare repository shipped inside the project, with `diff.x.textconv`, is another repository)."""
    if cwd is None:
        return False
    where = (cwd / str(args["cwd"])) if args.get("cwd") else cwd
    own, found = repository(cwd), repository(where)
    if own is None or found is None or own != found:
        return False
    try:
        text = (own / "config").read_text(encoding="utf-8", errors="replace") if (own / "config").is_file() else ""
    except OSError:
        return False
    return not GIT_PROGRAMS.search(text)


def repository(where: Path) -> Path | None:
    """The git directory git would use from here, found as git finds it: a `.git` in this folder or one above,
    or this folder (or one above) itself a bare repository; None outside any."""
    try:
        start = where.resolve()
    except (OSError, RuntimeError):
        return None
    for folder in (start, *start.parents):
        dot = folder / ".git"
        if dot.is_dir():
            return dot.resolve()
        if dot.is_file():
            return _gitdir_file(dot)
        if (folder / "HEAD").is_file() and (folder / "objects").is_dir() and (folder / "refs").is_dir():
            return folder
    return None


def _gitdir_file(dot: Path) -> Path | None:
    """The repository a `.git` file (a worktree's, a submodule's) points to."""
    try:
        line = dot.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if not line.startswith("gitdir:"):
        return None
    target = Path(line[len("gitdir:"):].strip())
    return (target if target.is_absolute() else dot.parent / target).resolve()


def describe(grant: Grant) -> str:
    """One line saying what a grant covers."""
    if grant.kind == "command":
        return (f"{grant.tool}: {grant.value} … (any arguments, but no option that runs code or follows links out "
                "of the folder, no expansion, no path outside)")
    if grant.kind == "origin":
        kind, where = grant.value.split(" ", 1)
        methods = "GET, HEAD and OPTIONS" if kind == "read" else "POST, PUT, PATCH and DELETE"
        return f"{grant.tool}: {methods} requests to {where}/ (none carrying a ${{SECRET}})"
    if grant.kind == "tool":
        return f"every {grant.tool} call inside the working folder"
    return f"this exact {grant.tool} call only"


def origin(url: str) -> str | None:
    """"scheme://host[:port]" of a URL; None when it has none or names a user before its host."""
    try:
        parts = urllib.parse.urlsplit(url.strip() if "://" in url else "https://" + url.strip())
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname or "@" in parts.netloc:
        return None
    return f"{parts.scheme.lower()}://{parts.hostname.lower()}" + (f":{port}" if port else "")


def method_class(args: dict) -> str:
    """"read" for GET, HEAD and OPTIONS (and tools without a method), else "write"."""
    return "read" if str(args.get("method") or "GET").upper() in READING else "write"


def carries_secret(args: dict) -> bool:
    """Whether a web call's headers, body or query expand an environment variable (${TOKEN})."""
    sent = {k: v for k, v in args.items() if k in ("headers", "body", "json", "query", "data", "url")}
    return bool(SECRET_REF.search(json.dumps(sent, ensure_ascii=False)))


def real(raw: str, cwd: Path) -> Path | None:
    """Where a path argument really leads (symlinks followed), or None when it cannot be resolved."""
    try:
        path = Path(os.path.expanduser(raw.strip() or "."))
        return (path if path.is_absolute() else cwd.resolve() / path).resolve()
    except (OSError, RuntimeError, ValueError):
        return None


def runs_later(path: str, cwd: Path | None = None) -> bool:
    """Whether a path lies where a program will find and run it later (git hooks and config, ankit's own
    settings, direnv, an editor's tasks): an [a]lways never covers a call naming it, as written (a glob or a
    brace that the shell would turn into such a name counts) or as it really is (a symlink to .git)."""
    for part in map(folded, Path(path).parts):
        if part in FOLDED_LATER or ("{" in part and "}" in part):
            return True
        if part.startswith(".") and any(fnmatch.fnmatchcase(name, part) for name in FOLDED_LATER):
            return True
    found = real(path, cwd) if cwd is not None else None
    root = cwd.resolve() if cwd is not None else None
    return bool(found and root and found.is_relative_to(root)
                and FOLDED_LATER & set(map(folded, found.relative_to(root).parts)))


def folded(name: str) -> str:
    """A file name as a case-insensitive file system sees it (macOS, Windows: `.GIT` is `.git`; HFS+ also drops
    invisible format characters, `.g<U+200C>it`): format characters dropped, NFC, case folded."""
    return unicodedata.normalize("NFC", "".join(c for c in name if unicodedata.category(c) != "Cf")).casefold()


FOLDED_LATER = {folded(name) for name in RUNS_LATER}


def leaves(word: str, cwd: Path) -> bool:
    """Whether a command's word names a path outside the working folder (`/etc/x`, `~/.ssh`, `../x`), also as an
    option's value (`--file=/etc/x`, `-f/etc/x`)."""
    values = {word, word.split("=", 1)[-1]} | ({word[2:]} if word[:1] == "-" and word[1:2] != "-" else set())
    for value in values:  # resolved whatever its spelling: `h/.ssh/id_rsa` where h is a link to the home folder
        found = real(value, cwd) if value else cwd
        if found is None or not found.is_relative_to(cwd.resolve()):
            return True
    return False


def single(found) -> bool:
    """Whether a scanned line is one simple command read surely, its words all as written (no $x, glob or ~)."""
    return found.plain and found.sure and not found.assignments and len(found.top) == 1 and not found.loose


def canonical(args: dict) -> str:
    return json.dumps(args, sort_keys=True, ensure_ascii=False)
