"""What OpenAI-compatible servers say in their own words: a prompt too long for the model's context, a model or
server that takes no tools, a request field the server will not accept.

llama.cpp's server, llama-cpp-python, Ollama, vLLM, LM Studio and OpenRouter each word these differently; the
patterns below read them all, so the caller can give one line with the fix, or send the request again without
what was refused.
"""

import re

OVERFLOW_KINDS = ("exceed_context_size_error", "context_length_exceeded", "context_window_exceeded")
OVERFLOW = re.compile(
    r"context (length|size|window)|maximum context|n_ctx|prompt is too long|too many tokens|"
    r"exceeds? (the )?(available )?context|input is too long|reduce the length of the (messages|prompt|input)",
    re.IGNORECASE)
# the second form is Anthropic's "prompt is too long: 215000 tokens > 200000 maximum"
CONTEXT_SIZE = re.compile(r"(?:context (?:length|size|window)|n_ctx)(?: is| of|:)?\s*\(?\s*(\d[\d,]*)|"
                          r"> (\d[\d,]*) maximum", re.IGNORECASE)
ASKED = re.compile(r"(?:request \(|requested |resulted in )(\d[\d,]*) tokens|(\d[\d,]*) tokens >", re.IGNORECASE)
NO_TOOLS = re.compile(
    r"(not|n't) support\w* (the )?(tool|function)|support tool use|"
    r"(tool|function)s?( calling| use| param| choice|_choice)?( is| are)? (not supported|unsupported|requires)|"
    r"--jinja|enable-auto-tool-choice|cannot use tools( with stream)?",
    re.IGNORECASE)
OPTIONAL_FIELDS = ("stream_options", "max_tokens")  # fields ankit can do without when a server refuses them
MESSAGE_FIELDS = ("reasoning_content",)  # the same, in messages


def overflow_fix(message: str, kind: str = "") -> str | None:
    """The fix for an error that says the prompt does not fit the model's context window, else None."""
    if kind not in OVERFLOW_KINDS and not OVERFLOW.search(message):
        return None
    tokens, asked = _number(CONTEXT_SIZE, message), _number(ASKED, message)
    what = f"the request ({asked} tokens)" if asked else "the request"
    window = f" ({tokens} tokens)" if tokens else ""
    setting = f"context_window = {tokens}" if tokens else "context_window to the server's context size"
    return (f"{what} does not fit the model's context window{window}: start anew, or set {setting} to drop the "
            "oldest messages")


def _number(pattern: re.Pattern, message: str) -> str:
    """The first number a pattern's groups caught, without its commas; "" when none."""
    found = pattern.search(message)
    return next((group.replace(",", "") for group in found.groups() if group), "") if found else ""


def refuses_tools(message: str) -> bool:
    """Whether an error says this server or model will not take the tools field."""
    return bool(NO_TOOLS.search(message))


def refused_field(message: str, body: dict) -> str | None:
    """The optional request field an error names, when the body carries it (the server refused it); a field of
    the messages (reasoning_content sent back) counts too."""
    lowered = message.lower()
    carried = set(body) | {key for m in body.get("messages", []) for key in m if key in MESSAGE_FIELDS}
    return next((name for name in OPTIONAL_FIELDS + MESSAGE_FIELDS if name in carried and name in lowered), None)


class InlineThinking:
    """Holds back a reply's leading <think>...</think> block: servers without a reasoning parser (llama.cpp without
    --jinja, vLLM without --reasoning-parser, older Ollama, LM Studio) stream a thinking model's reasoning as text."""

    OPEN, CLOSE = "<think>", "</think>"

    def __init__(self):
        self.state = "start"  # start: no visible text yet; inside: in the block; after: text passes through
        self.held = ""
        self.thought = False  # a block ended: the blank lines after it are not text either

    def feed(self, text: str) -> str:
        """The part of this piece of content that is reply text."""
        if self.state == "after":
            return text
        self.held += text
        if self.state == "start":
            lead = self.held.lstrip()
            if not lead or (self.OPEN.startswith(lead) and lead != self.OPEN):
                return ""  # not yet known whether a thinking block opens the reply
            if not lead.startswith(self.OPEN):
                self.state, out, self.held = "after", lead if self.thought else self.held, ""
                return out
            self.state, self.held = "inside", lead[len(self.OPEN):]
        end = self.held.find(self.CLOSE)
        if end < 0:
            return ""
        rest = self.held[end + len(self.CLOSE):].lstrip()
        self.state, self.held, self.thought = ("after" if rest else "start"), "", True
        return rest

    def flush(self) -> str:
        """What was held back and is text after all (a reply that was only the start of '<think>')."""
        out = (self.held.lstrip() if self.thought else self.held) if self.state == "start" else ""
        self.held = ""
        return out
