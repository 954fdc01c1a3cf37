"""Text helpers shared by tools: output caps, binary detection, decoding, file hashes."""

__all__ = ["cap", "looks_binary", "decode", "split_lines", "hide_private_keys", "clip_line", "human_size", "file_hash"]

import hashlib

OUTPUT_CAP = 40_000
HASH_LENGTH = 12


def cap(text: str, limit: int = OUTPUT_CAP, hint: str = "") -> str:
    """Cut text longer than limit to head and tail, saying how much was cut and what to do."""
    if len(text) <= limit:
        return text
    head = text[: limit * 3 // 4]
    tail = text[-(limit // 4):]
    cut = len(text) - len(head) - len(tail)
    note = f"\n[... {cut} characters cut{'; ' + hint if hint else ''} ...]\n"
    return head + note + tail


def looks_binary(sample: bytes) -> bool:
    """Whether bytes look like a binary file: a NUL byte or mostly control characters."""
    if not sample:
        return False
    if b"\x00" in sample:
        return True
    if sample.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
        return False
    controls = sum(1 for b in sample if b < 32 and b not in (9, 10, 12, 13, 27))
    return controls / len(sample) > 0.3


def decode(data: bytes) -> tuple[str, str]:
    """Decode file bytes: UTF-8 (with or without BOM), UTF-16 by BOM, else Latin-1; return (text, note)."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="replace"), ""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace"), "decoded as UTF-16"
    try:
        return data.decode("utf-8"), ""
    except UnicodeDecodeError:
        return data.decode("latin-1"), "not valid UTF-8; decoded as Latin-1"


def split_lines(content: str) -> list[str]:
    """Lines as editors number them: split at \\n (and \\r\\n) only, no empty entry after a final newline."""
    lines = content.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def hide_private_keys(lines: list[str]) -> list[str]:
    """The lines with the body of every private key block replaced by [redacted], for the tools that show a
    range or the matches of a file: a key line shown without its BEGIN line is no longer recognisable later."""
    if not any("PRIVATE KEY" in line for line in lines):
        return lines
    out, inside = [], False
    for line in lines:
        marker = "PRIVATE KEY" in line and "-----" in line
        if marker and "BEGIN" in line or marker and "END" in line:
            inside = "BEGIN" in line
            out.append(line)
        else:
            out.append("[redacted]" if inside else line)
    return out


def clip_line(line: str, limit: int = 400) -> str:
    """One line shortened to limit characters with a marker."""
    if len(line) <= limit:
        return line
    return line[:limit] + f" [... {len(line) - limit} more characters]"


def human_size(size: int) -> str:
    """A byte count as 12 B, 3.4 KB, 5.6 MB."""
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"


def file_hash(data: bytes) -> str:
    """A short hash of a file's bytes: read_file shows it, edit_lines checks it."""
    return hashlib.sha256(data).hexdigest()[:HASH_LENGTH]
