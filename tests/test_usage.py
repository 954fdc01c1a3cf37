"""Usage accounting: round records, the ledger, /usage, the status line and `ankit usage`."""

from datetime import datetime, timedelta, timezone

import pytest

from ankit.records import Usage
from ankit.storage.sessions import SessionData, SessionStore
from ankit.usage.pricing import load_prices
from ankit.usage.ledger import Ledger, RoundRecord, render_usage, status_line, total, usage_summary

SONNET = "claude-sonnet-5-5"  # 2 input, 0.10 cached, 2.50 cache write, 10 output (USD per million)


def rec(turn, rnd, usage, sent=("core",), held=("git", "web"), activated=(), model=SONNET, schema=3412,
        at="2026-11-30T10:00:00+00:00"):
    return RoundRecord(turn, rnd, "anthropic", model, usage, schema, list(sent), list(held), 1.5, list(activated), at)


def used(inp, cached, written, out):
    return Usage(inp, cached, written, out, reported=True)


@pytest.fixture(scope="module")
def prices():
    return load_prices()


@pytest.fixture
def session_rounds():
    return [
        rec(1, 1, used(5210, 0, 5000, 120)),
        rec(1, 2, used(5600, 5000, 400, 60), activated=["git"]),
        rec(1, 3, used(6900, 3000, 3800, 95), sent=["core", "git"], held=["web"], schema=4900),
        rec(2, 1, Usage(), sent=["core", "git"], held=["web"], schema=4900),  # the provider sent no usage
        rec(2, 2, used(7400, 6800, 500, 40), sent=["core", "git"], held=["web"], schema=4900),
    ]


def test_round_record_round_trips_through_a_dict():
    record = rec(3, 2, used(10, 5, 2, 1), activated=["web"])
    data = record.to_dict()
    assert data["usage"] == {"input_tokens": 10, "cached_tokens": 5, "cache_write_tokens": 2,
                             "output_tokens": 1, "reported": True}
    assert RoundRecord.from_dict(data) == record


def test_round_record_from_an_older_file_gets_defaults():
    data = {"turn": 1, "round": 1, "provider": "openai", "model": "gpt-4.1-mini", "usage": {"input_tokens": 7}}
    record = RoundRecord.from_dict(data)
    assert (record.usage, record.activated, record.at, record.schema_bytes) == (Usage(7), [], "", 0)


@pytest.mark.parametrize("data", [{}, {"turn": "x", "round": 1, "provider": "p", "model": "m", "usage": {}},
                                  {"turn": 1, "round": 1, "provider": "p", "model": "m", "usage": 5}])
def test_malformed_round_record_is_a_value_error(data):
    with pytest.raises(ValueError):
        RoundRecord.from_dict(data)


def test_ledger_totals_are_exact(session_rounds):
    ledger = Ledger()
    for record in session_rounds:
        ledger.add(record)
    assert total(ledger.turn_rounds()) == used(7400, 6800, 500, 40)
    assert total(ledger.turn_rounds(1)) == used(17710, 8000, 9200, 275)
    assert total(ledger.rounds) == used(25110, 14800, 9700, 315)
    assert total(Ledger().rounds) == Usage()


def test_render_usage_whole_text(session_rounds, prices):
    # Costs by hand (USD per million): 1.1 = 210x2 + 5000x2.5 + 120x10 = 14,120;
    # 1.2 = 200x2 + 5000x0.1 + 400x2.5 + 60x10 = 2,500; 1.3 = 100x2 + 3000x0.1 + 3800x2.5 + 95x10 = 10,950;
    # 2.2 = 100x2 + 6800x0.1 + 500x2.5 + 40x10 = 2,530. Turn 2: $0.00253, session: $0.0301.
    # Round 1.1 writes the cache first; 1.3 follows the activation of git and reads less than 1.2 had cached.
    assert render_usage(Ledger(session_rounds), prices) == """\
                 last turn (2)  session
rounds                       2        5
input tokens             7,400   25,110
  cached (read)          6,800   14,800
  cache writes             500    9,700
output tokens               40      315
estimated cost         $0.0025  $0.0301
1 round without a usage report from the provider: shown as n/a, not counted.

round  prompt  cached  writes  output  schema  sent       held      note
1.1     5,210       0   5,000     120   3,412  core       git, web  ! rewrite: first request
1.2     5,600   5,000     400      60   3,412  core       git, web  +git
1.3     6,900   3,000   3,800      95   4,900  core, git  web       ! rewrite: activation
2.1       n/a     n/a     n/a     n/a   4,900  core, git  web
2.2     7,400   6,800     500      40   4,900  core, git  web
+group: activated by that round's tool calls (sent from the next round on)
! rewrite: the prompt cache was written anew (read less than the round before had cached), and why"""


def test_unknown_price_is_said_never_guessed(prices):
    rounds = [rec(1, 1, used(1000, 0, 0, 100), model="llama3.2", held=[]),
              rec(2, 1, used(2000, 0, 0, 10), model="gpt-4.1-mini", held=[], sent=[])]
    # gpt-4.1-mini: 2000 x 0.4 + 10 x 1.6 = 816 per million
    assert render_usage(Ledger(rounds), prices) == """\
                 last turn (2)      session
rounds                       1            2
input tokens             2,000        3,000
  cached (read)              0            0
  cache writes               0            0
output tokens               10          110
estimated cost         $0.0008  $0.0008 + ?
? price unknown for llama3.2 (not counted): add [prices."llama3.2"] input = …, output = … to the config

round  model         prompt  cached  writes  output  schema  sent  held  note
1.1    llama3.2       1,000       0       0     100   3,412  core  -
2.1    gpt-4.1-mini   2,000       0       0      10   3,412  -     -"""
    only_unknown = render_usage(Ledger(rounds[:1]), prices).splitlines()
    assert only_unknown[6] == "estimated cost   price unknown  price unknown"
    assert only_unknown[7].startswith("? price unknown for llama3.2 (not counted)")


def test_long_group_lists_are_shortened(prices):
    rounds = [rec(1, 1, used(10, 0, 0, 1), held=["a", "b", "c", "d", "e"])]
    assert "a, b, c +2" in render_usage(Ledger(rounds), prices)


def test_render_without_rounds(prices):
    assert render_usage(Ledger(), prices) == "No rounds yet in this session."


def test_status_line(session_rounds):
    turn_one = session_rounds[:3]
    assert status_line(turn_one, 4.23) == "4.2s · claude-sonnet-5-5 · 17.7k in (45% cached, 9.2k written) · 275 out"
    plain = [rec(1, 1, used(12_345, 10_740, 0, 412))]
    assert status_line(plain, 4.2) == "4.2s · claude-sonnet-5-5 · 12.3k in (87% cached) · 412 out"
    big = [rec(1, 1, used(1_234_567, 0, 0, 1000))]
    assert status_line(big, 61) == "61.0s · claude-sonnet-5-5 · 1.23M in (0% cached) · 1.0k out"
    assert status_line([rec(1, 1, Usage())], 0.5) == "0.5s · claude-sonnet-5-5 · usage n/a"
    assert status_line([], 0.04) == "0.0s · usage n/a"


def save_session(store, sid, created, rounds):
    store.save(SessionData(sid, created, "/work", "anthropic", rounds[0].model, [], rounds, []))


def test_usage_summary_over_saved_sessions(tmp_path, prices):
    folder = tmp_path / "sessions"
    store = SessionStore(folder)
    now = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
    # today: gpt-4.1-mini 2000x0.4 + 8000x0.1 + 500x1.6 = 2,400 per million
    save_session(store, "20261130-090000-aaaa", "2026-11-30T09:00:00+00:00",
                 [rec(1, 1, used(10_000, 8_000, 0, 500), model="gpt-4.1-mini", at="2026-11-30T09:01:00+00:00")])
    # four days ago: 2000x2 + 18000x2.5 + 1000x10 = 59,000 per million
    save_session(store, "20261126-100000-bbbb", "2026-11-26T10:00:00+00:00",
                 [rec(1, 1, used(20_000, 0, 18_000, 1_000), at="2026-11-26T10:00:30+00:00")])
    # two months ago, one round dated only by its session (no "at"); llama3.2 has no price;
    # gpt-4.1-mini 1000x0.4 + 100x1.6 = 560 per million
    save_session(store, "20261001-080000-cccc", "2026-10-01T08:00:00+00:00",
                 [rec(1, 1, used(3_000, 0, 0, 200), model="llama3.2", at=""),
                  rec(1, 2, used(1_000, 0, 0, 100), model="gpt-4.1-mini", at="2026-10-01T08:00:09+00:00")])
    assert usage_summary(SessionStore(folder), prices, now) == f"""\
3 saved sessions in {folder}

period       rounds   input  cached  cache writes  output  estimated cost
today             1  10,000   8,000             0     500         $0.0024
last 7 days       2  30,000   8,000        18,000   1,500         $0.0614
all time          4  34,000   8,000        18,000   1,800     $0.0620 + ?

model              rounds   input  cached  cache writes  output  estimated cost
claude-sonnet-5-5       1  20,000       0        18,000   1,000         $0.0590
gpt-4.1-mini            2  11,000   8,000             0     600         $0.0030
llama3.2                1   3,000       0             0     200   price unknown

session               rounds   input  read from cache  cache rewrites
20261130-090000-aaaa       1  10,000              80%  -
20261126-100000-bbbb       1  20,000               0%  1 first request
20261001-080000-cccc       2   4,000               0%  -
? price unknown for llama3.2 (not counted): add [prices."llama3.2"] input = …, output = … to the config"""


def test_usage_summary_days_follow_the_clock_of_now(tmp_path, prices):
    folder = tmp_path / "s"
    # 23:30 UTC on the 29th is already the 30th at UTC+1
    save_session(SessionStore(folder), "20261129-233000-dddd", "2026-11-29T23:30:00+00:00",
                 [rec(1, 1, used(100, 0, 0, 10), at="2026-11-29T23:30:00+00:00")])
    utc_now = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)
    plus_one_now = datetime(2026, 11, 30, 9, 0, tzinfo=timezone(timedelta(hours=1)))
    assert "\ntoday             0 " in usage_summary(SessionStore(folder), prices, utc_now)
    assert "\ntoday             1 " in usage_summary(SessionStore(folder), prices, plus_one_now)


def test_usage_summary_with_nothing_saved(tmp_path, prices):
    folder = tmp_path / "none"
    now = datetime(2026, 11, 30, tzinfo=timezone.utc)
    assert usage_summary(SessionStore(folder), prices, now) == f"0 saved sessions in {folder}: no usage recorded yet."


def test_usage_summary_says_how_many_rounds_had_no_report(tmp_path, prices):
    folder = tmp_path / "s"
    save_session(SessionStore(folder), "20261130-090000-eeee", "2026-11-30T09:00:00+00:00",
                 [rec(1, 1, used(100, 0, 0, 10)), rec(1, 2, Usage()), rec(2, 1, Usage())])
    text = usage_summary(SessionStore(folder), prices, datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc))
    assert next(line for line in text.splitlines() if line.startswith("all time")).split()[2:4] == ["3", "100"]
    assert text.endswith("\n2 of the rounds had no usage report from the provider: not counted.")


def test_usage_shows_the_last_ten_rounds_and_says_how_many_are_left_out(prices):
    rounds = [rec(turn, 1, used(1000 + turn, 0, 0, 10)) for turn in range(1, 13)]
    text = render_usage(Ledger(rounds), prices)
    assert "… 2 earlier rounds (/usage all)" in text
    assert "\n1.1 " not in text and "\n2.1 " not in text and "\n3.1 " in text and "\n12.1 " in text
    every = render_usage(Ledger(rounds), prices, every=True)
    assert "earlier rounds" not in every and "\n1.1 " in every


def test_usage_texts_fit_the_width_and_notes_wrap_at_spaces(tmp_path, prices, session_rounds):
    unknown = session_rounds + [rec(3, 1, used(10, 0, 0, 1), model="a-model-without-any-price-at-all")]
    for width in (40, 60, 80):
        lines = render_usage(Ledger(unknown), prices, width).splitlines()
        assert all(len(line) <= width or len(line.split()) == 1 for line in lines), width  # a word is never cut
        assert "? price unknown for a-model-without-any-price-at-all (not counted)" in " ".join(l.strip() for l in lines)
    store = SessionStore(tmp_path)
    store.save(SessionData("s1", "2026-11-30T10:00:00+00:00", "/w", "anthropic", SONNET, rounds=unknown))
    text = usage_summary(store, prices, datetime(2026, 11, 30, 12, 0), width=50)
    assert all(len(line) <= 50 or len(line.split()) == 1 for line in text.splitlines())


def test_each_subagent_run_has_its_own_line(prices):
    from ankit.usage.ledger import subagent_lines
    lines = subagent_lines([("2. find retries", [rec(1, 1, used(18_000, 0, 0, 600)), rec(1, 2, used(204, 0, 0, 11))]),
                            ("2. review (reviewer)", [rec(1, 1, used(12_930, 0, 0, 402))])], prices)
    assert lines[0].split() == ["subagent", "rounds", "input", "output", "cost"]
    assert lines[1].split()[:6] == ["2.", "find", "retries", "2", "18,204", "611"]
    assert lines[2].split()[:6] == ["2.", "review", "(reviewer)", "1", "12,930", "402"]
    assert lines[1].split()[-1].startswith("$") and subagent_lines([], prices) == []


def test_usage_summary_counts_the_rounds_of_subagents(tmp_path, prices):
    from ankit.records import SubagentRun
    folder = tmp_path / "sessions"
    data = SessionData("20261130-090000-eeee", "2026-11-30T09:00:00+00:00", "/work", "anthropic", SONNET, [],
                       [rec(1, 1, used(1_000, 0, 0, 10), at="2026-11-30T09:01:00+00:00")], [])
    data.subagents = [SubagentRun("20261130-090001-ffff", 1, "find it", "", [],
                                  [rec(1, 1, used(2_000, 0, 0, 20), at="2026-11-30T09:00:40+00:00")])]
    SessionStore(folder).save(data)
    shown = usage_summary(SessionStore(folder), prices, datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc))
    assert "\ntoday             2  3,000 " in shown and "\nall time          2  3,000 " in shown
