"""MCP in the REPL beyond tools: servers' prompts as slash commands (/mcp__SERVER__PROMPT ARGS, in /help and Tab)
and their resources as @SERVER:URI mentions (attached to the message, completed with Tab)."""

import re

from ankit.errors import AnkitError
from ankit.mcp.prompts import usage
from ankit.safety.scrub import Scrubber
from ankit.safety.text import outside

PROMPTS_HEAD = "MCP prompts (from the servers; the server starts when one is used):"
RESOURCE = re.compile(r"(?<!\S)@([A-Za-z0-9][A-Za-z0-9_-]{0,39}):(\S+)")
RESOURCE_CAP = 100_000  # characters of one attached resource
LISTED = 200  # characters of a prompt's usage line or a resource's address as listed


def prompt_rows(mcp) -> list[tuple[str, str]]:
    """The /help rows of the servers' prompts."""
    if mcp is None:
        return []
    return [(outside(usage(command, prompt), LISTED, line=True),
             outside((str(prompt.get("description") or f"prompt of {server}").splitlines() or [""])[0][:70], 70,
                     line=True))
            for command, (server, prompt) in mcp.content.prompts().items()]


def prompt_names(mcp) -> list[str]:
    """The prompts' command names (without /)."""
    return list(mcp.content.prompts()) if mcp is not None else []


def resource_completions(word: str, mcp) -> list[str]:
    """Tab candidates for @SERVER:URI."""
    if mcp is None:
        return []
    return [m for m in (f"@{server}:{outside(r['uri'], LISTED, line=True)}" for server, r in mcp.content.resources())
            if m.startswith(word)]


def attach_resources(text: str, mcp, scrub: Scrubber) -> tuple[str, list[str], list[str]]:
    """The message with each @SERVER:URI of a configured server read and attached (the mention keeps its words
    without the @, so it is not taken for a path); one-line notices for those that could not be read."""
    if mcp is None:
        return text, [], []
    names = {server for server, _ in mcp.content.resources()} | set(mcp.catalog.server_names())
    blocks, notices, attached = [], [], []
    for name, uri in dict.fromkeys(RESOURCE.findall(text)):
        if name not in names:
            continue
        try:
            body = outside(mcp.content.read(name, uri), RESOURCE_CAP, scrub)
        except AnkitError as exc:
            notices.append(f"@{name}:{uri}: not attached: {exc}")
            continue
        blocks.append(f'<resource server="{name}" uri="{uri}">\n{body}\n</resource>')
        attached.append(f"{name}:{uri}")
    if not blocks:
        return text, notices, attached
    text = RESOURCE.sub(lambda m: f"{m[1]}:{m[2]}" if f"{m[1]}:{m[2]}" in attached else m[0], text)
    return text + "\n\n[ankit] Attached by the user's @mentions of MCP resources:\n" + "\n".join(blocks), notices, attached
