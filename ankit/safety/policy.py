"""The policy engine: every decision "may this call run, and what does an answer cover" is made here (the
configuration layers its rules come from, and trust, live in ankit/settings/layers.py and trust.py).

`Policy.decide`, `Policy.remember`: deny rules first, matched against every command a shell line
runs (inside `$(...)`, backticks, double quotes, after `;` `&&` `|`, in subshells, through `env`, `sudo`,
`xargs`, `sh -c`; see safety/shellwords.py); when the line cannot be read surely and a deny rule could apply, the
call is asked (refused under --yes). Then the sandbox's step (safety/sandbox.py: a refusal in plan mode), ask
rules, a command that runs confined in the sandbox (unasked), paths outside the working folder (asked), allow
rules and [a]lways answers. An [a]lways answer is remembered in the narrowest form that still helps and `coverage`
says exactly what it covers: a command's program and subcommand after its global options (`git --no-pager
log` -> `git log`), never a call with an option that runs code (`git -c`, `--exec`, `-o ProxyCommand`), an
environment assignment or a substitution; for HTTP the origin and the method class (reading or writing), never a
request whose headers or body expand a secret (`${TOKEN}`); for a tool whose effect outlives the session
(memory, notes, routines, MCP settings: `lasting`) or that runs the program it is given (run_code) only that exact
call (safety/grants.py).

A rule is "TOOL" (every call of it) or "TOOL: PATTERN", a glob matched against the call's subject: the command of
a shell tool, else its url, path, query or name. A path is matched as given and as it really is inside the
working folder (`docs/../.env` and a link to .env are both `.env`).
"""

import fnmatch
import json
import os
import re
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ankit.records import UNREAD_PROGRAM, Touches
from ankit.safety import grants, pathrules, sandbox
from ankit.safety.grants import Grant, carries_secret, describe, real as _real
from ankit.safety.pathrules import PATH_KEYS
from ankit.safety.programs import command_key, normalized, runs_code
from ankit.safety.shellwords import scan

SUBJECT_KEYS = ("command", "url", "path", "query", "name")
SHELL_KEY = "command"
COMMAND_TOOLS = ("run_command", "job_start")  # rules over these are rules over the programs a call runs
PATH_RULE = re.compile(r"(Read|Edit|Write)\((.*)\)", re.S)


@dataclass
class Rule:
    """One parsed rule: a tool name and an optional glob over the call's subject."""

    tool: str
    pattern: str | None = None

    @classmethod
    def parse(cls, text: str) -> "Rule":
        """"TOOL", "TOOL: GLOB", or a path rule "Read(GLOB)", "Edit(GLOB)", "Write(GLOB)" (pathrules.py)."""
        shaped = PATH_RULE.fullmatch(str(text).strip())
        if shaped is not None:
            glob = shaped[2].strip().removeprefix("./") or "*"
            return cls(pathrules.KINDS[shaped[1].lower()], os.path.expanduser(glob) if glob[:2] == "~/" else glob)
        name, sep, pattern = str(text).partition(":")
        return cls(name.strip(), pattern.strip() if sep else None)

    def binds(self, tool: str, group: str = "") -> bool:
        """Whether the rule names this tool: by its name, or as every tool of its MCP server (`mcp__server`,
        `mcp__server__*`; the server told by the tool's group "mcp:NAME" where known). A rule over one tool that
        runs a shell line binds the other too: `run_command: rm *` refuses `job_start` of `rm -rf x`."""
        if self.tool == tool or (self.tool in COMMAND_TOOLS and tool in COMMAND_TOOLS):
            return True
        server = self.tool[len("mcp__"):].removesuffix("__*") if self.tool.startswith("mcp__") else ""
        if not server or "*" in server:
            return False
        if group.startswith("mcp:"):
            return server in (group[4:], re.sub(r"[^A-Za-z0-9_-]", "_", group[4:]))
        return "__" not in server and tool.startswith(f"mcp__{server}__")

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
        if self.tool in (pathrules.READ, pathrules.EDIT):
            return f"{self.tool[:-2].capitalize()}({self.pattern})"
        return self.tool if self.pattern is None else f"{self.tool}: {self.pattern}"


@dataclass
class Verdict:
    """A decision: "allow", "deny" or "ask"; the rule that decided it, and why, for the user and the model."""

    decision: str
    rule: str = ""
    why: str = ""
    withheld: tuple[str, ...] = ()  # paths the call reads that the rules deny: left out of its result


def subject(args: dict) -> str | None:
    """What rules are matched against: the command, url, path, query or name argument."""
    for key in SUBJECT_KEYS:
        if isinstance(args.get(key), str):
            return args[key]
    return None


def _url_covers(pattern: str, url: str) -> bool:
    """A URL glob matched part by part, so the `*` of `https://*.python.org/*` covers a host name and nothing
    else; a URL with a user name before its host is never covered."""
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


def _rules(texts) -> list[Rule]:
    return [Rule.parse(r) for r in texts or [] if isinstance(r, str) and r.strip()]


@dataclass
class Policy:
    """The settings' allow, ask and deny rules, the [a]lways answers of this session, and --yes."""

    allow: list[Rule] = field(default_factory=list)
    deny: list[Rule] = field(default_factory=list)
    ask: list[Rule] = field(default_factory=list)
    always: list[Grant] = field(default_factory=list)
    cwd: Path | None = None  # the working folder: rules never cover a path outside it
    yes: bool = False  # --yes: a call the policy is unsure about is refused, since nobody sees it

    @classmethod
    def from_rules(cls, allow: list[str], deny: list[str], cwd: Path | None = None, ask: list[str] = (),
                   yes: bool = False) -> "Policy":
        """Rules from the settings' allow, deny and ask lists."""
        return cls(_rules(allow), _rules(deny), _rules(ask), cwd=cwd, yes=yes)

    @contextmanager
    def allowing(self, rules: list[str]) -> Iterator[None]:
        """These allow rules while inside (a custom command's allowed-tools, for its turn); deny and ask rules,
        the sandbox's refusals and paths outside the folder still come first, as with any allow rule."""
        added = _rules(rules)
        self.allow = self.allow + added
        try:
            yield
        finally:
            self.allow = [rule for rule in self.allow if not any(rule is a for a in added)]

    def decide(self, tool: str, args: dict, paths: list = (), exact: bool = False,
               step: sandbox.Verdict | None = None, touched: Touches | None = None, group: str = "") -> Verdict:
        """Whether a call runs unasked ("allow"), is refused ("deny") or is asked; paths: those it will change
        (when touched, what the call declares it reads and changes, says nothing); step: the sandbox's say on it
        (safety/sandbox.py: decide), taken after the deny rules; group: the tool's, for rules over an MCP server.
        A read the rules deny of a tool that withholds is left out (Verdict.withheld), not the call refused."""
        touched = touched or Touches(changes=tuple(map(str, paths)), declared=False)
        if self.cwd is not None:
            touched = pathrules.of_call(touched, args, self.cwd)
        if self.cwd is not None and isinstance(args.get(SHELL_KEY), str) and self.binds_paths(tool, group):
            where = self.cwd / str(args["cwd"]) if isinstance(args.get("cwd"), str) else self.cwd
            named = pathrules.named_by_line(args[SHELL_KEY], where)
            touched = Touches(touched.reads + named, touched.changes, touched.runs, touched.reaches,
                              touched.withholds, touched.declared)
        verdict, withheld = self._by_paths(tool, group, args, touched, self.deny, "deny")
        if verdict is None:
            verdict = self._decide(tool, args, touched, exact, step, group)
        return Verdict(verdict.decision, verdict.rule, verdict.why, tuple(withheld))

    def binds_paths(self, tool: str, group: str = "") -> bool:
        """Whether any rule could bind a path or program this tool's call declares (a Read or Edit rule, an allow
        rule of those, a rule of the tool's own with a glob, a deny or ask rule over commands): only then is the
        declaration worth making (a search declares every file it would open)."""
        kinds = (pathrules.READ, pathrules.EDIT)
        return any(r.tool in kinds or (r.pattern and r.binds(tool, group))
                   for r in (*self.deny, *self.ask, *self.allow)) or \
            any(r.tool in COMMAND_TOOLS for r in (*self.deny, *self.ask))

    def _decide(self, tool: str, args: dict, touched: Touches, exact: bool, step: sandbox.Verdict | None,
                group: str) -> Verdict:
        forms = self._path_forms(args)
        for form in forms:
            verdict = self._denied(tool, form, group)
            if verdict is not None:
                return verdict
        step = step or sandbox.Verdict()
        if step.action == "refuse":
            return Verdict("deny", "", step.reason)
        unread = self._unread(touched, step)
        if unread is not None:
            return unread
        asked = self._matches(self.ask, tool, forms[-1], deny=True, group=group)
        if asked is not None:
            return Verdict("ask", str(asked))
        doubt = self._doubted(self.ask, tool, forms[-1], group)
        if doubt is not None:
            return doubt
        asked = self._by_paths(tool, group, args, touched, self.ask, "ask")[0]
        if asked is not None:
            return asked
        if step.action == "sandboxed":
            return Verdict("allow", "", "it runs confined in the sandbox")
        if self.cwd is not None and outside(args, self.cwd, touched.changes):
            return Verdict("ask", why="it names a path outside the working folder")
        if step.action == "accepted" and self._edits_here(touched):
            return Verdict("allow", "", step.reason)
        rule = self._matches(self.allow, tool, forms[-1], deny=False, group=group)
        if rule is None and self.cwd is not None:
            rule = pathrules.all_allowed(self.allow, touched, self.cwd)
        if rule is not None:
            return Verdict("allow", str(rule))
        grant = next((g for g in self.always if self._granted(g, tool, forms[-1], exact, touched.changes)), None)
        return Verdict("allow", describe(grant)) if grant is not None else Verdict("ask")

    def _edits_here(self, touched: Touches) -> bool:
        """Whether accept-edits covers a call: it names the paths it changes, runs and reaches nothing, and every
        path lies in the working folder and nowhere a program runs from later (.git, .claude, .envrc, ...)."""
        if self.cwd is None or not touched.changes or touched.runs or touched.reaches:
            return False
        root = self.cwd.resolve()
        inside = [Path(os.path.realpath(p)) for p in touched.changes]
        return all(p.is_relative_to(root) and not grants.runs_later(str(p.relative_to(root)), self.cwd) for p in inside)

    def _by_paths(self, tool: str, group: str, args: dict, touched: Touches, rules: list[Rule],
                  decision: str) -> tuple[Verdict | None, list[str]]:
        """A verdict from the deny (or ask) rules over the paths the call declares it changes and reads; the
        reads of a withholding tool the rules bind are returned instead, to be left out."""
        if self.cwd is None or not rules:
            return None, []
        own = [] if any(isinstance(args.get(k), str) for k in (SHELL_KEY, "url")) else [
            r for r in rules if r.pattern and r.binds(tool, group)]
        found = pathrules.first(rules, pathrules.EDIT, touched.changes, self.cwd, own)
        if found is None and touched.withholds and decision == "deny":
            return None, pathrules.bound(rules, pathrules.READ, touched.reads, self.cwd, own)
        found = found or pathrules.first(rules, pathrules.READ, touched.reads, self.cwd, own)
        if found is None:
            return None, []
        return Verdict(decision, str(found.rule), f"it {'reads' if found.read else 'changes'} {found.path}"), []

    def _denied(self, tool: str, args: dict, group: str = "") -> Verdict | None:
        """A deny verdict for one form of the arguments; an unsure reading of a command a deny rule could
        match is asked, or refused under --yes."""
        rule = self._matches(self.deny, tool, args, deny=True, group=group)
        if rule is not None:
            return Verdict("deny", str(rule))
        return self._doubted(self.deny, tool, args, group)

    def _doubted(self, rules: list[Rule], tool: str, args: dict, group: str = "") -> Verdict | None:
        """For a command these deny or ask rules could apply to without ankit being able to tell (a line it
        cannot read surely): asked, or refused under --yes, saying why; None otherwise."""
        rules = [r for r in rules if r.binds(tool, group) and r.pattern]
        text = subject(args)
        if not rules or SHELL_KEY not in args or not isinstance(text, str):
            return None
        found = scan(text)
        doubt, reason = _doubt(found, text, rules)
        if doubt is None:
            return None
        why = f"ankit cannot tell for sure whether the rule {doubt!r} applies to this command ({reason})"
        if self.yes:
            return Verdict("deny", doubt, why + "; write it plainly (no expansions, quoting tricks or inline code)")
        return Verdict("ask", doubt, why)

    def _unread(self, touched: Touches, step: sandbox.Verdict) -> Verdict | None:
        """A program ankit cannot read (run_code's) run outside the sandbox where a deny or ask rule over commands
        exists: what it runs may be what the rule names, so it is asked, and refused under --yes, as an unsure
        shell line is."""
        if UNREAD_PROGRAM not in touched.runs or step.action == "sandboxed":
            return None
        rule = next((r for r in (*self.deny, *self.ask) if r.tool in COMMAND_TOOLS), None)
        if rule is None:
            return None
        why = f"ankit cannot tell which commands this program runs, so whether the rule {str(rule)!r} applies"
        if self.yes:
            return Verdict("deny", str(rule), why + "; run it in the sandbox, or run the commands with run_command")
        return Verdict("ask", str(rule), why)

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

    def _matches(self, rules: list[Rule], tool: str, args: dict, deny: bool, group: str = "") -> Rule | None:
        """The first rule matching the call: for a deny (or ask) rule, any command the line runs; for an allow
        rule, every command of a plain line, none of them running code of its own choosing."""
        rules = [r for r in rules if r.binds(tool, group)]
        text = subject(args)
        if not rules:
            return None
        if SHELL_KEY not in args or not isinstance(text, str):
            if not deny and "url" in args and carries_secret(args):
                rules = [r for r in rules if r.pattern is not None]  # "http_request" alone never sends a secret
            return next((r for r in rules if r.pattern is None or (text is not None and r.covers(text))), None)
        whole = next((r for r in rules if r.pattern is None or r.covers(text)), None)
        if deny:
            if whole is not None:
                return whole
            forms = [" ".join(f) for words in scan(text).commands for f in (words, normalized(words)) if f]
            return next((r for form in forms for r in rules if r.pattern and r.covers(form)), None)
        if whole is not None and whole.pattern is None:
            return whole
        return self._allowed(rules, text)

    @staticmethod
    def _allowed(rules: list[Rule], text: str) -> Rule | None:
        found = scan(text)
        if not found.sure or found.assignments or found.writes or not found.top or found.commands != found.top:
            return None  # substitutions, subshells, wrappers running other commands: asked
        if not _plain_enough(text) or any(runs_code(words) for words in found.top):
            return None
        matched = [next((r for r in rules if r.pattern and r.covers(" ".join(w))), None) for w in found.top]
        return matched[0] if all(matched) else None

    def _granted(self, grant: Grant, tool: str, args: dict, exact: bool, paths: tuple = ()) -> bool:
        """Whether an [a]lways answer covers this call (safety/grants.py)."""
        return grants.covers(grant, tool, args, exact, paths, self.cwd)

    def grant(self, tool: str, args: dict, exact: bool = False) -> Grant:
        """The narrowest [a]lways answer that still helps for this call (exact: only this call, as for a tool
        whose effect outlives the session or that runs the program it is given)."""
        return grants.make(tool, args, exact, self.cwd)

    def coverage(self, tool: str, args: dict, exact: bool = False) -> str:
        """What an [a]lways answer for this call would cover, as the approval states it before the answer."""
        return describe(self.grant(tool, args, exact))

    def remember(self, tool: str, args: dict, exact: bool = False) -> str:
        """Remember an [a]lways answer as narrowly as the call allows; returns what it covers."""
        grant = self.grant(tool, args, exact)
        self.always.append(grant)
        return describe(grant)


def _plain_enough(text: str) -> bool:
    """No heredoc, newline continuation tricks or here-strings: a line an allow rule can vouch for."""
    return "<<" not in text and "\n" not in text.strip()


def _doubt(found, text: str, rules: list[Rule]) -> tuple[str | None, str]:
    """The rule ankit cannot rule out, and why: the line was not read surely; a named program's name is a word of
    the line that no command runs as far as ankit can tell (a wrapper it does not know); a program is run by
    its path (what runs is that file, which the line may have made); an option runs code; or the named program
    is run with options that could hide its subcommand, or words the shell expands (`git $x` for `git push *`)."""
    names = {r.pattern.split()[0].rsplit("/", 1)[-1]: r for r in rules if r.pattern.split()}
    first = str(next(iter(names.values()), rules[0]))
    if not found.sure:
        return first, found.why
    seen = {words[0].rsplit("/", 1)[-1] for words in found.commands if words}
    tokens = {t for piece in [text, *(w for c in found.commands for w in c)] for t in re.split(r"[^\w.+-]+", piece)}
    for name, rule in names.items():
        if "*" not in name and name not in seen and name in tokens:
            return str(rule), f"{name} is a word of the line but not a command ankit sees it run"
    for words in found.commands:
        program = words[0].rsplit("/", 1)[-1]
        if "/" in words[0] and (not words[0].startswith(SYSTEM_BIN) or ".." in words[0].split("/")):
            return first, f"{words[0]} runs whatever that file is"
        if program != "find" and runs_code(words):  # `git -c alias.x='!...'`: code on the line no scanner reads
            return first, f"{program} with an option that runs code"
        if program in names and (_hidden_subcommand(words, names[program])
                                 or (len(names[program].pattern.split()) > 1 and words in found.loose)):
            return str(names[program]), f"the words after {program} are not all as written"
    return None, ""


SYSTEM_BIN = ("/bin/", "/usr/bin/", "/usr/local/bin/", "/sbin/", "/usr/sbin/")


def _hidden_subcommand(words: list[str], rule: Rule) -> bool:
    """Whether a rule naming a subcommand (`git push *`) could match this command once options ankit cannot
    place are skipped: an unknown program with an option before its other words."""
    wanted = rule.pattern.split()
    return (len(wanted) > 1 and normalized(words) is None and len(words) > 1 and words[1].startswith("-")
            and any(w == wanted[1] for w in words[2:]))
