"""Where hooks come from: config.toml's [[hooks.EVENT]] tables and Claude Code's settings.json files
({"hooks": {EVENT: [{"matcher": ..., "hooks": [{"type": "command", "command": ..., "timeout": ...}]}]}}), and
the /hooks listing. Whatever ankit does not support (an event, a hook type, a field) is said once at start,
never dropped silently. Which files are read (a project's only when trusted) is decided by the assembly."""

from pathlib import Path

from ankit.claude.hooksjson import HookEntry, hook_entries
from ankit.claude.settings import read_json
from ankit.hooks.events import DEFAULT_TIMEOUT, EVENTS, Hook, Hooks


def from_config(tables: dict, origin: str) -> tuple[list[Hook], list[str]]:
    """Hooks from config.toml's [[hooks.EVENT]] tables (matcher, command, timeout); problems one line each."""
    hooks, problems = [], []
    for event, entries in (tables or {}).items():
        if event not in EVENTS:
            problems.append(f"{origin}: unknown hook event {event!r}; events are {', '.join(EVENTS)}")
            continue
        for entry in entries if isinstance(entries, list) else [entries]:
            hook = _table_hook(event, entry, origin) if isinstance(entry, dict) else None
            if hook is None:
                problems.append(f"{origin}: a [[hooks.{event}]] entry needs command = \"...\" (and may have matcher, timeout)")
            else:
                hooks.append(hook)
    return hooks, problems


def _table_hook(event: str, table: dict, origin: str) -> Hook | None:
    """One [[hooks.EVENT]] table as a hook, or None without its command (or prompt)."""
    kind = table.get("type", "command")
    text = table.get("prompt" if kind == "prompt" else "command")
    if not isinstance(text, str) or not text.strip():
        return None
    return _hook(HookEntry(event, str(table.get("matcher") or ""), kind, text, table.get("timeout")), origin, {})


def from_claude_settings(path: Path, plugin_root: Path | None = None) -> tuple[list[Hook], list[str]]:
    """Hooks from a Claude Code settings.json (or a plugin's hooks.json, with its root for CLAUDE_PLUGIN_ROOT)."""
    data, problems = read_json(path)
    # the settings files' env is merged once for the whole run (settings/layers.py), never per file
    env = {"CLAUDE_PLUGIN_ROOT": str(plugin_root)} if plugin_root else {}
    entries, more = hook_entries(data, path, EVENTS)
    return [_hook(e, str(path), env) for e in entries], problems + more


def _hook(entry: HookEntry, origin: str, env: dict) -> Hook:
    try:
        timeout = float(entry.timeout or (30 if entry.kind == "prompt" else DEFAULT_TIMEOUT))
    except (TypeError, ValueError):
        timeout = DEFAULT_TIMEOUT
    return Hook(entry.event, entry.text, entry.matcher, max(timeout, 0.1), origin, entry.kind, dict(env))


def load_hooks(config_tables: dict, config_origin: str, settings_files: list[Path], cwd: Path,
               plugin_files: list[tuple[Path, Path]] = ()) -> Hooks:
    """Every active hook: config.toml's first, then each settings.json in order, then each added plugin's
    hooks.json (with its folder as CLAUDE_PLUGIN_ROOT)."""
    hooks, problems = from_config(config_tables, config_origin)
    for path, root in [(path, None) for path in settings_files] + list(plugin_files):
        found, more = from_claude_settings(path, root)
        hooks, problems = hooks + found, problems + more
        if read_json(path)[0].get("disableAllHooks") is True:  # Claude Code's switch: every hook is off
            return Hooks([], cwd, problems=problems + [f"{path}: disableAllHooks is set; no hook runs"])
    return Hooks(hooks, cwd, problems=problems)


def listing(hooks: Hooks) -> str:
    """/hooks: each active hook with its event, matcher, timeout and where it came from."""
    if not hooks.hooks:
        return ("no hooks are active: add [[hooks.PreToolUse]] tables to config.toml, or hooks to "
                "~/.claude/settings.json (see ankit help hooks)")
    lines = []
    for event in EVENTS:
        for hook in (h for h in hooks.hooks if h.event == event):
            where = f" [{hook.matcher}]" if hook.matcher else ""
            what = hook.command if hook.kind == "command" else f"(prompt) {hook.command}"
            lines.append(f"{event}{where}  {what}  (timeout {hook.timeout:g} s; {hook.origin})")
    return "\n".join(lines + hooks.problems)
