"""The user's guide: one Markdown file per topic, shipped inside the package and read by `ankit help TOPIC` and
`/help TOPIC`. May import only the standard library; the files are read as package resources, so the one-file
archive reads them too."""

from importlib import resources

# The order `ankit help` lists them in (a newcomer's order); a file not named here follows, by name.
ORDER = ("install", "providers", "oneshot", "repl", "instructions", "sessions", "usage", "approvals", "sandbox",
         "safety", "claude-code", "acp", "tools", "skills", "subagents", "hooks", "mcp", "plugins", "routines", "discovery", "development")


def _files() -> dict[str, str]:
    """Each topic's name and its file's text."""
    found = {}
    for entry in resources.files(__name__).iterdir():
        if entry.name.endswith(".md"):
            found[entry.name[:-3]] = entry.read_text(encoding="utf-8")
    return found


def topics() -> list[tuple[str, str]]:
    """Each topic's name and title (its first heading), in the guide's order."""
    files = _files()
    names = [n for n in ORDER if n in files] + sorted(set(files) - set(ORDER))
    return [(name, files[name].split("\n", 1)[0].lstrip("# ").strip()) for name in names]


def find(word: str) -> str | None:
    """The topic a word names: its name, or the one topic whose name starts with it."""
    names = [name for name, _ in topics()]
    word = word.strip().lower()
    if word in names:
        return word
    starting = [name for name in names if name.startswith(word)]
    return starting[0] if word and len(starting) == 1 else None


def read(topic: str) -> str:
    """A topic's Markdown text."""
    return resources.files(__name__).joinpath(f"{topic}.md").read_text(encoding="utf-8")


def listing() -> str:
    """The topics, one line each, with how to read one."""
    rows = topics()
    width = max(len(name) for name, _ in rows)
    return "\n".join(["Topics (ankit help TOPIC; in the REPL /help TOPIC):"]
                     + [f"  {name.ljust(width)}  {title}" for name, title in rows])
