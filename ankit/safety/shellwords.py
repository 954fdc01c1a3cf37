"""What a shell line runs, read the way the policy needs it, and whether the reading is sure.

Known-safe, not known-bad: a line is *sure* only when it uses what this scanner models completely (simple
commands, pipes, lists, newlines, subshells, `{ }`, if/while/until/for, redirections, quotes, and `$(...)` or
backticks whose insides are sure in turn) and every word in a command position is a literal after quote
removal. Anything else makes `Scan.sure` False and `Scan.why` says what: an expansion, escape or glob in a command
word; brace expansion; arithmetic; ANSI-C quoting; aliases, functions, traps, eval, source, exec and the builtins
that change what later commands run; an assignment not known to be inert (BASH_ENV, LD_PRELOAD ...); a
here-document feeding a shell or an interpreter, or one whose text is expanded; inline code of an interpreter.
Wrappers that run their arguments (`env`, `sudo`, `xargs`, `timeout`, `sh -c STRING`, `find -exec`, ...) are
unwrapped, so `sudo env X=1 xargs rm` is seen as `rm`. A real shell is the test oracle (tests/shell_oracle.py).
"""

import re
from dataclasses import dataclass, field

from ankit.safety import wrappers
from ankit.safety.envnames import inert
from ankit.safety.programs import (FIND_EXEC, INTERPRETERS, NAME, POSIX_SHELLS, SHELLS, STRING_RUNNERS,
                                   TAKES_FIRST, WRAPPER_SHELLS, WRAPPERS, has_option, options_end, settable,
                                   shell_code, unmodeled)

BREAK = frozenset(" \t\n;&|<>()")
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
FD_REDIRECT = re.compile(r"(\d+|\{[A-Za-z_]\w*\})(?=[<>])")
REDIRECT = re.compile(r"&>>|&>|<<<|<<-|<<|<>|<&|<\(|>>|>&|>\||>\(|<|>")
PARAMETER = re.compile(r"\$([A-Za-z_]\w*|\d|[@*#?$!-])")
SAFE_TARGET = re.compile(r"-|\d+|/dev/null")  # a redirection into an fd or /dev/null changes no file
SKIPPED = {"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "fi", "done"}
UNMODELED = {"case", "esac", "select", "function", "[[", "]]", "coproc", "in"}
MAX_DEPTH = 8


@dataclass
class Scan:
    """A shell line as the policy sees it."""

    commands: list[list[str]] = field(default_factory=list)  # every simple command, nested and unwrapped ones too
    top: list[list[str]] = field(default_factory=list)  # the line's own simple commands, as written
    loose: list[list[str]] = field(default_factory=list)  # commands with a word the shell expands ($x, *, ~)
    assignments: bool = False  # a NAME=value before a program (it can change what the program runs)
    plain: bool = True  # one simple command: no operator, substitution, subshell, file redirection or heredoc
    writes: bool = False  # a redirection into a file, or a heredoc
    sure: bool = True  # False when the line uses something the scanner does not model; the policy then asks
    why: str = ""  # the first thing that made the reading unsure

    def doubt(self, reason: str) -> None:
        if self.sure:
            self.sure, self.why = False, reason


def scan(line: str) -> Scan:
    """Read a shell line; nested lines ($(...), backticks, sh -c, eval) are read too, up to a depth of 8."""
    result = Scan()
    _Parser(line, result, 0).read(top=True)
    return result


@dataclass
class _Word:
    """One word: its text after quote removal (expansions kept as written) and how it was spelled."""

    text: str = ""
    exact: bool = True  # no expansion, glob or tilde: the shell passes the text as it is
    escaped: bool = False  # a backslash outside quotes
    quoted: bool = False
    brace: bool = False  # an unquoted { with a , or .. after it: brace expansion
    name: str = ""  # NAME of a NAME=value word
    subscript: bool = False  # NAME[...]=value


@dataclass
class _Command:
    """The words of the simple command being read."""

    words: list[_Word] = field(default_factory=list)
    assigns: list[_Word] = field(default_factory=list)
    loop: list[_Word] | None = None  # the words after `for`, which are no command
    heredoc: bool = False


class _Parser:
    """One pass over a line, the way bash and sh split it; what it cannot model makes the scan unsure."""

    def __init__(self, text: str, result: Scan, depth: int):
        self.text, self.at, self.result, self.depth = text, 0, result, depth
        self.nest = 0
        self.heredocs: list[tuple[str, bool, bool]] = []  # (end line, tabs stripped, text expanded)

    def read(self, top: bool) -> None:
        if self.depth > MAX_DEPTH:
            return self.result.doubt("commands nested too deeply")
        if CONTROL.search(self.text):
            self.result.doubt("a control character")
        self._list("", top)

    def _list(self, closer: str, top: bool) -> None:
        """Commands up to the end of the text, or up to the closer `)` of a subshell or substitution."""
        self.nest += 1
        if self.nest > 40:
            self.result.doubt("commands nested too deeply")
            self.at = len(self.text)
        command = _Command()
        while True:
            while self.at < len(self.text) and self.text[self.at] in " \t":
                self.at += 1
            if self.at >= len(self.text) or (closer and self.text[self.at] == closer):
                self._finish(command, top)
                if self.at >= len(self.text):
                    self._end_of_text(closer)
                self.at += 1
                self.nest -= 1
                return
            if self._token(command, top, closer):
                command = _Command()

    def _end_of_text(self, closer: str) -> None:
        if closer:
            self.result.doubt("an unclosed (")
        if self.heredocs:
            self.result.doubt("a here-document without its end line")

    def _token(self, command: _Command, top: bool, closer: str) -> bool:
        """Read one token into the command; True when it ended the command."""
        char, two = self.text[self.at], self.text[self.at:self.at + 2]
        if char == "#":
            end = self.text.find("\n", self.at)
            self.at = len(self.text) if end < 0 else end
        elif two in ("|&", ";;", ";&"):
            self.result.doubt(f"{two!r}, which bash and sh read differently (or a case statement)")
            self.at += 2
            return self._finish(command, top) or True
        elif two == "&>":
            self._redirect(command)
        elif char in ";&|\n":
            self._finish(command, top)
            self.result.plain = False
            self.at += 2 if two in ("&&", "||") else 1
            if char == "\n":
                self._bodies(closer)
            return True
        elif char == "(":
            self._group(command)
        elif char == ")":
            self.result.doubt("an unmatched )")
            self.at += 1
        elif char in "<>" or FD_REDIRECT.match(self.text, self.at):
            self._redirect(command)
        else:
            self._place(command, self._word(), top)
        return False

    def _group(self, command: _Command) -> None:
        """A subshell `( ... )`; after a word it is a function definition."""
        self.result.plain = False
        if command.words or command.assigns or command.loop is not None:
            self.result.doubt("a function definition")
        elif self.text[self.at + 1:self.at + 2] == "(":
            self.result.doubt("arithmetic ((...))")
        self.at += 1
        self._list(")", False)

    def _place(self, command: _Command, word: _Word, top: bool) -> None:
        """A word: an assignment, a keyword, the command's name or an argument."""
        if command.loop is not None:
            command.loop.append(word)
        elif command.words:
            command.words.append(word)
        elif word.name:
            command.assigns.append(word)
        elif word.quoted or word.escaped or not word.exact or command.assigns:
            command.words.append(word)
        elif word.text in SKIPPED:
            self.result.plain = False
        elif word.text == "for":
            self.result.plain, command.loop = False, []
        elif word.text in UNMODELED:
            self.result.doubt(f"'{word.text}', which ankit's scanner does not read")
            self.result.plain = False
        else:
            command.words.append(word)

    def _finish(self, command: _Command, top: bool) -> None:
        """The command is complete: check its assignments and read what it runs."""
        if command.loop is not None:
            if not command.loop or not settable(command.loop[0].text):
                self.result.doubt("a for loop over a variable ankit does not know to be inert")
            return
        for word in command.assigns:
            if word.subscript or (not inert(word.name) and (command.words or not settable(word.name))):
                self.result.doubt(f"the assignment {word.name}=, which is not known to be inert")
        if not command.words:
            return
        self.result.assignments |= bool(command.assigns)
        if command.heredoc and _program(command.words[0].text) in SHELLS | INTERPRETERS:
            self.result.doubt(f"a here-document feeding {command.words[0].text}")
        self._command(command.words, top, self.depth)

    def _command(self, words: list[_Word], top: bool, depth: int) -> None:
        """Record a simple command and read whatever it runs through wrappers, shells and find -exec."""
        if depth > MAX_DEPTH:
            return self.result.doubt("commands nested too deeply")
        texts = [w.text for w in words]
        first, program = words[0], _program(texts[0])
        self.result.commands.append(texts)
        if program != texts[0]:
            self.result.commands.append([program, *texts[1:]])
        if top:
            self.result.top.append(texts)
        if not all(w.exact for w in words):
            self.result.loose.append(texts)
        if any(w.brace for w in words):
            self.result.doubt("brace expansion")
        if not first.exact or first.escaped:
            self.result.doubt(f"the program {first.text!r} is named by an expansion, an escape or a glob")
        reason = unmodeled(program, texts[1:]) if "/" not in texts[0] or program in SHELLS | INTERPRETERS else ""
        if reason:
            self.result.doubt(reason)
        self._wrapped(program, words[1:], depth)
        for index, word in enumerate(texts):
            if word in FIND_EXEC:
                rest = words[index + 1:]
                end = next((i for i, w in enumerate(rest) if w.text in (";", "+")), len(rest))
                if rest[:end] and (rest[0].text == "{}" or _runs_arguments(rest[0].text)
                                   and any("{}" in w.text for w in rest[1:end])):
                    self.result.doubt(f"{word} running what file names spell")
                if rest[:end]:
                    self._command(rest[:end], False, depth + 1)
                    self.result.loose.append([w.text for w in rest[:end]])  # {} becomes file names

    def _wrapped(self, program: str, rest: list[_Word], depth: int) -> None:
        """Read what a wrapper, a shell's -c or a string runner runs."""
        texts = [w.text for w in rest]
        if program == "busybox" and texts and texts[0] not in SHELLS:
            return self._command(rest, False, depth + 1)
        if program in SHELLS:
            shell = texts[0] if program == "busybox" and texts else program
            code = shell_code(texts[1:] if program == "busybox" and texts else texts)
            if code is None:
                return self.result.doubt(f"{shell} reading its code from a file or its input")
            if shell not in POSIX_SHELLS:
                self.result.doubt(f"code in the language of {shell}, which is not sh")
            return self._code(rest[code + (program == "busybox")], depth)
        if program in STRING_RUNNERS:
            start = options_end(texts, WRAPPERS.get(program, set()))
            if program == "watch" and has_option(texts[:start], {"-x", "--exec"}):
                self.result.doubt("watch -x, which runs its words as they are, not as a line")
            return self._code(_Word(" ".join(texts[start:]), all(w.exact for w in rest[start:])), depth)
        if program in WRAPPERS:
            self._through(program, rest, texts, depth)
        return None

    def _through(self, program: str, rest: list[_Word], texts: list[str], depth: int) -> None:
        """Read the command a wrapper such as env, flock, xargs or timeout starts, as wrappers.plan reads it."""
        plan = wrappers.plan(program, texts)
        if plan.doubt:
            self.result.doubt(plan.doubt)
        if plan.code is not None:
            return self._code(rest[plan.code], depth)
        start = plan.start
        if has_option(texts[:start], WRAPPER_SHELLS.get(program, set())):
            self.result.doubt(f"{program} with an option that makes it read a string as code")
            if program == "env":
                split = [t[2:] if t.startswith("-S") else t for t in texts if t not in ("-S", "--split-string")]
                return self._code(_Word(" ".join(split)), depth)
        while program in ("env", "time") and start < len(rest) and "=" in texts[start]:  # any word with =, for env
            if not inert(texts[start].split("=", 1)[0]):
                self.result.doubt(f"the assignment {texts[start].split('=', 1)[0]}=, which is not known to be inert")
            start += 1
        if start < len(rest):
            self._command(rest[start:], False, depth + 1)
            if program == "xargs":
                self.result.loose.append(texts[start:])  # its input's words are added to the arguments
                if _runs_arguments(texts[start]):
                    self.result.doubt(f"xargs giving its input to {texts[start]}, which runs its arguments")
        elif program == "xargs":
            self.result.commands.append(["echo"])  # xargs alone runs echo, with its input's words
            self.result.loose.append(["echo"])
        return None

    def _code(self, word: _Word, depth: int) -> None:
        """A string a shell runs (sh -c, watch, ssh): read as a line of its own."""
        if not word.exact:
            self.result.doubt("a shell runs a string built by an expansion")
        _Parser(word.text, self.result, depth + 1).read(top=False)

    def _redirect(self, command: _Command) -> None:
        """A redirection: its operator and target; a heredoc's text is read after the line ends."""
        fd = FD_REDIRECT.match(self.text, self.at)
        if fd:
            if fd.group(1).startswith("{") or len(fd.group(1)) > 1:
                self.result.doubt("a named file descriptor or one above 9 (sh reads 12>f as the word 12 and >f)")
            self.at = fd.end()
        op = REDIRECT.match(self.text, self.at).group(0)
        self.at += len(op)
        if op in ("<(", ">("):
            self.result.doubt("a process substitution")
            self.result.plain = False
            return self._list(")", False)
        while self.at < len(self.text) and self.text[self.at] in " \t":
            self.at += 1
        if self.at >= len(self.text) or self.text[self.at] in BREAK:
            return self.result.doubt("a redirection without a target")
        target = self._word()
        if op.startswith("&") and not re.match(r"[ \t]*($|[;&|\n)])", self.text[self.at:]):
            self.result.doubt("&> followed by more words (sh runs them as a command of their own)")
        if op.startswith("<<") and op != "<<<":
            if self.nest > 1:
                self.result.doubt("a here-document inside a substitution or subshell")
            command.heredoc, self.result.plain, self.result.writes = True, False, True
            self.heredocs.append((target.text, op == "<<-", not (target.quoted or target.escaped)))
        elif op in ("<&", ">&") and re.fullmatch(r"\d+-?|-", target.text) and target.exact:
            return None
        elif op in ("<&", ">&"):
            self.result.doubt(f"{op} followed by something other than a file descriptor ({target.text!r})")
            self.result.plain, self.result.writes = False, True
        elif not (SAFE_TARGET.fullmatch(target.text) and op != "<<<"):
            self.result.plain, self.result.writes = False, True
        return None

    def _bodies(self, closer: str) -> None:
        """The text of the heredocs of the line just ended: up to each one's end line."""
        if self.heredocs and closer:
            self.result.doubt("a here-document inside a substitution")
        for end, tabs, expanded in self.heredocs:
            while self.at <= len(self.text):
                stop = self.text.find("\n", self.at)
                stop = len(self.text) if stop < 0 else stop
                line, self.at = self.text[self.at:stop], stop + 1
                if (line.lstrip("\t") if tabs else line) == end:
                    break
                if expanded and ("$" in line or "`" in line):
                    self.result.doubt("a here-document whose text the shell expands")
            else:
                self.result.doubt("a here-document without its end line")
            self.at = min(self.at, len(self.text))
        self.heredocs = []

    def _word(self) -> _Word:
        """One word, up to a blank or an operator."""
        word, out = _Word(), []
        prefix, bracket, brace, prev = True, False, 0, ""
        while self.at < len(self.text) and self.text[self.at] not in BREAK:
            char, start = self.text[self.at], self.at
            if char == "'":
                out.append(self._single())
                word.quoted = True
            elif char == '"':
                out.append(self._double(word))
                word.quoted = True
            elif char == "\\":
                nxt = self.text[self.at + 1:self.at + 2]
                if nxt in ("\n", ""):
                    self.result.doubt("a line continuation")
                out.append(nxt)
                self.at, word.escaped = self.at + 2, True
            elif char in "$`":
                out.append(self._dollar(word, False))
            else:
                if char in "*?" or (char == "]" and bracket) or (char == "~" and (not out or prev in ("=", ":"))):
                    word.exact = False
                bracket |= char == "["
                brace = brace + 1 if char == "{" else max(brace - (char == "}"), 0)
                word.brace |= brace > 0 and (char == "," or self.text.startswith("..", self.at))
                if prefix and char == "=" and re.fullmatch(r"[A-Za-z_]\w*\+?", "".join(out)):
                    word.name = "".join(out).rstrip("+")
                elif prefix and char == "[" and NAME.fullmatch("".join(out)):
                    word.subscript = "=" in self.text[self.at:self.at + 200].split(" ")[0]
                    word.name = "".join(out) if word.subscript else ""
                out.append(char)
                self.at += 1
            prefix &= self.text[start] not in "'\"\\$`" and not word.name
            prev = char if self.at == start + 1 else ""
        word.text = "".join(out)
        return word

    def _single(self) -> str:
        """The inside of a single-quoted string."""
        end = self.text.find("'", self.at + 1)
        if end < 0:
            self.result.doubt("an unclosed quote")
            end = len(self.text)
        piece, self.at = self.text[self.at + 1:end], end + 1
        return piece

    def _double(self, word: _Word) -> str:
        """The inside of a double-quoted string."""
        self.at += 1
        out = []
        while self.at < len(self.text) and self.text[self.at] != '"':
            char = self.text[self.at]
            if char == "\\" and self.at + 1 < len(self.text):
                nxt = self.text[self.at + 1]
                if nxt == "\n":
                    self.result.doubt("a line continuation")
                out.append(nxt if nxt in '$`"\\\n' else "\\" + nxt)
                self.at += 2
            elif char in "$`":
                out.append(self._dollar(word, True))
            else:
                out.append(char)
                self.at += 1
        if self.at >= len(self.text):
            self.result.doubt("an unclosed quote")
        self.at += 1
        return "".join(out)

    def _dollar(self, word: _Word, quoted: bool) -> str:
        """$(...), backticks, ${...}, $NAME, $'...': what is nested is read as commands of its own."""
        start, nxt = self.at, self.text[self.at + 1:self.at + 2]
        if self.text[self.at] == "`":
            word.exact, self.result.plain = False, False
            self._backticks(quoted)
            return "$(…)"
        if nxt == "(":
            word.exact, self.result.plain = False, False
            if self.text[self.at + 2:self.at + 3] == "(":
                self.result.doubt("arithmetic $((...))")
            self.at += 2
            self._list(")", False)
            return "$(…)"
        if nxt == "{":
            word.exact = False
            return self._parameter()
        if nxt == "[":  # bash's old arithmetic $[...]
            self.result.doubt("arithmetic $[...]")
            word.exact = False
        if nxt in ("'", '"') and not quoted:
            self.result.doubt("ANSI-C or locale quoting ($'...', $\"...\")")
            self.at += 1
            return self._ansi(word) if nxt == "'" else self._double(word)
        found = PARAMETER.match(self.text, self.at)
        if found is None:
            self.at += 1
            return "$"
        word.exact, self.at = False, found.end()
        return self.text[start:self.at]

    def _ansi(self, word: _Word) -> str:
        """$'...' as bash reads it: a backslash escapes the next character, a quote among them."""
        at = self.at + 1
        while at < len(self.text) and self.text[at] != "'":
            at += 2 if self.text[at] == "\\" else 1
        if at >= len(self.text):
            self.result.doubt("an unclosed quote")
        piece, self.at = self.text[self.at + 1:at], at + 1
        word.quoted = True
        return piece

    def _parameter(self) -> str:
        """${NAME} is an expansion like $NAME; anything more (defaults, substitutions, indirection, @P) is not
        modelled, though commands nested in it are read."""
        start = self.at
        simple = re.compile(r"\$\{([A-Za-z_]\w*|\d+|[@*#?$!-])\}").match(self.text, self.at)
        if simple:
            self.at = simple.end()
            return simple.group(0)
        self.result.doubt("a parameter expansion other than ${NAME}")
        self.nest += 1
        if self.nest > 40:
            self.at = len(self.text)
        self.at, depth = self.at + 2, 1
        while self.at < len(self.text) and depth:
            char = self.text[self.at]
            if char in "$`" and (char == "`" or self.text[self.at + 1:self.at + 2] in "({"):
                self._dollar(_Word(), True)
                continue
            depth += {"{": 1, "}": -1}.get(char, 0)
            self.at += 2 if char == "\\" else 1
        self.nest -= 1
        return self.text[start:self.at]

    def _backticks(self, quoted: bool) -> None:
        """`...`: the inside, its backslashes taken off as the shell does, read as a line of its own."""
        at, inner = self.at + 1, []
        while at < len(self.text) and self.text[at] != "`":
            if self.text[at] == "\\" and at + 1 < len(self.text):
                nxt = self.text[at + 1]
                inner.append(nxt if nxt in "`$\\" or (quoted and nxt == '"') else "\\" + nxt)
                at += 2
            else:
                inner.append(self.text[at])
                at += 1
        if at >= len(self.text):
            self.result.doubt("an unclosed backtick")
        self.at = at + 1
        _Parser("".join(inner), self.result, self.depth + 1).read(top=False)


def _program(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def _runs_arguments(word: str) -> bool:
    """Whether a program runs (some of) its arguments: a wrapper, a shell, a string runner, an interpreter."""
    program = _program(word)
    return program in WRAPPERS or program in SHELLS or program in STRING_RUNNERS or program in INTERPRETERS \
        or program in ("find", "xargs")
