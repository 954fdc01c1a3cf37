"""The text boundary: text that enters ankit is normalised once, where it enters, so nothing further in (the
screen, a session file, the next request) meets text it cannot encode.

- Bytes are decoded as UTF-8 with invalid sequences replaced (decode); a str that came from elsewhere (a JSON
  "\\ud800" escape from a model server or an MCP server, a file name the OS gave as surrogate escapes, a tool
  module's return value) has its lone surrogates replaced by U+FFFD (clean); a JSON document from outside
  is parsed and cleaned in one step (loads).
- File names are shown and sent through name(): bytes that were not UTF-8 become U+FFFD.
- Session files keep U+2028, U+2029, U+0085 and the other line separators escaped (json.dumps' default) and
  are split on \\n only (storage/sessions.py: file_line, file_lines), so one such character in a result
  cannot cut a line in two.
Edges that go through here: the providers' streams, error bodies and model lists, MCP messages, tool
results (tooling/toolbox.py), @file names and contents (context/mentions.py), `!command` output.

Words another program wrote for the user or the model to read (an MCP server's tool descriptions and titles, its
elicitation questions, a login server's metadata and error texts, a subagent's answer) go through outside(): cut
to a cap before anything else works on them, scrubbed of the secrets ankit knows, controls and escapes made
visible.
"""

import json
import os
import re

from ankit.safety.scrub import Scrubber
from ankit.safety.visible import visible, visible_line

_SURROGATE = re.compile("[\\ud800-\\udfff]")
REPLACEMENT = "\ufffd"
CUT = " [... {:,} more characters cut]"
_SLACK = 512  # characters kept past the cap until the scrubber has seen them: a secret cut in two is still found


def outside(text, cap: int, scrub: Scrubber | None = None, line: bool = False) -> str:
    """Text another program wrote, fit to show, keep and send: at most cap characters (the rest counted, never
    worked on), the secrets the scrubber knows hidden, every control and escape made visible (on one line with
    line: newlines and tabs shown too)."""
    text = text if isinstance(text, str) else str(text)
    if scrub is not None and not scrub.secrets and len(text) <= cap and text.isascii() and text.isprintable():
        return text  # nothing to cut, hide or make visible (a catalog's phrases at every start: bench_startup.py)
    unseen = max(0, len(text) - cap - _SLACK)
    shown = (scrub or Scrubber()).text(clean(text[:cap + _SLACK]))
    shown = (visible_line if line else visible)(shown)
    return shown[:cap] + CUT.format(len(shown) - cap + unseen) if len(shown) > cap or unseen else shown


def clean(text: str) -> str:
    """text with every lone surrogate replaced by U+FFFD (valid pairs never reach a str as two halves)."""
    if text.isascii():
        return text
    return _SURROGATE.sub(REPLACEMENT, text)


def decode(data: bytes) -> str:
    """Bytes from outside as text: UTF-8, invalid sequences replaced."""
    return data.decode("utf-8", "replace")


def name(path) -> str:
    """A file name or path fit to show and send: bytes that were not UTF-8 (surrogate escapes) replaced."""
    return clean(os.fspath(path) if not isinstance(path, bytes) else decode(path))


def deep(value):
    """value with every string in it (keys too, in dicts and lists) cleaned."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {deep(k): deep(v) for k, v in value.items()}
    if isinstance(value, list):
        return [deep(item) for item in value]
    return value


def loads(data: str | bytes, strict: bool = True):
    """json.loads for a document from outside, its strings cleaned (only a \\uD8xx-\\uDFxx escape can put a
    lone surrogate there, so documents without one are not walked)."""
    text = decode(data) if isinstance(data, (bytes, bytearray)) else clean(data)
    value = json.loads(text, strict=strict)
    return deep(value) if "\\u" in text and re.search(r"\\u[dD][89a-fA-F]", text) else value
