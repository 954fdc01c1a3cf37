"""Reading the YAML frontmatter of Markdown files: the subset real SKILL.md files use, stdlib only.

Scalars come back as text (no type guessing: `version: 1.0` stays "1.0"); an empty value is None.
Supported: plain, single- and double-quoted scalars (multi-line too), `|` and `>` block scalars with
`-`/`+` chomping and an indentation digit, block lists, flow lists and maps, nested maps, comments,
CRLF line endings and a BOM. Anything else raises ValueError naming the line.
This module reads the line structure; yaml_flow decodes quoted scalars and flow collections.
"""

import re

from ankit.skills.yaml_flow import flow_end, flow_value, quote_end, strip_comment, unquote

_LENIENT_KEY = re.compile(r"([A-Za-z_][\w-]*)[ \t]*:(?:[ \t]+(.*)|[ \t]*)$")
_KEY = re.compile(r"""^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"\[\]{},:-][^#]*?|-[^\s#][^#]*?)\s*:(?:[ \t]|$)""")


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


def read_fields(text: str, keys: frozenset[str]) -> tuple[dict, str]:
    """The frontmatter as YAML, or, when it is not YAML, as lenient_frontmatter reads it for these keys;
    ValueError (YAML's own message) when neither can."""
    try:
        return read_frontmatter(text)
    except ValueError as exc:
        try:
            fields, body = lenient_frontmatter(text, keys)
        except ValueError:
            raise exc from None
        if not fields:
            raise
        return fields, body


def lenient_frontmatter(text: str, keys: frozenset[str]) -> tuple[dict, str]:
    """The fields of frontmatter that is not YAML, as real agent files write it (a description running over
    unindented lines holding `<example>` and `user: ...`): each unindented `key:` line of a known key starts a
    field, every other line continues the field before it. ValueError when there is no frontmatter at all."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if lines[0].rstrip() != "---" or end is None:
        raise ValueError("no frontmatter: the file must start with a '---' line and end it with another")
    fields: dict = {}
    key = None
    for line in lines[1:end]:
        match = _LENIENT_KEY.match(line)
        if match and match.group(1) in keys:
            key = match.group(1)
            fields[key] = match.group(2) or ""
        elif key is not None:
            fields[key] += "\n" + line
    return {k: _lenient_value(v.strip()) for k, v in fields.items()}, "\n".join(lines[end + 1:])


def _lenient_value(value: str):
    """A lenient field's value: a flow list or a quoted scalar read as YAML would, anything else as text."""
    try:
        if value[:1] in ("[", "{") and flow_end(value) == len(value):
            return flow_value(value)
        if value[:1] in ("'", '"') and quote_end(value, 0) == len(value):
            return unquote(value)
    except ValueError:
        pass
    return value or None


def parse_yaml(text: str, first_line: int = 1) -> dict:
    """Parse a YAML mapping (the frontmatter subset); first_line numbers the lines in error messages."""
    lines = text.split("\n")
    reader = _Reader(lines[:-1] if text.endswith("\n") else lines, first_line)
    reader.skip_blank()
    if reader.done():
        return {}
    if reader.indent() != 0 or not _KEY.match(reader.content()):
        reader.fail("expected 'key: value'")
    try:
        result = reader.parse_map(0)
    except RecursionError:  # junk nested hundreds of levels deep
        raise ValueError("frontmatter is nested too deeply to read") from None
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
        """Raise ValueError naming the line."""
        index = self.i if index is None else index
        if index < len(self.lines) and "\t" in self.lines[index][:self.indent(index) + 1]:
            why = "a tab is used for indentation; use spaces"
        shown = self.lines[index].strip()[:60] if index < len(self.lines) else ""
        raise ValueError(f"frontmatter line {self.first + index}: {why}" + (f" (found {shown!r})" if shown else ""))

    def done(self) -> bool:
        """Whether every line is read."""
        return self.i >= len(self.lines)

    def indent(self, index: int | None = None) -> int:
        """The indentation of the current (or given) line."""
        line = self.lines[self.i if index is None else index]
        return len(line) - len(line.lstrip(" "))

    def content(self) -> str:
        """The current line without its indentation."""
        return self.lines[self.i].strip(" ")

    def skip_blank(self):
        """Move past blank and comment lines."""
        while not self.done() and (not self.content().strip() or self.content().startswith("#")):
            self.i += 1

    def next_indent(self) -> int:
        """Indentation of the next meaningful line, or -1 at the end."""
        self.skip_blank()
        return -1 if self.done() else self.indent()

    def parse_node(self, indent: int):
        """A map, a list or a scalar starting at the current line."""
        if _is_item(self.content()):
            return self.parse_list(indent)
        if _KEY.match(self.content()):
            return self.parse_map(indent)
        self.fail("expected 'key: value' or '- item'")

    def parse_map(self, indent: int) -> dict:
        """A block map at this indentation."""
        result: dict = {}
        while self.next_indent() == indent and not _is_item(self.content()):
            match = _KEY.match(self.content())
            if not match:
                self.fail("expected 'key: value'")
            key = match.group(1)
            key = unquote(key) if key[0] in "\"'" else key
            if key in result:
                self.fail(f"the key {key!r} appears twice")
            result[key] = self.parse_value(self.content()[match.end():].strip(), indent, in_map=True)
        if self.next_indent() > indent:
            self.fail("unexpected indentation")
        return result

    def parse_list(self, indent: int) -> list:
        """A block list at this indentation."""
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
            return self.plain(strip_comment(rest), indent)
        following = self.next_indent()
        if following > indent and self.content()[:1] in ('"', "'", "[", "{"):
            return self.bracketed(self.content())  # `tools:` then `  ["Read", "Bash"]` on the next line
        if following > indent and not _is_item(self.content()) and not _KEY.match(self.content()):
            self.i += 1
            return self.plain(strip_comment(self.content_at(self.i - 1)), indent)  # a plain scalar below its key
        if following > indent or (in_map and following == indent and _is_item(self.content())):
            return self.parse_node(following)
        return None

    def content_at(self, index: int) -> str:
        """A line without its indentation."""
        return self.lines[index].strip(" ")

    def plain(self, first: str, indent: int) -> str:
        """A plain scalar, folded over its continuation lines."""
        parts, blanks = [first], 0
        while not self.done():
            line = self.lines[self.i].strip()
            if not line:
                blanks += 1
            elif self.indent() <= indent or line.startswith("#"):
                break
            else:
                parts.append("\n" * blanks if blanks else " ")
                parts.append(strip_comment(line))
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
        inside, after = self.gather(rest, (lambda text: quote_end(text, 0)) if quoted else flow_end)
        if after.strip() and not after.strip().startswith("#"):
            if quoted or self.i - start > 1:
                self.fail("unexpected text after the closing quote or bracket", start)
            return strip_comment(rest)  # `[a] [b]`: not YAML, but real files use it as text
        try:
            return unquote(inside) if quoted else flow_value(inside)
        except ValueError as exc:
            self.fail(str(exc), start)

    def block_scalar(self, header: str, indent: int) -> str:
        """A | or > block scalar with its chomping and indentation indicators."""
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
