"""MCP tool definitions and results in ankit's terms: exposed names, parameter schemas, result text, Tool objects."""

import hashlib
import json
import re
from collections.abc import Callable

from ankit.errors import ToolError
from ankit.records import ToolOutput
from ankit.safety.effects import from_annotations
from ankit.safety.scrub import Scrubber
from ankit.safety.text import outside
from ankit.tooling.tool import Tool

NAME_LIMIT = 64
DESCRIPTION_CAP = 2048  # characters of a server's tool description kept: it goes to the model in every request
SCHEMA_CAP = 64 * 1024  # characters of a tool's inputSchema (as JSON): past it the tool is left out
_BAD_CHARS = re.compile(r"[^a-zA-Z0-9_-]")

Caller = Callable[[str, dict], dict]  # (original tool name, arguments) -> CallToolResult


def clean_name(text: str) -> str:
    """Replace every character a provider rejects in a tool name with '_'."""
    return _BAD_CHARS.sub("_", text) or "_"


def exposed_name(label: str, tool: str, taken: set[str]) -> str:
    """A provider-safe, unique name mcp__LABEL__TOOL, cut with a short hash when too long or already taken."""
    name = f"mcp__{clean_name(label)}__{clean_name(tool)}"
    if len(name) <= NAME_LIMIT and name not in taken:
        return name
    digest = hashlib.sha1(f"{label}\0{tool}".encode()).hexdigest()
    for length in (8, 12, 16, 40):
        candidate = f"{name[:NAME_LIMIT - length - 1]}_{digest[:length]}"
        if candidate not in taken:
            return candidate
    raise ValueError(f"no unique name for {tool!r}")  # needs a full SHA-1 collision


def object_schema(schema) -> dict:
    """The tool's inputSchema made into a valid object schema for every provider."""
    result = {k: v for k, v in schema.items() if k != "$schema"} if isinstance(schema, dict) else {}
    result["type"] = "object"
    props = result.get("properties")
    props = {k: v for k, v in props.items() if isinstance(v, dict)} if isinstance(props, dict) else {}
    result["properties"] = props
    required = result.pop("required", None)
    required = [r for r in required if r in props] if isinstance(required, list) else []
    if required:
        result["required"] = required
    return result


def _size(data) -> str:
    """Decoded size of a base64 payload, in words."""
    text = "".join(str(data or "").split())
    count = max(0, len(text) * 3 // 4 - text[-2:].count("="))
    if count < 1024:
        return f"{count} bytes"
    if count < 1024 * 1024:
        return f"{count / 1024:.1f} KB"
    return f"{count / 1024 / 1024:.1f} MB"


def content_text(item) -> str:
    """One content block as text: text as is, binary content described by type and size."""
    if not isinstance(item, dict):
        return ""
    kind = item.get("type")
    if kind == "text":
        return str(item.get("text", ""))
    if kind in ("image", "audio"):
        return f"[{kind}: {item.get('mimeType') or 'unknown type'}, {_size(item.get('data'))}, not shown]"
    if kind == "resource_link":
        extra = f" - {item['description']}" if item.get("description") else ""
        return f"[resource link: {item.get('uri', '?')} ({item.get('name', '')}){extra}]"
    if kind == "resource":
        res = item.get("resource") if isinstance(item.get("resource"), dict) else {}
        uri, mime = res.get("uri", "?"), res.get("mimeType") or "unknown type"
        if "text" in res:
            return f"[resource {uri} ({mime})]\n{res['text']}"
        return f"[resource {uri}: {mime}, {_size(res.get('blob'))}, not shown]"
    return f"[{kind or 'unknown'} content, not shown]"


def result_text(result: dict) -> str:
    """A CallToolResult as text for the model; raise ToolError with the server's text when isError."""
    parts = [content_text(item) for item in result.get("content") or []]
    text = "\n".join(p for p in parts if p)
    if not text and result.get("structuredContent") is not None:
        text = json.dumps(result["structuredContent"], ensure_ascii=False)
    if result.get("isError"):
        raise ToolError(text or "the tool reported an error without a message")
    return text or "(no output)"


def result_value(result: dict) -> str | ToolOutput:
    """A CallToolResult as the tool's text (result_text), with its structuredContent as the value a run_code
    program gets where the server sent one."""
    text = result_text(result)
    data = result.get("structuredContent")
    return text if data is None else ToolOutput(text, data)


def make_tool(server: str, spec: dict, exposed: str, call: Caller, hints: bool = True,
              scrub: Scrubber | None = None, trusted: bool = False) -> Tool:
    """One MCP tool definition as an ankit Tool that calls the server under its original name; hints False
    (a list from the cache, not from the live server): its annotations grant nothing, every call asks. trusted
    (the user's own config says trust_annotations = true for this server): its annotations are its effects;
    otherwise they are claims only (Tool.claims): every call asks, plan mode asks rather than refuses a tool
    claiming to only read, and an untrusted project's subagent never gets it. Its description passes the text
    boundary (capped, scrubbed, escapes made visible)."""
    original = spec["name"]
    claimed = spec.get("annotations") if hints and isinstance(spec.get("annotations"), dict) else None
    notes = claimed if trusted and claimed is not None else {}
    # Read-only is not enough to run unasked: a tool that may reach the open world (the spec's default) sends its
    # arguments off the machine, as web_search does, so only a server's read-only, closed-world tools run freely.
    read_only = notes.get("readOnlyHint") is True and notes.get("openWorldHint") is False
    description = outside(str(spec.get("description") or spec.get("title") or (claimed or {}).get("title") or original).strip(),
                          DESCRIPTION_CAP, scrub)

    def run(args: dict, ctx=None) -> str:
        return result_value(call(original, args))

    def preview(args: dict, ctx=None) -> str:
        shown = json.dumps(args, ensure_ascii=False)  # whole: an approval shows everything the call will send
        return f"MCP server {server}, tool {original}: {shown}"

    return Tool(name=exposed, description=description, parameters=object_schema(spec.get("inputSchema")),
                run=run, group=f"mcp:{server}", read_only=read_only, needs_approval=not read_only,
                preview=preview, source=f"MCP server {server}", effects=from_annotations(notes or None),
                claims=from_annotations(claimed) if claimed is not None and not trusted else None,
                returns=returned(spec.get("outputSchema")))


def returned(schema) -> str:
    """What a call returns to a run_code program: the outputSchema's object with its keys, else text or the
    JSON the text holds."""
    keys = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(keys, dict) or not keys:
        return "str | dict | list"  # its text, parsed where it is a JSON object or array
    return "dict: {" + ", ".join(repr(str(k)[:40]) for k in list(keys)[:20]) + "} (the tool's structured content)"


def _task_only(spec: dict) -> bool:
    """Whether the tool declares execution.taskSupport "required" (2025-11-25): a plain tools/call is refused."""
    execution = spec.get("execution")
    return isinstance(execution, dict) and execution.get("taskSupport") == "required"


def make_tools(server: str, specs: list[dict], call: Caller, label: str = "", hints: bool = True,
               scrub: Scrubber | None = None, trusted: bool = False) -> tuple[list[Tool], list[str]]:
    """Tools for a server's list, in its order; label (default: the server name) prefixes exposed names; hints
    False for a cached list (see make_tool)."""
    tools, problems, taken, originals, scrub = [], [], set(), set(), scrub or Scrubber()
    for spec in specs:
        original = spec.get("name") if isinstance(spec, dict) else None
        if not isinstance(original, str) or not original:
            problems.append(f"skipped a tool of MCP server {server!r} without a name")
            continue
        if original in originals:
            problems.append(f"skipped a second tool named {original!r} from MCP server {server!r}")
            continue
        if len(json.dumps(spec.get("inputSchema"), ensure_ascii=False, default=str)) > SCHEMA_CAP:
            problems.append(f"skipped tool {outside(original, 80, scrub, True)!r} of MCP server {server!r}: its "
                            f"inputSchema is over {SCHEMA_CAP:,} characters")
            continue
        if _task_only(spec):
            problems.append(f"skipped tool {original!r} of MCP server {server!r}: it runs only as an MCP task, "
                            f"which ankit does not support")
            continue
        originals.add(original)
        tool = make_tool(server, spec, exposed_name(label or server, original, taken), call, hints, scrub, trusted)
        taken.add(tool.name)
        tools.append(tool)
    return tools, problems
