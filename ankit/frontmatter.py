"""Reading the YAML frontmatter of Markdown files: the subset real SKILL.md files use, stdlib only.

Scalars come back as text (no type guessing: `version: 1.0` stays "1.0"); an empty value is None.
Supported: plain, single- and double-quoted scalars (multi-line too), `|` and `>` block scalars with
`-`/`+` chomping and an indentation digit, block lists, flow lists and maps, nested maps, comments,
CRLF line endings and a BOM. Anything else raises ValueError naming the line.
"""

import re

_KEY = re.compile(r"""^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"\[\]{},:-][^#]*?|-[^\s#][^#]*?)\s*:(?:[ \t]|$)""")
_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f",
            "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0",
            "L": "\u2028", "P": "\u2029"}
_HEX = {"x": 2, "u": 4, "U": 8}


def read_frontmatter(text: str) -> tuple[dict, str]:
    """Split a Markdown text into its frontmatter fields and its body; raise ValueError if unreadable."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines[0].rstrip() != "---":
        raise ValueError("no frontmatter: the file must start with a '---' line, then 'name:' and 'description:'")
    for end in range(1, len(lines)):
        if lines[end].rstrip() in ("---", "..."):
            return parse_yaml("\n".join(lines[1:end]), first_line=2), "\n".join(lines[end + 1:])
    raise ValueError("frontmatter is not closed: add a '---' line after the last field")


def parse_yaml(text: str, first_line: int = 1) -> dict:
    """Parse a YAML mapping (the frontmatter subset); first_line numbers the lines in error messages."""
    lines = text.split("\n")
    reader = _Reader(lines[:-1] if text.endswith("\n") else lines, first_line)
    reader.skip_blank()
    if reader.done():
        return {}
    if reader.indent() != 0 or not _KEY.match(reader.content()):
        reader.fail("expected 'key: value'")
    result = reader.parse_map(0)
    reader.skip_blank()
    if not reader.done():
        reader.fail("unexpected indentation or text")
    return result


class _Reader:
    """A cursor over the frontmatter lines."""

    def __init__(self, lines: list[str], first_line: int):
        self.lines = lines
        self.first = first_line
        self.i = 0

    def fail(self, why: str, index: int | None = None):
        index = self.i if index is None else index
        if index < len(self.lines) and "\t" in self.lines[index][:self.indent(index) + 1]:
            why = "a tab is used for indentation; use spaces"
        shown = self.lines[index].strip()[:60] if index < len(self.lines) else ""
        raise ValueError(f"frontmatter line {self.first + index}: {why}" + (f" (found {shown!r})" if shown else ""))

    def done(self) -> bool:
        return self.i >= len(self.lines)

    def indent(self, index: int | None = None) -> int:
        line = self.lines[self.i if index is None else index]
        return len(line) - len(line.lstrip(" "))

    def content(self) -> str:
        return self.lines[self.i].strip(" ")

    def skip_blank(self):
        while not self.done() and (not self.content().strip() or self.content().startswith("#")):
            self.i += 1

    def next_indent(self) -> int:
        """Indentation of the next meaningful line, or -1 at the end."""
        self.skip_blank()
        return -1 if self.done() else self.indent()

    def parse_node(self, indent: int):
        if _is_item(self.content()):
            return self.parse_list(indent)
        if _KEY.match(self.content()):
            return self.parse_map(indent)
        self.fail("expected 'key: value' or '- item'")

    def parse_map(self, indent: int) -> dict:
        result: dict = {}
        while self.next_indent() == indent and not _is_item(self.content()):
            match = _KEY.match(self.content())
            if not match:
                self.fail("expected 'key: value'")
            key = match.group(1)
            key = _unquote(key) if key[0] in "\"'" else key
            if key in result:
                self.fail(f"the key {key!r} appears twice")
            result[key] = self.parse_value(self.content()[match.end():].strip(), indent, in_map=True)
        if self.next_indent() > indent:
            self.fail("unexpected indentation")
        return result

    def parse_list(self, indent: int) -> list:
        items = []
        while self.next_indent() == indent and _is_item(self.content()):
            rest = self.content()[1:]
            inner = len(rest) - len(rest.lstrip(" ")) + 1
            rest = rest.strip()
            if rest and (_is_item(rest) or _KEY.match(rest)):
                self.lines[self.i] = " " * (indent + inner) + rest  # "- key: v" opens a nested node
                items.append(self.parse_node(indent + inner))
            else:
                items.append(self.parse_value(rest, indent, in_map=False))
        if self.next_indent() > indent:
            self.fail("unexpected indentation")
        return items

    def parse_value(self, rest: str, indent: int, in_map: bool):
        """Read the value after 'key:' or '- ' on the current line, moving past every line it uses."""
        if rest[:1] in ("|", ">"):
            return self.block_scalar(rest, indent)
        if rest[:1] in ('"', "'", "[", "{"):
            return self.bracketed(rest)
        self.i += 1
        if rest and not rest.startswith("#"):
            return self.plain(_strip_comment(rest), indent)
        following = self.next_indent()
        if following > indent or (in_map and following == indent and _is_item(self.content())):
            return self.parse_node(following)
        return None

    def plain(self, first: str, indent: int) -> str:
        parts, blanks = [first], 0
        while not self.done():
            line = self.lines[self.i].strip()
            if not line:
                blanks += 1
            elif self.indent() <= indent or line.startswith("#"):
                break
            else:
                parts.append("\n" * blanks if blanks else " ")
                parts.append(_strip_comment(line))
                blanks = 0
            self.i += 1
        self.i -= blanks  # trailing blank lines belong to no one
        return "".join(parts)

    def gather(self, rest: str, closed) -> tuple[str, str]:
        """Join lines from rest until closed(text) gives the end; return (inside, after)."""
        text, start = rest, self.i
        while True:
            end = closed(text)
            if end is not None:
                self.i += 1
                return text[:end], text[end:]
            self.i += 1
            if self.done():
                self.fail("a quote or bracket is never closed", start)
            text += "\n" + self.lines[self.i]

    def bracketed(self, rest: str):
        """A quoted scalar or a flow collection, possibly over several lines."""
        start, quoted = self.i, rest[0] in "\"'"
        inside, after = self.gather(rest, (lambda text: _quote_end(text, 0)) if quoted else _flow_end)
        if after.strip() and not after.strip().startswith("#"):
            if quoted or self.i - start > 1:
                self.fail("unexpected text after the closing quote or bracket", start)
            return _strip_comment(rest)  # `[a] [b]`: not YAML, but real files use it as text
        try:
            return _unquote(inside) if quoted else _flow_node(inside, 0)[0]
        except (ValueError, IndexError) as exc:
            self.fail(str(exc) or "a flow list or map is malformed", start)

    def block_scalar(self, header: str, indent: int) -> str:
        match = re.fullmatch(r"([|>])([-+]?)([1-9]?)([-+]?)\s*(#.*)?", header)
        if not match or (match.group(2) and match.group(4)):
            self.fail("a block scalar header is '|' or '>' with optional '-', '+' or an indentation digit")
        style, chomp, digit = match.group(1), match.group(2) or match.group(4), match.group(3)
        self.i += 1
        width = indent + int(digit) if digit else self._block_indent(indent)
        lines = []
        while not self.done() and (not self.lines[self.i].strip() or self.indent() >= width):
            lines.append(self.lines[self.i][width:] if self.lines[self.i].strip() else "")
            self.i += 1
        return _fold_block(lines, style == ">", chomp)

    def _block_indent(self, indent: int) -> int:
        for index in range(self.i, len(self.lines)):
            if self.lines[index].strip():
                return max(self.indent(index), indent + 1)
        return indent + 1


def _is_item(content: str) -> bool:
    return content == "-" or content.startswith(("- ", "-\t"))


def _strip_comment(text: str) -> str:
    match = re.search(r"[ \t]#", text)
    return (text[:match.start()] if match else text).strip()


def _quote_end(text: str, start: int) -> int | None:
    """Index just past the quoted scalar opening at text[start], or None when it is not closed."""
    quote, pos = text[start], start + 1
    while pos < len(text):
        char = text[pos]
        if quote == '"' and char == "\\":
            pos += 2
            continue
        if char == quote:
            if quote == "'" and text[pos + 1:pos + 2] == "'":
                pos += 2
                continue
            return pos + 1
        pos += 1
    return None


def _flow_end(text: str) -> int | None:
    """Index just past the flow collection opening text, or None when its brackets do not close."""
    depth, pos = 0, 0
    while pos < len(text):
        char = text[pos]
        if char in "\"'" and (pos == 0 or text[pos - 1] in " \t\n[{,:"):
            end = _quote_end(text, pos)
            if end is None:
                return None
            pos = end
            continue
        if char == "#" and pos and text[pos - 1] in " \t":
            newline = text.find("\n", pos)
            if newline < 0:
                return None
            pos = newline
            continue
        depth += 1 if char in "[{" else -1 if char in "]}" else 0
        pos += 1
        if depth == 0:
            return pos
    return None


_FLOW_PLAIN = re.compile(r"(?:[^,\[\]{}:#]|:(?![\s,\[\]{}])|(?<=\S)#)*")


def _flow_node(text: str, pos: int):
    """Parse one flow node at pos; return (value, position after it)."""
    pos = _flow_space(text, pos)
    char = text[pos:pos + 1]
    if char and char in "[{":
        return _flow_collection(text, pos + 1, "]" if char == "[" else "}")
    if char and char in "\"'":
        end = _quote_end(text, pos)
        return _unquote(text[pos:end]), end
    end = _FLOW_PLAIN.match(text, pos).end()
    plain = " ".join(text[pos:end].split())
    return (plain or None), end


def _flow_space(text: str, pos: int) -> int:
    while pos < len(text) and (text[pos].isspace() or text[pos] == "#"):
        pos = text.find("\n", pos) if text[pos] == "#" else pos + 1
        pos = len(text) if pos < 0 else pos
    return pos


def _flow_collection(text: str, pos: int, closing: str) -> tuple[list | dict, int]:
    """Parse a flow list (closing "]") or map (closing "}") from just after its opening bracket."""
    result: list | dict = [] if closing == "]" else {}
    while True:
        pos = _flow_space(text, pos)
        if text[pos:pos + 1] == closing:
            return result, pos + 1
        value, pos = _flow_node(text, pos)
        if isinstance(result, dict):
            key, value, pos = value, None, _flow_space(text, pos)
            if text[pos:pos + 1] == ":":
                value, pos = _flow_node(text, pos + 1)
            result[str(key)] = value
        else:
            result.append(value)
        pos = _flow_space(text, pos)
        if text[pos:pos + 1] == ",":
            pos += 1
        elif text[pos:pos + 1] != closing:
            raise ValueError(f"expected ',' or '{closing}' in a flow {'list' if closing == ']' else 'map'}")


def _unquote(token: str) -> str:
    """Decode a quoted scalar (quotes included), folding its line breaks as YAML does."""
    quote, body = token[0], token[1:-1]
    out: list[str] = []
    loose = 0  # raw trailing spaces in out, dropped before a line break
    pos = 0
    while pos < len(body):
        char = body[pos]
        if char == "\n":
            del out[len(out) - loose:]
            pos, breaks = _skip_breaks(body, pos)
            out.append("\n" * (breaks - 1) if breaks > 1 else " ")
            loose = 0
            continue
        if quote == "'" and char == "'":
            out.append("'")
            pos += 2
        elif quote == '"' and char == "\\":
            text, pos = _escape(body, pos)
            out.append(text)
        else:
            out.append(char)
            pos += 1
        loose = loose + 1 if char in " \t" else 0
    return "".join(out)


def _skip_breaks(body: str, pos: int) -> tuple[int, int]:
    """From a line break, skip blank lines and indentation; return (new position, line breaks seen)."""
    breaks = 0
    while pos < len(body) and body[pos] in " \t\n":
        breaks += body[pos] == "\n"
        pos += 1
    return pos, breaks


def _escape(body: str, pos: int) -> tuple[str, int]:
    code = body[pos + 1]
    if code == "\n":
        pos, _ = _skip_breaks(body, pos + 1)
        return "", pos
    if code in _ESCAPES:
        return _ESCAPES[code], pos + 2
    digits = body[pos + 2:pos + 2 + _HEX.get(code, 0)]
    if code in _HEX and len(digits) == _HEX[code] and re.fullmatch(r"[0-9a-fA-F]+", digits):
        return chr(int(digits, 16)), pos + 2 + _HEX[code]
    return "\\" + code, pos + 2  # not YAML (e.g. a regex's \d), but real files have it: keep it as written


def _fold_block(lines: list[str], folded: bool, chomp: str) -> str:
    """Join the lines of a block scalar (indentation already removed) as YAML does."""
    trailing = 0
    while lines and not lines[-1]:
        lines.pop()
        trailing += 1
    out, empty, seen, more = [], 0, False, False
    for line in lines:
        if not line:
            empty += 1
            continue
        if not folded or line[0] in " \t":
            more = folded
            out.append("\n" * (empty + seen))
        elif more:
            more = False
            out.append("\n" * (empty + 1))
        else:
            out.append("\n" * empty if empty else " " * seen)
        out.append(line)
        seen, empty = True, 0
    tail = "" if chomp == "-" else "\n" * (seen + (trailing if chomp == "+" else 0))
    return "".join(out) + tail
