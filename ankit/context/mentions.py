"""@mentions: `@path` in a message attaches that file's text, a folder's listing, or an image."""

import base64
import re
from dataclasses import dataclass, field
from pathlib import Path

from ankit.context.imports import hidden_part
from ankit.records import Image
from ankit.safety import text as boundary
from ankit.safety.scrub import Scrubber

FILE_CAP = 40_000  # characters of one attached file (the head is kept, the cut said)
TOTAL_CAP = 120_000  # characters attached to one message in all
LISTING_CAP = 200  # entries of a folder's listing
IMAGE_CAP = 5 * 1024 * 1024  # bytes of one image (what Anthropic accepts)
IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
               ".webp": "image/webp"}
ATTACHED = "\n\n[ankit] Attached by the user's @mentions:\n"  # what heads the attached files in a message
MENTION = re.compile(r"(?:(?<=\s)|^)@(\"[^\"]+\"|[^\s\"]+)")
TRAILING = ".,;:!?)]}'"


@dataclass
class Expanded:
    """A message with its mentions attached, one-line notices about those that could not be, and images."""

    text: str
    notices: list[str] = field(default_factory=list)
    images: list[Image] = field(default_factory=list)
    attached: list[str] = field(default_factory=list)


def mentioned(text: str) -> list[str]:
    """The paths mentioned with @, in order, each once (quotes allow spaces: @"my file.txt")."""
    found = []
    for match in MENTION.finditer(text):
        raw = match.group(1)
        raw = raw[1:-1] if raw.startswith('"') else raw.rstrip(TRAILING)
        if raw and raw not in found:
            found.append(raw)
    return found


def expand(text: str, cwd: Path, images: bool = True, scrub: Scrubber | None = None, inside: bool = False) -> Expanded:
    """Attach every mentioned file, folder or image; missing and binary paths become notices.

    With images=False (a provider that takes none) an image is refused with a notice, and the model is told.
    Known secrets are scrubbed from what is attached, as from tool output. inside=True (text the user did not
    type, such as a custom command's template from a cloned repository) attaches only paths that really lie
    in cwd: `@~/.ssh/id_rsa` in a repository's command must not send the user's key.
    """
    scrub = scrub or Scrubber()
    out = Expanded(text)
    refused = []
    blocks, room = [], TOTAL_CAP
    for raw in mentioned(text):
        path = cwd / Path(raw).expanduser()  # an absolute path stays as it is
        withheld = _withheld(raw, path, cwd, inside)
        if withheld is not None:
            out.notices += [withheld] if withheld else []
        elif path.suffix.lower() in IMAGE_TYPES and path.is_file():
            if images:
                _image(path, raw, out)
            else:
                refused.append(raw)
        else:
            block, used = _text_block(path, raw, out, room, scrub)
            if block:
                room -= used
                blocks.append(block)
                out.attached.append(raw)
    if blocks:
        out.text = text + ATTACHED + "\n".join(blocks)
    for raw in refused:
        out.notices.append(f"@{raw}: this model does not take images here (Anthropic and OpenAI do); not attached")
        out.text += f"\n[ankit] The image {raw} could not be attached: this provider does not take images."
    return _cleaned(out)


def _withheld(raw: str, path: Path, cwd: Path, inside: bool) -> str | None:
    """Why a mentioned path is not attached (a notice, or "" for a missing @word that is no path), or None."""
    if not path.exists():
        return f"@{raw}: no such file or folder; the message goes without it" if _looks_like_path(raw) else ""
    if inside and not path.resolve().is_relative_to(cwd.resolve()):
        return (f"@{raw}: outside the working folder, not attached (a command's text attaches only files inside "
                "it; type the @path yourself to attach it)")
    hidden = hidden_part(path, cwd) if inside else None
    if hidden:
        return (f"@{raw}: {hidden!r} on its way is hidden or sensitive, not attached (a command's text attaches "
                "no such file; type the @path yourself to attach it)")
    return None


def _cleaned(out: Expanded) -> Expanded:
    """The message at the text boundary: a file name that is not UTF-8 (from a listing, or typed as an
    argument) or a lone surrogate goes on as U+FFFD, never as something the request cannot encode."""
    out.text = boundary.clean(out.text)
    out.notices = [boundary.clean(n) for n in out.notices]
    out.attached = [boundary.clean(a) for a in out.attached]
    return out


def _text_block(path: Path, raw: str, out: Expanded, room: int, scrub: Scrubber) -> tuple[str, int]:
    """A file's or folder's text as an attachment block and the characters it takes; ("", 0) with a notice
    when there is nothing to attach or no room left."""
    body, notice = (_listing(path) if path.is_dir() else _file(path, raw))
    if notice:
        out.notices.append(notice)
    if body is None:
        return "", 0
    body = scrub.text(body)
    if len(body) > room:
        out.notices.append(f"@{raw}: not attached, the message already carries {TOTAL_CAP:,} characters of files")
        return "", 0
    return block("folder" if path.is_dir() else "file", raw, body), len(body)


def block(kind: str, raw: str, body: str) -> str:
    """One attachment as the model reads it: <file path="...">text</file> (or a folder's listing)."""
    return f'<{kind} path="{raw}">\n{body}' + ("" if body.endswith("\n") else "\n") + f"</{kind}>"


def _looks_like_path(raw: str) -> bool:
    """A missing @word is only worth a notice when it looks like a path (not @someone's handle)."""
    return "/" in raw or "." in raw


def _file(path: Path, raw: str) -> tuple[str | None, str]:
    """A regular file's text, read no further than the cap needs (a pipe, a device or a huge log cannot hang
    or fill memory)."""
    if not path.is_file():
        return None, f"@{raw}: not a regular file (a pipe, socket or device), not attached"
    try:
        with open(path, "rb") as handle:
            data = handle.read(FILE_CAP * 4 + 4)  # enough bytes for FILE_CAP characters of UTF-8, and a few more
    except OSError as exc:
        return None, f"@{raw}: cannot read it ({exc.strerror or exc}); the message goes without it"
    whole = len(data) <= FILE_CAP * 4
    if not whole:  # end at a character's start: the cut never splits one
        data = data[:FILE_CAP * 4]
        while data and (data[-1] & 0xC0) == 0x80:
            data = data[:-1]
        data = data[:-1] if data and data[-1] >= 0xC0 else data
    if b"\0" in data[:8192]:
        return None, f"@{raw}: a binary file, not attached (only text files and images are)"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None, f"@{raw}: not UTF-8 text, not attached"
    if len(text) <= FILE_CAP:
        return text, ""
    total = f"{len(text):,} characters" if whole else f"{path.stat().st_size:,} bytes"
    note = f"[ankit: cut here; the file has {total}, the first {FILE_CAP:,} are attached]"
    return text[:FILE_CAP] + "\n" + note, f"@{raw}: only the first {FILE_CAP:,} of {total} attached"


def _listing(path: Path) -> tuple[str | None, str]:
    try:
        entries = sorted(path.iterdir(), key=lambda p: (not p.is_dir(), p.name))
    except OSError as exc:
        return None, f"@{path.name}: cannot list it ({exc.strerror or exc})"
    lines = [p.name + ("/" if p.is_dir() else "") for p in entries[:LISTING_CAP]]
    if len(entries) > LISTING_CAP:
        lines.append(f"[ankit: {len(entries) - LISTING_CAP} more entries not listed]")
    return "\n".join(lines) or "(empty folder)", ""


def _image(path: Path, raw: str, out: Expanded) -> None:
    size = path.stat().st_size
    if size > IMAGE_CAP:
        out.notices.append(f"@{raw}: image of {size:,} bytes is over the {IMAGE_CAP:,}-byte limit, not attached")
        return
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    out.images.append(Image(IMAGE_TYPES[path.suffix.lower()], data, boundary.clean(raw)))
    out.attached.append(raw)


def complete_path(word: str, cwd: Path) -> list[str]:
    """Tab candidates for a word that starts with @: paths under cwd, folders ending in /."""
    typed = word[1:]
    folder_part, _, stem = typed.rpartition("/")
    base = (cwd / folder_part) if folder_part else cwd
    try:
        entries = sorted(base.iterdir(), key=lambda p: p.name)
    except OSError:
        return []
    prefix = f"@{folder_part}/" if folder_part else "@"
    return [prefix + p.name + ("/" if p.is_dir() else "") for p in entries
            if p.name.startswith(stem) and (stem.startswith(".") or not p.name.startswith("."))][:200]
