"""/mode and /permissions: the permission mode (Claude Code's default, acceptEdits, plan beside ankit's ask), which
Shift-Tab cycles, and the rules in force with where each comes from."""

from ankit.errors import AnkitError
from ankit.safety.policy import describe
from ankit.safety.sandbox import CLAUDE_NAMES, MEANING, SHOWN, parse_mode
from ankit.safety.visible import visible_line

NEXT = "--next"  # what Shift-Tab sends after /mode (the line typed so far follows, and comes back)
NAMES = "default, acceptEdits, plan or ask (ankit's names: workspace, accept-edits, read-only, off)"


def cmd_mode(state, arg: str) -> str:
    """Show the mode (/mode alone), switch to the one named, or to the next in the cycle (Shift-Tab)."""
    sandbox = state.app.sandbox
    word, _, typed = arg.strip().partition(" ")
    if not word:
        return mode_line(state)
    if word == NEXT:
        if typed and state.prefill is not None:
            state.prefill(typed)
        mode = sandbox.cycled()
    else:
        mode = parse_mode(word)
        if mode is None:
            raise AnkitError(f"no mode {visible_line(word)[:40]!r}: /mode takes {NAMES}")
    line = sandbox.switch(mode)
    state.session.use_prompt(state.app.prompt())  # plan mode is in the system prompt
    return line


def mode_line(state) -> str:
    """The mode in force, what it means, and how to change it."""
    sandbox = state.app.sandbox
    name = "bypassPermissions (--yes: every call runs unasked)" if state.app.config.yes else SHOWN[sandbox.name]
    return (f"mode: {name}: {MEANING[sandbox.name]}\n"
            f"  Shift-Tab cycles default, acceptEdits, plan and ask; /mode NAME picks one ({NAMES})")


def cmd_permissions(state, arg: str) -> str:
    """The mode, then every rule in force (deny, ask, allow, this session's [a]lways) and where it comes from."""
    config, policy = state.app.config, state.app.policy
    lines = [mode_line(state).splitlines()[0], f"  as Claude Code names it: "
             f"{'bypassPermissions' if config.yes else CLAUDE_NAMES[state.app.sandbox.name]}"]
    for kind in ("deny", "ask", "allow"):
        for rule in getattr(config, kind):
            lines.append(f"{kind:<6} {visible_line(rule)}  ({visible_line(config.origins.get((kind, rule), 'flags'))})")
    lines += [f"always {visible_line(line)}  (this session: [a]lways)" for line in map(describe, policy.always)]
    if len(lines) == 2:
        lines.append("no rules: calls that change something ask (allow, ask and deny in config.toml or "
                     ".claude/settings.json; ankit help approvals)")
    return "\n".join(lines)
