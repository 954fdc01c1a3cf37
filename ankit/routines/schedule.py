"""Schedules in words ('every day 09:00', 'every 2h', 'mondays 08:30', 'weekdays 18:00') and when they fall due."""

import re
from dataclasses import dataclass
from datetime import datetime, time, timedelta

from ankit.errors import AnkitError

DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
UNITS = {"m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60, "h": 3600, "hour": 3600, "hours": 3600,
         "d": 86400, "day": 86400, "days": 86400}
GROUPS = {"day": range(7), "daily": range(7), "weekday": range(5), "weekdays": range(5), "weekend": (5, 6),
          "weekends": (5, 6)}
EXAMPLES = "'every day 09:00', 'every 2h', 'every 30 minutes', 'mondays 08:30', 'weekdays 18:00', 'mon,thu 07:15'"
MIN_INTERVAL = 60


class ScheduleError(AnkitError):
    """A schedule that does not parse, said in one line with examples."""


@dataclass(frozen=True)
class Schedule:
    """Either an interval (every N minutes, hours or days) or days of the week at a time of day."""

    text: str
    interval: timedelta | None = None
    days: tuple[int, ...] = ()  # 0 is Monday
    at: time | None = None

    def due(self, now: datetime, since: datetime) -> bool:
        """Whether a run fell due after `since` (the last run, or when the routine was added) and by `now`."""
        if self.interval is not None:
            return now >= since + self.interval
        slot = self.previous(now)
        return slot is not None and slot > since

    def previous(self, now: datetime) -> datetime | None:
        """The latest time of day on one of the days at or before now (within the last week)."""
        for back in range(8):
            day = (now - timedelta(days=back)).date()
            slot = datetime.combine(day, self.at)
            if day.weekday() in self.days and slot <= now:
                return slot
        return None

    def following(self, now: datetime, since: datetime) -> datetime:
        """When it falls due next, after now."""
        if self.interval is not None:
            return max(since + self.interval, now)
        for ahead in range(8):
            day = (now + timedelta(days=ahead)).date()
            slot = datetime.combine(day, self.at)
            if day.weekday() in self.days and slot > now:
                return slot
        raise ScheduleError(f"schedule {self.text!r} never falls due")


def parse(text: str) -> Schedule:
    """Read a schedule; raise ScheduleError saying what works."""
    words = " ".join(text.lower().replace(",", " , ").split())
    words = re.sub(r"\b(at|on|and)\b", " ", words).replace(" , ", " ").replace(",", " ")
    words = " ".join(words.split())
    interval = re.fullmatch(r"(?:every )?(\d+)? ?([a-z]+)", words)
    if interval and interval.group(2) in UNITS and (interval.group(1) or words.startswith("every ")):
        seconds = int(interval.group(1) or 1) * UNITS[interval.group(2)]
        if seconds < MIN_INTERVAL:
            raise ScheduleError(f"schedule {text!r} is too often; the shortest is every minute")
        return Schedule(text, interval=timedelta(seconds=seconds))
    if words in ("hourly", "every hour"):
        return Schedule(text, interval=timedelta(hours=1))
    clock = re.fullmatch(r"(?:every )?(.+?) (\d{1,2}):(\d{2})", words)
    if not clock:
        raise ScheduleError(f"cannot read the schedule {text!r}; write it like {EXAMPLES}")
    hour, minute = int(clock.group(2)), int(clock.group(3))
    if hour > 23 or minute > 59:
        raise ScheduleError(f"{clock.group(2)}:{clock.group(3)} in {text!r} is not a time of day; use 24-hour HH:MM "
                            "as in 'every day 09:00'")
    return Schedule(text, days=_days(clock.group(1).split(), text), at=time(hour, minute))


def _days(names: list[str], text: str) -> tuple[int, ...]:
    """Weekday numbers for words such as 'mondays', 'mon', 'weekdays', 'day'."""
    found: set[int] = set()
    for name in names:
        if name in GROUPS:
            found.update(GROUPS[name])
            continue
        plain = name[:-1] if name.endswith("s") and name[:-1] in DAYS else name
        matches = [i for i, day in enumerate(DAYS) if len(plain) >= 3 and day.startswith(plain)]
        if len(matches) != 1:
            raise ScheduleError(f"cannot read {name!r} in the schedule {text!r}; write it like {EXAMPLES}")
        found.add(matches[0])
    return tuple(sorted(found))
