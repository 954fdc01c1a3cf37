"""The subcommands: their names, each one's help, and finding one after the global options."""

import argparse

HELP = {
    "tools": ("ankit tools [GROUP | check] [--refresh]",
              "List the tool groups find_tools searches (MCP servers' from their cached lists; --refresh starts\n"
              "them), one group's tools, or check that every tool's examples find it (exit 1 on a miss)."),
    "skills": ("ankit skills [list | show NAME]", "List the skills found, or print one skill's SKILL.md."),
    "usage": ("ankit usage", "Tokens and cost of the saved sessions: today, this week, this month, by model."),
    "mcp": ("ankit mcp [list [--refresh] | add [-s local|project|user] [-t stdio|http] [-e KEY=VALUE]...\n"
            "          [-H 'Name: value']... NAME [--] COMMAND [ARGS...] | URL | add-json NAME JSON [-s SCOPE] |\n"
            "          import [-s local|user] | remove NAME [-s SCOPE] | get NAME | login NAME [--device] |\n"
            "          logout NAME | phrases [NAME...] [--again]]",
            "The MCP servers: their state and tools, adding and removing one (scopes as in Claude Code: user,\n"
            "the default here, is your config.toml; local, the folder's .ankit/config.toml; project, its\n"
            ".mcp.json; add-json: Claude Code's JSON; import: the servers configured for Claude Desktop and\n"
            "Claude Code), signing in to one over OAuth, and having the model write search phrases for their\n"
            "tools. See ankit help mcp."),
    "plugin": ("ankit plugin [add PATH | add MARKETPLACE NAME | list | remove NAME]",
               "Claude Code plugins (a folder with .claude-plugin/plugin.json): its commands, agents, skills and\n"
               "MCP servers used as a unit, trusted as they are when added. See ankit help plugins."),
    "eval-discovery": ("ankit eval-discovery --catalog FILE --queries FILE [...]",
                       "Measure the tool search on a catalog and a query set (ankit eval-discovery --help for\n"
                       "every flag). See ankit help discovery."),
    "sessions": ("ankit sessions [show ID | rm ID | export ID [FILE.md]]",
                 "List the saved sessions, print one, remove one, or export one as Markdown."),
    "bundle": ("ankit bundle [--output FILE]", "Write ankit, its tools and skills as one zipapp (ankit.pyz)."),
    "routine": ('ankit routine [add "SCHEDULE" "PROMPT" [--allow TOOL]... [--watch URL] | list | remove ID |\n'
                "              run-due [--now YYYY-MM-DDTHH:MM] | install [--systemd]]",
                "Prompts ankit answers by itself on a schedule. See ankit help routines."),
    "acp": ("ankit acp [--model NAME] [--provider NAME] [--trust] [--sandbox MODE] [--yes]",
            "ankit in your editor: an Agent Client Protocol agent on stdin and stdout (Zed, Neovim's\n"
            "CodeCompanion, JetBrains, any ACP client starts it). See ankit help acp."),
    "help": ("ankit help [TOPIC]", "The guide's topics, or one topic."),
}
SUBCOMMANDS = tuple(HELP)


def help_text(command: str) -> str:
    """One subcommand's usage and what it does."""
    usage, what = HELP[command]
    where = "before or after the subcommand"
    if command in OWN_FLAGS:
        where += f" (before {', '.join(OWN_FLAGS[command])}: the words after those are theirs alone)"
    return f"usage: {usage}\n\n{what}\n\nThe global options (ankit --help) go {where}."


OWN_FLAGS = {"mcp": ("add", "add-json", "import", "remove", "get")}  # actions whose words are theirs alone


def split(argv: list[str], parser: argparse.ArgumentParser) -> tuple[str, list[str]]:
    """The subcommand and the other words: the first word that is neither an option nor an option's value."""
    index = _first_word(argv, parser)
    if index < len(argv) and argv[index] in HELP:
        return argv[index], argv[:index] + argv[index + 1:]
    return "", argv


def own_words(command: str, rest: list[str], parser: argparse.ArgumentParser) -> tuple[list[str], list[str]]:
    """(the global options, the subcommand's own words): from an action of OWN_FLAGS on (`mcp add -s project`)
    every word is the action's, so its -s or -e is never read as ankit's --system or anything else."""
    index = _first_word(rest, parser)
    if index < len(rest) and rest[index] in OWN_FLAGS.get(command, ()):
        return rest[:index], rest[index:]
    return rest, []


def _first_word(argv: list[str], parser: argparse.ArgumentParser) -> int:
    """Where the first word that is neither an option nor an option's value is (len(argv) when none is)."""
    takes_value = {flag for action in parser._actions if action.nargs != 0 for flag in action.option_strings}
    index = 0
    while index < len(argv):
        word = argv[index]
        if word == "--":
            return len(argv)
        if not word.startswith("-"):
            return index
        index += 2 if _wants_next(word, takes_value) else 1
    return len(argv)


def _wants_next(word: str, takes_value: set[str]) -> bool:
    """Whether an option word's value is the next word: --model (not --model=x), -p, and grouped short options
    whose last one takes a value (-yp; in -sTEXT the value is attached)."""
    if word.startswith("--") or len(word) <= 2:
        return word in takes_value
    for place, letter in enumerate(word[1:], 1):
        if f"-{letter}" in takes_value:
            return place == len(word) - 1
    return False
