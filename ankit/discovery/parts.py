"""Oversized groups split into parts: related tools (by the words their names share) under a size cap each."""

import json
from collections import Counter

from ankit.discovery.terms import split_name, stem

# A part's schemas stay under half the schema budget of a model ankit knows nothing about (32k tokens:
# a quarter of the window for schemas, 4 bytes a token), so any one part can be sent beside others.
PART_CAP = 16_000


def spec_size(tool) -> int:
    """Bytes of a tool's schema as sent (name, description, parameters)."""
    data = {"name": tool.name, "description": tool.description, "parameters": tool.parameters}
    return len(json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False))


def _words(names: list[str]) -> dict[str, list[str]]:
    """Each tool's name words (stemmed) without those every tool of the group shares (mcp, the server, browser)."""
    split = {n: list(dict.fromkeys(stem(w) for w in split_name(n))) for n in names}
    common = set.intersection(*(set(w) for w in split.values())) if split else set()
    return {n: [w for w in words if w not in common and not w.isdigit()] for n, words in split.items()}


def _label(words: list[str], counts: Counter, size: int) -> str:
    """The word that ties a tool to others: the most shared name word (shared by two tools or more, not all);
    on a tie the later word, which in 'create_index' or 'list-collections' names the thing, not the act."""
    shared = [(counts[w], i, w) for i, w in enumerate(words) if 1 < counts[w] < size]
    return max(shared)[2] if shared else ""


def split_group(names: list[str], sizes: dict[str, int], cap: int = PART_CAP) -> dict[str, list[str]]:
    """Parts of a group's tools, each under the cap, named by the word its tools share ('collection'); a group
    under the cap stays whole ({"": names})."""
    if sum(sizes[n] for n in names) <= cap:
        return {"": list(names)}
    words = _words(names)
    counts = Counter(w for ws in words.values() for w in ws)
    buckets: dict[str, list[str]] = {}
    for name in names:
        buckets.setdefault(_label(words[name], counts, len(names)), []).append(name)
    parts: dict[str, list[str]] = {}
    loose = buckets.pop("", [])
    for label, members in sorted(buckets.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        _pack(parts, label, members, sizes, cap)
    for name in sorted(loose):  # tools sharing no word join the smallest part they fit in, or start their own
        fits = [p for p in parts if sum(sizes[n] for n in parts[p]) + sizes[name] <= cap]
        if fits:
            parts[min(fits, key=lambda p: sum(sizes[n] for n in parts[p]))].append(name)
        else:
            _pack(parts, (_words([name])[name] or ["other"])[0], [name], sizes, cap)
    return {_said(label, names): sorted(members) for label, members in parts.items()}


def _said(label: str, names: list[str]) -> str:
    """A stemmed label as a name says it ('collect' -> 'collection'): the shortest name word with that stem."""
    base = label.rstrip("0123456789")
    said = sorted((w for n in names for w in split_name(n) if stem(w) == base), key=lambda w: (len(w), w))
    return (said[0] if said else base) + label[len(base):]


def _pack(parts: dict[str, list[str]], label: str, members: list[str], sizes: dict[str, int], cap: int) -> None:
    """Add a bucket as one part, or as several in name order when it is over the cap."""
    chunk: list[str] = []
    for name in sorted(members):
        if chunk and sum(sizes[n] for n in chunk) + sizes[name] > cap:
            _add(parts, label, chunk)
            chunk = []
        chunk.append(name)
    if chunk:
        _add(parts, label, chunk)


def _add(parts: dict[str, list[str]], label: str, members: list[str]) -> None:
    key, number = label, 2
    while key in parts:
        key, number = f"{label}{number}", number + 1
    parts[key] = list(members)
