"""YAML's flow styles, decoded from text: quoted scalars (escapes, folded line breaks) and flow lists and maps.

The line-by-line structure (keys, block lists, block scalars) is read in frontmatter.py; this module only
sees the characters of one value, possibly spanning several lines.
"""

import re

_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f",
            "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0",
            "L": "\u2028", "P": "\u2029"}
_HEX = {"x": 2, "u": 4, "U": 8}
_FLOW_PLAIN = re.compile(r"(?:[^,\[\]{}:#]|:(?![\s,\[\]{}])|(?<=\S)#)*")


def strip_comment(text: str) -> str:
    """Text without a trailing ` # comment`, stripped."""
    match = re.search(r"[ \t]#", text)
    return (text[:match.start()] if match else text).strip()


def quote_end(text: str, start: int) -> int | None:
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


def flow_end(text: str) -> int | None:
    """Index just past the flow collection opening text, or None when its brackets do not close."""
    depth, pos = 0, 0
    while pos < len(text):
        char = text[pos]
        if char in "\"'" and (pos == 0 or text[pos - 1] in " \t\n[{,:"):
            end = quote_end(text, pos)
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


def flow_value(text: str) -> list | dict:
    """The list or map a whole flow collection (`[a, b]`, `{k: v}`) holds; raise ValueError if malformed."""
    return _flow_node(text, 0)[0]


def _flow_node(text: str, pos: int):
    """Parse one flow node at pos; return (value, position after it)."""
    pos = _flow_space(text, pos)
    char = text[pos:pos + 1]
    if char and char in "[{":
        return _flow_collection(text, pos + 1, "]" if char == "[" else "}")
    if char and char in "\"'":
        end = quote_end(text, pos)
        if end is None:  # a quote inside a plain item (`[it's, a]`) made the brackets look closed
            raise ValueError("a quote in a flow list or map is never closed")
        return unquote(text[pos:end]), end
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


def unquote(token: str) -> str:
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
