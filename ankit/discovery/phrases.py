"""Phrases users type for a server's tools, written once by the model: the question, reading the answer, the store.

A server's author describes its tools in the author's words; a model knows the words users type ("top 10
customers by revenue" for an SQL query tool). Asked once per tool list, its answer is kept on disk and searched as
part of each tool's description (catalog.described); it is never sent to the model as part of a tool.
"""

import hashlib
import json
from pathlib import Path

from ankit.safety import statefiles
from ankit.safety.scrub import Scrubber
from ankit.safety.text import outside
from ankit.tooling.tool import Tool

PER_TOOL = 8  # phrases kept per tool
LONGEST = 120  # characters kept of one phrase
# phrases are matched, never run: the model wrote them from a question scrubbed of every known secret, and a tool
# folder's own are its author's; scrubbing each of a catalog's thousands against the environment at every start
# cost 0.2 s of `ankit tools` (tests/bench/bench_startup.py)
NO_SECRETS = Scrubber({})
_DESCRIBED = 400  # characters of a tool's description put in the question
QUESTION = """For each tool of the MCP server "{server}" below, write up to 8 short requests (3 to 10 words) that a user
might type to an assistant when they need that tool: in everyday words, with the abbreviations and slang people
use, mostly NOT the tool's own words. Vary the verbs and the objects; include requests that name only the
object or only the effect wanted, and questions. Answer with one JSON object: {{"tool_name": ["request", ...], ...}}."""
SYSTEM = "You write the search phrases of a tool catalog. Answer with the JSON object only."


def original_name(tool: Tool, label: str) -> str:
    """A server tool's own name (mcp__LABEL__NAME -> NAME)."""
    return tool.name.removeprefix(f"mcp__{label}__")


def question(server: str, label: str, tools: list[Tool]) -> str:
    """The question for one server: what to write, then its tools (names, descriptions, parameter names)."""
    lines = [QUESTION.format(server=server), "", "Tools:"]
    for tool in tools:
        params = list((tool.parameters or {}).get("properties") or {})
        described = " ".join(tool.description.split())[:_DESCRIBED]
        lines.append(f"- {original_name(tool, label)}: {described} (parameters: {', '.join(params) or 'none'})")
    return "\n".join(lines)


def read_answer(text: str, names: list[str]) -> dict[str, list[str]]:
    """The phrases per tool name from a model's answer (its first JSON object); unknown names, non-text
    and control characters are dropped, and each tool keeps PER_TOOL phrases of at most LONGEST characters."""
    found = _first_object(text)
    phrases = {}
    for name in names:
        said = found.get(name)
        if isinstance(said, list) and (good := kept(said)):
            phrases[name] = good
    return phrases


def kept(said: list) -> list[str]:
    """The phrases kept of a list: text only, each through the text boundary on one line (controls made visible),
    repeats dropped, at most PER_TOOL of at most LONGEST characters each."""
    lines = [outside(" ".join(p.split())[:LONGEST], LONGEST, NO_SECRETS, line=True) for p in said if isinstance(p, str)]
    return [p for p in dict.fromkeys(lines) if p][:PER_TOOL]


def _first_object(text: str, tries: int = 20) -> dict:
    """The first JSON object in a text (prose or a code fence around it, a stray brace before it); {} if none."""
    start = text.find("{")
    for _ in range(tries):
        if start < 0:
            break
        try:
            found, _ = json.JSONDecoder().raw_decode(text, start)
            if isinstance(found, dict):
                return found
        except (ValueError, RecursionError):
            pass
        start = text.find("{", start + 1)
    return {}


class PhraseStore:
    """One JSON file per server and tool list, under a folder only the user can read; a changed tool list (a
    name or a description) is a new entry, so its phrases are asked again."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self._read: dict[Path, dict[str, list[str]]] = {}  # each file found is read once per run (saves update it)

    def _path(self, server: str, label: str, tools: list[Tool]) -> Path:
        listed = [[original_name(t, label), t.description] for t in tools]
        key = hashlib.sha256(json.dumps([server, listed], ensure_ascii=False).encode()).hexdigest()[:32]
        return self.folder / f"{key}.json"

    def load(self, server: str, label: str, tools: list[Tool]) -> dict[str, list[str]] | None:
        """The phrases kept for this tool list, or None (never asked, or a broken file)."""
        path = self._path(server, label, tools)
        if path not in self._read:  # a missing file is looked for again: another ankit may write it meanwhile
            try:
                data = json.loads(statefiles.read_cache(path) or "null")
            except (ValueError, RecursionError):
                return None
            if not isinstance(data, dict):
                return None
            self._read[path] = read_answer(json.dumps(data), [original_name(t, label) for t in tools])
        return self._read[path]

    def save(self, server: str, label: str, tools: list[Tool], phrases: dict[str, list[str]]) -> None:
        """Keep the phrases for this tool list (atomically: a reader never sees half a file)."""
        path = self._path(server, label, tools)
        statefiles.write(path, json.dumps(phrases, ensure_ascii=False))
        self._read[path] = phrases

    def attach(self, server: str, label: str, tools: list[Tool]) -> int:
        """Give each tool the phrases kept for it; the number of tools that have some."""
        kept = self.load(server, label, tools) or {}
        for tool in tools:
            tool.phrases = kept.get(original_name(tool, label), [])
        return sum(1 for tool in tools if tool.phrases)
