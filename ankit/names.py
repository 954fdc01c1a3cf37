"""Names as Claude Code gives them to a plugin's skills, commands and agents: `plugin:name` always, and the plain
name too when no other thing has it (a thing of the user's or the project's keeps its plain name first)."""

from collections.abc import Iterable


def qualified(plugin: str, name: str) -> str:
    """A plugin's thing by its full name (`superpowers:brainstorming`); a name of no plugin as it is."""
    return f"{plugin}:{name}" if plugin and not name.startswith(f"{plugin}:") else name


def resolve(known: Iterable[str], wanted: str) -> tuple[str, list[str]]:
    """(the name `wanted` answers to, or "", and the names it could mean when it is ambiguous): the name itself,
    else the one `...:wanted` when exactly one has it."""
    names = list(known)
    if wanted in names:
        return wanted, []
    if not wanted or ":" in wanted:
        return "", []
    ends = [name for name in names if name.rpartition(":")[2] == wanted and ":" in name]
    return (ends[0], []) if len(ends) == 1 else ("", ends)


def ambiguous(kind: str, wanted: str, candidates: list[str]) -> str:
    """The line saying a plain name fits several plugins' things."""
    return f"{kind} {wanted!r} is in more than one plugin: name one of {', '.join(candidates)}"
