"""Light syntax highlighting for fenced code: colour codes around keywords, strings, numbers and comments.

Python is read with `tokenize` (the block so far, so a multi-line string keeps its colour); shell,
JavaScript/TypeScript, JSON, YAML, Go, Rust and C-like languages get a small keyword/string/number/comment
lexer, diffs a colour per line. Only escape codes are added: the characters of a line are never changed.
"""

import functools
import io
import keyword
import re
import tokenize

RESET = "\033[0m"
STYLES = {"keyword": "\033[35m", "string": "\033[32m", "number": "\033[33m", "comment": "\033[2;3m",
          "added": "\033[32m", "removed": "\033[31m", "hunk": "\033[36m", "head": "\033[1m", "plain": "\033[36m"}

_C_KEYWORDS = ("if else for while do switch case default break continue return goto struct union enum typedef "
               "const static extern void int char long short float double unsigned signed sizeof include define "
               "class public private protected new delete this namespace template typename virtual override "
               "true false nullptr NULL bool auto import package interface extends implements final try catch "
               "throw throws null boolean byte var val fun when object")
_JS_KEYWORDS = ("var let const function return if else for while do switch case default break continue new this "
                "class extends super import export from as async await yield try catch finally throw typeof "
                "instanceof in of void delete true false null undefined interface type enum implements "
                "public private protected readonly static declare namespace keyof never unknown any")
_GO_KEYWORDS = ("break case chan const continue default defer else fallthrough for func go goto if import interface "
                "map package range return select struct switch type var true false nil iota")
_RUST_KEYWORDS = ("as async await break const continue crate dyn else enum extern false fn for if impl in let loop "
                  "match mod move mut pub ref return self Self static struct super trait true type unsafe use where "
                  "while Some None Ok Err")
_SHELL_KEYWORDS = ("if then else elif fi for while until do done case esac in function return export local "
                   "readonly set unset shift exit break continue source alias echo cd")
_YAML_KEYWORDS = "true false null yes no on off True False Null"
_JSON_KEYWORDS = "true false null"


class Lexer:
    """A regex lexer for one family of languages: comments, strings, numbers and keywords."""

    def __init__(self, words: str, line_comment: str | None, block: bool = False, quotes: str = "\"'"):
        self.words = frozenset(words.split())
        self.block = block
        comment = [line_comment + ".*"] if line_comment else []
        if block:
            comment.append(r"/\*.*?(?:\*/|$)")
        strings = [f"{q}(?:\\\\.|[^{q}\\\\])*(?:{q}|$)" for q in quotes]
        parts = [f"(?P<comment>{'|'.join(comment)})"] if comment else []
        parts += [f"(?P<string>{'|'.join(strings)})", r"(?P<number>\b(?:0[xX][0-9a-fA-F_]+|\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?)\b)",
                  r"(?P<word>[A-Za-z_][\w]*)"]
        self._source = "|".join(parts)

    @functools.cached_property
    def pattern(self) -> re.Pattern:
        """The compiled pattern, made when a block in this language is first shown (not at every start)."""
        return re.compile(self._source)


LEXERS = {
    "shell": Lexer(_SHELL_KEYWORDS, r"(?<!\S)#"),  # a # that starts a word: "$#" and "a#b" are not comments
    "js": Lexer(_JS_KEYWORDS, "//", block=True, quotes="\"'`"),
    "json": Lexer(_JSON_KEYWORDS, None, quotes='"'),
    "yaml": Lexer(_YAML_KEYWORDS, r"(?<!\S)#"),
    "go": Lexer(_GO_KEYWORDS, "//", block=True, quotes="\"'`"),
    "rust": Lexer(_RUST_KEYWORDS, "//", block=True, quotes='"'),
    "c": Lexer(_C_KEYWORDS, "//", block=True),
}
ALIASES = {
    "python": "python", "py": "python", "python3": "python", "py3": "python", "pycon": "python",
    "sh": "shell", "bash": "shell", "zsh": "shell", "shell": "shell", "console": "shell", "shellsession": "shell",
    "js": "js", "javascript": "js", "jsx": "js", "ts": "js", "typescript": "js", "tsx": "js", "mjs": "js",
    "json": "json", "jsonc": "json", "yaml": "yaml", "yml": "yaml", "go": "go", "golang": "go",
    "rust": "rust", "rs": "rust", "c": "c", "h": "c", "cpp": "c", "c++": "c", "cc": "c", "hpp": "c",
    "java": "c", "kotlin": "c", "kt": "c", "swift": "c", "cs": "c", "csharp": "c", "c#": "c", "scala": "c",
    "diff": "diff", "patch": "diff", "udiff": "diff",
}


def paint(text: str, kind: str) -> str:
    """Text in the colour of a token kind."""
    return f"{STYLES[kind]}{text}{RESET}" if text else ""


class Highlighter:
    """Highlights the lines of one code block in order; knows where a block comment or a string goes on."""

    def __init__(self, info: str):
        words = info.strip().split()
        self.language = ALIASES.get(words[0].lower().lstrip("{.").rstrip("}") if words else "", "")
        self.source: list[str] = []  # the block so far (Python)
        self.in_block = False  # inside /* ... */

    def line(self, text: str) -> str:
        """One code line with colour codes added."""
        if self.language == "python":
            return self._python(text)
        if self.language == "diff":
            return paint(text, _diff_kind(text))
        lexer = LEXERS.get(self.language)
        return self._lexed(text, lexer) if lexer else paint(text, "plain")

    def _lexed(self, text: str, lexer: Lexer) -> str:
        out, at = [], 0
        if self.in_block:
            end = text.find("*/")
            at = len(text) if end < 0 else end + 2
            out.append(paint(text[:at], "comment"))
            self.in_block = end < 0
        for match in lexer.pattern.finditer(text, at):
            kind = match.lastgroup
            if kind == "word" and match.group() not in lexer.words:
                continue
            out.append(text[at:match.start()])
            out.append(paint(match.group(), "keyword" if kind == "word" else kind))
            at = match.end()
            if kind == "comment" and lexer.block and match.group().startswith("/*") and not match.group().endswith("*/"):
                self.in_block = True
        out.append(text[at:])
        return "".join(out)

    def _python(self, text: str) -> str:
        self.source.append(text + "\n")
        row = len(self.source)
        spans: list[tuple[int, int, str]] = []
        try:
            for token in tokenize.generate_tokens(io.StringIO("".join(self.source)).readline):
                kind = _python_kind(token)
                if kind is None:
                    continue
                (start_row, start_col), (end_row, end_col) = token.start, token.end
                if start_row <= row <= end_row:
                    spans.append((start_col if start_row == row else 0, end_col if end_row == row else len(text), kind))
        except tokenize.TokenError as exc:  # an open multi-line string or bracket at the end of the block so far
            start = exc.args[1] if len(exc.args) > 1 else None
            if "string" in str(exc.args[0]) and start and start[0] <= row:
                spans.append((start[1] if start[0] == row else 0, len(text), "string"))
        except (SyntaxError, ValueError):  # not Python after all: left plain
            return paint(text, "plain")
        return _apply(text, spans)


def _python_kind(token: tokenize.TokenInfo) -> str | None:
    if token.type == tokenize.STRING or token.type in _FSTRING_TYPES:
        return "string"
    if token.type == tokenize.NUMBER:
        return "number"
    if token.type == tokenize.COMMENT:
        return "comment"
    if token.type == tokenize.NAME and (keyword.iskeyword(token.string) or keyword.issoftkeyword(token.string)):
        return "keyword"
    return None


_FSTRING_TYPES = {getattr(tokenize, name) for name in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END")
                  if hasattr(tokenize, name)}


def _apply(text: str, spans: list[tuple[int, int, str]]) -> str:
    """The text with each span painted; spans that overlap one already painted are skipped."""
    out, at = [], 0
    for start, end, kind in sorted(spans):
        if start < at or start >= end:
            continue
        out += [text[at:start], paint(text[start:end], kind)]
        at = end
    out.append(text[at:])
    return "".join(out)


def _diff_kind(line: str) -> str:
    if line.startswith(("+++", "---", "diff ", "index ")):
        return "head"
    if line.startswith("+"):
        return "added"
    if line.startswith("-"):
        return "removed"
    if line.startswith("@@"):
        return "hunk"
    return "plain"
