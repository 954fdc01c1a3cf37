"""A prompt's content blocks as the message a turn takes (text, resource links and embedded resources as @file
content, images), and a saved session's history as the session/update notifications that replay it."""

import urllib.parse
from collections.abc import Iterator
from pathlib import Path

from ankit.acp.view import arguments, kind_of, title_of
from ankit.context.mentions import ATTACHED, FILE_CAP, TOTAL_CAP, Expanded, block, expand
from ankit.records import Image, Message, ToolResult, typed
from ankit.safety import text as boundary
from ankit.safety.scrub import Scrubber
from ankit.safety.text import outside

IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
REPLAYED_OUTPUT = 4000  # characters of a tool result shown again when a session is loaded


def file_path(uri: str) -> Path | None:
    """The path a file:// URI names (None for any other URI)."""
    parts = urllib.parse.urlsplit(uri)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
        return None
    return Path(urllib.parse.unquote(parts.path))


def shown_path(path: Path, cwd: Path) -> str:
    """A path relative to the working folder when it lies inside, else as it is."""
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return str(path)


def prompt_message(blocks: list, cwd: Path, images: bool, scrub: Scrubber) -> Expanded:
    """The blocks as one message: text joined, each resource link as an @mention of its file (attached as the
    REPL attaches one), embedded resources as attached files, images where the model takes them; what could
    not go along is a notice."""
    words, embedded, out_images, notices = [], [], [], []
    for item in blocks if isinstance(blocks, list) else []:
        kind = item.get("type") if isinstance(item, dict) else None
        if kind == "text":
            words.append(str(item.get("text") or ""))
        elif kind == "resource_link":
            words.append(_link(str(item.get("uri") or ""), str(item.get("name") or ""), cwd))
        elif kind == "resource":
            _resource(item.get("resource"), cwd, embedded, out_images, notices)
        elif kind == "image":
            out_images.append(Image(str(item.get("mimeType") or ""), str(item.get("data") or ""),
                                    str(item.get("uri") or "image")))
        else:
            notices.append(f"a {outside(str(kind), 40, line=True)} block is not something ankit takes; left out")
    expanded = expand("".join(words), cwd, images, scrub)
    expanded.notices[:0] = notices
    _attach(expanded, embedded, scrub)
    _images(expanded, out_images, images)
    return expanded


def _link(uri: str, name: str, cwd: Path) -> str:
    """A resource link in the text: an @mention of a file, else the link itself for the model to read."""
    path = file_path(uri)
    if path is None:
        return f" [{name or 'link'}]({uri}) "
    return f' @"{shown_path(path, cwd)}" '


def _resource(resource, cwd: Path, embedded: list, images: list, notices: list) -> None:
    """An embedded resource: text to attach, an image, or a notice for other binary content."""
    resource = resource if isinstance(resource, dict) else {}
    uri = str(resource.get("uri") or "")
    path = file_path(uri)
    raw = shown_path(path, cwd) if path is not None else uri
    if isinstance(resource.get("text"), str):
        embedded.append((raw, resource["text"]))
    elif str(resource.get("mimeType") or "") in IMAGE_TYPES and isinstance(resource.get("blob"), str):
        images.append(Image(resource["mimeType"], resource["blob"], raw))
    else:
        notices.append(f"{outside(raw, 200, line=True)}: binary content other than an image is not attached")


def _attach(expanded: Expanded, embedded: list[tuple[str, str]], scrub: Scrubber) -> None:
    """Embedded resources as attached files, under the caps @mentions have."""
    room = TOTAL_CAP - (len(expanded.text.split(ATTACHED, 1)[1]) if ATTACHED in expanded.text else 0)
    blocks = []
    for raw, body in embedded:
        body = scrub.text(boundary.clean(body))
        if len(body) > FILE_CAP:
            body = body[:FILE_CAP] + f"\n[... cut: the file has {len(body):,} characters, the first {FILE_CAP:,} shown]"
        if len(body) > room:
            expanded.notices.append(f"{raw}: not attached, the message already carries {TOTAL_CAP:,} characters of files")
            continue
        room -= len(body)
        blocks.append(block("file", boundary.clean(raw).replace('"', "'"), body))
        expanded.attached.append(raw)
    if blocks:
        head = "\n" if ATTACHED in expanded.text else ATTACHED
        expanded.text += head + "\n".join(blocks)


def _images(expanded: Expanded, images: list[Image], accepted: bool) -> None:
    """The prompt's images, where the model takes them (as @image.png is)."""
    for image in images:
        if image.media_type not in IMAGE_TYPES:
            expanded.notices.append(f"{outside(image.name, 200, line=True)}: {image.media_type or 'no type'} is not an "
                                    "image type ankit sends (png, jpeg, gif, webp); not attached")
        elif not accepted:
            expanded.notices.append("this model does not take images here (Anthropic and OpenAI do); not attached")
            expanded.text += "\n[ankit] An image could not be attached: this provider does not take images."
        else:
            expanded.images.append(image)


def replay(messages: list[Message], lookup) -> Iterator[dict]:
    """The updates that show a saved conversation again: what the user typed, the replies, each tool call with
    its outcome."""
    results: dict[str, ToolResult] = {r.call_id: r for m in messages if m.role == "tool" for r in m.results}
    for message in messages:
        if message.role == "user":
            yield {"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": typed(message)}}
        elif message.role == "assistant":
            if message.text:
                yield {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": message.text}}
            for call in message.tool_calls:
                yield _replayed_call(call, results.get(call.id), lookup)


def _replayed_call(call, result: ToolResult | None, lookup) -> dict:
    text = outside(result.content, REPLAYED_OUTPUT) if result is not None else "(no result was recorded)"
    return {"sessionUpdate": "tool_call", "toolCallId": call.id, "title": title_of(call, arguments(call)),
            "kind": kind_of(lookup(call.name)), "status": "failed" if result is None or result.is_error else "completed",
            "content": [{"type": "content", "content": {"type": "text", "text": text}}]}
