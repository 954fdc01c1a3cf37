"""One message of a session file as a JSON object, and back."""

from dataclasses import asdict

from ankit.records import Image, Message, ToolCall, ToolResult


def message_entry(message: Message) -> dict:
    """One message's line as a JSON object."""
    entry = asdict(message)
    if not entry["opaque"]:
        del entry["opaque"]  # most messages carry no provider data: keep their lines as they were
    for result in entry["results"]:
        del result["summary"]  # the user's line about a call is for the screen only
        if not result["loaded"]:
            del result["loaded"]  # only find_tools' answers load tools
    if not entry["images"]:
        del entry["images"]
    if not entry["summary"]:
        del entry["summary"]  # only /compact's summary carries the mark
    return {"type": "message", **entry}


def message_from(entry: dict) -> Message:
    """A Message from its file line; raises ValueError when malformed."""
    if entry.get("role") not in ("user", "assistant", "tool"):
        raise ValueError(f"unknown role {entry.get('role')!r}")
    calls = [ToolCall(str(c["id"]), str(c["name"]), str(c.get("arguments", "{}"))) for c in entry.get("tool_calls", [])]
    results = [
        ToolResult(str(r["call_id"]), str(r["name"]), str(r.get("content", "")), bool(r.get("is_error", False)),
                   loaded=[n for n in r["loaded"] if isinstance(n, str)] if isinstance(r.get("loaded"), list) else [])
        for r in entry.get("results", [])
    ]
    opaque = entry.get("opaque")
    opaque = {str(k): v for k, v in opaque.items() if isinstance(v, list)} if isinstance(opaque, dict) else {}
    images = [Image(str(i["media_type"]), str(i["data"]), str(i.get("name", ""))) for i in entry.get("images", [])]
    return Message(entry["role"], str(entry.get("text", "")), calls, results, bool(entry.get("cut", False)), opaque,
                   images, entry.get("summary") is True)
