"""Routine schedules and the routines file, on a fixed clock."""

from datetime import datetime, timedelta

import pytest

from ankit.errors import AnkitError
from ankit.routines.schedule import ScheduleError, parse
from ankit.routines.store import Routine, RoutineStore

MONDAY = datetime(2026, 11, 30, 8, 0)  # a Monday


@pytest.mark.parametrize("text, days, at", [
    ("every day 09:00", tuple(range(7)), "09:00"), ("daily at 7:05", tuple(range(7)), "07:05"),
    ("mondays 08:30", (0,), "08:30"), ("every Monday at 08:30", (0,), "08:30"),
    ("weekdays 18:00", (0, 1, 2, 3, 4), "18:00"), ("mon,thu 07:15", (0, 3), "07:15"),
    ("Mondays and Thursdays 07:15", (0, 3), "07:15"), ("weekends 10:00", (5, 6), "10:00"),
])
def test_clock_schedules(text, days, at):
    schedule = parse(text)
    assert schedule.days == days and schedule.at.strftime("%H:%M") == at and schedule.interval is None


@pytest.mark.parametrize("text, minutes", [("every 2h", 120), ("every 30 minutes", 30), ("every 2 hours", 120),
                                           ("hourly", 60), ("every 1d", 1440), ("every minute", 1)])
def test_interval_schedules(text, minutes):
    assert parse(text).interval == timedelta(minutes=minutes)


@pytest.mark.parametrize("text, words", [("every blue moon", "cannot read the schedule"), ("every 10s", "cannot read"),
                                         ("tuesday 25:00", "not a time of day"), ("funday 09:00", "cannot read 'funday'"),
                                         ("", "cannot read")])
def test_schedules_that_do_not_parse_say_how_to_write_one(text, words):
    with pytest.raises(ScheduleError) as caught:
        parse(text)
    assert words in str(caught.value) and "\n" not in str(caught.value) and "every day 09:00" in str(caught.value)


def test_a_daily_routine_is_due_once_after_its_time_missed_runs_fold_into_one():
    daily = parse("every day 09:00")
    added = MONDAY  # 08:00
    assert not daily.due(MONDAY.replace(hour=8, minute=59), added)
    assert daily.due(MONDAY.replace(hour=9, minute=5), added)
    ran = MONDAY.replace(hour=9, minute=5)
    assert not daily.due(MONDAY.replace(hour=23), ran)
    assert daily.due(MONDAY + timedelta(days=3, hours=2), ran)  # three days off: one run, not three
    assert daily.following(ran, ran) == datetime(2026, 12, 1, 9, 0)


def test_weekly_and_interval_routines_fall_due_on_their_own_terms():
    mondays = parse("mondays 08:30")
    assert mondays.due(MONDAY.replace(hour=8, minute=30), MONDAY) and not mondays.due(MONDAY + timedelta(days=1), MONDAY + timedelta(hours=1))
    assert mondays.following(MONDAY.replace(hour=9), MONDAY) == datetime(2026, 12, 7, 8, 30)
    every = parse("every 2h")
    assert not every.due(MONDAY + timedelta(minutes=119), MONDAY) and every.due(MONDAY + timedelta(hours=2), MONDAY)


def test_the_store_adds_lists_records_and_removes(tmp_path):
    store = RoutineStore(tmp_path / "routines.json")
    first = store.add(Routine(0, "every day 09:00", "summarise", str(tmp_path), MONDAY.isoformat()))
    second = store.add(Routine(0, "every 2h", "", str(tmp_path), MONDAY.isoformat(), watch="https://example.com"))
    assert (first.id, second.id) == (1, 2)
    assert store.due(MONDAY + timedelta(minutes=59)) == []
    assert [r.id for r in store.due(MONDAY + timedelta(hours=1))] == [1]
    assert [r.id for r in store.due(MONDAY + timedelta(hours=2))] == [1, 2]
    store.record(1, MONDAY + timedelta(hours=1, minutes=2), "20261130-090200-abcd", "All quiet.\nMore")
    assert [r.id for r in store.due(MONDAY.replace(hour=10))] == [2]
    assert store.load()[0].last_result == "All quiet. More" and "last 2026-11-30 09:02" in store.load()[0].line(MONDAY)
    with pytest.raises(ScheduleError):
        store.add(Routine(0, "sometimes", "x", str(tmp_path), MONDAY.isoformat()))
    assert store.remove(1).prompt == "summarise" and [r.id for r in store.load()] == [2]
    with pytest.raises(AnkitError) as caught:
        store.remove(7)
    assert "no routine #7 (routines: #2)" in str(caught.value)
