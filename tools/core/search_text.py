"""search_text: lines matching a regular expression across files, as file:line: text."""

import json
import os
import re
import select
import signal
import time
import warnings
from pathlib import Path

from ankit.toolkit import ToolError, ToolOutput, ignore, paths, text

MAX_FILE_BYTES = 4 * 1024 * 1024
DEFAULT_RESULTS = 200
LINE_CHARS = 2000  # characters of a matching line a program gets
REGEX_SECONDS = 20  # a regular expression search stops here (search_timeout in the config)

name = "search_text"
description = (
    "Search the text inside files for a regular expression, like grep -rn: where a function, method or "
    "variable is defined or used (usages), which files mention a name. Prints file:line: text for each "
    "match; skips binary files, .git and what .gitignore ignores. Narrow with glob; set literal to search "
    "for exact text."
)
parameters = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string", "description": "Python regular expression (or exact text with literal)"},
        "path": {"type": "string", "description": "Folder or file to search, relative to the working folder (default '.')"},
        "glob": {"type": "string", "description": "Only files whose name (or path, if it has '/') matches, e.g. '*.py'"},
        "ignore_case": {"type": "boolean", "description": "Case-insensitive match (default false)"},
        "literal": {"type": "boolean", "description": "Treat pattern as exact text, not a regex (default false)"},
        "context": {"type": "integer", "description": "Lines of context around each match, 0 to 5 (default 0)"},
        "max_results": {"type": "integer", "description": "Stop after this many matching lines (default 200)"},
        "include_ignored": {"type": "boolean", "description": "Also search files .gitignore ignores (default false)"},
    },
    "required": ["pattern"],
    "additionalProperties": False,
}
returns = "list[dict]: one {'path', 'line', 'text'} per matching line (line numbers from 1)"
effects = ["read"]
needs_approval = paths.needs_approval
examples = [
    "where is the function parse_config defined",
    "grep for TODO comments in the code",
    "which files mention DATABASE_URL",
    "find all usages of the fetch_user method",
]


def touches(args: dict, ctx) -> dict:
    """Every file the search would open (a link inside the folder followed, one leading out not); a file the
    settings' rules deny reading is left out of the result, not the search refused."""
    target = paths.resolve(ctx, args.get("path"))
    return {"reads": list(_files(target, args, ctx)) if target.exists() else [target], "withholds": True}


def preview(args: dict, ctx) -> str:
    """Say which path outside the working folder would be searched."""
    return f"{paths.outside_note(args, ctx)}search {args.get('pattern')!r} in {paths.resolve(ctx, args.get('path'))}"


def run(args: dict, ctx) -> ToolOutput:
    """Return matching lines with file and line number, bounded by max_results; a regular expression runs
    under a deadline (in a child process: a catastrophic pattern cannot hang ankit). A program gets records."""
    regex = _compile(args)
    if args.get("literal"):
        return ToolOutput(*_search(args, ctx, regex))
    seconds = float(ctx.config.get("search_timeout") or REGEX_SECONDS) if isinstance(ctx.config, dict) else REGEX_SECONDS
    try:
        return ToolOutput(*run_with_deadline(lambda: _search(args, ctx, regex), seconds, ToolError))
    except TimeoutError:
        raise ToolError(f"the regular expression took longer than {seconds:g} s (it may backtrack "
                        "catastrophically, as (a+)+ does); simplify it, narrow path or glob, or set literal") from None


def _search(args: dict, ctx, regex: re.Pattern) -> list:
    """The search itself: [the matching lines with file and line number, bounded by max_results; one record
    per match]."""
    target = paths.resolve(ctx, args.get("path"))
    if not target.exists():
        raise ToolError(f"no such file or folder: {paths.show(ctx, target)}{paths.suggest(target, ctx)}")
    limit = max(1, int(args.get("max_results") or DEFAULT_RESULTS))
    context = min(5, max(0, int(args.get("context") or 0)))
    out, count, skipped, records, left = [], 0, 0, [], 0
    for path in _files(target, args, ctx):
        if paths.withheld(ctx, path):
            left += 1
            continue
        lines = _lines(path)
        if lines is None:
            skipped += 1
            continue
        block, hits = _matches(lines, regex, context, paths.show(ctx, path), limit - count)
        out.extend(block)
        records += [{"path": paths.show(ctx, path), "line": i + 1, "text": text.clip_line(lines[i], LINE_CHARS)}
                    for i in hits]
        count += len(hits)
        if count >= limit:
            out.append(f"[stopped at {limit} matches; narrow the pattern, path or glob, or raise max_results]")
            break
    if skipped:
        out.append(f"[skipped {skipped} files larger than {text.human_size(MAX_FILE_BYTES)}]")
    out += [paths.withheld_note(left)] if left else []
    if not count:
        notes = "".join(f"\n{line}" for line in out[len(out) - bool(skipped) - bool(left):])
        return [f"no matches for {args['pattern']!r} in {paths.show(ctx, target)}" + notes, []]
    return [text.cap("\n".join(out), hint="narrow the search"), records]


def _compile(args: dict) -> re.Pattern:
    source = re.escape(args["pattern"]) if args.get("literal") else args["pattern"]
    try:
        return re.compile(source, re.IGNORECASE if args.get("ignore_case") else 0)
    except re.error as exc:
        raise ToolError(f"invalid regular expression ({exc}); fix it or set literal to true") from None


def _files(target: Path, args: dict, ctx):
    """The text files to search: the target itself, or the non-ignored files under it (no links leading out)."""
    if target.is_file():
        yield target
        return
    glob = (args.get("glob") or "").strip()
    regex = re.compile(ignore.translate(glob), re.DOTALL) if glob else None
    for path, is_dir in ignore.walk(target, bool(args.get("include_ignored"))):
        if is_dir or not path.is_file():
            continue
        if path.is_symlink() and not _within(path.resolve(), target, ctx):
            continue
        if regex and not regex.fullmatch(path.relative_to(target).as_posix() if "/" in glob else path.name):
            continue
        yield path


def _within(real: Path, target: Path, ctx) -> bool:
    return paths.is_inside(ctx, real) or real.is_relative_to(target)


def _lines(path: Path) -> list[str] | None:
    """A file's lines, [] for binary or unreadable files, None when too large to search."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return []
    if text.looks_binary(data[:8192]):
        return []
    return text.hide_private_keys(text.split_lines(text.decode(data)[0]))


def _matches(lines: list[str], regex: re.Pattern, context: int, shown: str, room: int) -> tuple[list[str], list[int]]:
    """Output lines for up to room matching lines (with merged context) and the matching lines' indexes."""
    hits = [i for i, line in enumerate(lines) if regex.search(line)][: max(0, room)]
    if not context:
        return [f"{shown}:{i + 1}: {text.clip_line(lines[i].strip(), 300)}" for i in hits], hits
    out, done, marked = [], -1, set(hits)
    for i in hits:
        low, high = max(i - context, done + 1), min(len(lines) - 1, i + context)
        if out and low > done + 1:
            out.append("--")
        for n in range(low, high + 1):
            mark = ":" if n in marked else "-"
            out.append(f"{shown}{mark}{n + 1}{mark} {text.clip_line(lines[n], 300)}")
        done = max(done, high)
    return out, hits


# --- a pure computation under a deadline, in a forked child whose answer comes back through a pipe -------------
# Python's regular expression engine never checks for signals or releases the GIL, so a catastrophic pattern
# (`(a+)+$` on a long line) cannot be stopped from inside the process; a child can be killed.


def run_with_deadline(work, seconds: float, error_class=Exception):
    """work() (returning JSON-able data) in a child process; TimeoutError once `seconds` pass.

    An exception in the child comes back as error_class(message). Where fork is missing, work() runs here.
    """
    if not hasattr(os, "fork"):
        return work()
    read, write = os.pipe()
    with warnings.catch_warnings():  # fork() in a threaded process: the child only computes and exits
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:
        _child(work, read, write)
    os.close(write)
    try:
        kind, value = _collect(read, time.monotonic() + seconds)
    finally:
        os.close(read)
        _reap(pid)
    if kind == "error":
        raise error_class(value)
    return value


def _child(work, read: int, write: int) -> None:
    """Compute and send the answer, then exit: the child never returns into its caller, a copy of the parent
    (an answer that is no JSON, a Ctrl-C before its handler, a pipe the parent closed at the deadline)."""
    try:
        os.close(read)
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends the child at once
        try:
            answer = ["ok", work()]
        except BaseException as exc:  # noqa: BLE001 - everything goes back to the parent as one line
            answer = ["error", str(exc) or type(exc).__name__]
        data = json.dumps(answer).encode("utf-8", "replace")
        while data:
            data = data[os.write(write, data):]
    finally:
        os._exit(0)


def _collect(read: int, deadline: float) -> list:
    chunks = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        ready, _, _ = select.select([read], [], [], left)
        if ready:
            chunk = os.read(read, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    try:
        return json.loads(b"".join(chunks))
    except ValueError:
        return ["error", "the search stopped unexpectedly"]


def _reap(pid: int) -> None:
    """Kill the child if it still runs, and collect it."""
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
