"""Claude Code's hooks JSON, walked once for everything that reads it: running the hooks (hooks/config.py),
the trust question of a folder's .claude/ (claude/settings.py) and of a plugin (claude/plugins.py).

{"hooks": {EVENT: [{"matcher": ..., "hooks": [{"type": "command", "command": ..., "timeout": ...}]}]}}: each
hook entry with its event and matcher, and one line for each part ankit does not take (never dropped silently).
"""

from dataclasses import dataclass
from pathlib import Path

ENTRY_FIELDS = {"type", "command", "prompt", "timeout"}
GROUP_FIELDS = {"matcher", "hooks"}
KINDS = ("command", "prompt")


@dataclass(frozen=True)
class HookEntry:
    """One hook as a settings or hooks.json file configures it."""

    event: str
    matcher: str
    kind: str  # "command" or "prompt"
    text: str  # the command line, or the prompt
    timeout: object = None  # as written (seconds)


def hook_entries(data: dict, path: Path, events: tuple[str, ...] | None = None) -> tuple[list[HookEntry], list[str]]:
    """Every hook a file's "hooks" configures, in order (of `events` only, when given), and one line per part
    that is not taken."""
    tables = data.get("hooks") if isinstance(data.get("hooks"), dict) else {}
    found, problems = [], []
    for event, groups in tables.items():
        if events is not None and event not in events:
            problems.append(f"{path}: ankit has no {event} event; those hooks do not run")
            continue
        for group in groups if isinstance(groups, list) else []:
            entries, more = _group(str(event), group, path)
            found, problems = found + entries, problems + more
    return found, problems


def _group(event: str, group, path: Path) -> tuple[list[HookEntry], list[str]]:
    """One {"matcher", "hooks": [...]} group."""
    if not isinstance(group, dict):
        return [], [f"{path}: a {event} entry is not an object; skipped"]
    found, problems = [], [f"{path}: ankit ignores {k!r} in {event} hooks" for k in sorted(set(group) - GROUP_FIELDS)]
    for entry in group.get("hooks") if isinstance(group.get("hooks"), list) else []:
        kind = entry.get("type", "command") if isinstance(entry, dict) else None
        if kind not in KINDS:
            problems.append(f"{path}: a {event} hook of type {kind!r} is not supported; skipped")
            continue
        problems += [f"{path}: ankit ignores {k!r} in a {event} hook" for k in sorted(set(entry) - ENTRY_FIELDS)]
        text = entry.get(kind)
        if isinstance(text, str) and text.strip():
            found.append(HookEntry(event, str(group.get("matcher") or ""), kind, text, entry.get("timeout")))
        else:
            problems.append(f"{path}: a {event} hook without a {kind} is skipped")
    return found, list(dict.fromkeys(problems))
