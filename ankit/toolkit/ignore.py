"""Glob patterns with gitignore semantics, .gitignore rules, and a walker that honours them."""

__all__ = ["walk", "translate"]

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

SKIPPED_DIRS = {".git", ".hg", ".svn"}


def translate(pattern: str) -> str:
    """A glob with gitignore rules as a regex: * and ? stay in one folder, ** crosses folders."""
    if pattern == "**":
        return ".*"
    out, i, n = [], 0, len(pattern)
    while i < n:
        if pattern.startswith("**/", i) and (i == 0 or pattern[i - 1] == "/"):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == n:
            out.append("/.*")
            i += 3
        elif pattern[i] == "*":
            while i < n and pattern[i] == "*":
                i += 1
            out.append("[^/]*")
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[":
            piece, i = _bracket(pattern, i)
            out.append(piece)
        elif pattern[i] == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)


def _bracket(pattern: str, i: int) -> tuple[str, int]:
    """Translate a [...] class starting at i; an unclosed bracket is a literal '['."""
    j = i + 1
    if j < len(pattern) and pattern[j] in "!^":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    end = pattern.find("]", j)
    if end < 0:
        return re.escape("["), i + 1
    body = pattern[i + 1 : end]
    negate = body[:1] in ("!", "^")
    body = body[1:] if negate else body
    body = body.replace("\\", "\\\\")
    return f"[{'^' if negate else ''}{body}]", end + 1


@dataclass
class Rule:
    """One .gitignore line."""

    regex: re.Pattern
    negate: bool
    dir_only: bool
    anchored: bool

    def matches(self, rel: str, is_dir: bool) -> bool:
        """Whether this rule matches a path relative to its .gitignore's folder."""
        if self.dir_only and not is_dir:
            return False
        target = rel if self.anchored else rel.rsplit("/", 1)[-1]
        return self.regex.fullmatch(target) is not None


def parse_rule(line: str) -> Rule | None:
    """Parse one .gitignore line; None for blanks and comments."""
    line = line.rstrip("\n\r")
    if not line.strip() or line.startswith("#"):
        return None
    stripped = line.rstrip(" ")
    if stripped.endswith("\\") and len(stripped) < len(line):
        stripped += " "
    line, negate = stripped, False
    if line.startswith("!"):
        negate, line = True, line[1:]
    dir_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line
    line = line.lstrip("/")
    return Rule(re.compile(translate(line), re.DOTALL), negate, dir_only, anchored)


def read_rules(path: Path) -> list[Rule]:
    """The rules of one ignore file; an unreadable file has none."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    return [rule for rule in map(parse_rule, lines) if rule]


Layers = list[tuple[Path, list[Rule]]]


def is_ignored(path: Path, is_dir: bool, layers: Layers) -> bool:
    """Whether the layered rules ignore a path; the last matching rule wins, deeper files last."""
    result = False
    for base, rules in layers:
        try:
            rel = path.relative_to(base).as_posix()
        except ValueError:
            continue
        for rule in rules:
            if rule.matches(rel, is_dir):
                result = not rule.negate
    return result


def repo_root(start: Path) -> Path | None:
    """The nearest folder at or above start holding a .git entry."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def initial_layers(start: Path) -> Layers:
    """Rules that apply at start: .git/info/exclude and the .gitignore files from the repo root down to start."""
    root = repo_root(start)
    if root is None:
        return []
    layers: Layers = [(root, read_rules(root / ".git" / "info" / "exclude"))]
    chain = [start, *start.parents]
    for folder in reversed(chain[1 : chain.index(root) + 1]):
        layers.append((folder, read_rules(folder / ".gitignore")))
    return [(base, rules) for base, rules in layers if rules]


def walk(start: Path, include_ignored: bool = False, depth: int | None = None) -> Iterator[tuple[Path, bool]]:
    """Yield (path, is_dir) under start in sorted order, skipping .git and, unless asked, ignored paths.

    depth limits how many levels are read (1: start's own entries); None reads them all.
    """
    layers = [] if include_ignored else initial_layers(start)
    yield from _walk(start, layers, include_ignored, depth)


def _walk(folder: Path, layers: Layers, include_ignored: bool, depth: int | None) -> Iterator[tuple[Path, bool]]:
    if not include_ignored and (folder / ".gitignore").is_file():
        layers = [*layers, (folder, read_rules(folder / ".gitignore"))]
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            continue
        path = Path(entry.path)
        if is_dir and entry.name in SKIPPED_DIRS:
            continue
        if layers and is_ignored(path, is_dir, layers):
            continue
        yield path, is_dir
        if is_dir and (depth is None or depth > 1):
            yield from _walk(path, layers, include_ignored, None if depth is None else depth - 1)
