"""The user's guide on screen: a topic rendered as a reply is (on a terminal) and paged when it is long."""

import shutil
from typing import TextIO

from ankit import docs
from ankit.errors import AnkitError
from ankit.terminal.markdown import Markdown
from ankit.terminal.pager import page
from ankit.terminal.render import animated, use_colour


def topic_text(word: str) -> str:
    """A topic's Markdown; an unknown word is one line naming the topics."""
    topic = docs.find(word)
    if topic is None:
        names = ", ".join(name for name, _ in docs.topics())
        raise AnkitError(f"no help topic {word!r}: the topics are {names}")
    return docs.read(topic)


def show_help(words: list[str], out: TextIO) -> None:
    """`ankit help [TOPIC]`: the topics, one line each, or the topic the words name."""
    if not words or words[0] in ("-h", "--help"):
        out.write(docs.listing() + "\n")
    else:
        show(topic_text(" ".join(words)), out)


def show(text: str, out: TextIO) -> None:
    """Markdown laid out for a terminal and paged when longer than the screen; the exact text elsewhere."""
    terminal = animated(out)
    if terminal:
        size = shutil.get_terminal_size((80, 24))
        # no streaming word wrap: it redraws with cursor moves a pager would garble (the files are wrapped already)
        renderer = Markdown(use_colour(out), 0, layout=True)
        text = renderer.feed(text) + renderer.end()
        page(text, out, size.lines, terminal=True)
        return
    out.write(text if text.endswith("\n") else text + "\n")
    out.flush()
