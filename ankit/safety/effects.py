"""Effects: what a tool declares it does, and what is decided from that alone. A tool without a declaration does
everything; a tool that runs programs does everything a program can.

Tool modules declare `effects = ["read"]` (words from records.EFFECTS); MCP tools take theirs from their server's
annotations (from_annotations). Read-only plan mode refuses a tool that changes anything (CHANGES) unless it is one
of ankit's command tools, which run inside the read-only sandbox; a call whose tool writes outside the working
folder or runs programs is asked first whatever the tool says (ASKS), so `-p` without `--yes` refuses it; an
untrusted project's subagent gets only tools that read (reads_only)."""

from ankit.records import ASKED_EFFECTS, EFFECTS
from ankit.safety.visible import visible_line

EVERYTHING = frozenset(EFFECTS)
CHANGES = frozenset({"write", "write-elsewhere", "lasting", "run"})  # refused in read-only plan mode
ASKS = frozenset(ASKED_EFFECTS)  # a call asks first, whatever its tool says (tooling/tool.py)


def declared(value) -> frozenset[str]:
    """A module's `effects` as a set: everything when it declares none (None); ValueError saying what to write."""
    if value is None:
        return EVERYTHING
    if isinstance(value, str) or not isinstance(value, (list, tuple, set, frozenset)):
        raise ValueError(f'effects must be a list of words, such as ["read"], from: {", ".join(EFFECTS)}')
    unknown = [word for word in value if word not in EFFECTS]
    if unknown:
        raise ValueError(f"effects: unknown {visible_line(str(unknown[0]))[:40]!r}; use words from: {', '.join(EFFECTS)}")
    found = frozenset(value)
    return EVERYTHING if "run" in found else found  # a program it runs can do anything


def names_lasting(value) -> bool:
    """Whether a module's `effects` names "lasting" itself: its calls outlive the session (always asked, results
    marked). One declaring nothing, or "run", is asked first anyway, its results unmarked."""
    return isinstance(value, (list, tuple, set, frozenset)) and "lasting" in value


def from_annotations(notes) -> frozenset[str]:
    """An MCP tool's effects from its annotations, defaulted as the spec does (readOnlyHint false, openWorldHint
    true); a tool without annotations does everything. destructiveHint and idempotentHint narrow nothing: an
    additive write is still a write."""
    if not isinstance(notes, dict):
        return EVERYTHING
    found = {"read"} if notes.get("readOnlyHint") is True else {"read", "write", "write-elsewhere", "lasting"}
    return frozenset(found | ({"network"} if notes.get("openWorldHint") is not False else set()))


def changes(effects: frozenset[str]) -> bool:
    """Whether a tool with these effects changes anything (refused in read-only plan mode)."""
    return bool(effects & CHANGES)


def reads_only(effects: frozenset[str]) -> bool:
    """Whether a tool with these effects only reads (what an untrusted project's subagent may call)."""
    return effects <= {"read"}


def shown(effects: frozenset[str]) -> str:
    """The effects in words for listings: "read, network", "everything"."""
    return "everything" if effects == EVERYTHING else ", ".join(e for e in EFFECTS if e in effects) or "nothing"
