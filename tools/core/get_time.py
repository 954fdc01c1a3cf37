"""get_time: the current date and time, locally, in UTC, or in a named time zone."""

from datetime import datetime, timezone

from ankit.toolkit import ToolError

name = "get_time"
description = (
    "Get the current date, time and weekday: local time and UTC, or the time in a named IANA time zone "
    "such as 'Europe/Paris' or 'America/New_York'."
)
parameters = {
    "type": "object",
    "properties": {
        "timezone": {"type": "string", "description": "IANA time zone name (default: the local zone)"},
    },
    "additionalProperties": False,
}
effects = ["read"]
needs_approval = False
examples = [
    "what time is it",
    "what is today's date",
    "what time is it in Tokyo right now",
]



def run(args: dict, ctx) -> str:
    """Return the current time as readable lines with ISO timestamps."""
    now = datetime.now(timezone.utc)
    zone_name = (args.get("timezone") or "").strip()
    lines = []
    if zone_name:
        lines.append(_line(zone_name, now.astimezone(_zone(zone_name))))
    local = now.astimezone()
    lines.append(_line(f"local ({local.tzname()})", local))
    lines.append(_line("UTC", now))
    lines.append(f"unix time: {int(now.timestamp())}")
    return "\n".join(lines)


def _line(label: str, moment: datetime) -> str:
    return f"{label}: {moment.strftime('%A %d %B %Y, %H:%M:%S')} ({moment.isoformat(timespec='seconds')})"


def _zone(zone_name: str):
    """A ZoneInfo by name, or a ToolError saying what to give instead."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(zone_name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ToolError(
            f"unknown time zone {zone_name!r}; use an IANA name such as 'Europe/Berlin' or 'Asia/Tokyo'"
        ) from None
