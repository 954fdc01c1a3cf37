"""A server's prompts as slash commands (/mcp__SERVER__PROMPT ARGS) and its resources as @SERVER:URI mentions:
their names, the arguments a user types, and what they become as text for the conversation."""

import shlex

from ankit.errors import ConfigError
from ankit.mcp.tools import content_text, exposed_name


def prompt_commands(label: str, prompts: list[dict]) -> dict[str, dict]:
    """Slash command name (without /) -> prompt, for one server's prompts (names made provider-safe and unique)."""
    out: dict[str, dict] = {}
    for prompt in prompts:
        if isinstance(prompt.get("name"), str) and prompt["name"]:
            out[exposed_name(label, prompt["name"], set(out))] = prompt
    return out


def arguments_of(prompt: dict) -> list[dict]:
    """The prompt's declared arguments, each a dict with a name."""
    args = prompt.get("arguments")
    return [a for a in args if isinstance(a, dict) and isinstance(a.get("name"), str)] if isinstance(args, list) else []


def usage(command: str, prompt: dict) -> str:
    """'/command NAME [OPTIONAL]' for one prompt."""
    words = [a["name"] if a.get("required") else f"[{a['name']}]" for a in arguments_of(prompt)]
    return " ".join([f"/{command}", *words])


def fill(command: str, prompt: dict, text: str) -> dict[str, str]:
    """The typed arguments by name: NAME=VALUE pairs, or values in the declared order (quote one with spaces);
    more words than arguments, none named: the first argument takes the whole line."""
    declared = [a["name"] for a in arguments_of(prompt)]
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise ConfigError(f"{exc}: quote each argument whole; usage: {usage(command, prompt)}") from None
    named = dict(w.split("=", 1) for w in words if "=" in w and w.split("=", 1)[0] in declared)
    loose = [w for w in words if not ("=" in w and w.split("=", 1)[0] in declared)]
    free = [n for n in declared if n not in named]
    if len(loose) > len(free):
        if declared and not named:  # more words than arguments: the first argument takes the whole line
            return {declared[0]: text.strip()}
        raise ConfigError(f"too many arguments; usage: {usage(command, prompt)}")
    named.update(zip(free, loose))
    missing = [a["name"] for a in arguments_of(prompt) if a.get("required") and a["name"] not in named]
    if missing:
        raise ConfigError(f"{', '.join(missing)} needed; usage: {usage(command, prompt)}")
    return named


def messages_text(result: dict) -> str:
    """A GetPromptResult's messages as one message for the model (other roles than the user's are labelled)."""
    parts = []
    for message in result.get("messages") or []:
        if not isinstance(message, dict):
            continue
        text = content_text(message.get("content"))
        if text:
            parts.append(text if message.get("role", "user") == "user" else f"[{message.get('role')}] {text}")
    return "\n\n".join(parts)


def resource_text(server: str, uri: str, result: dict) -> str:
    """A ReadResourceResult's contents as text to attach (binary contents are described, not attached)."""
    parts = []
    for item in result.get("contents") or []:
        if isinstance(item, dict):
            parts.append(content_text({"type": "resource", "resource": item}))
    return "\n".join(parts) or f"[resource {uri} of MCP server {server}: empty]"
