"""Prints how long session saves, loads and `ankit usage` take on a large history.

Run: PYTHONPATH=. python3 tests/bench/bench_store.py
"""

import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from ankit.records import Message, ToolCall, ToolResult, Usage
from ankit.storage.sessions import SessionData, SessionStore
from ankit.usage.pricing import load_prices
from ankit.usage.ledger import RoundRecord, usage_summary


def big_session(sid: str, turns: int, when: datetime) -> SessionData:
    """A session with `turns` turns of three rounds each and a 4 KB tool result per round."""
    messages, rounds = [], []
    for turn in range(1, turns + 1):
        messages.append(Message("user", f"question {turn} " + "words " * 40))
        for rnd in range(1, 4):
            call = ToolCall(f"c{turn}.{rnd}", "read_file", '{"path": "src/module.py"}')
            messages.append(Message("assistant", "checking", [call]))
            messages.append(Message("tool", results=[ToolResult(call.id, "read_file", "x = 1\n" * 700)]))
            at = (when + timedelta(minutes=turn)).isoformat()
            rounds.append(RoundRecord(turn, rnd, "anthropic", "claude-sonnet-5-5",
                                      Usage(20_000 + turn, 18_000, 1_500, 300, True), 9_000,
                                      ["core", "git"], ["web"], 1.2, [], at))
    return SessionData(sid, when.isoformat(), "/work", "anthropic", "claude-sonnet-5-5", messages, rounds, ["git"])


def timed(label: str, action, repeat: int = 5) -> None:
    """Run `action` `repeat` times and print the best time."""
    best = min(_once(action) for _ in range(repeat))
    print(f"{label:<52} {best * 1000:8.1f} ms")


def _once(action) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def main() -> None:
    folder = Path(tempfile.mkdtemp()) / "sessions"
    store = SessionStore(folder)
    now = datetime(2026, 11, 30, 12, tzinfo=timezone.utc)
    session = big_session("20261130-120000-beef", 200, now)
    timed("save: 200 turns, 1,400 messages, 600 rounds (whole file)", lambda: SessionStore(folder).save(session))
    store.save(session)
    turn = big_session("x", 1, now)

    def one_more_turn() -> None:  # what a round costs at turn 200: the new lines are appended
        session.messages.extend(turn.messages)
        session.rounds.extend(turn.rounds)
        store.save(session)

    timed("save at turn 200 after one more turn (appended)", one_more_turn)
    size = (folder / "20261130-120000-beef.jsonl").stat().st_size
    print(f"{'  file size':<52} {size / 1024:8.0f} KB")
    timed("load by prefix", lambda: store.load("20261130-12"))
    for index in range(100):
        store.save(big_session(f"2026110{index % 9 + 1}-0000{index:02d}-aaaa", 10, now - timedelta(days=index % 30)))
    prices = load_prices()
    timed("ankit usage over 101 sessions", lambda: usage_summary(SessionStore(folder), prices, now), repeat=3)
    timed("/sessions listing over 101 sessions", store.list, repeat=3)


if __name__ == "__main__":
    main()
