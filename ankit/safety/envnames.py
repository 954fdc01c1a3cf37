"""Environment names from outside ankit (a hook's CLAUDE_ENV_FILE lines, a settings file's "env"): only names known
not to make a shell, an interpreter or a program run code or reach elsewhere pass (known-safe, not a bad list);
every other name is refused with one line. `BASH_ENV=x` makes the next `bash -c` run x; `LD_PRELOAD`,
`PYTHONSTARTUP`, `PERL5OPT`, `NODE_OPTIONS`, `GIT_SSH_COMMAND`, `PAGER`, `PATH` are the same class."""

import re

INERT = frozenset({
    "LANG", "LANGUAGE", "TZ", "TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE",
    "COLUMNS", "LINES", "CI", "DEBUG", "VERBOSE", "NODE_ENV", "RAILS_ENV", "RACK_ENV", "APP_ENV", "FLASK_DEBUG",
    "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONHASHSEED",
    "PYTHONSAFEPATH", "PYTHONNOUSERSITE", "RUST_BACKTRACE", "RUST_LOG", "CARGO_TERM_COLOR", "GO111MODULE",
    "CGO_ENABLED", "GOOS", "GOARCH", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE",
    "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE", "GIT_TERMINAL_PROMPT", "GIT_OPTIONAL_LOCKS",
    "HTTP_TIMEOUT", "MAX_THINKING_TOKENS", "MAX_MCP_OUTPUT_TOKENS", "MCP_TIMEOUT", "MCP_TOOL_TIMEOUT",
    "BASH_DEFAULT_TIMEOUT_MS", "BASH_MAX_TIMEOUT_MS", "BASH_MAX_OUTPUT_LENGTH", "ANTHROPIC_MODEL",
    "ANTHROPIC_SMALL_FAST_MODEL", "ANTHROPIC_DEFAULT_OPUS_MODEL", "ANTHROPIC_DEFAULT_SONNET_MODEL",
    "ANTHROPIC_DEFAULT_HAIKU_MODEL", "CLAUDE_CODE_MAX_OUTPUT_TOKENS", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
    "DISABLE_TELEMETRY", "DISABLE_ERROR_REPORTING", "DISABLE_AUTOUPDATER", "DISABLE_COST_WARNINGS",
    "DISABLE_NON_ESSENTIAL_MODEL_CALLS", "DISABLE_PROMPT_CACHING", "SOURCE_DATE_EPOCH",
})  # the shell scanner's inert assignments too (safety/programs.py, shellwords.py)
INERT_FORMS = re.compile(r"LC_[A-Z]+")  # the locale's categories
KNOWN_SAFE = "a name known not to make a program run code"


def inert(name: str) -> bool:
    """Whether setting this variable can change nothing but data a program reads (known-safe list)."""
    return name in INERT or bool(INERT_FORMS.fullmatch(name))


def passing(values: dict[str, str], source: str, allowed=()) -> tuple[dict[str, str], list[str]]:
    """The variables whose names are known inert (or that the user's own config names in env_names: allowed),
    and one line naming the refused ones (none when none)."""
    kept = {k: v for k, v in values.items() if inert(k) or k in allowed}
    refused = sorted(k for k in values if k not in kept)
    if not refused:
        return kept, []
    shown = ", ".join(_shown(k) for k in refused[:8]) + (f" and {len(refused) - 8} more" if len(refused) > 8 else "")
    return kept, [f"{source}: not set: {shown} (only {KNOWN_SAFE} passes: LANG, TZ, LC_*, CI, ...; "
                  "set others in your own shell before starting ankit, or list them in env_names in your own "
                  "~/.config/ankit/config.toml)"]


def _shown(name: str) -> str:
    """A name as the line shows it: letters, digits and _ only, cut short."""
    return re.sub(r"[^A-Za-z0-9_]", "?", name)[:40]
