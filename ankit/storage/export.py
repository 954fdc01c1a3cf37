"""A saved session read back whole: as text for `ankit sessions show`, as Markdown for `export`."""

import json
import re

from ankit.records import Message, ToolCall
from ankit.storage.sessions import SessionData, title_of

RESULT_LINES = 20  # lines of a tool result shown by `show` (export keeps them all)
COMPACTED = "── /compact: requests after this point start from the summary below; the messages above stay here ──"


def _call(call: ToolCall) -> str:
    try:
        args = json.loads(call.arguments or "{}")
        shown = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)[:80]}" for k, v in args.items()) if isinstance(args, dict) else call.arguments
    except ValueError:
        shown = call.arguments[:200]
    return f"{call.name}({shown})"


def _head(data: SessionData) -> list[str]:
    turns = sum(1 for m in data.messages if m.role == "user" and not m.summary)
    return [f"session {data.id}: {data.title or title_of(data.messages) or 'untitled'}",
            f"started {data.created.replace('T', ' ')} in {data.cwd or '?'} · {data.provider or '?'} · "
            f"{data.model or '?'} · {turns} turn{'' if turns == 1 else 's'}"]


def show_text(data: SessionData) -> str:
    """Every message of the session in order, the compacted ones included; long tool results shortened."""
    lines = _head(data)
    for message in data.messages:
        lines += [""] + _shown(message)
    return "\n".join(lines)


def _shown(message: Message) -> list[str]:
    if message.summary:
        return [COMPACTED, "", "you (summary):", message.text]
    if message.role == "user":
        images = f" [+{len(message.images)} image{'s' if len(message.images) > 1 else ''}]" if message.images else ""
        return [f"you{images}:", message.text]
    if message.role == "assistant":
        out = ["ankit:" + (" (cut)" if message.cut else ""), *([message.text] if message.text else [])]
        return out + [f"  · {_call(c)}" for c in message.tool_calls]
    out = []
    for result in message.results:
        body = result.content.splitlines() or ["(no output)"]
        more = [f"    [... {len(body) - RESULT_LINES} more lines]"] if len(body) > RESULT_LINES else []
        out += [f"  ⎿ {result.name}{' (error)' if result.is_error else ''}:",
                *(f"    · {line}" for line in result.inner), *(f"    {line}" for line in body[:RESULT_LINES]), *more]
    return out


def _fence(text: str) -> str:
    """A code fence longer than any run of backticks in the text."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def export_markdown(data: SessionData) -> str:
    """The whole session as Markdown: messages as sections, tool calls and results in code blocks."""
    lines = [f"# {data.title or title_of(data.messages) or 'Untitled session'}", "",
             f"- session: `{data.id}`", f"- started: {data.created.replace('T', ' ')}", f"- folder: `{data.cwd}`",
             f"- model: {data.provider} · {data.model}"]
    for message in data.messages:
        lines += [""] + _markdown(message)
    return "\n".join(lines) + "\n"


def _markdown(message: Message) -> list[str]:
    if message.role in ("user", "assistant"):
        head = "## Summary (/compact)" if message.summary else ("## You" if message.role == "user" else "## ankit")
        out = [head, ""] + ([message.text, ""] if message.text else [])
        for call in message.tool_calls:
            fence = _fence(call.arguments)
            out += [f"**Tool call** `{call.name}`", "", f"{fence}json", call.arguments, fence, ""]
        return out
    out = []
    for result in message.results:
        fence = _fence(result.content)
        calls = [f"- `{line.replace('`', chr(39))}`" for line in result.inner]
        calls = ["Calls from the program:", "", *calls, ""] if calls else []
        out += [f"**Result** of `{result.name}`{' (error)' if result.is_error else ''}", "", *calls, fence,
                result.content, fence, ""]
    return out
