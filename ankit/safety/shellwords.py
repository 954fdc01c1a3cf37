"""What a shell line runs, read the way the policy needs it: every simple command, nested ones included.

A small scanner (not a shell): quotes, backslashes, `$(...)`, backticks (inside double quotes too), `${...}`,
`<(...)`, subshells, operators and redirections. Wrappers that run their arguments (`env`, `sudo`, `xargs`,
`timeout`, `sh -c STRING`, `find -exec`, ...) are unwrapped, so `sudo env X=1 xargs rm` is seen as `rm`. When the
scanner cannot be sure what runs (an unclosed quote, a program named by an expansion), `Scan.sure` is False and
the policy asks instead of deciding.
"""

import re
from dataclasses import dataclass, field

OPERATOR_CHARS = ";&|\n"
PLAIN_RUN = re.compile(r"[^\s;&|<>()'\"\\$`]+")  # characters that stand for themselves in a word
DOUBLE_SPECIAL = re.compile(r'[\\$`"]')
ASSIGNMENT = re.compile(r"[A-Za-z_]\w*(\[[^]]*\])?\+?=")
RESERVED = {"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "time", "fi", "done", "esac",
            "coproc"}
SAFE_TARGET = re.compile(r"&?-?\d*|/dev/null")  # a redirection into an fd or /dev/null changes no file
SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "busybox"}
# Wrappers: program -> options that take a value (the command follows the options).
WRAPPERS = {
    "env": {"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}, "sudo": {"-u", "-g", "-C", "-h", "-p", "-r",
    "-t", "-U", "-D", "-R", "-T"}, "doas": {"-u", "-C"}, "xargs": {"-n", "-I", "-i", "-d", "-L", "-l", "-P", "-s",
    "-E", "-e", "-a", "--max-args", "--delimiter", "--arg-file", "--max-procs"}, "nohup": set(), "time": {"-f", "-o"},
    "exec": {"-a"}, "command": set(), "builtin": set(), "setsid": set(), "stdbuf": {"-i", "-o", "-e"},
    "nice": {"-n", "--adjustment"}, "ionice": {"-c", "-n", "-p"}, "timeout": {"-s", "--signal", "-k", "--kill-after"},
    "unbuffer": set(), "chrt": set(), "taskset": set(), "flock": {"-w", "-E", "--timeout"}, "strace": {"-o", "-e",
    "-p", "-s", "-u"}, "ltrace": {"-o", "-e"}, "chroot": set(), "caffeinate": set(), "torsocks": set(),
    "proxychains": set(), "proxychains4": set(), "firejail": set(), "systemd-run": set(), "runuser": {"-u", "-g"},
    "catchsegv": set(), "valgrind": set(), "gdb": set(), "script": set(), "watch": {"-n", "-d", "--interval"},
}
TAKES_FIRST = {"timeout": 1, "chroot": 1, "flock": 1, "taskset": 1, "chrt": 1}  # positional words before the command
STRING_RUNNERS = {"eval", "watch", "ssh", "su", "script"}  # their words are joined and run as a shell line
FIND_EXEC = {"-exec", "-execdir", "-ok", "-okdir"}


@dataclass
class Scan:
    """A shell line as the policy sees it."""

    commands: list[list[str]] = field(default_factory=list)  # every simple command, nested and unwrapped ones too
    top: list[list[str]] = field(default_factory=list)  # the line's own simple commands, as written
    assignments: bool = False  # a NAME=value before a program (it can change what the program runs)
    plain: bool = True  # one simple command: no operator, substitution, subshell, file redirection or heredoc
    writes: bool = False  # a redirection into a file, or a heredoc
    sure: bool = True  # False when something could not be read; the policy then asks


def scan(line: str) -> Scan:
    """Read a shell line; nested lines ($(...), backticks, sh -c, eval) are read too, up to a depth of 8."""
    result = Scan()
    _read(line, result, 0, top=True)
    return result


def _read(line: str, result: Scan, depth: int, top: bool = False) -> None:
    if depth > 8:
        result.sure = False
        return
    reader = _Reader(line)
    segments = reader.segments()
    result.sure &= reader.sure
    result.plain &= reader.plain and len([s for s in segments if s]) <= 1 if top else False
    result.assignments |= reader.assignments
    result.writes |= reader.writes
    for nested in reader.nested:
        _read(nested, result, depth + 1)
    for words in segments:
        if top and words:
            result.top.append(words)
        _unwrap(words, result, depth)


def _unwrap(words: list[str], result: Scan, depth: int) -> None:
    """Add a simple command and whatever it runs through wrappers, shells and find -exec."""
    if depth > 8:
        result.sure = False
        return
    while words and words[0] in RESERVED:
        words = words[1:]
    if not words:
        return
    result.commands.append(words)
    program = words[0].rsplit("/", 1)[-1]
    if program != words[0]:
        result.commands.append([program, *words[1:]])
    if "$" in words[0] or any(c in words[0] for c in "*?["):
        result.sure = False  # the program is chosen when the line runs
    if _reads_code(program, words[1:]):
        result.sure = False  # a shell reading a script or its input, `source`: what runs is not on the line
    inner = _inner(program, words[1:])
    if isinstance(inner, str):
        _read(inner, result, depth + 1)
    elif inner:
        _unwrap(inner, result, depth + 1)
    for index, word in enumerate(words):
        if word in FIND_EXEC:
            rest = words[index + 1:]
            end = next((i for i, w in enumerate(rest) if w in (";", "+", "\\;")), len(rest))
            _unwrap(rest[:end], result, depth + 1)


def _reads_code(program: str, rest: list[str]) -> bool:
    """Whether a program runs code that is not on the line: a shell without -c (reading a pipe or a script),
    `source` and `.`."""
    if program in ("source", "."):
        return True
    return program in SHELLS and program != "busybox" and _shell_string(program, rest) is None

def _inner(program: str, rest: list[str]) -> list[str] | str | None:
    """What a wrapper runs: a command's words, a shell line, or None when the program is no wrapper."""
    if program == "busybox" and rest and rest[0] not in SHELLS:
        return rest  # busybox APPLET ARGS runs the applet
    if program in SHELLS:
        return _shell_string(program, rest)
    if program in STRING_RUNNERS:
        return " ".join(_after_options(program, rest, WRAPPERS.get(program, set()))) or None
    if program not in WRAPPERS:
        return None
    words = _after_options(program, rest, WRAPPERS[program])
    if program == "env":
        split = next((w for w in rest if w.startswith(("-S", "--split-string"))), None)
        if split is not None:
            return " ".join(rest[rest.index(split) + 1:]) if split in ("-S", "--split-string") else None
        while words and re.match(r"[A-Za-z_]\w*=", words[0]):
            words = words[1:]
    return words[TAKES_FIRST.get(program, 0):] or None


def _after_options(program: str, rest: list[str], valued: set[str]) -> list[str]:
    """The words after a wrapper's own options (and their values)."""
    index = 0
    while index < len(rest) and rest[index].startswith("-") and rest[index] != "-":
        word = rest[index]
        index += 1
        if word == "--":
            break
        if word in valued:
            index += 1
    return rest[index:]


def _shell_string(program: str, rest: list[str]) -> str | None:
    """The code a shell runs with -c (or bash -lc, sh -ec ...)."""
    if program == "busybox" and rest and rest[0] in SHELLS:
        rest = rest[1:]
    for index, word in enumerate(rest):
        if re.fullmatch(r"-[a-zA-Z]*c[a-zA-Z]*", word) and index + 1 < len(rest):
            return rest[index + 1]
        if not word.startswith("-"):
            return None
    return None


class _Reader:
    """One pass over a line: simple commands as words, nested lines kept aside to be read in turn."""

    def __init__(self, line: str):
        self.text, self.at = line, 0
        self.nested: list[str] = []
        self.sure = self.plain = True
        self.assignments = self.writes = False

    def segments(self) -> list[list[str]]:
        """The line's simple commands as lists of words."""
        segments, words, word, started, redirect = [], [], [], False, False
        while self.at < len(self.text):
            char = self.text[self.at]
            if char in " \t\r" or char in OPERATOR_CHARS or char in "<>()":
                text = "".join(word)
                if started and not (char in "<>" and text.isdigit() and not redirect):  # 2>: an fd number
                    words, redirect = self._end_word(words, text, redirect)
                word, started = [], False
                if char in OPERATOR_CHARS:
                    self.plain = False
                    segments.append(self._command(words))
                    words = []
                    self.at += 1
                elif char in "<>":
                    redirect = self._redirect()
                elif char == "(":
                    self.plain = False
                    self.nested.append(self._until_close(self.at + 1, "(", ")"))
                elif char == ")":
                    self.plain, self.at = False, self.at + 1
                else:
                    self.at += 1
                continue
            if char == "#" and not started:
                end = self.text.find("\n", self.at)
                self.at = len(self.text) if end < 0 else end
                continue
            word.append(self._piece())
            started = True
        if started:
            words, redirect = self._end_word(words, "".join(word), redirect)
        segments.append(self._command(words))
        return segments

    def _command(self, words: list[str]) -> list[str]:
        """A simple command's words, its leading NAME=value assignments taken off (and noted)."""
        start = 0
        while start < len(words) and ASSIGNMENT.match(words[start]):
            start += 1
        self.assignments |= start > 0
        return words[start:]

    def _end_word(self, words: list[str], word: str, redirect: bool) -> tuple[list[str], bool]:
        if redirect:
            if not SAFE_TARGET.fullmatch(word):
                self.plain, self.writes = False, True
            return words, False
        words.append(word)
        return words, False

    def _redirect(self) -> bool:
        """Step over a redirection operator; a heredoc or here-string makes the line not plain."""
        start = self.at
        while self.at < len(self.text) and self.text[self.at] in "<>&|":
            self.at += 1
        op = self.text[start:self.at]
        if self.at < len(self.text) and self.text[self.at] == "(":  # <(...) or >(...): a process substitution
            self.plain = False
            self.nested.append(self._until_close(self.at + 1, "(", ")"))
            return False
        if "<<" in op:
            self.plain, self.writes = False, True
        return True

    def _piece(self) -> str:
        """One piece of a word: a quoted string, an escaped character, an expansion or a plain character."""
        char = self.text[self.at]
        if char == "'":
            end = self.text.find("'", self.at + 1)
            if end < 0:
                self.sure, end = False, len(self.text)
            piece, self.at = self.text[self.at + 1:end], end + 1
            return piece
        if char == "\\":
            piece, self.at = self.text[self.at + 1:self.at + 2], self.at + 2
            return "" if piece == "\n" else piece
        if char == '"':
            return self._double()
        if char in "$`":
            return self._expansion()
        run = PLAIN_RUN.match(self.text, self.at)
        end = run.end() if run else self.at + 1
        piece, self.at = self.text[self.at:end], end
        return piece

    def _double(self) -> str:
        """The inside of a double-quoted string, its $(...) and backticks kept aside to be read."""
        self.at += 1
        out = []
        while self.at < len(self.text) and self.text[self.at] != '"':
            char = self.text[self.at]
            if char == "\\" and self.at + 1 < len(self.text):
                nxt = self.text[self.at + 1]
                out.append(nxt if nxt in '$`"\\' else ("" if nxt == "\n" else "\\" + nxt))
                self.at += 2
            elif char in "$`":
                out.append(self._expansion())
            else:
                special = DOUBLE_SPECIAL.search(self.text, self.at)
                end = special.start() if special else len(self.text)
                out.append(self.text[self.at:end])
                self.at = end
        if self.at >= len(self.text):
            self.sure = False
        self.at += 1
        return "".join(out)

    def _expansion(self) -> str:
        """$(...), $((...)), ${...}, backticks: their insides are read as lines of their own."""
        char = self.text[self.at]
        if char == "`":
            end = self.at + 1
            while end < len(self.text) and self.text[end] != "`":
                end += 2 if self.text[end] == "\\" else 1
            if end >= len(self.text):
                self.sure = False
            self.plain = False
            self.nested.append(re.sub(r"\\([`$\\])", r"\1", self.text[self.at + 1:end]))
            self.at = end + 1
            return "$(…)"
        nxt = self.text[self.at + 1:self.at + 2]
        if nxt in ("(", "{"):
            self.plain = False
            self.nested.append(self._until_close(self.at + 2, nxt, ")" if nxt == "(" else "}"))
            return "$(…)"
        if nxt == "'":  # $'...': ANSI-C quoting, whose escapes could spell anything
            self.at += 1
            self.plain = False
            return "$" + self._piece()
        self.at += 1
        return "$"

    def _until_close(self, start: int, open_: str, close: str) -> str:
        """The text up to the matching close (quotes respected); self.at moves past it."""
        depth, at, quote = 1, start, ""
        while at < len(self.text):
            char = self.text[at]
            if quote:
                if char == "\\" and quote == '"':
                    at += 1
                elif char == quote:
                    quote = ""
            elif char in "'\"`":
                quote = char
            elif char == "\\":
                at += 1
            elif char == open_:
                depth += 1
            elif char == close:
                depth -= 1
                if depth == 0:
                    self.at = at + 1
                    return self.text[start:at]
            at += 1
        self.sure = False
        self.at = len(self.text)
        return self.text[start:]


# What an [a]lways answer for a command covers: the program and its subcommand, found after the program's global
# options (`git --no-pager log` is `git log`). Options that take a value, per program, so the value is skipped.
GLOBAL_VALUED = {
    "git": {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env", "--exec-path",
            "--attr-source", "--list-cmds"},
    "kubectl": {"-n", "--namespace", "--context", "--cluster", "--user", "-s", "--server", "--kubeconfig", "--token",
                "--as", "--as-group", "--as-uid", "--cache-dir", "--certificate-authority", "--client-certificate",
                "--client-key", "--request-timeout", "--tls-server-name", "-v", "--v", "--log-file", "--profile",
                "--password", "--username"},
    "helm": {"-n", "--namespace", "--kube-context", "--kubeconfig", "--registry-config", "--repository-config",
             "--repository-cache", "--burst-limit"},
    "docker": {"-H", "--host", "--context", "-c", "--config", "-l", "--log-level", "--tlscacert", "--tlscert",
               "--tlskey"},
    "podman": {"--url", "-c", "--connection", "--root", "--runroot", "--log-level", "--storage-driver", "--identity"},
    "npm": {"--prefix", "-w", "--workspace", "--registry", "--userconfig", "--globalconfig", "--cache", "--loglevel",
            "--otp", "-C"},
    "pnpm": {"-C", "--dir", "-F", "--filter", "--loglevel", "--reporter"},
    "yarn": {"--cwd", "--cache-folder", "--modules-folder", "--mutex", "--network-timeout", "--registry"},
    "make": {"-C", "-f", "--file", "--makefile", "-I", "--include-dir", "-o", "--old-file", "-W", "--what-if",
             "--assume-new", "--assume-old", "--directory", "-l", "--load-average", "-O", "--output-sync", "--eval",
             "-j", "--jobs"},
    "cargo": {"--config", "-Z", "--color", "-C", "--manifest-path", "--target-dir"},
    "go": {"-C"},
    "gh": {"-R", "--repo"},
    "aws": {"--profile", "--region", "--output", "--endpoint-url", "--query", "--ca-bundle"},
    "gcloud": {"--project", "--account", "--configuration", "--format", "--verbosity"},
    "systemctl": {"-H", "--host", "-M", "--machine", "-t", "--type", "-p", "--property"},
    "pip": {"--python", "--cache-dir", "--log", "--proxy", "--retries", "--timeout", "--cert", "--client-cert",
            "--exists-action", "--trusted-host", "--root-user-action"},
    "uv": {"--directory", "--project", "--cache-dir", "--color", "--config-file"},
    "poetry": {"-C", "--directory", "-P", "--project"},
    "just": {"-f", "--justfile", "-d", "--working-directory", "--set", "--shell", "--shell-arg"},
    "terraform": set(), "dotnet": set(), "mvn": {"-f", "--file", "-s", "--settings", "-P", "-pl"},
    "gradle": {"-p", "--project-dir", "-b", "--build-file", "-I", "--init-script"},
}
GLOBAL_VALUED["pip3"] = GLOBAL_VALUED["pip"]
RUNNERS = {"npm", "pnpm", "yarn", "uv", "poetry", "pipenv", "hatch", "pdm", "bundle", "npx", "cargo", "go", "dotnet",
           "make", "just", "task", "gradle", "mvn", "docker", "kubectl", "rake", "bun", "deno"}
INTERPRETERS = {"python", "python3", "node", "deno", "bun", "ruby", "perl", "php", "lua", "Rscript", "pwsh", "julia"}
INLINE_CODE = {"-c", "-e", "--eval", "-", "-p", "--print", "-E", "-r", "--command", "-i", "--interactive"}
SUBCOMMAND = re.compile(r"[A-Za-z][\w:.-]*")
# Options that run a program or code of the caller's choosing, or point a program at settings that do (another
# repository's config, a kubeconfig with an exec plugin, an npmrc with a script shell): never covered by an
# [a]lways answer or an allow rule.
CODE_OPTIONS = {
    "*": {"--exec", "-exec", "-execdir", "-ok", "-okdir", "--upload-pack", "--receive-pack", "--rsh", "--rsync-path",
          "--to-command", "--use-compress-program", "--checkpoint-action", "--info-script", "--new-volume-script",
          "--sequence-editor", "--editor", "--pager", "--tool", "--extcmd", "--ext-diff", "--textconv", "--eval",
          "--interpreter", "--init-command", "--rcfile", "--init-file", "--template", "--config", "--config-env",
          "--exec-path", "--kubeconfig", "--userconfig", "--globalconfig", "--script-shell", "--shell", "--ssh",
          "--git-dir", "--work-tree", "--manifest-path", "--init-script", "--settings", "--file", "--makefile",
          "--directory", "--justfile", "--build-file", "--project-dir", "--prefix", "--cwd", "--dir",
          "--output", "--output-file", "--output-directory", "--log-file"},  # these write files of their choosing
    "git": {"-c", "-C", "-u", "-x", "--paginate", "--show-signature"}, "ssh": {"-o", "-F"},
    "kubectl": {"-s", "--server"}, "helm": {"--kube-apiserver"},  # these send the user's token to another server
    "scp": {"-o", "-F", "-S"}, "sftp": {"-o", "-F", "-S"},
    "rsync": {"-e"}, "tar": {"-I", "-F"}, "make": {"-C", "-f", "-I"}, "docker": {"-c"}, "npm": {"-C"},
    "pnpm": {"-C"}, "cargo": {"-C", "-Z"}, "go": {"-C"}, "poetry": {"-C", "-P"}, "just": {"-f", "-d"},
    "mvn": {"-f", "-s"}, "gradle": {"-p", "-b", "-I"}, "sed": {"-e", "-f", "--expression"},
}
CODE_WORDS = re.compile(r"exec|command|cmd|editor|pager|program|hook|proxy|shell|-pack|filter", re.IGNORECASE)
# Subcommands whose arguments are themselves code or change what later commands run: remembered exactly, never
# as "program subcommand".
EXACT_ONLY = {"git config", "git submodule", "git bisect", "git filter-branch", "git rebase", "git difftool",
              "git mergetool", "git alias", "git daemon", "git archive", "git -c", "npm exec", "npm config", "npm x",
              "npm set", "pnpm exec", "pnpm dlx", "yarn exec", "yarn dlx", "docker run", "docker exec", "docker build",
              "docker compose", "docker buildx", "kubectl exec", "kubectl run", "kubectl debug", "kubectl attach",
              "kubectl cp", "kubectl apply", "kubectl create", "kubectl patch", "kubectl replace", "kubectl plugin",
              "go run", "go generate", "go tool", "cargo run", "cargo install", "uv run", "uv tool", "poetry run",
              "pipenv run", "hatch run", "pdm run", "bundle exec", "gh extension", "gh api", "helm plugin",
              "make -f", "kubectl kustomize", "cargo script", "npm init", "npm create"}


def normalized(words: list[str]) -> list[str] | None:
    """A command with its program's global options taken out (`git -C x push` is `git push`), so a deny rule
    naming a subcommand still matches; None for a program whose global options ankit does not know."""
    program = words[0].rsplit("/", 1)[-1] if words else ""
    if program not in GLOBAL_VALUED:
        return None
    rest = _after_global_options(program, words[1:])
    return [program, *rest] if rest is not None else None


def runs_code(words: list[str]) -> bool:
    """Whether a simple command carries an option that runs code of the caller's choosing (see CODE_OPTIONS)."""
    program = words[0].rsplit("/", 1)[-1] if words else ""
    own = CODE_OPTIONS.get(program, set())
    for word in words[1:]:
        name = word.split("=", 1)[0]
        if name in CODE_OPTIONS["*"] or (name in own) or any(word.startswith(o) and len(o) == 2 for o in own):
            return True
        if name.startswith("-") and not name.startswith("--no-") and CODE_WORDS.search(name):
            return True
        if re.search(r"proxycommand|localcommand|permitlocalcommand|\balias\.", word, re.IGNORECASE):
            return True
        if program == "git" and word.startswith("!"):
            return True
        if program in ("make", "gmake", "just", "rake") and re.match(r"[A-Za-z_]\w*=", word):
            return True  # a variable given on the line (SHELL=..., CC=...) changes what the recipes run
    return program == "git" and "-p" in _global_part(words)  # -p before the subcommand: the repository's pager


def _global_part(words: list[str]) -> list[str]:
    """The options between a program and its subcommand."""
    rest = _after_global_options(words[0].rsplit("/", 1)[-1], words[1:]) or []
    return words[1:len(words) - len(rest)]


def command_key(words: list[str]) -> str | None:
    """What an [a]lways for this simple command covers: "git log", "npm run test", "python -m pytest", "pytest";
    None when it cannot be narrowed safely (wrappers, shells, inline code, options before the subcommand of a
    program whose options ankit does not know, subcommands whose arguments are code)."""
    if not words or "/" in words[0] or words[0] in WRAPPERS or words[0] in STRING_RUNNERS or words[0] in SHELLS:
        return None
    program, rest = words[0], words[1:]
    if program in INTERPRETERS or re.fullmatch(r"python3(\.\d+)?", program):
        if not rest or rest[0] in INLINE_CODE or rest[0].startswith("-") and rest[0] != "-m":
            return None
        return " ".join(words[:3]) if rest[0] == "-m" and len(rest) > 1 else " ".join(words[:2])
    rest = _after_global_options(program, rest)
    if rest is None:
        return None
    if not rest or not SUBCOMMAND.fullmatch(rest[0]):
        return program  # a program without a subcommand (pytest, ls): its arguments are its own
    key = f"{program} {rest[0]}"
    if key in EXACT_ONLY:
        return None
    if program in RUNNERS and rest[0] in ("run", "exec", "x", "run-script") and len(rest) > 1:
        return f"{key} {rest[1]}"
    return key


def _after_global_options(program: str, rest: list[str]) -> list[str] | None:
    """The words after a program's global options; None when an option comes first and the program's global
    options are not known (the option could take the next word as its value)."""
    valued = GLOBAL_VALUED.get(program)
    if program.startswith("+"):
        return None
    if valued is None:
        return rest if not rest or not rest[0].startswith("-") else ([] if all(w.startswith("-") for w in rest) else None)
    index = 0
    while index < len(rest) and (rest[index].startswith("-") or (program == "cargo" and rest[index].startswith("+"))):
        word = rest[index]
        index += 1
        if word == "--":
            break
        if word in valued and (word not in ("-j", "--jobs") or index < len(rest) and rest[index].isdigit()):
            index += 1
    return rest[index:]
