"""Texts shown by subcommands and slash commands alike: /context, the tool listings, sessions, MCP servers."""

from pathlib import Path

from ankit import paths
from ankit.wording import first_sentence
from ankit.mcp import NO_SERVERS
from ankit.safety.visible import fit_lines
from ankit.safety.visible import visible, visible_line
from ankit.skills.library import PROMPT_HEAD
from ankit.tooling.activation import canonical
from ankit.turn.window import BYTES_PER_TOKEN, message_bytes, tokens
from ankit.usage.ledger import number, table

BAR_WIDTH = 32  # with its legend, the bar line fits 80 columns


def bar(used: int, reserved: int, window: int, width: int = BAR_WIDTH) -> str:
    """A window bar: '#' the prompt, '+' the reply's reserve, '.' what is free."""
    window = max(window, 1)
    filled = min(width, max(round(width * used / window), 1 if used else 0))
    reserve = min(width - filled, round(width * reserved / window))
    return "[" + "#" * filled + "+" * reserve + "." * (width - filled - reserve) + "]"


def _row(label: str, size: int | None, note: str = "") -> list[str]:
    if size is None:
        return [label, "", "", note]
    return [label, number(size), number(tokens(size)), note]


def _tool_rows(app, tools) -> list[list[str]]:
    """One row per group: core and activated groups sent, then those held back."""
    activation = app.activation
    rows = [_row(f"  {g}", activation.frozen(g).size, "core, sent") for g in activation.core]
    rows += _unit_rows(app, tools.sent, "activated, sent")
    return rows + _unit_rows(app, tools.held_back, "held back: no room this round")


def _unit_rows(app, units: list[str], note: str) -> list[list[str]]:
    """One row per group of these activation units: the group, or 'group: the tools loaded without it'."""
    by_group: dict[str, list[str]] = {}
    for unit in units:
        by_group.setdefault(app.catalog.unit_group(unit), []).append(unit)
    return [_row(f"  {group}" if group in found else f"  {group}: {', '.join(found)}",
                 sum(app.activation.frozen(u).size for u in found), note) for group, found in by_group.items()]


def context_text(app, session, width: int = 0) -> str:
    """What the next request will carry, part by part, and its estimated total against the model's window."""
    request, tools = session.request()
    system = len(request.system.encode())
    at = request.system.find(PROMPT_HEAD)
    skills = len(request.system[at:].encode()) if at >= 0 else 0
    history = sum(message_bytes(m) for m in request.messages)
    count, left_out = len(request.messages), len(session.conversation.live()) - len(request.messages)
    compacted = len(session.conversation.messages) - len(session.conversation.live())
    note = len(request.note.encode())
    used = tokens(system) + tokens(tools.schema_bytes) + tokens(history) + tokens(note)
    rows = [_row("system prompt", system),
            _instructions_row(app),
            _row("  of which the skills list", skills, f"{len(app.skills)} skills" if app.skills else "no skills"),
            _row(f"tools ({len(request.tools)} sent)", tools.schema_bytes), *_tool_rows(app, tools),
            _row(f"history ({count} message{'' if count == 1 else 's'})", history,
                 "; ".join(filter(None, [f"{left_out} older messages left out" if left_out else "",
                                         f"{compacted} before /compact kept in the file only" if compacted else ""])))]
    rows += [_row("note on held-back groups", note)] if note else []
    rows += [["reply reserve (max_tokens)", "", number(session.max_tokens), ""],
             ["total", "", number(used + session.max_tokens), f"of {number(session.window)}"]]
    model = session.provider.model if session.provider else "(no model)"
    share = round(100 * (used + session.max_tokens) / max(session.window, 1))
    lines = [f"Next request to {model}: window {number(session.window)} tokens, about {BYTES_PER_TOKEN} bytes a token",
             "", *table(["part", "bytes", "~tokens", ""], rows, {1, 2}), "",
             f"{bar(used, session.max_tokens, session.window)} {share}% (# prompt, + reply reserve, . free)"]
    preloaded = [f"preloaded {group}: {why} (preload = false turns this off)"
                 for group, why in app.activation.preloaded.items()]
    read = [f"instructions read: {visible_line(paths.shown(path, app.cwd))}" for path in app.instructions.files]
    skipped = [f"instructions {line}" for line in app.instructions.skipped]  # not the user's: never in the prompt
    cuts = [visible_line(line) for line in app.instructions.cuts]
    return "\n".join(fit_lines(lines + preloaded + read + cuts + skipped + _last_reported(session), width))


def _instructions_row(app) -> list[str]:
    """The project instructions' share of the system prompt and the files it came from."""
    found = app.instructions
    if not found.files:
        return _row("  of which project instructions", 0, "no AGENTS.md or CLAUDE.md")
    count = f"{len(found.files)} file{'s' if len(found.files) != 1 else ''}, listed below"
    names = count + (f" (cut by {number(found.cut)} chars)" if found.cut else "")
    return _row("  of which project instructions", len(found.text.encode()), names)


def _last_reported(session) -> list[str]:
    """The provider's own count for the last prompt, to set the estimate against."""
    reported = [r for r in session.ledger.rounds if r.usage.reported]
    if not reported:
        return []
    last = reported[-1]
    return [f"last reported prompt: {number(last.usage.input_tokens)} tokens "
            f"(round {last.turn}.{last.round}, {number(last.usage.cached_tokens)} cached)"]


def _group_line(app, group_id: str, size: int, loaded: list[str] | None = None) -> list[str]:
    group = app.catalog.groups[group_id]
    count = f"{len(group.tools)} tool{'s' if len(group.tools) != 1 else ' '}"  # the numbers stay aligned
    count = f"{len(loaded)} of {count}" if loaded else count
    return [f"  {group_id}", count, f"{number(size)} B", first_sentence(group.summary)]


def partly_loaded(app) -> dict[str, list[str]]:
    """Groups of which find_tools loaded some tools alone, not the group: group -> those tools."""
    found: dict[str, list[str]] = {}
    for unit in app.activation.active:
        if unit not in app.catalog.groups and unit in app.catalog.tools:
            found.setdefault(app.catalog.group_of(unit), []).append(unit)
    return {g: names for g, names in found.items() if g in app.catalog.groups and g not in app.activation.active}


def tools_text(app, width: int = 100) -> str:
    """Core, activated (whole or some of their tools) and available groups, one line each, with their tool count
    and schema bytes."""
    activation, groups, partly = app.activation, app.catalog.groups, partly_loaded(app)
    core = [g for g in activation.core if g in groups]
    active = [g for g in groups if g in activation.active or g in partly]
    available = [g for g in groups if g not in core and g not in active]
    sections = [("core (always sent)", core), ("activated (sent from now on)", active),
                ("available (/find QUERY, or the model's find_tools, loads them)", available)]
    rows = []
    for _, names in sections:
        for name in names:
            units = partly.get(name) or [name]
            sent = name in core or name in active
            size = sum(activation.frozen(u).size for u in units) if sent else len(canonical(activation.group_specs(name)))
            rows.append(_group_line(app, name, size, partly.get(name)))
    body = table(["", "", "", ""], rows, {1, 2})[1:] if rows else []
    lines, at = [], 0
    for title, names in sections:
        lines += fit_lines([title, *body[at:at + len(names)]], width) + ([] if names else ["  (none)"])
        at += len(names)
    return "\n".join(lines + ["", "/tools GROUP lists a group's tools."])


def group_text(app, group_id: str, width: int = 100) -> str:
    """One group's tools: name, whether it asks before running, and the first line of its description."""
    group = app.catalog.groups.get(group_id)
    if group is None:
        known = ", ".join(app.catalog.groups)
        return f"no group {group_id!r}; known groups: {known}"
    partly = partly_loaded(app).get(group_id)
    state = ("core" if group_id in app.activation.core else "activated" if group_id in app.activation.active else
             f"activated: {', '.join(partly)}" if partly else "available")
    lines = [f"{group_id} ({state}): {group.summary}"]
    tools = [t for t in map(app.lookup, group.tools) if t is not None]
    name_width = max((len(t.name) for t in tools), default=0)
    for tool in tools:
        said = getattr(tool.needs_approval, "listed", tool.needs_approval)  # a cached tool: what its listing said
        asks = "may ask" if callable(said) else "asks first" if said else ""
        mark = "read-only" if tool.read_only else asks
        lines.append(f"  {tool.name:<{name_width}}  {mark:<10} {first_sentence(tool.description)}")
    return "\n".join(fit_lines(lines, width))


def tools_listing(app, width: int = 100) -> str:
    """`ankit tools`: every group with its tools (each as /tools GROUP shows it), then the modules skipped."""
    text = "\n".join(group_text(app, group, width) for group in app.catalog.groups)
    return "\n\n".join([text, "\n".join(app.problems)]) if app.problems else text


def sessions_listing(store, width: int = 0) -> str:
    """Saved sessions, newest first, one line each, titles cut to the width (`ankit sessions`, /sessions)."""
    every = store.list()
    rows = [s for s in every if s.turns]  # a session left before its first message has nothing to show
    if not rows:
        return "no saved sessions yet"
    model = max(len(s.model[:16]) for s in rows)  # as wide as the longest name, 16 at most
    lines = fit_lines([session_row(s, 0, model) for s in rows], width)
    empty = len(every) - len(rows)
    return "\n".join(lines + ([f"({empty} session{'' if empty == 1 else 's'} without a message not shown)"]
                               if empty else []))


def session_row(s, width: int = 0, model: int = 16) -> str:
    """One saved session in a line: id, turns, model, folder, title (cut to the width when one is given)."""
    row = (f"{s.id}  {s.turns:>3} turn{'' if s.turns == 1 else 's'}  {s.model[:16]:<{model}}  "
           f"{_folder(s.cwd):<20}  {visible_line(s.title)}")
    return fit_lines([row], width)[0]


def _folder(path: str, width: int = 20) -> str:
    """A session's folder in at most `width` characters: ~ for home, the end kept."""
    home = str(Path.home())
    shown = "~" + path[len(home):] if path == home or path.startswith(home + "/") else path
    return visible(shown if len(shown) <= width else "…" + shown[-(width - 1):])


def mcp_text(mcp, after: list[str] | None = None) -> str:
    """`ankit mcp` and /mcp: each server, whether it started or why not, and its tools; then the lines after
    (which servers have no search phrases yet)."""
    return NO_SERVERS if mcp is None else "\n".join([*mcp.status.lines(), *(after or [])])


def resumed_text(session, title: str = "", width: int = 80) -> str:
    """The lines that tell which session was resumed and where it stopped (the last reply cut to width)."""
    from ankit.storage.sessions import title_of  # here: listings need neither sessions nor rendering
    from ankit.terminal.render import clip
    turns = sum(1 for m in session.conversation.messages if m.role == "user" and not m.summary)
    count = f"{turns} turn" + ("" if turns == 1 else "s")
    head = f"resumed {session.id}: {title or title_of(session.conversation.messages) or 'untitled'} ({count})"
    last = next((m for m in reversed(session.conversation.messages) if m.role == "assistant" and m.text.strip()), None)
    if last is None:
        return head
    return head + "\n" + clip("last reply: " + " ".join(last.text.split()), width)
