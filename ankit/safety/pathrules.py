"""Path rules over what a call declares (records.Touches): `Read(GLOB)` binds every path any tool reads,
`Edit(GLOB)` (and `Write(GLOB)`, the same) every path any tool changes, and a tool's own "TOOL: GLOB" both of its
tool's. A path is matched relative to the working folder as written and as it really is (a link to .env is
.env), and as any folder it lies in (`secrets` covers `secrets/key.txt`); outside the folder, absolute.
A tool that declares nothing is taken to read and change every path its arguments name."""

import os
from dataclasses import dataclass
from pathlib import Path

from ankit.records import Touches
from ankit.safety.shellwords import scan

READ, EDIT = "read()", "edit()"  # the tool field of a Read(...) and an Edit(...) rule: no tool has such a name
KINDS = {"read": READ, "edit": EDIT, "write": EDIT}  # rule forms over paths; Write is Edit, as in Claude Code
PATH_KEYS = ("path", "paths", "source", "destination", "cwd", "file", "folder", "directory")


@dataclass(frozen=True)
class Found:
    """The first rule that binds one of a call's paths: the rule, the path (as the user reads it), and whether
    the call only reads it."""

    rule: object
    path: str
    read: bool


def forms(path: str, cwd: Path) -> list[str]:
    """A declared path as rules see it: relative inside the working folder (as written and as it really is) and
    each folder it lies in; absolute outside."""
    root, here = cwd.resolve(), Path(os.path.abspath(cwd))
    seen: list[str] = []
    for candidate in (Path(os.path.normpath(path)), _real(path)):
        if candidate is None:
            continue
        for base in (here, root):
            if candidate == base or candidate.is_relative_to(base):
                rel = candidate.relative_to(base)
                seen += ["/".join(rel.parts[:n]) for n in range(len(rel.parts), 0, -1)] or ["."]
                break
        else:
            seen += [candidate.as_posix(), *(p.as_posix() for p in candidate.parents if p != Path(p.anchor))]
    return list(dict.fromkeys(seen))


def _real(path: str) -> Path | None:
    try:
        return Path(path).resolve()
    except (OSError, RuntimeError, ValueError):
        return None


def of_call(touched: Touches, args: dict, cwd: Path) -> Touches:
    """The call's declaration; for a tool that declares nothing, every path its arguments name, read and changed."""
    if touched.declared:
        return touched
    named = [v for key in PATH_KEYS for v in (args.get(key) if isinstance(args.get(key), list) else [args.get(key)])]
    found = tuple(os.path.normpath(os.path.join(cwd, os.path.expanduser(v))) for v in named if isinstance(v, str) and v)
    return Touches(found, found + touched.changes, declared=False)


def named_by_line(text: str, where: Path) -> tuple[str, ...]:
    """Best effort: the words of every command a shell line runs that could name a file (an operand, an option's
    `=value`), as paths from where it runs; a Read rule binds `cat .env` as it binds read_file .env (a name
    built by an expansion or a glob escapes it: the sandbox, not this, is what confines a command)."""
    found = []
    for words in scan(text).commands:
        for word in words[1:]:
            value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
            if value and not value.startswith("-"):
                found.append(os.path.normpath(os.path.join(where, os.path.expanduser(value))))
    return tuple(dict.fromkeys(found))


def first(rules: list, kind: str, paths: tuple[str, ...], cwd: Path, tool_rules: list) -> Found | None:
    """The first rule of this kind (READ or EDIT), or of the tool's own, binding one of these paths."""
    chosen = [r for r in rules if r.tool == kind] + tool_rules
    for path in paths:
        shapes = forms(path, cwd)
        rule = next((r for r in chosen if any(r.covers(s) for s in shapes)), None)
        if rule is not None:
            return Found(rule, shapes[0], kind == READ)
    return None


def bound(rules: list, kind: str, paths: tuple[str, ...], cwd: Path, tool_rules: list) -> list[str]:
    """Every one of these paths a rule of this kind, or of the tool's own, binds."""
    chosen = [r for r in rules if r.tool == kind] + tool_rules
    return [p for p in paths if any(r.covers(s) for s in forms(p, cwd) for r in chosen)]


def all_allowed(rules: list, touched: Touches, cwd: Path) -> object | None:
    """An allow rule when Read and Edit allow rules cover every path a declared call reads and changes, and it
    runs and reaches nothing; None otherwise."""
    if not touched.declared or touched.runs or touched.reaches or not (touched.reads or touched.changes):
        return None
    reads, edits = [r for r in rules if r.tool == READ], [r for r in rules if r.tool == EDIT]
    used = []
    for paths, chosen in ((touched.changes, edits), ([p for p in touched.reads if p not in touched.changes], reads)):
        for path in paths:
            rule = next((r for r in chosen if any(r.covers(s) for s in forms(path, cwd))), None)
            if rule is None:
                return None
            used.append(rule)
    return used[0]
