"""Allow and deny rules for tool calls, and what an [a]lways answer covers: narrow, and deny wins.

A rule is "TOOL" (every call of it) or "TOOL: PATTERN", a glob matched against the call's subject: the
command of a shell tool, else its url, path or query. A shell command is split into its simple commands
(at ; && || | & and newlines); an allow rule must cover every one of them, and a command with substitutions
($(...), backticks), subshells or redirections into files is never allowed by a rule: it is always asked.
A deny rule matching the whole command or any part of it refuses the call, even with --yes.

A path is matched as given and as it really is inside the working folder (`docs/../.env` and a link to .env are
both `.env`): a deny rule matching either refuses, an allow rule must match the real one. No allow rule and no
[a]lways answer covers a call that names or changes a path outside the working folder (through `..`, an absolute
path or a symlink): that call is always asked.
"""

import fnmatch
import os
import re
import shlex
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

SUBJECT_KEYS = ("command", "url", "path", "query", "name")
SHELL_KEY = "command"
PATH_KEYS = ("path", "paths", "source", "destination", "cwd", "file", "folder", "directory")  # arguments naming paths
# Programs whose next word is a program or code of its own: remembering them would approve anything.
WRAPPERS = {"sudo", "doas", "env", "xargs", "nohup", "time", "timeout", "nice", "exec", "eval", "command",
            "builtin", "source", ".", "watch", "strace", "chroot", "su", "ssh", "setsid", "stdbuf", "unbuffer"}
INTERPRETERS = {"python", "python3", "node", "deno", "bun", "ruby", "perl", "php", "bash", "sh", "zsh", "fish",
                "dash", "ksh", "lua", "Rscript", "pwsh"}
INLINE_CODE = {"-c", "-e", "--eval", "-", "-p", "--print", "-E", "-r", "--command"}
RUNNERS = {"npm", "pnpm", "yarn", "uv", "poetry", "pipenv", "hatch", "pdm", "bundle", "npx", "cargo", "go", "dotnet",
           "make", "just", "task", "gradle", "mvn", "docker", "kubectl", "rake"}
SUBCOMMAND = re.compile(r"[A-Za-z][\w:.-]*")
SAFE_REDIRECT = re.compile(r"(\d?>&\d|\d?>\s*/dev/null|&>\s*/dev/null)")
OPERATORS = {";", "&&", "||", "|", "&", ";;", "|&"}
Decision = str  # "allow", "deny" or "ask"


@dataclass
class Rule:
    """One parsed rule: a tool name and an optional glob over the call's subject."""

    tool: str
    pattern: str | None = None

    @classmethod
    def parse(cls, text: str) -> "Rule":
        name, sep, pattern = str(text).partition(":")
        return cls(name.strip(), pattern.strip() if sep else None)

    def covers(self, subject: str) -> bool:
        """Whether the glob matches; "X *" matches "X" itself too (a program with no arguments)."""
        if self.pattern is None:
            return True
        if self.pattern.endswith(" *") and subject == self.pattern[:-2]:
            return True
        if "://" in self.pattern and "://" in subject:
            return _url_covers(self.pattern, subject)
        return fnmatch.fnmatchcase(subject, self.pattern)

    def __str__(self) -> str:
        return self.tool if self.pattern is None else f"{self.tool}: {self.pattern}"


def subject(args: dict) -> str | None:
    """What rules are matched against: the command, url, path, query or name argument."""
    for key in SUBJECT_KEYS:
        if isinstance(args.get(key), str):
            return args[key]
    return None


def simple_commands(command: str, strict: bool = True) -> list[str] | None:
    """The simple commands of a shell line, each as its words joined by one space.

    strict: None when the line holds anything a rule cannot vouch for (substitution, subshell, redirection
    into a file, an unclosed quote). Not strict (for deny rules): every stretch between punctuation, best effort.
    """
    if strict and (re.search(r"[`\n\r]|\$\(|<\(|>\(|\$\{", command)):
        return None
    text = command if strict else command.replace("`", " ; ").replace("$(", " ; (")
    text = SAFE_REDIRECT.sub(" ", text)
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:  # an unclosed quote
        return None if strict else [" ".join(command.split())]
    parts, current = [], []
    for token in tokens:
        if token and set(token) <= set("();<>|&"):
            if strict and token not in OPERATORS:
                return None
            parts.append(current)
            current = []
        else:
            current.append(token)
    parts.append(current)
    return [" ".join(p) for p in parts if p]


def command_prefix(command: str) -> str | None:
    """What [a]lways remembers for a shell command: its program and subcommand ("git status", "npm run test",
    "python -m pytest", "pytest"); None when it cannot be narrowed safely (wrappers, inline code, pipelines)."""
    parts = simple_commands(command)
    if not parts or len(parts) != 1:
        return None
    words = parts[0].split(" ")
    program = words[0]
    if "=" in program or program in WRAPPERS or program.split("/")[-1] in WRAPPERS:
        return None
    rest = words[1:]
    if program.split("/")[-1] in INTERPRETERS:
        if not rest or rest[0] in INLINE_CODE:
            return None
        return " ".join(words[:3]) if rest[0] == "-m" and len(rest) > 1 else " ".join(words[:2])
    if rest and SUBCOMMAND.fullmatch(rest[0]):
        keep = 3 if program in RUNNERS and rest[0] in ("run", "exec", "x") and len(rest) > 1 else 2
        return " ".join(words[:keep])
    return program


def _real(raw: str, cwd: Path) -> Path | None:
    """Where a path argument really leads (symlinks followed), or None when it cannot be resolved."""
    try:
        path = Path(os.path.expanduser(raw.strip() or "."))
        return (path if path.is_absolute() else cwd.resolve() / path).resolve()
    except (OSError, RuntimeError, ValueError):
        return None


def outside(args: dict, cwd: Path, paths: list = ()) -> list[str]:
    """The paths a call names (its path arguments) or will change that lead outside the working folder."""
    root = cwd.resolve()
    named = [v for key in PATH_KEYS for v in (args.get(key) if isinstance(args.get(key), list) else [args.get(key)])]
    found = []
    for raw in [*named, *map(str, paths)]:
        if isinstance(raw, str) and raw:
            real = _real(raw, cwd)
            if real is None or not real.is_relative_to(root):
                found.append(raw)
    return found


def _url_covers(pattern: str, url: str) -> bool:
    """A URL glob matched part by part, so the `*` of `https://*.python.org/*` covers a host name and nothing
    else (not `https://evil.example/?.python.org/`); a URL with a user name before its host is never covered."""
    try:
        want, got = urllib.parse.urlsplit(pattern), urllib.parse.urlsplit(url.strip())
        host = (got.hostname or "") + (f":{got.port}" if got.port else "")
    except ValueError:
        return False
    if not got.hostname or "@" in got.netloc:
        return False
    path = (got.path or "/") + (f"?{got.query}" if got.query else "")
    wanted = (want.path or "/") + (f"?{want.query}" if want.query else "")
    return (fnmatch.fnmatchcase(got.scheme.lower(), want.scheme.lower())
            and fnmatch.fnmatchcase(host, want.netloc.lower()) and fnmatch.fnmatchcase(path, wanted))


def _origin_glob(url: str) -> str | None:
    """"scheme://host[:port]/*" for a URL: an [a]lways for a web tool covers its origin, not the web."""
    parts = urllib.parse.urlsplit(url.strip() if "://" in url else "https://" + url.strip())
    if not parts.hostname or "@" in parts.netloc:
        return None
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}/*"


@dataclass
class Permissions:
    """The settings' allow and deny rules plus what the user approved with [a]lways in this session."""

    allow: list[Rule] = field(default_factory=list)
    deny: list[Rule] = field(default_factory=list)
    always: list[Rule] = field(default_factory=list)
    cwd: Path | None = None  # the working folder: rules never cover a path outside it

    @classmethod
    def from_rules(cls, allow: list[str], deny: list[str], cwd: Path | None = None) -> "Permissions":
        """Rules from the settings' allow and deny lists."""
        pick = lambda rules: [Rule.parse(r) for r in rules if isinstance(r, str) and r.strip()]
        return cls(pick(allow), pick(deny), cwd=cwd)

    def decide(self, tool_name: str, args: dict, paths: list = ()) -> tuple[Decision, str]:
        """("deny", the rule), ("allow", the rule) or ("ask", ""); paths: those the call says it will change."""
        forms = self._path_forms(args)
        for form in forms:
            rule = self._match(self.deny, tool_name, form, deny=True)
            if rule is not None:
                return "deny", str(rule)
        if self.cwd is not None and outside(args, self.cwd, paths):
            return "ask", ""
        rule = self._match(self.allow + self.always, tool_name, forms[-1], deny=False)
        return ("allow", str(rule)) if rule is not None else ("ask", "")

    def _path_forms(self, args: dict) -> list[dict]:
        """The arguments as given, and with a path subject as it really is relative to the working folder."""
        raw = args.get("path")
        if self.cwd is None or not isinstance(raw, str) or any(isinstance(args.get(k), str) for k in ("command", "url")):
            return [args]
        real = _real(raw, self.cwd)
        root = self.cwd.resolve()
        if real is None or not real.is_relative_to(root):
            return [args]
        return [args, {**args, "path": real.relative_to(root).as_posix() or "."}]

    def _match(self, rules: list[Rule], tool_name: str, args: dict, deny: bool) -> Rule | None:
        rules = [r for r in rules if r.tool == tool_name]
        if not rules:
            return None
        text = subject(args)
        if not deny and SHELL_KEY in args:
            exact = next((r for r in rules if r.pattern is not None and r.pattern == text), None)
            if exact is not None:  # an [a]lways for one exact command
                return exact
        whole = [r for r in rules if r.pattern is None or (text is not None and r.covers(text))]
        if whole and (deny or SHELL_KEY not in args or all(r.pattern is None for r in whole)):
            return whole[0]
        if text is None or SHELL_KEY not in args:
            return None
        parts = simple_commands(text, strict=not deny)
        if not parts:
            return None
        found = [next((r for r in rules if r.covers(p)), None) for p in parts]
        if deny:
            return next((r for r in found if r is not None), None)
        return found[0] if all(found) else None

    def remember(self, tool_name: str, args: dict) -> str:
        """Remember an [a]lways answer as narrowly as the call allows; returns what is now approved."""
        text = subject(args)
        if SHELL_KEY in args and isinstance(text, str):
            prefix = command_prefix(text)
            rule = Rule(tool_name, f"{prefix} *") if prefix else Rule(tool_name, text)
            shown = f"{tool_name}: {prefix} …" if prefix else f"this exact {tool_name} command"
        elif "url" in args and isinstance(text, str) and _origin_glob(text):
            rule = Rule(tool_name, _origin_glob(text))
            shown = f"{tool_name}: {rule.pattern}"
        else:
            rule, shown = Rule(tool_name), f"every {tool_name} call"
        self.always.append(rule)
        return shown
