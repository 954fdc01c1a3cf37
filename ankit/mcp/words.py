"""The words of `ankit mcp add` and its siblings, read as Claude Code's `claude mcp add` reads them.

`-s/--scope local|project|user`, `-t/--transport stdio|http|sse`, `-e/--env KEY=VALUE` and `-H/--header "Name:
value"` (each taking one value, repeatable), then NAME and the server's command (after `--`, or without it when no
word of it starts with '-') or its address. Any other option is refused with one line: it is never read as another.
"""

import re
from dataclasses import dataclass, field

from ankit.errors import ConfigError
from ankit.mcp.admin import check_name, parse_env

SCOPES = ("local", "project", "user")
SCOPE_FLAGS = ("-s", "--scope")
VALUED = {"-s": "scope", "--scope": "scope", "-t": "transport", "--transport": "transport", "-e": "env",
          "--env": "env", "-H": "header", "--header": "header"}
HEADER = re.compile(r"([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*:\s*(.*)")


@dataclass
class AddWords:
    """What `ankit mcp add` was asked: the server's name, where it goes and its table."""
    name: str
    scope: str
    table: dict = field(default_factory=dict)


def parse_scope(argv: list[str], usage: str, allowed: tuple[str, ...] = SCOPES) -> str:
    """The scope named by -s/--scope (--project: local, as before); user when none is named."""
    values, words = _options(argv, usage, ("scope",))
    if words:
        raise ConfigError(f"unexpected {words[0]!r}; usage: {usage}")
    return _scope(values, allowed)


def parse_add(argv: list[str], usage: str) -> AddWords:
    """`mcp add`'s words as a server table; ConfigError with one line when anything is wrong."""
    cut = argv.index("--") if "--" in argv else len(argv)
    values, words = _options(argv[:cut], usage, ("scope", "transport", "env", "header"))
    words += argv[cut + 1:]
    if not words or words[0] == "":
        raise ConfigError(f"name the server: {usage}")
    name, command = check_name(words[0]), words[1:]
    transport = (values.get("transport") or ["stdio"])[-1]
    scope = _scope(values, SCOPES)
    if transport == "sse":
        raise ConfigError("ankit does not speak the SSE transport (MCP deprecated it): if the server also answers "
                          "Streamable HTTP, add it with -t http and that address")
    if transport == "http":
        return AddWords(name, scope, _http_table(command, values, usage))
    if transport != "stdio":
        raise ConfigError(f"-t takes stdio, http or sse, not {transport!r}")
    return AddWords(name, scope, _stdio_table(command, values, usage))


def _stdio_table(command: list[str], values: dict, usage: str) -> dict:
    """A local server: its command, args and env (-H is for servers over HTTP)."""
    if not command or not command[0].strip():
        raise ConfigError("give the server's command after --, e.g. ankit mcp add files -- npx -y "
                          "@modelcontextprotocol/server-filesystem .")
    if command[0].startswith(("http://", "https://")):
        raise ConfigError(f"{command[0]!r} is an address: add -t http to reach a server over HTTP")
    if values.get("header"):
        raise ConfigError("-H sends a header to a server over HTTP: add -t http and the server's address")
    env = parse_env(values.get("env", []))
    return {"command": command[0], **({"args": command[1:]} if command[1:] else {}), **({"env": env} if env else {})}


def _http_table(words: list[str], values: dict, usage: str) -> dict:
    """A server over Streamable HTTP: its address and headers (-e is for local servers)."""
    if len(words) != 1 or not words[0].startswith(("http://", "https://")):
        raise ConfigError(f"-t http takes the server's address after its name, e.g. ankit mcp add -t http notion "
                          f"https://mcp.notion.com/mcp; usage: {usage}")
    if values.get("env"):
        raise ConfigError("-e sets a local server's environment; a server over HTTP takes -H 'Name: value'")
    headers = {}
    for text in values.get("header", []):
        match = HEADER.fullmatch(text.strip())
        if not match:
            raise ConfigError(f"-H takes 'Name: value', e.g. -H 'Authorization: Bearer ${{TOKEN}}', not {text!r}")
        headers[match[1]] = match[2]
    return {"url": words[0], **({"headers": headers} if headers else {})}


def _options(argv: list[str], usage: str, known: tuple[str, ...]) -> tuple[dict[str, list[str]], list[str]]:
    """The known options' values (by name, in order) and the other words; an unknown option is a ConfigError."""
    values: dict[str, list[str]] = {}
    words = []
    items = iter(argv)
    for item in items:
        flag, sep, attached = item.partition("=") if item.startswith("--") else (item, "", "")
        if item == "--project" and "scope" in known:
            values.setdefault("scope", []).append("local")
        elif VALUED.get(flag) in known:
            value = attached if sep else next(items, None)
            if value is None or (not sep and value.startswith("-") and value != "-"):
                raise ConfigError(f"{flag} needs a value; usage: {usage}")
            values.setdefault(VALUED[flag], []).append(value)
        elif item.startswith("-") and item != "-":
            raise ConfigError(f"unknown option {item!r} for this command (the server's own options go after --); "
                              f"usage: {usage}")
        else:
            words.append(item)
    return values, words


def _scope(values: dict, allowed: tuple[str, ...]) -> str:
    """The one scope asked for (user when none); a scope not allowed here is a ConfigError."""
    asked = set(values.get("scope", []))
    if len(asked) > 1:
        raise ConfigError(f"more than one scope given ({', '.join(sorted(asked))}); name one")
    scope = asked.pop() if asked else "user"
    if scope not in allowed:
        raise ConfigError(f"-s takes {', '.join(allowed)}, not {scope!r}")
    return scope
