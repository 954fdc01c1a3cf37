"""HTML to readable text with html.parser: headings, lists, links, tables and code kept legible."""

import re
import urllib.parse
from html.parser import HTMLParser

SKIP = {"script", "style", "noscript", "template", "svg", "iframe", "canvas", "object"}
BLOCK = {
    "p", "div", "section", "article", "header", "footer", "nav", "main", "aside", "ul", "ol", "table", "form",
    "blockquote", "dl", "dt", "dd", "figure", "figcaption", "address", "details", "summary", "fieldset", "hr",
}


class Readable(HTMLParser):
    """Collects the visible text of a page as lightly marked-up lines."""

    def __init__(self, base_url: str = ""):
        super().__init__(convert_charrefs=True)
        self.base_url = base_url
        self.out: list[str] = []
        self.title = ""
        self.skip_depth = 0
        self.in_title = False
        self.pre_depth = 0
        self.links: list[tuple[int, str]] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "title":
            self.in_title = True
        if tag in SKIP:
            self.skip_depth += 1
        if self.skip_depth:
            return
        self._open(tag, attrs)

    def _open(self, tag: str, attrs: dict) -> None:
        if tag in BLOCK:
            self._newline(2 if tag in ("p", "blockquote", "table") else 1)
        elif re.fullmatch(r"h[1-6]", tag):
            self._newline(2)
            self.out.append("#" * int(tag[1]) + " ")
        elif tag == "li":
            self._newline(1)
            self.out.append("- ")
        elif tag == "br":
            self.out.append("\n")
        elif tag == "tr":
            self._newline(1)
        elif tag in ("td", "th"):
            self.out.append(" | ")
        elif tag == "pre":
            self._newline(2)
            self.out.append("```\n")
            self.pre_depth += 1
        elif tag == "img" and attrs.get("alt"):
            self.out.append(f"[image: {attrs['alt'].strip()}]")
        elif tag == "a":
            self.links.append((len(self.out), attrs.get("href") or ""))

    def handle_endtag(self, tag):
        if tag == "title":
            self.in_title = False
        if tag in SKIP:
            self.skip_depth = max(0, self.skip_depth - 1)
            return
        if self.skip_depth:
            return
        if tag == "pre" and self.pre_depth:
            self.pre_depth -= 1
            self.out.append("\n```")
            self._newline(2)
        elif tag == "a" and self.links:
            self._close_link(*self.links.pop())
        elif tag in BLOCK or re.fullmatch(r"h[1-6]", tag):
            self._newline(2 if tag in ("p", "table") or tag.startswith("h") else 1)

    def _close_link(self, start: int, href: str) -> None:
        label = "".join(self.out[start:]).strip()
        if not label or not href or href.startswith(("#", "javascript:", "mailto:")):
            return
        url = urllib.parse.urljoin(self.base_url, href)
        del self.out[start:]
        self.out.append(f"[{label}]({url})")

    def handle_data(self, data):
        if self.in_title:
            self.title += data
            return
        if self.skip_depth:
            return
        if self.pre_depth:
            self.out.append(data)
        else:
            self.out.append(re.sub(r"\s+", " ", data))

    def _newline(self, count: int) -> None:
        self.out.append("\n" * count)

    def text(self) -> str:
        """The collected text, blank runs squeezed and lines trimmed."""
        raw = "".join(self.out)
        lines, in_pre = [], False
        for line in raw.split("\n"):
            if line.strip() == "```":
                in_pre = not in_pre
            lines.append(line.rstrip() if in_pre else re.sub(r" {2,}", " ", line).strip(" |") if "|" in line else line.strip())
        return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def to_text(html: str, base_url: str = "") -> tuple[str, str]:
    """Return (title, readable text) for an HTML document."""
    parser = Readable(base_url)
    try:
        parser.feed(html)
        parser.close()
    except AssertionError:
        pass  # html.parser gives up on some malformed markup; keep what was read
    return re.sub(r"\s+", " ", parser.title).strip(), parser.text()
